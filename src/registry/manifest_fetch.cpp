#include "registry/manifest_fetch.hpp"

#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>

#include "image/media_types.hpp"
#include "registry/errors.hpp"
#include "util/digest.hpp"
#include "util/error.hpp"
#include "util/transfer_progress.hpp"

namespace rp::registry {

FetchedManifest fetch_manifest(Transport& transport, const std::string& repository, const std::string& identifier) {
  net::HttpRequest req;
  req.url = "/v2/" + repository + "/manifests/" + identifier;
  req.headers.emplace_back("Accept", std::string(media::kOciIndex) + ", " + media::kOciManifest + ", " +
                                         media::kDockerManifestList + ", " + media::kDockerManifest);
  req.max_body = 4u << 20;  // distribution's manifest limit; more is not a manifest
  std::string what = "fetching manifest " + identifier + " of " + transport.registry() + "/" + repository;
  net::HttpResponse r = transport.send(req, {repository_scope(repository, "pull")});
  if (!r.ok()) throw registry_error(r, what, transport.registry());

  FetchedManifest m;
  m.bytes = std::move(r.body);
  m.digest = sha256_digest(m.bytes);
  if (is_valid_digest(identifier) && m.digest != identifier)
    throw rp::Error(what + ": the registry sent a manifest with digest " + m.digest,
                    "the registry or something between it and you altered the manifest");
  auto j = nlohmann::json::parse(m.bytes, nullptr, false);
  if (j.is_discarded() || !j.is_object()) throw rp::Error(what + ": the manifest is not a JSON object");
  m.media_type = j.value("mediaType", "");
  if (m.media_type.empty()) {
    // OCI manifests may omit mediaType; the Content-Type header or the shape tells.
    std::string ct = r.header("content-type").value_or("");
    ct = ct.substr(0, ct.find(';'));
    m.media_type = !ct.empty() && ct != "application/json" ? ct
                   : j.contains("manifests")              ? media::kOciIndex
                                                          : media::kOciManifest;
  }
  if (j.value("schemaVersion", 0) == 1 || m.media_type.find("distribution.manifest.v1") != std::string::npos)
    throw rp::Error(what + ": it is a Docker schema 1 manifest, which rockpack does not read",
                    "use an image pushed with a current client (schema 2 or OCI)");
  return m;
}

namespace {

// The destination of one blob download across attempts. A transfer that broke off keeps what
// arrived; the next attempt asks for the rest with a Range request, and starts over only when the
// server answers with the whole blob instead (200 rather than 206).
class ResumableDownload final : public ByteSink {
 public:
  explicit ResumableDownload(ContentStore& store) : store_(store) {}
  void write(const void* data, size_t size) override { writer_->write(data, size); }
  using ByteSink::write;
  uint64_t have() const { return writer_ ? writer_->size() : 0; }
  void restart() { writer_ = store_.begin_blob(); }
  std::string commit(const std::string& digest) { return writer_->commit(digest); }

 private:
  ContentStore& store_;
  std::unique_ptr<ContentStore::BlobWriter> writer_;
};

}  // namespace

void fetch_blob(Transport& transport, const std::string& repository, const std::string& digest, ContentStore& store) {
  if (store.contains(digest)) return;
  net::HttpRequest req;
  req.url = "/v2/" + repository + "/blobs/" + digest;
  ResumableDownload download(store);
  Transfer transfer(TransferKind::kDownload, "blob " + digest.substr(7, 12) + " (" + repository + ")");
  req.on_progress = [&transfer, &download](uint64_t down, uint64_t total, uint64_t, uint64_t) {
    // A resumed attempt counts from where the previous one stopped.
    uint64_t before = download.have() >= down ? download.have() - down : 0;
    transfer.update(before + down, total ? before + total : 0);
  };
  SendOptions so;
  so.before_attempt = [&](net::HttpRequest& r) {
    std::erase_if(r.headers, [](const auto& h) { return h.first == "Range"; });
    if (download.have() > 0) {
      spdlog::info("download of blob {} broke off; resuming at byte {}", digest.substr(0, 19), download.have());
      r.headers.emplace_back("Range", "bytes=" + std::to_string(download.have()) + "-");
    } else {
      download.restart();
    }
    r.sink = &download;
    r.before_sink = [&download](long status) {
      if (status != 206) download.restart();  // the whole blob is coming: drop the partial one
    };
  };
  std::string what = "download of blob " + digest + " from " + transport.registry() + "/" + repository;
  net::HttpResponse r = transport.send(req, {repository_scope(repository, "pull")}, so);
  // 416 to a resumed request: the part that arrived may be the whole blob; the digest decides.
  bool complete_already = r.status == 416 && download.have() > 0;
  if (!r.ok() && !complete_already) throw registry_error(r, what, transport.registry());
  try {
    transfer.update(download.have());
    download.commit(digest);
  } catch (const rp::Error& e) {
    throw rp::Error(what + ": " + e.what(), e.hint());
  }
  transfer.finish();
}

}  // namespace rp::registry
