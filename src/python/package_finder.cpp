#include "python/package_finder.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <fstream>
#include <set>

#include "net/url.hpp"
#include "python/core_metadata.hpp"
#include "net/http_retry.hpp"
#include "python/text.hpp"
#include "net/url.hpp"
#include "python/wheel_archive.hpp"
#include "util/digest.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

namespace rp::python {

struct PackageFinder::FileChoice {
  DistFile file;
  WheelFilename wheel;  // for a native sdist: its name and version, tag py3-none-any
  size_t priority = 0;
  IndexClient* index = nullptr;  // the index it came from; null for find-links and direct files
  std::string origin;            // for artifacts and messages
  bool sdist = false;            // an sdist of the native project
};

struct PackageFinder::Project {
  std::map<Version, FileChoice> best;  // the wheel to use for each acceptable version
};

namespace {

constexpr uint64_t kMaxMetadataSize = 16u << 20;

bool is_http(std::string_view url) { return url.starts_with("http://") || url.starts_with("https://"); }
bool is_file_url(std::string_view url) { return url.starts_with("file://"); }

fs::path local_path(std::string_view url) {
  return is_file_url(url) ? fs::path(net::percent_decode(url.substr(7))) : fs::path(std::string(url));
}

std::string file_sha256(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot read " + path.string());
  Sha256 hash;
  std::string buffer(1 << 20, '\0');
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    hash.update(buffer.data(), static_cast<size_t>(in.gcount()));
  }
  return digest_hex(hash.finish_digest());
}

std::string join_tags(const std::vector<WheelTag>& tags, size_t max) {
  std::string out;
  for (size_t i = 0; i < tags.size() && i < max; ++i) out += (i ? ", " : "") + tags[i].to_string();
  if (tags.size() > max) out += ", ... " + tags.back().to_string();
  return out;
}

// "sha256:<hex>" or "<hex>" -> "<hex>"; throws for anything else.
std::string pin_hex(std::string_view text) {
  std::string_view hex = text.starts_with("sha256:") ? text.substr(7) : text;
  auto normalized = normalize_sha256_hex(hex);
  if (!normalized)
    throw InputError("hash pin '" + printable(text) + "' is not a sha256 digest", "write --hash=sha256:<64 hex digits>");
  return *normalized;
}

// Why a file's sha256 is refused: the digests it was pinned to (by a requirements file's --hash or
// the recipe's `sha256:`), which the user needs to see to tell a stale pin from a changed file.
template <typename Pins>
std::string pin_mismatch(const std::string& sha, const Pins& pins) {
  std::string expected;
  for (const auto& p : pins) expected += (expected.empty() ? "" : " or ") + p;
  return "its sha256 " + sha + " does not match the pinned " + expected + " (--hash or the recipe's sha256:)";
}

}  // namespace

PackageFinder::PackageFinder(FinderOptions options, TagPolicy tags, std::string python_full_version)
    : options_(std::move(options)),
      tags_(std::move(tags)),
      python_full_version_(std::move(python_full_version)),
      python_version_(Version::parse(python_full_version_)) {
  options_.remote.verify_tls = options_.client.verify_tls;
  for (const auto& index : options_.indexes) indexes_.push_back(std::make_unique<IndexClient>(index, options_.client));
  for (const auto& location : options_.find_links)
    find_links_.push_back(std::make_unique<FindLinks>(location, options_.client));
}

PackageFinder::~PackageFinder() = default;

void PackageFinder::allow_yanked(const std::string& name, const Version& version) {
  std::lock_guard lock(mu_);
  yank_allowed_[normalize_name(name)].insert(version.to_string());
}

void PackageFinder::pin_hashes(const std::string& name, std::vector<std::string> sha256s) {
  std::set<std::string> hexes;
  for (const auto& s : sha256s) hexes.insert(pin_hex(s));
  std::lock_guard lock(mu_);
  hash_pins_[normalize_name(name)].insert(hexes.begin(), hexes.end());
}

