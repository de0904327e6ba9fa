#include "plan/python_step.hpp"

#include <spdlog/spdlog.h>

#include <fnmatch.h>

#include <algorithm>
#include <map>
#include <set>

#include "assemble/store_archives.hpp"
#include "fetch/store_fetcher.hpp"
#include "image/rootfs_view.hpp"
#include "plan/lock_plan.hpp"
#include "net/url.hpp"
#include "python/index_client.hpp"
#include "python/index_credentials.hpp"
#include "python/package_finder.hpp"
#include "python/record_check.hpp"
#include "python/closure.hpp"
#include "python/install_plan.hpp"
#include "python/license.hpp"
#include "python/interpreter.hpp"
#include "python/requirements_file.hpp"
#include "python/resolver.hpp"
#include "python/standalone.hpp"
#include "python/text.hpp"
#include "python/venv.hpp"
#include "python/wheel_filename.hpp"
#include "python/wheel_installer.hpp"
#include "therock/devel_expansion.hpp"
#include "therock/rocm_package.hpp"
#include "util/cpus.hpp"
#include "util/digest.hpp"
#include "util/error.hpp"
#include "util/parallel.hpp"
#include "util/phase_clock.hpp"
#include "util/strings.hpp"

namespace rp {

namespace {

using python::normalize_name;

const char* kInterpreterLayer = "python-interpreter";
const char* kVenvLayer = "python-venv";
const char* kLocalWheelsLayer = "python-local";

std::string file_url(const fs::path& path) { return "file://" + path.string(); }

bool glob_matches(const std::string& pattern, const std::string& name) {
  return fnmatch(pattern.c_str(), name.c_str(), 0) == 0;
}

// ---- interpreter ----------------------------------------------------------------------------

// The image as the python section sees it: the base's layers, then the layers of earlier steps.
// Scanning base layers costs a decompression of each, so it is done only when the interpreter's
// facts are not cached yet.
python::Interpreter find_interpreter(const StepContext& context, const std::vector<Entry>& extra_entries,
                                     const std::string& path) {
  const BuildPlan& plan = context.plan;
  ContentStore& store = *context.store;
  Sha256 key;
  key.update("interpreter-v1\n" + path + "\n" + context.platform().str() + "\n");
  for (const auto& l : plan.base.layers) key.update(l.blob.digest + "\n");
  auto add_entries_to_key = [&key](const std::vector<Entry>& entries) {
    for (const auto& e : entries) {
      key.update(e.path + "\n" + e.link_target + "\n");
      if (e.content) key.update(e.content->quick_key() + "\n");
    }
  };
  for (const auto& l : plan.layers) add_entries_to_key(l.entries);
  add_entries_to_key(extra_entries);
  std::string cache_key = digest_hex(key.finish_digest());
  if (auto cached = store.get_record("python-interpreter", cache_key)) {
    try {
      return python::Interpreter::from_json(*cached);
    } catch (const std::exception&) {
      // A record from another version of rockpack: read the image again.
    }
  }
  RootfsView view = context.rootfs(python::interpreter_file_of_interest);
  view.add_entries(extra_entries);
  python::Interpreter interpreter = python::read_interpreter(view, path, context.platform());
  store.put_record("python-interpreter", cache_key, interpreter.to_json());
  return interpreter;
}

// ---- requirements ---------------------------------------------------------------------------

struct Requirements {
  std::vector<python::Requirement> requirements;  // what the resolver starts from
  std::vector<python::Requirement> constraints;
  std::map<std::string, std::vector<std::string>> hashes;  // normalized name -> allowed sha256
  std::vector<python::IndexSource> extra_indexes;          // from requirements files
  std::vector<std::string> find_links;
  bool pre = false;
};

python::Requirement parse_recipe_requirement(const std::string& text, const recipe::SourceLocation& where) {
  try {
    return python::Requirement::parse(text);
  } catch (const InputError& e) {
    throw InputError(where.str() + ": " + e.what(), e.hint());
  }
}

Requirements collect_requirements(const recipe::PythonSection& py, const PythonAdditions& additions) {
  Requirements out;
  for (const auto& [text, where] : py.packages)
    out.requirements.push_back(
        parse_recipe_requirement(additions.adjust_package ? additions.adjust_package(text) : text, where));
  for (const auto& [text, where] : additions.packages)
    out.requirements.push_back(parse_recipe_requirement(text, where));
  auto add_file = [&out](const python::RequirementsFile& file) {
    for (const auto& line : file.requirements) {
      out.requirements.push_back(line.requirement);
      if (!line.hashes.empty()) {
        auto& h = out.hashes[line.requirement.normalized_name()];
        h.insert(h.end(), line.hashes.begin(), line.hashes.end());
      }
    }
    for (const auto& line : file.constraints) out.constraints.push_back(line.requirement);
    auto add_index = [&out](const std::string& url) {
      python::IndexSource index;
      index.url = url;
      out.extra_indexes.push_back(std::move(index));
    };
    if (file.index_url) add_index(*file.index_url);
    for (const auto& u : file.extra_index_urls) add_index(u);
    out.find_links.insert(out.find_links.end(), file.find_links.begin(), file.find_links.end());
    out.pre = out.pre || file.pre;
  };
  for (const auto& f : py.requirements) add_file(python::parse_requirements_file(f));
  for (const auto& f : py.constraints) {
    python::RequirementsFile file = python::parse_requirements_file(f);
    // Everything in a constraints file constrains; nothing in it is installed for its own sake.
    for (auto& line : file.requirements) file.constraints.push_back(std::move(line));
    file.requirements.clear();
    add_file(file);
  }
  for (const auto& w : py.wheels) {
    std::string url = w.path ? file_url(*w.path) : w.url;
    std::string filename = url.substr(url.find_last_of('/') + 1);
    python::WheelFilename wf = python::WheelFilename::parse(filename);
    python::Requirement r = python::Requirement::parse(wf.name + " @ " + url);
    out.requirements.push_back(r);
    if (!w.sha256.empty()) out.hashes[r.normalized_name()].push_back(w.sha256);
  }
  return out;
}

python::PrereleasePolicy prerelease_policy(recipe::PrereleaseMode mode, bool pre) {
  if (pre) return python::PrereleasePolicy::kAllow;
  switch (mode) {
    case recipe::PrereleaseMode::kAllow: return python::PrereleasePolicy::kAllow;
    case recipe::PrereleaseMode::kDisallow: return python::PrereleasePolicy::kDisallow;
    default: return python::PrereleasePolicy::kIfNecessaryOrExplicit;
  }
}

// An index URL as artifacts name it: no credentials, one trailing '/'.
std::string display_url(const std::string& url) {
  std::string u = net::redact_credentials(url);
  if (u.empty() || u.back() != '/') u += '/';
  return u;
}

// ---- layers ---------------------------------------------------------------------------------

// Which layer a package goes into: the recipe's `layers:` first, then its index's layer; packages
// of the first index share "python", later indexes get their own, so a nightly that changes only
// one index's packages rebuilds only that layer.
class LayerAssigner {
 public:
  // `section` has the effective indexes and layers (the python section's with any additions).
  LayerAssigner(const recipe::PythonSection& section, const std::vector<python::IndexSource>& indexes) : py_(section) {
    const recipe::PythonSection& py = section;
    for (size_t i = 0; i < indexes.size(); ++i) {
      std::string name = i < py.indexes.size() && !py.indexes[i].layer.empty()
                             ? py.indexes[i].layer
                             : (i == 0 ? std::string("python") : "python-" + std::to_string(i + 1));
      index_layers_[display_url(indexes[i].url)] = name;
    }
    for (const auto& w : py.wheels) {
      std::string url = w.path ? file_url(*w.path) : w.url;
      if (!w.layer.empty()) wheel_layers_[url] = w.layer;
    }
  }

