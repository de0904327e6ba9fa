#include "plan/apt_indexes.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <set>

#include "net/http_retry.hpp"
#include "net/url.hpp"
#include "util/digest.hpp"
#include "util/error.hpp"

namespace rp {

namespace {

constexpr size_t kMaxReleaseFile = 64u << 20;

// GET of a small text file (Release, InRelease, Release.gpg). nullopt for 404/410: the caller knows
// which absence is fine.
std::optional<std::string> fetch_text(const std::string& url, const std::string& what, const DownloadOptions& downloads) {
  net::HttpRequest request;
  request.url = url;
  request.max_body = kMaxReleaseFile;
  request.verify_tls = downloads.verify_tls;
  net::RetryPolicy policy;
  policy.max_attempts = downloads.max_attempts;
  net::HttpResponse response;
  int attempts = 1;
  try {
    response = net::perform_with_retry(request, policy, &attempts);
  } catch (const net::TransportError& e) {
    throw Error(what + ": cannot fetch " + net::redact_url(url) + ": " + e.what(),
                "check the source's URL and that the repository is reachable from this machine, then run the "
                "build again");
  }
  if (response.status == 404 || response.status == 410) return std::nullopt;
  if (!response.ok())
    throw Error(what + ": " + net::redact_url(url) + " answered HTTP " + std::to_string(response.status) +
                    net::attempts_note(attempts),
                net::is_retryable_status(response.status)
                    ? "the repository kept failing; try again later (a rerun fetches only what is missing)"
                    : "check the source's URL and suite");
  return std::move(response.body);
}

// The verified text of the source's Release and who signed it; `fetched_sha256` is the sha256 of the
// InRelease (or Release) as it came.
std::pair<std::string, std::string> verified_release(const apt::SourceEntry& entry, const apt::Keyring& keys,
                                                     const DownloadOptions& downloads, std::string& fetched_sha256) {
  const std::string what = "apt source " + entry.describe() + " (" + entry.origin + ")";
  const std::string dir = entry.release_directory();
  if (auto inrelease = fetch_text(dir + "/InRelease", what, downloads)) {
    fetched_sha256 = sha256_hex(*inrelease);
    if (entry.trusted) {
      bool signed_text = inrelease->find("-----BEGIN PGP SIGNED MESSAGE-----") != std::string::npos;
      return {signed_text ? apt::unverified_cleartext(*inrelease, what) : *inrelease, ""};
    }
    apt::VerifiedText v = apt::verify_inrelease(*inrelease, keys, what);
    return {std::move(v.text), v.fingerprint};
  }
  auto release = fetch_text(dir + "/Release", what, downloads);
  if (!release)
    throw Error(what + ": neither InRelease nor Release exists under " + net::redact_url(dir),
                "check the URL and the suite (for a flat repository, end the suite with '/')");
  fetched_sha256 = sha256_hex(*release);
  if (entry.trusted) return {std::move(*release), ""};
  auto signature = fetch_text(dir + "/Release.gpg", what, downloads);
  if (!signature)
    throw Error(what + " is not signed: it has a Release file but no InRelease and no Release.gpg (keyring " +
                    keys.describe() + ")",
                "use a signed repository; to install from it unverified, set trusted: true on the source (loudly: "
                "the image is labelled)");
  apt::VerifiedText v = apt::verify_detached(*release, *signature, keys, what);
  return {std::move(v.text), v.fingerprint};
}

struct IndexToFetch {
  size_t source = 0;
  apt::IndexFile file;
};

}  // namespace

AptIndexes load_apt_indexes(const std::vector<apt::SourceEntry>& entries,
                            const std::function<apt::Keyring(const apt::SourceEntry&)>& keyring_for, ContentStore& store,
                            const AptIndexOptions& options) {
  AptIndexes out;
  std::vector<IndexToFetch> wanted;
  for (const auto& entry : entries) {
    const std::string what = "apt source " + entry.describe() + " (" + entry.origin + ")";
    if (!entry.architectures.empty() &&
        std::find(entry.architectures.begin(), entry.architectures.end(), options.architecture) == entry.architectures.end())
      continue;  // [arch=arm64] on an amd64 build: apt skips it too
    apt::Keyring keys = entry.trusted ? apt::Keyring{} : keyring_for(entry);
    std::string release_sha256;
    auto [text, signer] = verified_release(entry, keys, options.downloads, release_sha256);
    AptSourceState state;
    state.release_sha256 = release_sha256;
    state.entry = entry;
    state.signed_by = signer;
    state.release = apt::parse_release(text, what + " Release");
    apt::check_release_dates(state.release, options.now, what);
    // A Release of another suite (an old one replayed, a mirror mix-up) is refused, as apt does.
    if (!entry.flat() && state.release.suite != entry.suite && state.release.codename != entry.suite)
      throw Error(what + ": its Release describes suite '" + state.release.suite + "' (codename '" +
                      state.release.codename + "'), not '" + entry.suite + "'",
                  "the repository serves another suite at this path; check the suite name");
    state.deb_base = entry.flat() ? entry.release_directory() : entry.url;
    size_t index = out.sources.size();
    std::vector<std::string> components = entry.flat() ? std::vector<std::string>{""} : entry.components;
    for (const auto& component : components) {
      auto file = apt::packages_index(state.release, component, options.architecture);
      if (!file)
        throw Error(what + ": its Release lists no Packages index for " +
                        (component.empty() ? std::string() : component + "/") + "binary-" + options.architecture,
                    "check the component names and that the repository has packages for " + options.architecture);
      wanted.push_back({index, *file});
      if (!component.empty() && !state.release.all_in_arch_indexes)
        if (auto all = apt::packages_index(state.release, component, "all"))
          if (std::find(state.release.architectures.begin(), state.release.architectures.end(), "all") !=
              state.release.architectures.end())
            wanted.push_back({index, *all});
    }
    if (state.signed_by.empty())
      spdlog::warn("apt: the source {} is TRUSTED WITHOUT VERIFICATION (trusted: true): its packages are not checked "
                   "against a signature",
                   entry.describe());
    else
      spdlog::info("apt: {} signed by {}", entry.describe(), state.signed_by);
    out.sources.push_back(std::move(state));
  }

  std::vector<DownloadJob> jobs;
  for (const auto& w : wanted) {
    const AptSourceState& s = out.sources[w.source];
    jobs.push_back({s.entry.release_directory() + "/" + apt::index_fetch_path(s.release, w.file), w.file.sha256, {},
                    w.file.path + " of " + s.entry.describe(), w.file.size});
  }
  std::vector<DownloadResult> results = download_all(store, jobs, options.downloads);
  for (size_t i = 0; i < wanted.size(); ++i) {
    const AptSourceState& s = out.sources[wanted[i].source];
    if (results[i].size != wanted[i].file.size)
      throw Error(wanted[i].file.path + " of apt source " + s.entry.describe() + " has " + std::to_string(results[i].size) +
                      " bytes, its Release says " + std::to_string(wanted[i].file.size),
                  "the mirror serves an index that does not match its Release; try again later or use another mirror");
    out.blobs.push_back({wanted[i].source, wanted[i].file.path, results[i].digest});
    // The component is the index's first directory ("main/binary-amd64/Packages.xz"); none when flat.
    std::string component;
    if (!s.entry.flat()) component = wanted[i].file.path.substr(0, wanted[i].file.path.find('/'));
    std::string site = net::host_port(s.entry.url);  // apt's "origin" pins match the host name
    size_t colon = site.rfind(':');
    if (colon != std::string::npos && site.find(']', colon) == std::string::npos) site.resize(colon);
    out.releases.push_back(apt::release_facts(s.release, component, site));
  }
  return out;
}

namespace {

// Streams one stored index through the decompressor into the parser, hashing the compressed bytes
// as they are read: the blob is checked against its digest (which the Release's sha256 chose) before
// any of its packages is used, and neither the file nor its text is ever held whole.
void stream_index(const ContentStore& store, const std::string& digest, const std::string& path, const std::string& what,
                  apt::PackagesIndexParser& parser) {
  const std::filesystem::path file = store.blob_path(digest);
  std::unique_ptr<FILE, decltype(&fclose)> in(fopen(file.c_str(), "rb"), fclose);
  if (!in) throw Error(what + ": the stored index " + digest + " cannot be opened (" + file.string() + ")",
                       "run the build again: the index will be fetched anew");
  Sha256 sha;
  std::function<size_t(char*, size_t)> read = [&](char* buffer, size_t size) {
    size_t n = fread(buffer, 1, size, in.get());
    if (n == 0 && ferror(in.get())) throw Error(what + ": cannot read the stored index " + file.string());
    sha.update(buffer, n);
    return n;
  };
  apt::decompress_index_stream(read, path, what, [&](std::string_view text) { parser.feed(text); });
  // A decompressor may stop before the end of its input: the rest counts for the digest too.
  char rest[1 << 12];
  while (read(rest, sizeof rest) > 0) {
  }
  parser.finish();
  if (sha.finish_digest() != digest)
    throw Error(what + ": the stored index " + digest + " is corrupt (its content no longer matches its digest)",
                "remove it from the store (rockpack cache) and run the build again");
}

}  // namespace

void parse_apt_indexes(AptIndexes& indexes, const ContentStore& store) {
  // binary-all repeats what binary-<arch> already lists in repositories made by apt-ftparchive: only
  // sources with several index files per component need the duplicate check.
  std::map<size_t, size_t> blobs_per_source;
  for (const auto& blob : indexes.blobs) ++blobs_per_source[blob.source];
  std::set<std::string> seen;
  // Room for every package at once: growing the vector by doubling would hold the old and the new
  // copy together. A compressed stanza takes more than ~100 bytes; pages reserved beyond the real
  // count are never touched, so they cost no memory.
  uint64_t stored_bytes = 0;
  for (const auto& blob : indexes.blobs) {
    std::error_code ec;
    auto size = std::filesystem::file_size(store.blob_path(blob.digest), ec);
    if (!ec) stored_bytes += size;
  }
  indexes.packages.reserve(static_cast<size_t>(std::min<uint64_t>(stored_bytes / 100 + 1024, 2'000'000)));
  for (size_t b = 0; b < indexes.blobs.size(); ++b) {
    const auto& blob = indexes.blobs[b];
    const std::string what = blob.path + " of apt source " + indexes.sources.at(blob.source).entry.describe();
    const bool check_duplicates = indexes.sources.at(blob.source).entry.components.size() < blobs_per_source[blob.source];
    const size_t first = indexes.packages.size();
    apt::PackagesIndexParser parser(what, static_cast<int>(blob.source), [&](apt::Package&& p) {
      if (check_duplicates) {
        std::string key = std::to_string(blob.source) + " " + p.name + " " + p.version.str() + " " + p.architecture;
        if (!seen.insert(std::move(key)).second) return;
      }
      p.release = static_cast<int>(b);
      indexes.packages.push_back(std::move(p));
    });
    try {
      stream_index(store, blob.digest, blob.path, what, parser);
    } catch (...) {
      indexes.packages.resize(first);  // nothing of a damaged index is used
      throw;
    }
  }
}

}  // namespace rp