PackageFinder::Project PackageFinder::collect(const std::string& name) {
  // Which sources may provide the package: the indexes pinning it, else the unpinned ones (first
  // that knows it, or all of them) plus find-links.
  struct Listed {
    DistFile file;
    IndexClient* index;
    std::string origin;
  };
  std::vector<Listed> listed;
  bool known = false;
  std::vector<IndexClient*> pinned, open;
  for (auto& index : indexes_) {
    if (index->pins(name))
      pinned.push_back(index.get());
    else if (index->source().packages.empty())
      open.push_back(index.get());
  }
  const auto& candidates = pinned.empty() ? open : pinned;
  for (IndexClient* index : candidates) {
    auto files = index->project_files(name);
    if (!files) continue;
    known = true;
    for (auto& f : *files) listed.push_back({std::move(f), index, index->display_url()});
    if (options_.strategy == IndexStrategy::kFirstIndex) break;
  }
  if (pinned.empty()) {
    for (auto& fl : find_links_) {
      for (auto& f : fl->project_files(name)) {
        known = true;
        listed.push_back({std::move(f), nullptr, fl->display()});
      }
    }
  }

  std::set<std::string> yank_ok, pins;
  {
    std::lock_guard lock(mu_);
    if (auto it = yank_allowed_.find(name); it != yank_allowed_.end()) yank_ok = it->second;
    if (auto it = hash_pins_.find(name); it != hash_pins_.end()) pins = it->second;
  }

  Project project;
  std::vector<std::string> rejected;
  std::set<std::string> other_pythons;  // "3.11": Pythons that wheels rejected for their tags were built for
  const bool native = options_.native_sdist && options_.native_sdist->project() == name;
  for (auto& item : listed) {
    const DistFile& f = item.file;
    auto reject = [&](const std::string& why) { rejected.push_back(f.filename + " (" + item.origin + "): " + why); };
    auto wheel = WheelFilename::try_parse(f.filename);
    bool sdist = false;
    if (!wheel && native) {
      if (auto version = sdist_version(f.filename, name)) {
        // Offered like a pure-Python wheel that ranks below any real wheel of the same version.
        wheel = WheelFilename{name, *version, std::nullopt, {"py3"}, {"none"}, {"any"}};
        sdist = true;
      }
    }
    if (!wheel && f.filename.ends_with(".whl")) {
      // Six dash fields whose third is no build tag: a PEP 817 variant wheel
      // (<name>-<ver>-<tags>-<label>.whl), for variant-aware installers only.
      reject("not a classic wheel name (a PEP 817 variant wheel?): skipped");
      continue;
    }
    if (!wheel) {
      reject("not a wheel (source distributions are not built)");
      continue;
    }
    if (wheel->normalized_name() != name) {
      reject("belongs to project '" + wheel->normalized_name() + "'");
      continue;
    }
    auto priority = sdist ? std::optional<size_t>(tags_.tags().size()) : tags_.best_priority(*wheel);
    if (!priority) {
      reject("incompatible tags " + join_tags(wheel->tags(), 6) + "; the target wants (best first) " +
             join_tags(tags_.tags(), 3));
      for (const auto& py : wheel->python_tags)
        if (py.size() > 3 && py.starts_with("cp3")) other_pythons.insert("3." + py.substr(3));
      continue;
    }
    if (f.requires_python && !trim(*f.requires_python).empty()) {
      SpecifierSet spec;
      try {
        spec = SpecifierSet::parse(*f.requires_python);
      } catch (const InputError&) {
        reject("invalid Requires-Python '" + printable(*f.requires_python) + "'");
        continue;
      }
      if (!spec.contains(python_version_, true)) {
        reject("requires Python " + spec.to_string() + ", the target has " + python_full_version_);
        continue;
      }
    }
    // Compared as versions: a pin "==2.0" allows the yanked file "2.0.0".
    bool yank_allowed = std::any_of(yank_ok.begin(), yank_ok.end(),
                                    [&](const std::string& v) { return Version::parse(v) == wheel->version; });
    if (f.yanked && !yank_allowed) {
      reject("yanked" + (f.yanked->empty() ? std::string() : " (" + printable(*f.yanked) + ")"));
      continue;
    }
    if (!pins.empty()) {
      std::optional<std::string> sha = f.sha256;
      if (!sha && is_file_url(f.url)) sha = file_sha256(local_path(f.url));
      if (sha && !pins.count(*sha)) {
        reject(pin_mismatch(*sha, pins));
        continue;
      }
    }
    if (f.yanked)
      spdlog::warn("using yanked file {} of {} (pinned with ==){}", f.filename, name,
                   f.yanked->empty() ? "" : ": " + printable(*f.yanked));
    FileChoice choice{f, *wheel, *priority, item.index, item.origin, sdist};
    auto [it, inserted] = project.best.try_emplace(wheel->version, choice);
    if (!inserted) {
      // Better tag wins; ties go to the higher build tag (as choose_wheel does).
      FileChoice& have = it->second;
      bool better = choice.priority < have.priority ||
                    (choice.priority == have.priority && choice.wheel.build.value_or(BuildTag{}) >
                                                             have.wheel.build.value_or(BuildTag{}));
      if (better) have = choice;
    }
  }

  if (project.best.empty() && known) {
    std::string list;
    size_t shown = 0;
    for (const auto& r : rejected) {
      if (shown++ == 25) {
        list += "\n  ... and " + std::to_string(rejected.size() - 25) + " more";
        break;
      }
      list += "\n  " + shorten(r, 300);  // a rejected file's name or URL comes from the index page
    }
    if (rejected.empty()) list = "\n  (the project lists no files)";
    std::string hint = pins.empty() ? "rockpack installs wheels only; use a version or an index with a compatible wheel, "
                                      "or add one with find-links or a direct reference"
                                    : "check the --hash pins (or the recipe's sha256:) of '" + name +
                                          "' against the files above; rockpack installs only the pinned files";
    std::string pythons;
    for (const auto& py : other_pythons) pythons += (pythons.empty() ? "" : ", ") + py;
    if (!pythons.empty())
      hint = "'" + name + "' has wheels for Python " + pythons + " only: use an interpreter of one of those versions "
             "(python: standalone:, or another base image), or an index that publishes wheels for Python " +
             python_full_version_.substr(0, python_full_version_.rfind('.'));
    throw InputError("no installable wheel for '" + name + "' (Python " + python_full_version_ + ", " +
                         tags_.tags().front().to_string() + "):" + list,
                     hint);
  }
  if (!known) {
    spdlog::debug("index: no source knows '{}'", name);
    std::vector<std::string> asked;
    for (IndexClient* index : candidates) asked.push_back(index->display_url());
    if (pinned.empty())
      for (auto& fl : find_links_) asked.push_back(fl->display());
    std::lock_guard lock(mu_);
    unknown_[name] = std::move(asked);
  }
  for (const auto& r : rejected) spdlog::debug("index: rejected {}", r);
  return project;
}

