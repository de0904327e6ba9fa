#include "fetch/downloader.hpp"

#include <atomic>
#include <mutex>
#include <thread>

#include "net/http_retry.hpp"
#include "net/retry.hpp"
#include "net/url.hpp"
#include "util/digest.hpp"
#include "util/error.hpp"
#include "util/parallel.hpp"
#include "util/transfer_progress.hpp"

namespace rp {

namespace {

bool is_file_url(const std::string& url) { return url.rfind("file://", 0) == 0; }

std::string expected_digest(const DownloadJob& job) { return job.sha256.empty() ? "" : "sha256:" + job.sha256; }

// A download that brought more bytes than its index or lock vouched for. Not retried: the source
// is wrong (or hostile), not the connection.
class TooLarge : public Error {
 public:
  using Error::Error;
};

// Passes bytes to the blob writer until there are more than `limit`, then throws TooLarge: an
// endless or oversized stream stops at the size it should have, not when the disk is full.
class SizeBoundSink final : public ByteSink {
 public:
  SizeBoundSink(ByteSink& inner, const DownloadJob& job)
      : inner_(inner), job_(job), limit_(job.size.value_or(kMaxUnvouchedDownload)) {}
  void write(const void* data, size_t n) override {
    count(n);
    inner_.write(data, n);
  }
  void write_shared(const std::shared_ptr<const std::string>& bytes) override {
    count(bytes->size());
    inner_.write_shared(bytes);
  }
  bool overflowed() const { return overflowed_; }
  // The error count() threw, again with its hint (curl passes on only the message).
  TooLarge error() const { return make_error(); }

