#pragma once
// What the resolver asks (versions, dependencies), answered from indexes, find-links locations and
// direct wheel references for one target interpreter; afterwards, which file to download for each
// resolved package.
//
// Files are filtered before the resolver sees a version: only wheels (source distributions are not
// built), with a tag the target accepts, whose Requires-Python admits the target, not yanked (unless
// the caller allows that exact version, see allow_yanked), matching the --hash pins. Of the wheels
// left for a version, the one with the best tag wins. A project whose every file is rejected is an
// rp::InputError that lists each file and why.
//
// Dependencies come from, in order: the record cache's entry for the wheel's sha256, the PEP 658
// `.metadata` file, HTTP range requests into the remote wheel, the local file, or the wheel
// downloaded whole.
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "net/file_fetcher.hpp"
#include "net/http.hpp"
#include "python/index_client.hpp"
#include "python/native_sdist.hpp"
#include "python/remote_wheel.hpp"
#include "python/resolver.hpp"
#include "python/wheel_filename.hpp"

#include "util/record_cache.hpp"

namespace rp::python {

struct FinderOptions {
  std::vector<IndexSource> indexes;      // in priority order
  std::vector<std::string> find_links;   // directories or URLs of flat pages
  IndexStrategy strategy = IndexStrategy::kFirstIndex;
  const RecordCache* records = nullptr;  // caches metadata as "wheel-metadata" records; may be null
  // Downloads a wheel whole when its metadata can be read no other way (no byte ranges, no PEP 658);
  // may be null, and then such a wheel is an error.
  std::shared_ptr<net::FileFetcher> fetcher;
  bool require_hashes = true;            // false: a wheel without any sha256 is accepted (tests, trusted mirrors)
  IndexClientOptions client;
  RemoteReadOptions remote;
  // The one project whose sdists are accepted (installed natively, never built); may be null.
  std::shared_ptr<NativeSdist> native_sdist;
};

// The file chosen for a resolved package: what the downloader fetches and checks.
struct WheelArtifact {
  std::string name;  // normalized
  Version version;
  std::string filename;
  std::string url;     // credentials stripped; "file:///..." for local files
  std::string sha256;  // 64 lowercase hex digits; empty only when verification is disabled or
                       // several --hash pins are acceptable (then see accepted_sha256)
  std::vector<std::string> accepted_sha256;  // the --hash pins: the file must hash to one of them
  std::string index;   // the redacted index URL, "find-links:<location>" or "direct"
  std::optional<uint64_t> size;
  bool yanked = false;
  bool native_sdist = false;  // the file is an sdist of FinderOptions::native_sdist's project
  // The index gave no sha256 and the recipe accepts that for it (IndexSource::tls_only): the
  // download's own sha256 is what gets recorded and locked.
  bool tls_only = false;
};

class PackageFinder final : public ResolverProvider {
 public:
  // `python_full_version` ("3.11.2") is checked against Requires-Python. Throws rp::InputError for
  // bad index settings (a URL that is not http(s), a credential variable that is not set).
  PackageFinder(FinderOptions options, TagPolicy tags, std::string python_full_version);
  ~PackageFinder() override;

  // Call before resolving. A yanked file of exactly this version becomes acceptable (for `==`/`===`
  // pins in the requirements); a warning is logged when one is used.
  void allow_yanked(const std::string& name, const Version& version);
  // --hash pins: only files whose sha256 is among `sha256s` (hex, optionally "sha256:"-prefixed)
  // are acceptable for the package. Throws rp::InputError for a malformed hash.
  void pin_hashes(const std::string& name, std::vector<std::string> sha256s);

  std::vector<Version> versions(const std::string& name) override;
  Version url_version(const std::string& name, const std::string& url) override;
  std::vector<Requirement> dependencies(const std::string& name, const Candidate& candidate) override;
  std::string where_missing(const std::string& name) override;

  // The wheel for a resolved package (a candidate that versions() or url_version() produced).
  // Throws rp::InputError when it has no sha256 to verify (unless require_hashes is off) or a local
  // file does not match its pinned hash.
  WheelArtifact artifact(const std::string& name, const Candidate& candidate);

  // Authorization to send when downloading `url`: the credential of the index on that host, if any.
  net::Headers auth_headers_for(const std::string& url) const;
  // Requests and bytes spent on pages and metadata, over all sources.
  IndexStats stats() const;

 private:
  struct FileChoice;
  struct Project;
  const Project& project(const std::string& name);
  Project collect(const std::string& name);
  const FileChoice& choice(const std::string& name, const Candidate& candidate);
  std::string metadata_text(const std::string& name, const FileChoice& file);
  // Downloads the wheel whole through the fetcher (verified against the index's sha256 when it
  // gave one; the build's fetcher keeps it in the store, where the install step finds it) and reads
  // its METADATA there: for servers without byte ranges and PEP 658.
  std::string metadata_of_downloaded_wheel(const DistFile& f, const net::Headers& headers, const std::string& shown,
                                           const std::string& name);

  FinderOptions options_;
  TagPolicy tags_;
  std::string python_full_version_;
  Version python_version_;
  std::vector<std::unique_ptr<IndexClient>> indexes_;
  std::vector<std::unique_ptr<FindLinks>> find_links_;

  mutable std::mutex mu_;
  std::map<std::string, std::set<std::string>> yank_allowed_;     // name -> normalized versions
  std::map<std::string, std::set<std::string>> hash_pins_;        // name -> hex digests
  std::map<std::string, std::unique_ptr<Project>> projects_;
  std::map<std::string, std::unique_ptr<FileChoice>> direct_;     // by URL as given
  std::map<std::string, std::vector<std::string>> unknown_;        // name -> the sources that do not know it
  IndexStats own_stats_;                                           // find-links and direct metadata reads
};

}  // namespace rp::python