const PackageFinder::Project& PackageFinder::project(const std::string& name) {
  {
    std::lock_guard lock(mu_);
    if (auto it = projects_.find(name); it != projects_.end()) return *it->second;
  }
  auto collected = std::make_unique<Project>(collect(name));
  std::lock_guard lock(mu_);
  return *projects_.try_emplace(name, std::move(collected)).first->second;
}

std::vector<Version> PackageFinder::versions(const std::string& name) {
  std::vector<Version> out;
  for (const auto& [version, file] : project(normalize_name(name)).best) out.push_back(version);
  return out;
}

Version PackageFinder::url_version(const std::string& name, const std::string& url) {
  const std::string normalized = normalize_name(name);
  {
    std::lock_guard lock(mu_);
    if (auto it = direct_.find(url); it != direct_.end()) return it->second->wheel.version;
  }
  std::string_view fragment = net::url_fragment(url);
  std::string bare(net::strip_fragment(url));
  DistFile f;
  if (is_http(bare) || is_file_url(bare)) {
    f.url = bare;
    f.filename = net::url_filename(bare);
  } else {  // a local path
    f.url = "file://" + fs::absolute(bare).lexically_normal().string();
    f.filename = fs::path(bare).filename().string();
  }
  if (fragment.starts_with("sha256=")) {
    f.sha256 = normalize_sha256_hex(fragment.substr(7));
    if (!f.sha256) throw InputError("'" + net::redact_url(bare) + "': the #sha256= fragment is not a sha256 digest");
  }
  auto wheel = WheelFilename::try_parse(f.filename);
  if (!wheel)
    throw InputError("the direct reference for '" + normalized + "' (" + net::redact_url(bare) + ") is not a wheel",
                     "rockpack installs wheels only; point to a .whl file");
  if (wheel->normalized_name() != normalized)
    throw InputError("the direct reference for '" + normalized + "' is a wheel of '" + wheel->normalized_name() + "'",
                     "fix the name before '@' or the URL");
  auto priority = tags_.best_priority(*wheel);
  if (!priority)
    throw InputError("the direct wheel " + f.filename + " has incompatible tags " + join_tags(wheel->tags(), 6),
                     "the target wants (best first) " + join_tags(tags_.tags(), 3));
  auto choice = std::make_unique<FileChoice>(FileChoice{f, *wheel, *priority, nullptr, "direct"});
  // A direct URL on an index's host gets that index's credentials.
  for (auto& index : indexes_)
    if (!index->auth_headers_for(f.url).empty()) choice->index = index.get();
  Version version = wheel->version;
  std::lock_guard lock(mu_);
  direct_.try_emplace(url, std::move(choice));
  return version;
}