  // A layer named with "{name}" stands for one layer per matching package, named after it.
  std::string layer_for(const std::string& name, const python::WheelArtifact& artifact) const {
    for (const auto& [layer, patterns] : py_.layers)
      for (const auto& p : patterns)
        if (glob_matches(p, name)) return expand_name(layer, name);
    if (auto it = wheel_layers_.find(artifact.url); it != wheel_layers_.end()) return it->second;
    if (auto it = index_layers_.find(artifact.index); it != index_layers_.end()) return it->second;
    return kLocalWheelsLayer;
  }

  // Image order: the recipe's named layers as declared (a "{name}" layer's packages in name
  // order, `used` being the layers packages went to), then index layers, then local wheels.
  std::vector<std::string> order(const std::set<std::string>& used = {}) const {
    std::vector<std::string> out;
    auto add = [&out](const std::string& n) {
      if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
    };
    for (const auto& [layer, patterns] : py_.layers) {
      if (layer.find(kNameSlot) == std::string::npos) {
        add(layer);
        continue;
      }
      const std::string prefix = layer.substr(0, layer.find(kNameSlot));
      const std::string suffix = layer.substr(layer.find(kNameSlot) + kNameSlot.size());
      for (const auto& u : used) {
        if (!u.starts_with(prefix) || !u.ends_with(suffix) || u.size() < prefix.size() + suffix.size()) continue;
        std::string name = u.substr(prefix.size(), u.size() - prefix.size() - suffix.size());
        if (std::any_of(patterns.begin(), patterns.end(), [&](const std::string& p) { return glob_matches(p, name); }))
          add(u);
      }
    }
    for (const auto& w : py_.wheels)
      if (!w.layer.empty()) add(w.layer);
    for (const auto& i : py_.indexes) add(index_layers_.at(display_url(i.url)));
    for (const auto& [url, layer] : index_layers_) add(layer);
    add(kLocalWheelsLayer);
    return out;
  }

 private:
  static constexpr std::string_view kNameSlot = "{name}";
  static std::string expand_name(const std::string& layer, const std::string& name) {
    size_t at = layer.find(kNameSlot);
    return at == std::string::npos ? layer : layer.substr(0, at) + name + layer.substr(at + kNameSlot.size());
  }