 private:
  void count(size_t n) {
    written_ += n;
    if (written_ <= limit_) return;
    overflowed_ = true;
    throw make_error();
  }
  TooLarge make_error() const {
    return TooLarge(job_.what + " from " + net::redact_url(job_.url) + " is larger than the " + std::to_string(limit_) +
                       " bytes " + (job_.size ? "its index or lock says it has" : "any download may take") +
                       "; stopped after " + std::to_string(written_) + " bytes",
                   job_.size ? "the source serves another file than it lists (or an endless stream); nothing from it was "
                               "stored or installed"
                             : "nothing from it was stored or installed");
  }
  ByteSink& inner_;
  const DownloadJob& job_;
  uint64_t limit_;
  uint64_t written_ = 0;
  bool overflowed_ = false;
};

// A file:// URL: copied through the store's hashing writer like any download.
DownloadResult copy_local(ContentStore& store, const DownloadJob& job) {
  fs::path path = job.url.substr(7);
  // Only regular files: a device (/dev/zero) or a FIFO never ends, and its "digest" says nothing.
  std::error_code ec;
  if (!fs::is_regular_file(path, ec))
    throw InputError(job.what + ": " + path.string() + " is not a regular file", "a file:// URL must name a file");
  auto writer = store.begin_blob();
  SizeBoundSink bounded(*writer, job);
  stream_file(path, bounded);
  DownloadResult r;
  r.size = writer->size();
  r.digest = writer->commit(expected_digest(job));
  r.downloaded = true;
  return r;
}

// What the store knows of a URL whose file no hash vouches for (`verify: tls-only`): the server's
// validators (ETag, Last-Modified) of the copy that was downloaded, and that copy's digest, computed
// when it arrived. A warm build asks the server whether the file changed (a conditional GET) instead
// of downloading it again; the store stays content-addressed, this is only a URL -> blob map.
struct Validated {
  std::string etag;
  std::string last_modified;
  std::string digest;  // "sha256:<hex>" of the stored copy
  uint64_t size = 0;
};

constexpr const char* kValidatorRecord = "url-validator";

// The record's key is a hash of the URL: a URL with credentials in it is never written to disk.
std::string validator_key(const std::string& url) { return "sha256:" + sha256_hex(url); }

// Only files no hash vouches for: a hashed file is found in the store by its digest already.
bool revalidatable(const DownloadJob& job) { return job.sha256.empty() && !is_file_url(job.url); }

std::optional<Validated> stored_validators(const ContentStore& store, const DownloadJob& job) {
  auto j = store.get_record(kValidatorRecord, validator_key(job.url));
  if (!j || !j->is_object()) return std::nullopt;
  Validated v;
  v.etag = j->value("etag", "");
  v.last_modified = j->value("last_modified", "");
  v.digest = j->value("digest", "");
  v.size = j->value("size", uint64_t{0});
  // A record whose blob was pruned (or that names nothing to ask with) is no use: download again.
  if ((v.etag.empty() && v.last_modified.empty()) || v.digest.rfind("sha256:", 0) != 0 || !store.contains(v.digest))
    return std::nullopt;
  // The index now lists another size than the stored copy has: that copy is not the file.
  if (job.size && *job.size != store.blob_size(v.digest)) return std::nullopt;
  return v;
}

// The answer's validators, remembered with the digest of what was stored; a server that sends none
// leaves nothing to ask with next time.
void remember_validators(const ContentStore& store, const DownloadJob& job, const net::Headers& response,
                         const DownloadResult& stored) {
  Validated v;
  for (const auto& [name, value] : response) {
    if (name == "etag" && v.etag.empty()) v.etag = value;
    if (name == "last-modified" && v.last_modified.empty()) v.last_modified = value;
  }
  if (v.etag.empty() && v.last_modified.empty()) return;
  store.put_record(kValidatorRecord, validator_key(job.url),
                   {{"url", net::redact_url(job.url)}, {"etag", v.etag}, {"last_modified", v.last_modified},
                    {"digest", stored.digest}, {"size", stored.size}});
}

// One HTTP attempt. Returns the status when the server answered with something other than 2xx
// (and its Retry-After in `retry_after`). `conditional`: the validators of the stored copy, sent
// as If-None-Match / If-Modified-Since (a 304 then means that copy is still the file). The
// response's headers go to `response_headers`.
std::optional<long> try_fetch(ContentStore& store, const DownloadJob& job, const DownloadOptions& options,
                              DownloadResult& out, std::optional<std::string>& retry_after,
                              const Validated* conditional = nullptr, net::Headers* response_headers = nullptr) {
  auto writer = store.begin_blob();
  Transfer transfer(TransferKind::kDownload, job.what);
  net::HttpRequest req;
  req.url = job.url;
  req.headers = job.headers;
  if (conditional && !conditional->etag.empty()) req.headers.emplace_back("If-None-Match", conditional->etag);
  if (conditional && !conditional->last_modified.empty())
    req.headers.emplace_back("If-Modified-Since", conditional->last_modified);
  SizeBoundSink bounded(*writer, job);
  req.sink = &bounded;
  req.verify_tls = options.verify_tls;
  req.on_progress = [&transfer](uint64_t down, uint64_t total, uint64_t, uint64_t) { transfer.update(down, total); };
  net::HttpResponse resp;
  try {
    resp = net::perform(req);
  } catch (const Error& e) {
    // The sink's TooLarge comes back through curl as a plain Error with its message: say it again
    // with its hint, and never as a broken connection (which would be retried).
    if (bounded.overflowed()) throw bounded.error();
    throw;
  }
  if (response_headers) *response_headers = resp.headers;
  if (!resp.ok()) {
    retry_after = resp.header("retry-after");
    return resp.status;
  }
  out.size = writer->size();
  out.digest = writer->commit(expected_digest(job));
  out.downloaded = true;
  transfer.update(out.size);
  transfer.finish();
  return std::nullopt;
}

DownloadResult fetch_one(ContentStore& store, const DownloadJob& job, const DownloadOptions& options) {
  if (is_file_url(job.url)) return copy_local(store, job);
  std::optional<Validated> known = revalidatable(job) ? stored_validators(store, job) : std::nullopt;
  // The one retry policy (net/retry.hpp), as registries and index pages use it: transient statuses
  // and broken connections retried with backoff and jitter, the server's Retry-After honoured.
  net::RetryPolicy policy;
  policy.max_attempts = options.max_attempts;
  for (int attempt = 1;; ++attempt) {
    DownloadResult result;
    std::optional<long> status;
    std::optional<std::string> retry_after;
    net::Headers response;
    try {
      status = try_fetch(store, job, options, result, retry_after, known ? &*known : nullptr, &response);
      if (!status) {
        if (revalidatable(job)) remember_validators(store, job, response, result);
        return result;
      }
      // Not modified since the copy in the store was downloaded: that copy is the file.
      if (*status == 304 && known) return {known->digest, store.blob_size(known->digest), false};
    } catch (const net::TransportError& e) {
      if (e.tls_failure() || policy.max_attempts <= 1) throw;
      if (attempt >= policy.max_attempts)
        throw net::TransportError("downloading " + job.what + " failed: " + e.what() + net::attempts_note(attempt),
                                  false, "the connection kept breaking; check the network and run the build again "
                                  "(what was downloaded is kept)");
    }
    bool server_asks_too_much = false;
    if (status && retry_after) {
      auto asked = net::parse_retry_after(*retry_after);
      server_asks_too_much = asked && *asked > policy.max_retry_after;
    }
    if (status && (!net::is_retryable_status(*status) || attempt >= policy.max_attempts || server_asks_too_much)) {
      std::string hint = *status == 401 || *status == 403
                             ? "check the index credentials (netrc or the recipe's username_env/password_env)"
                         : net::is_retryable_status(*status)
                             ? "the server kept failing; try again later (a rerun downloads only what is missing)"
                             : "check that the file still exists on the index";
      throw Error("downloading " + job.what + " from " + net::redact_url(job.url) + " failed: HTTP " +
                      std::to_string(*status) + net::attempts_note(attempt),
                  hint);
    }
    std::this_thread::sleep_for(net::retry_delay(policy, attempt, retry_after));
  }
}

}  // namespace

std::vector<DownloadResult> download_all(ContentStore& store, const std::vector<DownloadJob>& jobs,
                                         const DownloadOptions& options, DownloadStats* stats,
                                         const DownloadReady& on_ready) {
  std::vector<DownloadResult> results(jobs.size());
  std::mutex mu;
  DownloadStats local;
  std::vector<std::function<void()>> work;
  for (size_t i = 0; i < jobs.size(); ++i) {
    work.push_back([&, i] {
      const DownloadJob& job = jobs[i];
      if (options.before_fetch) options.before_fetch(i);
      std::string expected = expected_digest(job);
      DownloadResult r;
      std::optional<Validated> known;
      if (!expected.empty() && store.contains(expected)) {
        r.digest = expected;
        r.size = store.blob_size(expected);
      } else if (options.store_only && revalidatable(job) && (known = stored_validators(store, job))) {
        // --store-only asks no server: the copy of this unhashed file that the store has is used.
        r.digest = known->digest;
        r.size = store.blob_size(known->digest);
      } else if (options.store_only) {
        throw Error(job.what + " is not in the store (" + store.root().string() + "), and --store-only fetches nothing",
                    "build once without --store-only (with the network) to fill the store, or use --cache-dir "
                    "with a store that holds it");
      } else {
        try {
          r = fetch_one(store, job, options);
        } catch (const DigestMismatch& e) {
          // A local file's digest is not repeated: the URL may name any file the build can read
          // (a hand-edited lock), and its hash would leak into the log.
          if (is_file_url(job.url))
            throw Error(job.what + " (" + job.url + ") does not have the sha256 " + job.sha256 + " that was expected",
                        "the local file is not the one that was pinned or locked; nothing from it was installed");
          // Exit 1, not 2: the input (the pin) may well be right; the bytes that came are wrong.
          throw Error(job.what + " from " + net::redact_url(job.url) + " has sha256 " +
                               digest_hex(e.actual()) + ", but " + job.sha256 + " was expected",
                           "the file changed on the server or the recorded hash is wrong; nothing from it was "
                           "installed. Check the index (or the recipe's sha256 / --hash pin)");
        }
      }
      if (options.progress) options.progress->download_finished(job, r);
      {
        std::lock_guard lock(mu);
        results[i] = r;
        if (r.downloaded) {
          ++local.files_fetched;
          local.bytes_fetched += r.size;
        } else {
          ++local.files_cached;
        }
      }
      if (on_ready) on_ready(i, r);
    });
  }
  run_parallel(work, options.workers);
  if (stats) *stats = local;
  return results;
}

}  // namespace rp
