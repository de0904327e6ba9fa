#include "plan/apt_indexes.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
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

void parse_apt_indexes(AptIndexes& indexes, const ContentStore& store) {
  std::set<std::string> seen;
  for (size_t b = 0; b < indexes.blobs.size(); ++b) {
    const auto& blob = indexes.blobs[b];
    const std::string what = blob.path + " of apt source " + indexes.sources.at(blob.source).entry.describe();
    std::string text = apt::decompress_index(store.read_all(blob.digest), blob.path, what);
    auto packages = apt::parse_packages_index(text, what, static_cast<int>(blob.source));
    for (auto& p : packages) {
      // binary-all repeats what binary-<arch> already lists in repositories made by apt-ftparchive.
      std::string key = std::to_string(blob.source) + " " + p.name + " " + p.version.str() + " " + p.architecture;
      p.release = static_cast<int>(b);
      if (seen.insert(std::move(key)).second) indexes.packages.push_back(std::move(p));
    }
  }
}

}  // namespace rp