  const recipe::PythonSection& py_;  // the caller keeps it alive
  std::map<std::string, std::string> index_layers_;  // index URL -> layer
  std::map<std::string, std::string> wheel_layers_;  // direct wheel URL -> layer
};

std::string describe_packages(const std::vector<std::string>& names) {
  std::string s;
  for (size_t i = 0; i < names.size() && i < 4; ++i) s += (i ? ", " : "") + names[i];
  if (names.size() > 4) s += ", " + std::to_string(names.size() - 4) + " more";
  return s;
}


// ---- the parts of plan_python ---------------------------------------------------------------

// The section as resolved: another step's indexes first (the section's own with the same URL
// dropped), its layers after the section's (unless the section names them itself).
recipe::PythonSection with_additions(const recipe::PythonSection& section, const PythonAdditions& additions) {
  recipe::PythonSection out = section;
  if (!additions.leading_indexes.empty()) {
    std::vector<recipe::PythonIndex> indexes = additions.leading_indexes;
    for (const auto& ix : section.indexes)
      if (std::none_of(indexes.begin(), indexes.end(), [&](const auto& r) { return r.url == ix.url; }))
        indexes.push_back(ix);
    out.indexes = std::move(indexes);
  }
  for (const auto& layer : additions.layers) {
    bool named = std::any_of(out.layers.begin(), out.layers.end(), [&](const auto& l) { return l.first == layer.first; });
    if (!named) out.layers.push_back(layer);
  }
  return out;
}

// 1. The interpreter: one of the image's, or a standalone archive unpacked at its prefix (its layer).
struct PlannedInterpreter {
  python::Interpreter interpreter;
  std::optional<LayerPlan> layer;    // the standalone archive's files
  nlohmann::json standalone;         // {url, sha256, prefix} of the archive; null without one
  std::string standalone_bin;        // "<prefix>/bin" of the archive; empty without one
  std::optional<ResolvedComponent> archive;  // the standalone archive, as a component
};

PlannedInterpreter plan_interpreter(const StepContext& context, const recipe::PythonSection& py) {
  ContentStore& store = *context.store;
  PlannedInterpreter out;
  std::vector<Entry> entries;
  std::string path;
  if (py.standalone) {
    const recipe::PythonStandalone& s = *py.standalone;
    DownloadJob job{s.path ? file_url(*s.path) : s.url, s.sha256, {}, "the standalone Python archive", std::nullopt};
    std::string archive_name = job.url.substr(job.url.find_last_of('/') + 1);
    DownloadResult got = download_all(store, {job}, context.downloads).front();
    auto archive = open_store_archive(store, got.digest, archive_name);
    entries = python::standalone_entries(*archive, archive_name, s.prefix, s.strip, s.where.str());
    path = s.prefix + "/bin/python3";
    out.standalone = {{"url", net::redact_url(job.url)}, {"sha256", s.sha256}, {"prefix", s.prefix}};
    out.standalone_bin = s.prefix + "/bin";
    out.archive = ResolvedComponent{PackageKind::kPythonInterpreter, "cpython", "", net::redact_url(job.url),
                                    digest_hex(got.digest), got.size, "standalone", kInterpreterLayer, archive_name,
                                    true, {}, "", {}, "", "", "", ""};
  } else {
    path = *py.interpreter;
  }
  out.interpreter = find_interpreter(context, entries, path);
  const python::Interpreter& interpreter = out.interpreter;
  if (out.archive) out.archive->version = interpreter.version;
  spdlog::info("python: {} ({}, {} {})", interpreter.real_executable, interpreter.version, interpreter.libc,
               interpreter.libc_version);
  if (!entries.empty()) {
    finalize_entries(entries);
    out.layer = LayerPlan{kInterpreterLayer,
                          "rockpack python: standalone CPython " + interpreter.version + " at " + py.standalone->prefix +
                              " (" + context.recipe.file.filename().string() + ")",
                          std::move(entries), {}};
  }
  return out;
}

// 2. Where packages go: a venv made here (its layer, VIRTUAL_ENV and PATH), or the interpreter's
// own scheme (refused for an EXTERNALLY-MANAGED interpreter unless the recipe insists).
struct InstallTarget {
  python::InstallScheme scheme;
  std::optional<LayerPlan> venv_layer;
  std::vector<std::pair<std::string, std::string>> env;
  std::string bin;  // the venv's bin directory, for PATH; empty without a venv
  std::set<std::string> protected_paths;  // the venv's files: a wheel may not replace them (its bin/python3, say)
};

InstallTarget install_target(const python::Interpreter& interpreter, const recipe::PythonSection& py,
                             const std::string& recipe_file) {
  InstallTarget out;
  std::string origin = py.where.str();
  if (py.venv) {
    std::vector<Entry> venv = python::venv_entries(interpreter, *py.venv, origin);
    finalize_entries(venv);
    for (const auto& e : venv)
      if (e.type != EntryType::kDirectory) out.protected_paths.insert(e.path);
    out.venv_layer = LayerPlan{kVenvLayer, "rockpack python: venv " + *py.venv + " (" + recipe_file + ")", std::move(venv), {}};
    out.scheme = python::venv_scheme(interpreter, *py.venv);
    out.env.push_back({"VIRTUAL_ENV", *py.venv});
    out.bin = *py.venv + "/bin";
    return out;
  }
  if (interpreter.externally_managed && !py.break_system_packages)
    throw InputError(origin + ": " + interpreter.real_executable +
                         " is marked EXTERNALLY-MANAGED (PEP 668): its packages belong to the distribution",
                     "install into a virtual environment (python: venv: /opt/venv), or set "
                     "python: break_system_packages: true if you really mean to");
  out.scheme = interpreter.system_scheme;
  return out;
}

// 3. The indexes searched: the section's, then those requirements files name.
std::vector<python::IndexSource> index_sources(const recipe::PythonSection& py, const Requirements& reqs) {
  std::vector<python::IndexSource> indexes;
  for (const auto& i : py.indexes) indexes.push_back({i.url, i.netrc, i.username_env, i.password_env, i.packages, i.tls_only});
  for (const auto& extra : reqs.extra_indexes) {
    bool known = std::any_of(indexes.begin(), indexes.end(), [&](const auto& i) { return i.url == extra.url; });
    if (!known) indexes.push_back(extra);
  }
  return indexes;
}

// 4. The finder the resolver asks: indexes, find-links, hash pins, yanked files pinned exactly.
std::unique_ptr<python::PackageFinder> make_finder(const StepContext& context, const recipe::PythonSection& py,
                                                   const Requirements& reqs,
                                                   const std::vector<python::IndexSource>& indexes,
                                                   const python::Interpreter& interpreter,
                                                   const PythonAdditions& additions) {
  python::FinderOptions finder_options;
  finder_options.indexes = indexes;
  finder_options.find_links = py.find_links;
  finder_options.find_links.insert(finder_options.find_links.end(), reqs.find_links.begin(), reqs.find_links.end());
  finder_options.strategy = py.index_strategy == recipe::IndexStrategy::kUnsafeBestMatch
                                ? python::IndexStrategy::kUnsafeBestMatch
                                : python::IndexStrategy::kFirstIndex;
  finder_options.records = context.store;
  if (context.store) finder_options.fetcher = std::make_shared<StoreFileFetcher>(*context.store, context.downloads);
  finder_options.native_sdist = additions.native_sdist;
  finder_options.client.verify_tls = context.downloads.verify_tls;
  finder_options.remote.verify_tls = context.downloads.verify_tls;
  // A wheel the recipe lists with `verify: false` is the only way to accept a file without a hash.
  finder_options.require_hashes =
      std::none_of(py.wheels.begin(), py.wheels.end(), [](const recipe::PythonWheel& w) { return !w.verify; });
  auto finder = std::make_unique<python::PackageFinder>(finder_options, interpreter.tag_policy(), interpreter.version);
  for (const auto& [name, hashes] : reqs.hashes) finder->pin_hashes(name, hashes);
  for (const auto& r : reqs.requirements) {
    const auto& specs = r.specifier.specifiers();
    if (specs.size() == 1 && specs[0].op() == python::Specifier::Op::kEqual && !specs[0].wildcard())
      finder->allow_yanked(r.normalized_name(), specs[0].version());
  }
  return finder;
}

// 5. Downloads: every wheel into the store, checked against its sha256 (or its pins) before anything
// uses it.
struct DownloadedWheel {
  python::WheelArtifact artifact;
  DownloadResult file;
};

// `on_verified` is called for each wheel as soon as it is downloaded and passed these checks (on a
// download thread, while others may still be downloading).
std::vector<DownloadedWheel> download_verified(const StepContext& context, python::PackageFinder& finder,
                                               std::vector<python::WheelArtifact> artifacts, bool locked,
                                               const std::function<void(size_t, const DownloadedWheel&)>& on_verified,
                                               const PythonAdditions* additions = nullptr) {
  std::vector<DownloadedWheel> out;
  std::vector<DownloadJob> jobs;
  for (auto& a : artifacts) {
    // Several --hash pins and no hash from the index: any pinned digest will do (checked below).
    std::string expected = a.sha256.empty() && a.accepted_sha256.size() == 1 ? a.accepted_sha256[0] : a.sha256;
    // The size the lock or the index (PEP 700) gives bounds the download.
    jobs.push_back({a.url, expected, finder.auth_headers_for(a.url),
                    a.name + " " + a.version.to_string() + " (" + a.filename + (locked ? ", locked in " + context.lock.path : "") + ")",
                    a.size});
    out.push_back({std::move(a), {}});
  }
  auto check_arrived = [&](size_t i, const DownloadResult& file) {
    const uint64_t locked_size = out[i].artifact.size.value_or(0);
    if (locked && locked_size && file.size != locked_size)
      throw Error(jobs[i].what + " has " + std::to_string(file.size) + " bytes, but the lock says " +
                      std::to_string(locked_size),
                  "the file is not the one that was locked; nothing from it was installed");
    const auto& accepted = out[i].artifact.accepted_sha256;
    std::string got = digest_hex(file.digest);
    if (!accepted.empty() && std::find(accepted.begin(), accepted.end(), got) == accepted.end())
      throw Error(jobs[i].what + " has sha256 " + got + ", which matches none of its pins (--hash or the recipe's sha256:)",
                  "the file on the index is not the one that was pinned; nothing from it was installed");
    out[i].file = file;
    if (on_verified) on_verified(i, out[i]);
  };
  // What fails after a file arrived (its pins, on_verified) is no download error: it is carried out
  // of download_all as it is, without the hint for a locked file that vanished from its index.
  struct AfterDownload {
    std::exception_ptr error;
  };
  // A file a prefetch is downloading: its job waits for it, and it counts as downloaded here.
  std::vector<std::optional<std::shared_future<DownloadResult>>> early(jobs.size());
  if (additions && additions->prefetched)
    for (size_t i = 0; i < jobs.size(); ++i) early[i] = additions->prefetched(jobs[i].url);
  DownloadOptions options = context.downloads;
  options.before_fetch = [&early](size_t i) {
    if (early[i]) early[i]->wait();
  };
  DownloadStats stats;
  try {
    download_all(*context.store, jobs, options, &stats, [&](size_t i, const DownloadResult& file) {
      try {
        check_arrived(i, file);
      } catch (...) {
        throw AfterDownload{std::current_exception()};
      }
    });
  } catch (const AfterDownload& after) {
    std::rethrow_exception(after.error);
  } catch (const Error& e) {
    if (!locked) throw;
    // TheRock prunes old nightlies: a locked file can vanish from its index.
    throw Error(e.what(), "the lock pins this exact file; if its index no longer has it, run `rockpack lock RECIPE "
                          "--update NAME` to lock a newer one, or build with --store-only from a store that still "
                          "holds it (" + e.hint() + ")");
  }
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (!early[i] || !early[i]->get().downloaded || out[i].file.downloaded) continue;
    ++stats.files_fetched;
    stats.bytes_fetched += out[i].file.size;
    --stats.files_cached;
  }
  spdlog::info("python: {} wheel{} downloaded ({:.1f} MB), {} already in the store", stats.files_fetched,
               stats.files_fetched == 1 ? "" : "s", stats.bytes_fetched / 1e6, stats.files_cached);
  return out;
}

// A wheel member that does not match its RECORD row is found while the layer is written
// (python/record_check.hpp); the first mismatch of a wheel is remembered in the store under the
// wheel's digest, so that a warm build, whose layer comes from the cache and streams nothing, still
// warns about that wheel (or, with --strict, refuses it before anything is built).
constexpr const char* kRecordMismatchRecord = "wheel-record-mismatch";

void check_known_record_mismatch(ContentStore& store, const std::string& wheel_digest, bool strict,
                                 python::InstallOptions& options) {
  options.strict_record = strict;
  options.on_record_mismatch = [&store, wheel_digest](const std::string& message) {
    store.put_record(kRecordMismatchRecord, wheel_digest, {{"message", message}});
  };
  auto known = store.get_record(kRecordMismatchRecord, wheel_digest);
  if (!known || !known->is_object() || !(*known)["message"].is_string()) return;
  std::string message = (*known)["message"].get<std::string>();
  if (strict) python::refuse_record_mismatch(message);
  python::warn_record_mismatch(message);
  options.record_mismatch_reported = true;
}

// 6. Install plans: each wheel's members become entries streaming from the stored wheel
// (install_one, as soon as its file is there); then the hook, and the check that no two wheels
// write one file (finish_install).
python::InstalledWheel install_one(const StepContext& context, const python::ResolvedPackage& resolved,
                                   const DownloadedWheel& wheel, const InstallTarget& target,
                                   const PythonAdditions& additions) {
  ContentStore& store = *context.store;
  PhaseClock timer;
  python::InstallOptions o;
  o.filename = wheel.artifact.filename;
  o.requested = resolved.requested;
  o.wheel_digest = wheel.file.digest;
  o.protected_paths = target.protected_paths;
  check_known_record_mismatch(store, wheel.file.digest, context.strict, o);
  python::InstalledWheel installed = wheel.artifact.native_sdist
                                         ? additions.native_sdist->install(store.blob_path(wheel.file.digest), target.scheme, o)
                                         : python::install_wheel(store.blob_path(wheel.file.digest), target.scheme, o);
  // The name and version recorded (SBOM, report, lock) are the ones the resolver or the lock gave;
  // the file must say the same in its METADATA, or a hand-edited lock would make the records lie
  // about what the image holds.
  const bool from_lock = context.lock && context.lock.strict;
  if (installed.normalized_name != resolved.name || !(installed.version == resolved.version))
    throw InputError(wheel.artifact.filename + " holds " + printable(installed.name) + " " + installed.version.to_string() +
                         ", not " + printable(resolved.name) + " " + resolved.version.to_string() +
                         (from_lock ? " as the lock " + context.lock.path + " says" : " as its index says"),
                     from_lock ? "the lock was edited by hand or is damaged: run `rockpack lock RECIPE` to write it again"
                                         : "the index lists the file under another project or version");
  if (additions.on_installed) additions.on_installed(installed, target.scheme);
  spdlog::debug("install {}: {} entries in {:.2f} s", wheel.artifact.filename, installed.entries.size(), timer.wall_seconds());
  return installed;
}

// build --locked: the locked set must hold every dependency of what it holds (the resolver's
// output always does; a lock is text and can be edited). Names what is missing.
void check_locked_closure(const StepContext& context, const std::vector<python::InstalledWheel>& installed,
                          const std::vector<python::Requirement>& requirements, const python::MarkerEnvironment& environment) {
  std::vector<python::LockedDistribution> set;
  for (const auto& w : installed) set.push_back({w.normalized_name, w.version, w.metadata.requires_dist});
  auto missing = python::missing_dependencies(requirements, set, environment);
  if (missing.empty()) return;
  std::string list;
  for (size_t i = 0; i < missing.size() && i < 10; ++i)
    list += (i ? "; " : "") + (missing[i].required_by.empty() ? std::string("the recipe") : missing[i].required_by) +
            " requires " + printable(missing[i].requirement) + (missing[i].wrong_version ? " (the lock holds another version)" : "");
  if (missing.size() > 10) list += "; and " + std::to_string(missing.size() - 10) + " more";
  throw InputError(context.lock.path + " does not hold every dependency of what it locks: " + list,
                   "the lock was edited by hand or is damaged: run `rockpack lock RECIPE` to write it again");
}

void finish_install(std::vector<python::InstalledWheel>& installed, const InstallTarget& target,
                    const PythonAdditions& additions) {
  if (additions.after_install) additions.after_install(installed, target.scheme);
  for (const auto& w : installed)
    for (const auto& warning : w.warnings) spdlog::warn("{}: {}", w.filename, warning);
  // Two wheels writing one file is an error even when they land in different layers: the image
  // would depend on layer order.
  python::check_wheels_fit_together(installed);
}

std::vector<python::InstalledWheel> install_all(const StepContext& context, const std::vector<python::ResolvedPackage>& resolved,
                                                const std::vector<DownloadedWheel>& wheels,
                                                const InstallTarget& target, const PythonAdditions& additions) {
  std::vector<python::InstalledWheel> installed(resolved.size());
  std::vector<std::function<void()>> work;
  for (size_t i = 0; i < resolved.size(); ++i)
    work.push_back([&, i] { installed[i] = install_one(context, resolved[i], wheels[i], target, additions); });
  run_parallel(work, static_cast<int>(worker_count()));  // inflating members is CPU-bound
  finish_install(installed, target, additions);
  return installed;
}

// 7. Layers: each package into its layer (LayerAssigner), layers in image order; the records.
// `installed` is empty in kResolve mode: the layers are then listed without entries.
void assign_layers(const recipe::PythonSection& effective, const std::vector<python::IndexSource>& indexes,
                   const std::vector<python::ResolvedPackage>& resolved, const std::vector<DownloadedWheel>& wheels,
                   std::vector<python::InstalledWheel> installed, const std::string& recipe_file,
                   PythonStepResult& result) {
  LayerAssigner assigner(effective, indexes);
  // The resolution's edges, turned around: what each package's requirements picked.
  std::map<std::string, std::vector<std::string>> depends_on;
  for (const auto& r : resolved)
    for (const auto& dependent : r.required_by) depends_on[dependent].push_back(r.name);
  std::map<std::string, std::vector<python::InstalledWheel>> by_layer;
  std::map<std::string, std::vector<std::string>> names_by_layer;
  for (size_t i = 0; i < resolved.size(); ++i) {
    const python::WheelArtifact& artifact = wheels[i].artifact;
    std::string layer = assigner.layer_for(resolved[i].name, artifact);
    names_by_layer[layer].push_back(resolved[i].name + "==" + resolved[i].version.to_string());
    PythonPackageRecord p;
    p.component.kind = PackageKind::kPython;
    // From the file when it was read (install_one checked it against the resolution): the records
    // say what the image holds.
    p.component.name = installed.empty() ? resolved[i].name : installed[i].normalized_name;
    p.component.version = installed.empty() ? resolved[i].version.to_string() : installed[i].version.to_string();
    p.component.url = net::redact_url(artifact.url);
    p.component.sha256 = wheels[i].file.digest.empty() ? artifact.sha256 : digest_hex(wheels[i].file.digest);
    p.component.size = wheels[i].file.digest.empty() ? artifact.size.value_or(0) : wheels[i].file.size;
    p.component.origin = artifact.index;
    p.component.layer = layer;
    p.component.filename = artifact.filename;
    p.component.requested = resolved[i].requested;
    if (artifact.tls_only) p.component.verification = "tls-only";
    if (!installed.empty()) p.component.license = python::declared_license(installed[i].metadata.headers);
    if (auto d = depends_on.find(resolved[i].name); d != depends_on.end()) {
      p.component.depends_on = d->second;
      std::sort(p.component.depends_on.begin(), p.component.depends_on.end());
      p.component.depends_on.erase(std::unique(p.component.depends_on.begin(), p.component.depends_on.end()),
                                   p.component.depends_on.end());
    }
    p.filename = artifact.filename;
    p.requested = resolved[i].requested;
    p.extras = resolved[i].extras;
    p.required_by = resolved[i].required_by;
    result.record->packages.push_back(std::move(p));
    by_layer[layer];
    if (!installed.empty()) by_layer[layer].push_back(std::move(installed[i]));
  }
  std::set<std::string> used;
  for (const auto& [name, wheels_of_layer] : by_layer) used.insert(name);
  for (const auto& name : assigner.order(used)) {
    auto it = by_layer.find(name);
    if (it == by_layer.end()) continue;
    result.layers.push_back({name, "rockpack python: " + describe_packages(names_by_layer[name]) + " (" + recipe_file + ")",
                             installed.empty() ? std::vector<Entry>{} : python::merge_installed_wheels(std::move(it->second)), {}});
  }
}


// ---- the lock -------------------------------------------------------------------------------

// What the section asks for, by category, as a lock file records it (plan/lock_file.hpp).
std::map<std::string, std::vector<std::string>> lock_inputs(const recipe::PythonSection& py, const Requirements& reqs,
                                                            const std::vector<python::IndexSource>& indexes) {
  std::map<std::string, std::vector<std::string>> out;
  auto& requirements = out["requirements"];
  for (const auto& r : reqs.requirements) requirements.push_back(net::redact_credentials(r.to_string()));
  auto& constraints = out["constraints"];
  for (const auto& c : reqs.constraints) constraints.push_back(net::redact_credentials(c.to_string()));
  auto& index_urls = out["indexes"];
  for (const auto& i : indexes) index_urls.push_back(display_url(i.url) + (i.tls_only ? " verify=tls-only" : ""));
  auto& links = out["find_links"];
  for (const auto& l : py.find_links) links.push_back(net::redact_credentials(l));
  for (const auto& l : reqs.find_links) links.push_back(net::redact_credentials(l));
  for (auto* list : {&requirements, &constraints, &links}) std::sort(list->begin(), list->end());
  return out;
}

// Whether a lock's file:// URL names a file the recipe itself lets the build read: under the
// directory of the recipe or of a fragment, a local find-links or index directory, a requirements
// file's directory, or a wheel the recipe names by path. A hand-edited lock must not make the build
// read (and hash, and install) any host file: file:///etc/shadow, file:///dev/zero.
bool locked_file_allowed(const std::string& url, const recipe::Recipe& recipe, const recipe::PythonSection& py,
                         const Requirements& reqs) {
  auto local_dir = [](const std::string& location) -> std::optional<fs::path> {
    if (location.starts_with("file://")) return fs::path(net::percent_decode(location.substr(7)));
    if (location.starts_with("/")) return fs::path(location);
    return std::nullopt;
  };
  std::error_code ec;
  fs::path file = fs::weakly_canonical(fs::path(url.substr(7)), ec);
  if (ec) return false;
  auto within = [&](const fs::path& dir) {
    std::error_code dir_ec;
    fs::path real = fs::weakly_canonical(dir, dir_ec);
    if (dir_ec) return false;
    auto rel = file.lexically_relative(real);
    return !rel.empty() && *rel.begin() != ".." && rel != ".";
  };
  std::vector<fs::path> dirs = {recipe.file.parent_path()};
  for (const auto& f : recipe.included) dirs.push_back(f.parent_path());
  for (const auto& f : py.requirements) dirs.push_back(f.parent_path());
  for (const auto& f : py.constraints) dirs.push_back(f.parent_path());
  for (const auto* links : {&py.find_links, &reqs.find_links})
    for (const auto& l : *links)
      if (auto d = local_dir(l)) dirs.push_back(*d);
  for (const auto& i : py.indexes)
    if (auto d = local_dir(i.url)) dirs.push_back(*d);
  for (const auto& i : reqs.extra_indexes)
    if (auto d = local_dir(i.url)) dirs.push_back(*d);
  for (const auto& w : py.wheels) {
    std::optional<fs::path> named = w.path ? w.path : local_dir(w.url);
    std::error_code wec;
    if (named && fs::weakly_canonical(*named, wec) == file && !wec) return true;
  }
  return std::any_of(dirs.begin(), dirs.end(), within);
}

// build --locked: the resolution the lock recorded, as the resolver would have returned it (sorted
// by name), and each package's file.
void locked_packages(const StepLock& locked, const std::string& lock_path, const PythonAdditions& additions,
                     std::vector<python::ResolvedPackage>& resolved, std::vector<python::WheelArtifact>& artifacts) {
  std::vector<ResolvedComponent> packages;
  for (const auto& c : locked.components)
    if (c.kind == PackageKind::kPython) packages.push_back(c);
  std::sort(packages.begin(), packages.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  for (const auto& c : packages) {
    python::Version version;
    try {
      version = python::Version::parse(c.version);
    } catch (const InputError& e) {
      throw InputError(lock_path + ": " + c.name + ": " + e.what(), "run `rockpack lock RECIPE` to write the lock again");
    }
    python::ResolvedPackage p;
    p.name = c.name;
    p.version = version;
    p.requested = c.requested;
    if (c.origin == "direct") p.url = c.url;
    python::WheelArtifact a;
    a.name = c.name;
    a.version = version;
    a.filename = c.filename;
    a.url = c.url;
    a.sha256 = c.sha256;
    a.index = c.origin;
    a.tls_only = c.verification == "tls-only";  // checked against the locked sha256 all the same
    if (c.size) a.size = c.size;
    a.native_sdist = additions.native_sdist && python::sdist_version(c.filename, additions.native_sdist->project());
    resolved.push_back(std::move(p));
    artifacts.push_back(std::move(a));
  }
}

// lock --update NAME: the locked packages not named keep their version (a constraint) and their
// file (a hash pin).
void keep_locked_versions(const StepLock& locked, const LockUse& use, python::PackageFinder& finder,
                          std::vector<python::Requirement>& constraints) {
  for (const auto& c : locked.components) {
    if (c.kind != PackageKind::kPython || !use.keeps(c.name)) continue;
    constraints.push_back(python::Requirement::parse(c.name + "==" + c.version));
    finder.pin_hashes(c.name, {c.sha256});
  }
}

// Files accepted without a hash from their index (`verify: tls-only`): said loudly, every time.
void warn_tls_only(const PythonRecord& record) {
  std::vector<std::string> names;
  for (const auto& p : record.packages)
    if (p.component.verification == "tls-only") names.push_back(p.filename);
  if (names.empty()) return;
  spdlog::warn("python: {} file{} came from an index without hashes and {} accepted on TLS alone (verify: tls-only): "
               "{}; their sha256 as downloaded is recorded in the lock, SBOM and the org.rockpack.python.tls-only-files "
               "label, and `build --locked` checks them against it",
               names.size(), names.size() == 1 ? "" : "s", names.size() == 1 ? "was" : "were", join(names, ", "));
}

}  // namespace

nlohmann::json PythonRecord::to_json() const {
  nlohmann::json packages_json = nlohmann::json::array();
  for (const auto& p : packages)
    packages_json.push_back({{"name", p.component.name},
                             {"version", p.component.version},
                             {"filename", p.filename},
                             {"url", p.component.url},
                             {"sha256", p.component.sha256},
                             {"size", p.component.size},
                             {"index", p.component.origin},
                             {"layer", p.component.layer},
                             {"requested", p.requested},
                             {"extras", p.extras},
                             {"required_by", p.required_by}});
  return {{"interpreter", interpreter},
          {"target", target},
          {"index_strategy", index_strategy == recipe::IndexStrategy::kFirstIndex ? "first-index" : "unsafe-best-match"},
          {"packages", packages_json}};
}

PythonStepResult plan_python(const StepContext& context, const recipe::PythonSection& section,
                             const PythonAdditions& additions) {
  const recipe::PythonSection py = with_additions(section, additions);
  const std::string recipe_file = context.recipe.file.filename().string();
  PythonStepResult result;
  Requirements reqs = collect_requirements(py, additions);
  if (context.mode == StepMode::kOffline) return result;  // the rest reads the image and the indexes

  // What the section asks for, as the lock records it; a locked build stops here when it differs.
  std::vector<python::IndexSource> indexes = index_sources(py, reqs);
  result.lock_inputs = lock_inputs(py, reqs, indexes);
  for (const auto& [category, values] : result.lock_inputs)
    check_locked_inputs(context.lock, context.step, category, values);
  const StepLock* locked = context.locked();
  const bool strict_lock = locked && context.lock.strict;

  PhaseClock phase;
  PlannedInterpreter interp = plan_interpreter(context, py);  // waits for the base's check, which reads it
  phase.lap("plan.python.interpreter");
  if (interp.layer) result.layers.push_back(std::move(*interp.layer));
  InstallTarget target = install_target(interp.interpreter, py, recipe_file);
  if (target.venv_layer) result.layers.push_back(std::move(*target.venv_layer));
  for (const auto& [k, v] : target.env) result.env.push_back({EnvChange::Kind::kSet, k, v});
  // PATH: the venv's bin, or else the standalone interpreter's.
  std::string bin = !target.bin.empty() ? target.bin : interp.standalone_bin;
  if (!bin.empty()) result.env.push_back({EnvChange::Kind::kPrependPath, "PATH", bin + ":"});
  result.scheme = target.scheme;

  auto finder = make_finder(context, py, reqs, indexes, interp.interpreter, additions);
  std::vector<python::ResolvedPackage> resolved;
  std::vector<python::WheelArtifact> artifacts;
  if (strict_lock) {
    // build --locked: the locked files, nothing asked of the indexes.
    for (const auto& c : locked->components)
      if (c.kind == PackageKind::kPython && c.url.starts_with("file://") && !locked_file_allowed(c.url, context.recipe, py, reqs))
        throw InputError(context.lock.path + ": " + printable(c.name) + " is locked to the local file " + printable(c.url) +
                             ", which is outside every directory the recipe reads",
                         "a lock may name local files only where the recipe does (its directory, its find-links and "
                         "index directories); run `rockpack lock RECIPE` to write the lock again");
    locked_packages(*locked, context.lock.path, additions, resolved, artifacts);
    spdlog::info("python: {} locked package{} from {}", resolved.size(), resolved.size() == 1 ? "" : "s", context.lock.path);
  } else {
    python::ResolverOptions resolver_options;
    resolver_options.environment = interp.interpreter.marker_environment();
    resolver_options.prereleases = prerelease_policy(py.prerelease, reqs.pre);
    resolver_options.constraints = reqs.constraints;
    // lock --update NAME: every other locked package keeps its version and its file.
    if (locked) keep_locked_versions(*locked, context.lock, *finder, resolver_options.constraints);
    resolved = python::resolve(reqs.requirements, *finder, resolver_options);
    spdlog::info("python: resolved {} package{}", resolved.size(), resolved.size() == 1 ? "" : "s");
    for (const auto& p : resolved) artifacts.push_back(finder->artifact(p.name, python::Candidate{p.version, p.url}));
  }
  phase.lap("plan.python.resolution");

  result.record = std::make_shared<PythonRecord>();
  result.record->interpreter = interp.interpreter.to_json();
  if (!interp.standalone.is_null()) result.record->interpreter["standalone"] = interp.standalone;
  result.record->target = py.venv ? *py.venv : target.scheme.prefix;
  result.record->index_strategy = py.index_strategy;
  result.interpreter = interp.archive;

  std::vector<DownloadedWheel> wheels;
  std::vector<python::InstalledWheel> installed;
  if (context.mode == StepMode::kBuild) {
    // Each wheel is installed as soon as it is there, while the larger ones still download.
    installed.resize(resolved.size());
    wheels = download_verified(context, *finder, std::move(artifacts), strict_lock,
                               [&](size_t i, const DownloadedWheel& wheel) {
                                 installed[i] = install_one(context, resolved[i], wheel, target, additions);
                               },
                               &additions);
    phase.lap("plan.python.downloads");  // each wheel installed as it arrived: this waits for the last
    if (strict_lock) check_locked_closure(context, installed, reqs.requirements, interp.interpreter.marker_environment());
    finish_install(installed, target, additions);
    phase.lap("plan.python.after-install");
  } else {
    for (auto& a : artifacts) wheels.push_back({std::move(a), {}});
    // Files accepted without a hash from their index (verify: tls-only) have no sha256 until they
    // are downloaded: a lock (or plan) fetches them into the store to know it.
    std::vector<size_t> unhashed;
    for (size_t i = 0; i < wheels.size(); ++i)
      if (wheels[i].artifact.tls_only && wheels[i].artifact.sha256.empty()) unhashed.push_back(i);
    if (!unhashed.empty() && context.store) {
      std::vector<python::WheelArtifact> fetch;
      for (size_t i : unhashed) fetch.push_back(wheels[i].artifact);
      auto fetched = download_verified(context, *finder, std::move(fetch), false, nullptr);
      for (size_t k = 0; k < unhashed.size(); ++k) {
        wheels[unhashed[k]].artifact.sha256 = digest_hex(fetched[k].file.digest);
        wheels[unhashed[k]].artifact.size = fetched[k].file.size;
      }
    }
    // Every file in the store already (an earlier build): plan the layers' contents too, so that
    // `rockpack plan` can show their digests. Nothing is downloaded.
    ContentStore& store = *context.store;
    bool all_stored = !wheels.empty() && std::all_of(wheels.begin(), wheels.end(), [&store](const DownloadedWheel& w) {
      return !w.artifact.sha256.empty() && store.contains("sha256:" + w.artifact.sha256);
    });
    if (all_stored) {
      for (auto& w : wheels) w.file = {"sha256:" + w.artifact.sha256, store.blob_size("sha256:" + w.artifact.sha256), false};
      installed = install_all(context, resolved, wheels, target, additions);
    }
  }
  assign_layers(py, indexes, resolved, wheels, std::move(installed), recipe_file, result);
  phase.lap("plan.python.layers");
  warn_tls_only(*result.record);
  return result;
}

StepOutput python_step_output(PythonStepResult result) {
  StepOutput out;
  out.layers = std::move(result.layers);
  out.config.env = std::move(result.env);
  out.config.ensure_env = true;
  out.lock_inputs = std::move(result.lock_inputs);
  if (result.interpreter) out.components.push_back(*result.interpreter);
  if (result.record) {
    size_t tls_only = 0;
    for (const auto& p : result.record->packages) {
      out.components.push_back(p.component);
      tls_only += p.component.verification == "tls-only";
    }
    if (tls_only) out.config.labels.emplace_back("org.rockpack.python.tls-only-files", std::to_string(tls_only));
    out.records.emplace_back("python", std::move(result.record));
  }
  return out;
}

bool PythonStep::reads_from_base(std::string_view path) const { return python::interpreter_file_of_interest(path); }

StepOutput PythonStep::plan(const StepContext& context) const {
  // TheRock's `rocm` is published only as an sdist whose setup.py computes its extras: it is
  // installed natively (never built) when a requirement names it, as the rocm: section does, and
  // `_rocm_sdk_libraries/__init__.py` gets one owner. Without rocm: nothing else changes (no devel
  // expansion: that is `rocm-sdk init`, which pip does not run either).
  PythonAdditions additions;
  if (context.store) {
    therock::RocmPackageOptions options;
    options.fetcher = std::make_shared<StoreFileFetcher>(*context.store, context.downloads);
    additions.native_sdist = std::make_shared<therock::RocmPackage>(std::move(options));
  }
  additions.after_install = [](std::vector<python::InstalledWheel>& wheels, const python::InstallScheme& scheme) {
    therock::own_shared_files(wheels, scheme.purelib.substr(1));
  };
  return python_step_output(plan_python(context, *context.recipe.python, additions));
}

}  // namespace rp