const PackageFinder::FileChoice& PackageFinder::choice(const std::string& name, const Candidate& candidate) {
  if (!candidate.url.empty()) {
    url_version(name, candidate.url);
    std::lock_guard lock(mu_);
    return *direct_.at(candidate.url);
  }
  const Project& p = project(normalize_name(name));
  auto it = p.best.find(candidate.version);
  if (it == p.best.end())
    throw Error("internal: '" + name + "' " + candidate.version.to_string() + " was never offered to the resolver");
  return it->second;
}

std::string PackageFinder::metadata_of_downloaded_wheel(const DistFile& f, const net::Headers& headers,
                                                        const std::string& shown, const std::string& name) {
  spdlog::info("index: {} serves neither byte ranges nor .metadata files; downloading {} whole to read its metadata",
               net::redact_url(f.url), f.filename);
  // The fetcher names the file and its expected sha256 when the bytes do not match.
  fs::path wheel = options_.fetcher->fetch({net::redact_credentials(f.url), f.sha256.value_or(""), headers, shown});
  auto archive = WheelArchive::open(wheel, f.filename);
  const ZipMember* member = find_metadata_member(archive->members(), name);
  if (!member) throw InputError(shown + ": no (unique) *.dist-info/METADATA member", "the wheel is damaged");
  return archive->read_member(*member, kMaxMetadataSize);
}

