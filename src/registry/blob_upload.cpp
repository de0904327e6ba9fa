#include "registry/blob_upload.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <optional>
#include <thread>

#include "registry/errors.hpp"
#include "net/url.hpp"
#include "util/error.hpp"
#include "util/transfer_progress.hpp"

namespace rp::registry {

namespace {

std::string short_digest(const std::string& d) { return d.substr(0, 19); }

class Uploader {
 public:
  void set_progress(Transfer* transfer) { transfer_ = transfer; }
  Uploader(Transport& t, const std::string& repository, const BlobSource& blob, const RegistryOptions& o)
      : t_(t), repo_(repository), blob_(blob), options_(o), scopes_{repository_scope(repository, "pull,push")} {}

  bool exists() {
    net::HttpRequest req;
    req.method = "HEAD";
    req.url = "/v2/" + repo_ + "/blobs/" + blob_.digest;
    net::HttpResponse r = t_.send(req, scopes_);
    if (r.status == 200) return true;
    if (r.status == 404) return false;
    throw registry_error(r, "checking for blob " + short_digest(blob_.digest) + " in " + where(), t_.registry());
  }

  bool mount(const std::string& from) {
    net::HttpRequest req;
    req.method = "POST";
    req.url = net::add_query(net::add_query("/v2/" + repo_ + "/blobs/uploads/", "mount", blob_.digest), "from", from);
    Scopes scopes = scopes_;
    scopes.push_back(repository_scope(from, "pull"));
    net::HttpResponse r = t_.send(req, scopes);
    if (r.status == 201) return true;
    // 202: the registry could not mount and opened an ordinary upload instead; use it.
    if (r.status == 202)
      if (auto loc = r.header("location")) location_ = net::resolve_url(r.url, *loc);
    spdlog::debug("mount of {} from {} into {}: {}", short_digest(blob_.digest), from, repo_, r.status);
    return false;
  }

  void upload() {
    if (blob_.memory || blob_.size <= options_.monolithic_limit) {
      upload_monolithic();
    } else {
      upload_chunked();
    }
  }

 private:
  std::string where() const { return t_.registry() + "/" + repo_; }
  std::string what() const { return "upload of blob " + short_digest(blob_.digest) + " to " + where(); }

  void start_session() {
    net::HttpRequest req;
    req.method = "POST";
    req.url = "/v2/" + repo_ + "/blobs/uploads/";
    net::HttpResponse r = t_.send(req, scopes_);
    auto loc = r.header("location");
    if (r.status != 202 || !loc) throw registry_error(r, "starting the " + what(), t_.registry());
    location_ = net::resolve_url(r.url, *loc);
    // A registry may ask for a minimum chunk size (OCI-Chunk-Min-Length); chunks smaller than that are refused.
    if (auto min = r.header("oci-chunk-min-length")) {
      try {
        chunk_size_ = std::max<uint64_t>(chunk_size_, std::stoull(*min));
      } catch (const std::exception&) {
      }
    }
  }

  void set_body(net::HttpRequest& req, uint64_t offset, uint64_t length) const {
    if (transfer_) {
      Transfer* t = transfer_;
      req.on_progress = [t, offset](uint64_t, uint64_t, uint64_t up, uint64_t) { t->update(offset + up); };
    }
    if (blob_.memory) {
      req.body = blob_.memory->substr(offset, length);
    } else {
      req.file = net::FileRange{blob_.file, offset, length};
    }
  }

  // Whether the registry now has the blob (after a PUT whose answer was lost).
  bool arrived() {
    try {
      return exists();
    } catch (const rp::Error&) {
      return false;
    }
  }

  // The closing PUT (with the whole body for a monolithic upload). Not retried here: the callers
  // know whether to resend everything or to ask the registry what it has.
  net::HttpResponse finish(net::HttpRequest& put) {
    put.method = "PUT";
    put.url = net::add_query(location_, "digest", blob_.digest);
    put.headers.emplace_back("Content-Type", "application/octet-stream");
    SendOptions so;
    so.retry = false;
    return t_.send(put, scopes_, so);
  }

  static bool created(const net::HttpResponse& r) { return r.status == 201 || r.status == 204; }

  // POST + PUT with the whole blob, retried as a unit (GGCR does the same).
  void upload_monolithic() {
    for (int attempt = 1;; ++attempt) {
      std::string error;
      std::optional<std::string> retry_after;
      try {
        if (location_.empty()) start_session();
        net::HttpRequest put;
        set_body(put, 0, blob_.size);
        net::HttpResponse r = finish(put);
        if (created(r)) return;
        if (!net::is_retryable_status(r.status)) throw registry_error(r, "completing the " + what(), t_.registry());
        error = "the registry answered " + std::to_string(r.status);
        retry_after = r.header("retry-after");
      } catch (const net::TransportError& e) {
        error = e.what();
      }
      location_.clear();
      if (attempt >= options_.retry.max_attempts) {
        if (arrived()) return;
        throw rp::Error(what() + " failed after " + std::to_string(attempt) + " attempts: " + error,
                        "run the push again: blobs that arrived are not sent again");
      }
      auto delay = net::retry_delay(options_.retry, attempt, retry_after);
      spdlog::info("{}: {}; retrying in {} ms", what(), error, delay.count());
      // Whether the blob arrived after all is asked after the wait, not before: a registry that
      // answered 429/503 with Retry-After gets no request before that time (the flaky-network drill).
      std::this_thread::sleep_for(delay);
      if (arrived()) return;
    }
  }

