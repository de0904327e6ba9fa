#pragma once
// Downloads into the content store: every remote file an image needs (wheels, interpreter archives,
// later .debs) comes through here. A file whose digest the store already holds is not fetched again,
// which is what makes a second build download nothing. Each download streams into a store blob
// while it is hashed and is renamed into place only when its sha256 is the one the plan expects;
// a mismatch keeps nothing and names the file, where it came from and the two digests.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "net/http.hpp"
#include "store/content_store.hpp"

namespace rp {

struct DownloadJob {
  std::string url;          // http(s)://… or file://…
  std::string sha256;       // expected, 64 lowercase hex digits; empty = unverified (recipe opted out)
  net::Headers headers;     // e.g. Authorization for a private index; never logged
  std::string what;         // for messages: "torch 2.10.0a0 (torch-2.10.0a0+rocm7.10-cp311-….whl)"
  // The size the index or lock vouches for (apt's Size, the lock's size, PEP 691's size): a file
  // that grows past it fails at once instead of filling the disk. nullopt: unknown; then the file
  // is bounded by kMaxUnvouchedDownload.
  std::optional<uint64_t> size;
};

// The most a download whose size nothing vouches for may take (64 GiB: far past any wheel or .deb,
// TheRock's largest are ~3 GB): an endless stream ends with an error, not a full disk.
constexpr uint64_t kMaxUnvouchedDownload = 64ull << 30;

struct DownloadResult {
  std::string digest;      // "sha256:<hex>" of the stored blob
  uint64_t size = 0;
  bool downloaded = false;  // false when the store had it
};

struct DownloadStats {
  uint64_t files_fetched = 0;
  uint64_t bytes_fetched = 0;
  uint64_t files_cached = 0;
};

class DownloadProgress {
 public:
  virtual ~DownloadProgress() = default;
  // Called from worker threads.
  virtual void download_finished(const DownloadJob& /*job*/, const DownloadResult& /*result*/) {}
};

struct DownloadOptions {
  int workers = 8;          // parallel connections; downloads are network-bound, not CPU-bound
  int max_attempts = 4;     // per file, for broken connections and 408/429/5xx answers
  bool verify_tls = true;
  // build --store-only: every file must be in the store already; a missing one is an error, and
  // nothing is fetched.
  bool store_only = false;
  DownloadProgress* progress = nullptr;
  // Called with a job's index on its worker before the store is looked at: waits there for an
  // earlier download of the same file still in flight (a prefetch), so that it is fetched once.
  std::function<void(size_t job)> before_fetch;
};

// Called with a job's index and result as soon as its file is in the store (verified), on the worker
// thread that fetched it, while other jobs may still be downloading: work that needs only this file
// can start early. What it throws fails download_all as a download would.
using DownloadReady = std::function<void(size_t job, const DownloadResult& result)>;

// Fetches every job (in parallel) and returns their results in job order. Throws rp::Error naming the
// first file that failed; files that were complete stay in the store.
std::vector<DownloadResult> download_all(ContentStore& store, const std::vector<DownloadJob>& jobs,
                                         const DownloadOptions& options, DownloadStats* stats = nullptr,
                                         const DownloadReady& on_ready = {});

}  // namespace rp