std::string PackageFinder::metadata_text(const std::string& name, const FileChoice& c) {
  const DistFile& f = c.file;
  if (options_.records && f.sha256) {
    if (auto record = options_.records->get_record("wheel-metadata", *f.sha256); record && record->contains("metadata"))
      return (*record)["metadata"].get<std::string>();
  }
  const std::string shown = f.filename + " (" + c.origin + ")";
  std::string text;
  if (c.sdist) {
    if (!f.sha256 && options_.require_hashes && !(c.index && c.index->source().tls_only))
      throw InputError(shown + " has no sha256 to verify the download against",
                       "use an index that publishes hashes (#sha256= in its links), or accept this index's "
                       "files on TLS alone with `verify: tls-only` on the index in the recipe");
    net::Headers headers = c.index ? c.index->auth_headers_for(f.url) : auth_headers_for(f.url);
    // Not cached here: the metadata depends on the handler's choices (targets), not only the file.
    return options_.native_sdist->metadata({f.filename, net::redact_credentials(f.url), f.sha256.value_or(""), headers, c.origin});
  }
  if (is_file_url(f.url)) {
    auto archive = WheelArchive::open(local_path(f.url), f.filename);
    const ZipMember* member = find_metadata_member(archive->members(), name);
    if (!member) throw InputError(shown + ": no (unique) *.dist-info/METADATA member", "the wheel is damaged");
    text = archive->read_member(*member, kMaxMetadataSize);
  } else if (!is_http(f.url)) {
    throw InputError(shown + ": unsupported URL scheme", "use http(s)://, file:// or a local path");
  } else {
    bool have = false;
    if (f.has_metadata) {
      // PEP 658/714: the metadata file next to the wheel.
      net::HttpResponse response;
      if (c.index) {
        response = c.index->get(f.url + ".metadata", kMaxMetadataSize);
      } else {
        net::HttpRequest request;
        request.url = net::redact_credentials(f.url + ".metadata");
        request.max_body = kMaxMetadataSize;
        request.verify_tls = options_.client.verify_tls;
        response = net::perform_with_retry(request, options_.client.retry);
      }
      {
        std::lock_guard lock(mu_);
        if (!c.index) own_stats_.metadata_requests++, own_stats_.metadata_bytes += response.body.size();
      }
      if (c.index) c.index->add_metadata_stats(1, response.body.size());
      if (response.ok()) {
        if (f.metadata_sha256 && sha256_hex(response.body) != *f.metadata_sha256)
          throw Error(shown + ": its .metadata file does not match the sha256 the index gave for it",
                      "the index is inconsistent or the download was tampered with; try again or report it");
        text = std::move(response.body);
        have = true;
      } else {
        spdlog::debug("index: {}.metadata answered {}; reading the wheel instead", net::redact_url(f.url),
                      response.status);
      }
    }
    if (!have) {
      RangeStats stats;
      net::Headers headers = c.index ? c.index->auth_headers_for(f.url) : auth_headers_for(f.url);
      HttpRangeSource source(net::redact_credentials(f.url), headers, &stats, options_.remote);
      try {
        text = read_remote_metadata(source, shown, name, options_.remote);
      } catch (const WholeWheelNeeded&) {
        // Like pip and uv: the wheel is downloaded whole (into the store, where the install
        // step finds it by its sha256) and its metadata read there.
        if (!options_.fetcher) throw;
        text = metadata_of_downloaded_wheel(f, headers, shown, name);
      } catch (...) {
        if (c.index) c.index->add_metadata_stats(stats.requests, stats.bytes);
        throw;
      }
      if (c.index) {
        c.index->add_metadata_stats(stats.requests, stats.bytes);
      } else {
        std::lock_guard lock(mu_);
        own_stats_.metadata_requests += stats.requests;
        own_stats_.metadata_bytes += stats.bytes;
      }
    }
  }
  if (options_.records && f.sha256) options_.records->put_record("wheel-metadata", *f.sha256, {{"metadata", text}});
  return text;
}

std::vector<Requirement> PackageFinder::dependencies(const std::string& name, const Candidate& candidate) {
  const std::string normalized = normalize_name(name);
  const FileChoice& c = choice(normalized, candidate);
  std::string text = metadata_text(normalized, c);
  CoreMetadata meta = CoreMetadata::parse(text, c.file.filename + " METADATA");
  if (meta.normalized_name() != normalized || meta.version.without_local() != c.wheel.version.without_local())
    throw InputError(c.file.filename + " (" + c.origin + "): its METADATA names " + printable(meta.name) + " " +
                         meta.version.to_string() + ", not the file's " + normalized + " " +
                         c.wheel.version.to_string(),
                     "the wheel is broken; report it to its publisher");
  // Indexes that do not publish data-requires-python leave this as the only check; installing
  // anyway would give an image whose package cannot run on its Python.
  if (meta.requires_python && !meta.requires_python->contains(python_version_, true))
    throw InputError(c.file.filename + " (" + c.origin + "): its METADATA says Requires-Python " +
                         meta.requires_python->to_string() + ", the target has Python " + python_full_version_,
                     "require a version of " + normalized + " that supports Python " + python_full_version_ +
                         " (e.g. " + normalized + "<" + c.wheel.version.to_string() + "), or use another interpreter");
  return meta.requires_dist;
}