  // Asks the registry how much of the upload it has. Returns false when the session is gone.
  bool query_offset(uint64_t& offset) {
    net::HttpRequest req;
    req.url = location_;
    net::HttpResponse r = t_.send(req, scopes_);
    if (r.status != 204 && r.status != 200) return false;
    if (auto loc = r.header("location")) location_ = net::resolve_url(r.url, *loc);
    auto range = r.header("range");
    offset = range ? parse_upload_range(*range) : 0;
    return true;
  }

  void upload_chunked() {
    uint64_t offset = 0;
    int failures = 0;  // consecutive failures without progress
    if (location_.empty()) start_session();
    while (true) {
      std::string error;
      std::optional<std::string> retry_after;
      if (offset < blob_.size) {
        uint64_t len = std::min<uint64_t>(chunk_size_, blob_.size - offset);
        net::HttpRequest patch;
        patch.method = "PATCH";
        patch.url = location_;
        patch.headers.emplace_back("Content-Type", "application/octet-stream");
        patch.headers.emplace_back("Content-Range", std::to_string(offset) + "-" + std::to_string(offset + len - 1));
        set_body(patch, offset, len);
        SendOptions so;
        so.retry = false;  // on failure the registry is asked what arrived, below
        try {
          net::HttpResponse r = t_.send(patch, scopes_, so);
          if (r.status == 202) {
            if (auto loc = r.header("location")) location_ = net::resolve_url(r.url, *loc);
            auto range = r.header("range");
            offset = range ? parse_upload_range(*range) : offset + len;
            failures = 0;
            continue;
          }
          if (r.status != 416 && !net::is_retryable_status(r.status)) throw registry_error(r, what(), t_.registry());
          error = "the registry answered " + std::to_string(r.status);
          retry_after = r.header("retry-after");
        } catch (const net::TransportError& e) {
          error = e.what();
        }
      } else {
        net::HttpRequest put;
        try {
          net::HttpResponse r = finish(put);
          if (created(r)) return;
          if (!net::is_retryable_status(r.status)) throw registry_error(r, "completing the " + what(), t_.registry());
          error = "the registry answered " + std::to_string(r.status);
          retry_after = r.header("retry-after");  // the closing PUT's Retry-After counts too
        } catch (const net::TransportError& e) {
          error = e.what();
          if (arrived()) return;
        }
      }

      if (++failures >= options_.retry.max_attempts)
        throw rp::Error(what() + " failed after " + std::to_string(failures) + " attempts: " + error,
                        "run the push again: blobs that arrived are not sent again");
      std::this_thread::sleep_for(net::retry_delay(options_.retry, failures, retry_after));
      uint64_t had = offset;
      if (!query_offset(offset)) {
        // The registry dropped the session (distribution does so when a chunk broke off midway).
        spdlog::info("{}: {}; the registry lost the upload session, starting again", what(), error);
        start_session();
        offset = 0;
      } else {
        spdlog::info("{}: {}; resuming at byte {} of {}", what(), error, offset, blob_.size);
      }
      if (offset > had) failures = 0;  // progress was made after all
    }
  }

  Transport& t_;
  std::string repo_;
  const BlobSource& blob_;
  const RegistryOptions& options_;
  Scopes scopes_;
  std::string location_;
  Transfer* transfer_ = nullptr;  // reports the bytes sent, when set
  uint64_t chunk_size_ = options_.chunk_size;
};

}  // namespace

uint64_t parse_upload_range(const std::string& value) {
  std::string v = value;
  if (v.starts_with("bytes=")) v = v.substr(6);
  auto dash = v.find('-');
  if (dash == std::string::npos) return 0;
  try {
    uint64_t start = std::stoull(v.substr(0, dash));
    uint64_t end = std::stoull(v.substr(dash + 1));
    if (start != 0 || end == 0) return 0;
    return end + 1;
  } catch (const std::exception&) {
    return 0;
  }
}

UploadOutcome upload_blob(Transport& transport, const std::string& repository, const BlobSource& source,
                          const std::vector<std::string>& mount_from, const RegistryOptions& options) {
  BlobSource blob = source;  // the uploader sees `file` once fetch_file has brought the bytes
  Uploader up(transport, repository, blob, options);
  if (up.exists()) return UploadOutcome::kExisted;
  for (const auto& from : mount_from) {
    if (from == repository) continue;
    if (up.mount(from)) return UploadOutcome::kMounted;
    break;  // one try: a 202 opened an upload session we now use
  }
  if (!blob.memory && blob.file.empty()) {
    if (!blob.fetch_file) throw rp::Error("blob " + blob.digest + " has no bytes to upload");
    blob.file = blob.fetch_file();
  }
  Transfer transfer(TransferKind::kUpload, "blob " + blob.digest.substr(7, 12) + " (" + repository + ")", blob.size);
  up.set_progress(&transfer);
  up.upload();
  transfer.update(blob.size);
  transfer.finish();
  return UploadOutcome::kUploaded;
}

}  // namespace rp::registry
