#include "registry/push.hpp"

#include <spdlog/spdlog.h>

#include <functional>
#include <map>
#include <mutex>

#include "registry/blob_locations.hpp"
#include "registry/blob_upload.hpp"
#include "registry/errors.hpp"
#include "util/parallel.hpp"
#include "util/digest.hpp"
#include "util/error.hpp"

namespace rp::registry {

namespace {

// References grouped by repository: the blobs go once to each repository.
std::map<std::string, std::vector<Reference>> by_repository(const std::vector<Reference>& refs) {
  std::map<std::string, std::vector<Reference>> out;
  for (const auto& r : refs) out[r.name()].push_back(r);
  return out;
}

class Pusher {
 public:
  Pusher(const ContentStore& store, Session& session, std::filesystem::path layout_dir = {},
         MissingBlobFetcher fetch_missing = {})
      : store_(store), session_(session), layout_dir_(std::move(layout_dir)), fetch_missing_(std::move(fetch_missing)) {}

  // Uploads config and layers of `image` to `ref`'s repository.
  void push_blobs(const SealedImage& image, const Reference& ref) {
    Transport& t = session_.transport(ref.registry);
    std::vector<BlobSource> sources;
    sources.push_back(BlobSource{image.config.digest, image.config_bytes.size(), {}, &image.config_bytes, {}});
    for (const auto& l : image.layers) {
      // An image may list the same layer twice (e.g. an empty layer); it is uploaded once.
      bool seen = false;
      for (const auto& s : sources) seen = seen || s.digest == l.blob.digest;
      if (seen) continue;
      BlobSource source{l.blob.digest, static_cast<uint64_t>(l.blob.size), {}, nullptr, {}};
      if (layout_dir_.empty() && fetch_missing_ && !store_.contains(l.blob.digest)) {
        // Not here: mounted or found in the repository, else fetched when it must be sent.
        source.fetch_file = [this, digest = l.blob.digest] {
          fetch_missing_(digest);
          return blob_file(digest);
        };
      } else {
        source.file = blob_file(l.blob.digest);
      }
      sources.push_back(std::move(source));
    }
    std::vector<std::function<void()>> jobs;
    for (const auto& src : sources) {
      jobs.push_back([this, &t, &ref, src] {
        auto mount_from = known_repositories(store_, ref.registry, src.digest);
        UploadOutcome outcome = upload_blob(t, ref.repository, src, mount_from, session_.options());
        remember_repository(store_, ref.registry, src.digest, ref.repository);
        std::lock_guard lock(mu_);
        switch (outcome) {
          case UploadOutcome::kExisted: ++stats_.blobs_existing; break;
          case UploadOutcome::kMounted: ++stats_.blobs_mounted; break;
          case UploadOutcome::kUploaded:
            ++stats_.blobs_uploaded;
            stats_.bytes_uploaded += src.size;
            break;
        }
        spdlog::debug("blob {} -> {}: {}", src.digest, ref.name(),
                      outcome == UploadOutcome::kExisted ? "already there"
                      : outcome == UploadOutcome::kMounted ? "mounted"
                                                           : "uploaded");
      });
    }
    rp::run_parallel(jobs, session_.options().parallel);
  }

  // PUT /v2/<repo>/manifests/<tag or digest>.
  // Returns the answer's OCI-Subject header ("" when absent).
  std::string put_manifest(const Reference& ref, const std::string& identifier, const std::string& bytes,
                           const std::string& media_type) {
    Transport& t = session_.transport(ref.registry);
    net::HttpRequest req;
    req.method = "PUT";
    req.url = "/v2/" + ref.repository + "/manifests/" + identifier;
    req.headers.emplace_back("Content-Type", media_type);
    req.body = bytes;
    std::string digest = sha256_digest(bytes);
    std::string what = "push of manifest " + digest + " to " + ref.name() + (is_valid_digest(identifier) ? "@" : ":") + identifier;
    net::HttpResponse r = t.send(req, {repository_scope(ref.repository, "pull,push")});
    if (r.status != 201 && r.status != 200 && r.status != 202) throw registry_error(r, what, ref.registry);
    if (auto d = r.header("docker-content-digest"); d && *d != digest)
      throw rp::Error(what + ": the registry stored it as " + *d,
                      "the registry rewrote the manifest; rockpack does not push to registries that do");
    return r.header("oci-subject").value_or("");
  }