std::string PackageFinder::where_missing(const std::string& name) {
  std::lock_guard lock(mu_);
  auto it = unknown_.find(normalize_name(name));
  if (it == unknown_.end() || it->second.empty()) return {};
  std::string sources;
  for (const auto& s : it->second) sources += (sources.empty() ? "" : ", ") + s;
  return "no source has a project '" + it->first + "': looked on " + sources;
}

WheelArtifact PackageFinder::artifact(const std::string& name, const Candidate& candidate) {
  const std::string normalized = normalize_name(name);
  const FileChoice& c = choice(normalized, candidate);
  std::vector<std::string> pins;
  {
    std::lock_guard lock(mu_);
    if (auto it = hash_pins_.find(normalized); it != hash_pins_.end()) pins.assign(it->second.begin(), it->second.end());
  }
  WheelArtifact a;
  a.name = normalized;
  a.version = c.wheel.version;
  a.filename = c.file.filename;
  a.url = net::redact_credentials(c.file.url);
  a.index = c.origin;
  a.size = c.file.size;
  a.yanked = c.file.yanked.has_value();
  a.native_sdist = c.sdist;
  a.accepted_sha256 = pins;
  std::optional<std::string> sha = c.file.sha256;
  if (is_file_url(c.file.url)) {
    // A local file is hashed here; a hash given for it must match.
    std::string actual = file_sha256(local_path(c.file.url));
    if (sha && *sha != actual)
      throw InputError(c.file.filename + ": its sha256 is " + actual + ", not the " + *sha + " given for it",
                       "the file changed, or the hash is wrong");
    sha = actual;
  }
  if (sha && !pins.empty() && std::find(pins.begin(), pins.end(), *sha) == pins.end())
    throw InputError(c.file.filename + " (" + c.origin + "): " + pin_mismatch(*sha, pins),
                     "the file is not the one the pin names: fix the pinned sha256, or the file's location");
  if (!sha && pins.size() == 1) sha = pins.front();
  // Recorded as tls-only even when a lock's pin now names the file: the index itself never gave a hash.
  const bool tls_only = !c.file.sha256 && !is_file_url(c.file.url) && c.index && c.index->source().tls_only;
  if (!sha && pins.empty() && options_.require_hashes && !tls_only)
    throw InputError(c.file.filename + " (" + c.origin + ") has no sha256 to verify the download against",
                     "add #sha256=<hex> to the URL, a --hash pin, use an index that publishes hashes, or accept "
                     "this index's files on TLS alone with `verify: tls-only` on the index in the recipe");
  a.tls_only = tls_only;
  a.sha256 = sha.value_or("");
  return a;
}

net::Headers PackageFinder::auth_headers_for(const std::string& url) const {
  for (const auto& index : indexes_) {
    auto headers = index->auth_headers_for(url);
    if (!headers.empty()) return headers;
  }
  return {};
}

IndexStats PackageFinder::stats() const {
  IndexStats total;
  {
    std::lock_guard lock(mu_);
    total = own_stats_;
  }
  for (const auto& index : indexes_) {
    IndexStats s = index->stats();
    total.page_requests += s.page_requests;
    total.page_bytes += s.page_bytes;
    total.metadata_requests += s.metadata_requests;
    total.metadata_bytes += s.metadata_bytes;
  }
  return total;
}

}  // namespace rp::python
