#pragma once
// The sources of wheels: package indexes (the simple repository API, PEP 503 HTML or PEP 691 JSON),
// find-links locations (a local directory of wheels, or a flat HTML page of links) and their files.
// What to do with the files (tags, Requires-Python, yanking, hashes) is package_finder.hpp's job.
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "net/http.hpp"
#include "python/index_credentials.hpp"
#include "python/simple_index.hpp"
#include "net/retry.hpp"

namespace rp::python {

struct IndexSource {
  std::string url;  // the simple API root, e.g. "https://host/simple/"; may hold user:password@
  bool netrc = false;
  std::string username_env, password_env;  // names of environment variables holding credentials
  // Globs (fnmatch) on normalized names. When non-empty, the matching packages come only from this
  // index, and nothing else does.
  std::vector<std::string> packages;
  // The recipe accepts this index's files without a sha256 from the index (`verify: tls-only`):
  // the download is trusted for what TLS gives, its sha256 is computed on arrival and recorded.
  bool tls_only = false;
};

enum class IndexStrategy {
  // A package comes only from the first index (in order) that knows the project; find-links
  // locations are consulted alongside it (as uv does), since the recipe names them explicitly.
  kFirstIndex,
  // Files of every index (and find-links) are merged; the best version wins. Open to dependency
  // confusion: only when the recipe asks for it.
  kUnsafeBestMatch,
};

struct IndexStats {
  uint64_t page_requests = 0;
  uint64_t page_bytes = 0;
  uint64_t metadata_requests = 0;  // PEP 658 files and range requests
  uint64_t metadata_bytes = 0;
};

struct IndexClientOptions {
  net::RetryPolicy retry{3, std::chrono::milliseconds(500), std::chrono::milliseconds(5000),
                              std::chrono::seconds(30)};
  bool verify_tls = true;
};

// One index. Project pages are cached for the client's lifetime; safe to use from several threads.
class IndexClient {
 public:
  // Resolves the credential now (so a missing environment variable is reported before any request).
  explicit IndexClient(IndexSource source, IndexClientOptions options = {});

  const IndexSource& source() const { return source_; }
  // The index URL without credentials, for messages and records.
  const std::string& display_url() const { return display_url_; }
  // Whether the index's `packages` list names the package (false when the list is empty).
  bool pins(const std::string& normalized_name) const;

  // The project's files, or nullopt when the index does not know it (404). Throws rp::Error naming
  // the index for any other failure.
  std::optional<std::vector<DistFile>> project_files(const std::string& normalized_name);

  // Authorization for `url` when it is on this index's host (scheme, host and port equal); empty otherwise.
  net::Headers auth_headers_for(const std::string& url) const;
  // GET `url` with this index's credentials when they apply; retried like page requests.
  net::HttpResponse get(const std::string& url, size_t max_body = 16u << 20) const;

  IndexStats stats() const;
  void add_metadata_stats(uint64_t requests, uint64_t bytes);

 private:
  IndexSource source_;
  IndexClientOptions options_;
  std::string base_url_;  // credentials stripped, ends with '/'
  std::string display_url_;
  std::optional<BasicCredential> credential_;
  mutable std::mutex mu_;
  std::map<std::string, std::optional<std::vector<DistFile>>> pages_;
  IndexStats stats_;
};

// A find-links location: a local directory (its *.whl files) or the URL of a flat HTML page of links.
class FindLinks {
 public:
  explicit FindLinks(std::string location, IndexClientOptions options = {});
  const std::string& location() const { return location_; }
  // "find-links:<location>" (redacted), as artifacts name their source.
  std::string display() const;
  // Files whose (wheel or sdist) name normalizes to `normalized_name`. Local files get "file://"
  // URLs. The page or directory is read once.
  std::vector<DistFile> project_files(const std::string& normalized_name);

 private:
  void load();
  std::string location_;
  IndexClientOptions options_;
  std::mutex mu_;
  bool loaded_ = false;
  std::vector<DistFile> files_;
};

// The project name a distribution file name belongs to, normalized: from a wheel name, or from an
// sdist "<name>-<version>.tar.gz"/".zip" (the last '-' separates them). Empty when neither.
std::string distribution_project(std::string_view filename);

// True when the normalized name matches one of the fnmatch globs (also normalized).
bool matches_package_globs(const std::vector<std::string>& globs, const std::string& normalized_name);

}  // namespace rp::python