  PushStats stats() const { return stats_; }

 private:
  std::filesystem::path blob_file(const std::string& digest) const {
    std::filesystem::path p = layout_dir_.empty() ? store_.blob_path(digest) : layout_dir_ / "blobs" / "sha256" / digest_hex(digest);
    std::error_code ec;
    if (!std::filesystem::is_regular_file(p, ec))
      throw rp::Error("layer " + digest + " is missing from " + (layout_dir_.empty() ? "the store " + store_.root().string() : layout_dir_.string()),
                      "build or pull the image again");
    return p;
  }

  const ContentStore& store_;
  Session& session_;
  std::filesystem::path layout_dir_;
  MissingBlobFetcher fetch_missing_;
  std::mutex mu_;
  PushStats stats_;
};

std::string identifier_for(const Reference& ref, const std::string& digest) {
  if (ref.has_digest()) {
    if (ref.digest != digest)
      throw InputError("cannot push to " + ref.str() + ": the image's digest is " + digest,
                       "push to a tag, or to the image's own digest");
    return digest;
  }
  return ref.has_tag() ? ref.tag : kDefaultTag;
}

std::string pushed_name(const Reference& ref, const std::string& digest) {
  return ref.name() + (ref.has_tag() || !ref.has_digest() ? ":" + (ref.has_tag() ? ref.tag : std::string(kDefaultTag)) : "") +
         "@" + digest;
}

}  // namespace

PushResult push_image(const SealedImage& image, const ContentStore& store, const std::vector<Reference>& references,
                      Session& session, const std::filesystem::path& layout_dir, const MissingBlobFetcher& fetch_missing) {
  Pusher pusher(store, session, layout_dir, fetch_missing);
  PushResult result;
  result.digest = image.manifest.digest;
  for (const auto& [name, refs] : by_repository(references)) {
    pusher.push_blobs(image, refs.front());
    // Manifests only after all their blobs are there (else MANIFEST_BLOB_UNKNOWN).
    for (const auto& ref : refs) {
      result.oci_subject = pusher.put_manifest(ref, identifier_for(ref, result.digest), image.manifest_bytes, image.manifest.media_type);
      result.pushed.push_back(pushed_name(ref, result.digest));
    }
  }
  result.stats = pusher.stats();
  return result;
}

PushResult push_image(const SealedImage& image, const ContentStore& store, const std::vector<Reference>& references,
                      const RegistryOptions& options) {
  Session session(options);
  return push_image(image, store, references, session);
}

PushResult push_index(const std::string& index_bytes, const std::string& media_type,
                      const std::vector<SealedImage>& children, const ContentStore& store,
                      const std::vector<Reference>& references, Session& session,
                      const std::filesystem::path& layout_dir) {
  Pusher pusher(store, session, layout_dir);
  PushResult result;
  result.digest = sha256_digest(index_bytes);
  for (const auto& [name, refs] : by_repository(references)) {
    const Reference& first = refs.front();
    for (const auto& child : children) {
      pusher.push_blobs(child, first);
      pusher.put_manifest(first, child.manifest.digest, child.manifest_bytes, child.manifest.media_type);
    }
    for (const auto& ref : refs) {
      pusher.put_manifest(ref, identifier_for(ref, result.digest), index_bytes, media_type);
      result.pushed.push_back(pushed_name(ref, result.digest));
    }
  }
  result.stats = pusher.stats();
  return result;
}

}  // namespace rp::registry
