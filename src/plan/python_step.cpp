#include "plan/python_step.hpp"

#include <spdlog/spdlog.h>

#include <fnmatch.h>

#include <map>
#include <set>

#include "image/rootfs_view.hpp"
#include "net/url.hpp"
#include "python/index_client.hpp"
#include "python/index_credentials.hpp"
#include "python/package_finder.hpp"
#include "python/install_plan.hpp"
#include "python/interpreter.hpp"
#include "python/requirements_file.hpp"
#include "python/resolver.hpp"
#include "python/standalone.hpp"
#include "python/text.hpp"
#include "python/venv.hpp"
#include "python/wheel_filename.hpp"
#include "python/wheel_installer.hpp"
#include "util/digest.hpp"
#include "util/error.hpp"
#include "util/parallel.hpp"

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
python::Interpreter find_interpreter(const BuildPlan& plan, const std::vector<Entry>& extra_entries,
                                     const std::string& path, const Platform& platform, ContentStore& store) {
  Sha256 key;
  key.update("interpreter-v1\n" + path + "\n" + platform.str() + "\n");
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
  RootfsView view;
  for (const auto& l : plan.base.layers)
    view.add_layer(store, l.blob, [](std::string_view p) { return python::interpreter_file_of_interest(p); });
  for (const auto& l : plan.layers) view.add_entries(l.entries);
  view.add_entries(extra_entries);
  python::Interpreter interpreter = python::read_interpreter(view, path, platform);
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

Requirements collect_requirements(const recipe::PythonSection& py) {
  Requirements out;
  for (const auto& [text, where] : py.packages) out.requirements.push_back(parse_recipe_requirement(text, where));
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
  LayerAssigner(const recipe::PythonSection& py, const std::vector<python::IndexSource>& indexes) : py_(py) {
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

  std::string layer_for(const std::string& name, const python::WheelArtifact& artifact) const {
    for (const auto& [layer, patterns] : py_.layers)
      for (const auto& p : patterns)
        if (glob_matches(p, name)) return layer;
    if (auto it = wheel_layers_.find(artifact.url); it != wheel_layers_.end()) return it->second;
    if (auto it = index_layers_.find(artifact.index); it != index_layers_.end()) return it->second;
    return kLocalWheelsLayer;
  }

  // Image order: the recipe's named layers as declared, then index layers, then local wheels.
  std::vector<std::string> order() const {
    std::vector<std::string> out;
    auto add = [&out](const std::string& n) {
      if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
    };
    for (const auto& [layer, patterns] : py_.layers) add(layer);
    for (const auto& w : py_.wheels)
      if (!w.layer.empty()) add(w.layer);
    for (const auto& i : py_.indexes) add(index_layers_.at(display_url(i.url)));
    for (const auto& [url, layer] : index_layers_) add(layer);
    add(kLocalWheelsLayer);
    return out;
  }

 private:
  const recipe::PythonSection& py_;
  std::map<std::string, std::string> index_layers_;  // index URL -> layer
  std::map<std::string, std::string> wheel_layers_;  // direct wheel URL -> layer
};

std::string describe_packages(const std::vector<std::string>& names) {
  std::string s;
  for (size_t i = 0; i < names.size() && i < 4; ++i) s += (i ? ", " : "") + names[i];
  if (names.size() > 4) s += ", " + std::to_string(names.size() - 4) + " more";
  return s;
}

}  // namespace

PythonStepResult plan_python(const recipe::Recipe& recipe, const BuildPlan& plan, const PythonStepOptions& options) {
  const recipe::PythonSection& py = *recipe.python;
  ContentStore& store = *options.store;
  PythonStepResult result;
  std::string origin = py.where.str();

  // 1. The interpreter: one of the image's, or a standalone archive unpacked at its prefix.
  std::vector<Entry> interpreter_entries;
  std::string interpreter_path;
  nlohmann::json standalone_json;
  if (py.standalone) {
    const recipe::PythonStandalone& s = *py.standalone;
    DownloadJob job{s.path ? file_url(*s.path) : s.url, s.sha256, {}, "the standalone Python archive"};
    std::string archive_name = job.url.substr(job.url.find_last_of('/') + 1);
    DownloadResult got = download_all(store, {job}, options.downloads).front();
    interpreter_entries =
        python::standalone_entries(store, got.digest, archive_name, s.prefix, s.strip, s.where.str());
    interpreter_path = s.prefix + "/bin/python3";
    standalone_json = {{"url", net::redact_url(job.url)}, {"sha256", s.sha256}, {"prefix", s.prefix}};
  } else {
    interpreter_path = *py.interpreter;
  }
  python::Interpreter interpreter =
      find_interpreter(plan, interpreter_entries, interpreter_path, recipe.platform, store);
  spdlog::info("python: {} ({}, {} {})", interpreter.real_executable, interpreter.version, interpreter.libc,
               interpreter.libc_version);
  if (!interpreter_entries.empty()) {
    finalize_entries(interpreter_entries);
    result.layers.push_back({kInterpreterLayer, "rockpack python: standalone CPython " + interpreter.version +
                                                    " at " + py.standalone->prefix + " (" + recipe.file.filename().string() + ")",
                             std::move(interpreter_entries)});
    if (!py.venv) result.path_prefixes.push_back(py.standalone->prefix + "/bin");
  }

  // 2. Where packages go: a venv made here, or the interpreter's own scheme.
  python::InstallScheme scheme;
  std::set<std::string> venv_files;  // a wheel may not replace these (its bin/python3, say)
  if (py.venv) {
    std::vector<Entry> venv = python::venv_entries(interpreter, *py.venv, origin);
    finalize_entries(venv);
    for (const auto& e : venv)
      if (e.type != EntryType::kDirectory) venv_files.insert(e.path);
    result.layers.push_back({kVenvLayer, "rockpack python: venv " + *py.venv + " (" + recipe.file.filename().string() + ")",
                             std::move(venv)});
    scheme = python::venv_scheme(interpreter, *py.venv);
    result.env.push_back({"VIRTUAL_ENV", *py.venv});
    result.path_prefixes.push_back(*py.venv + "/bin");
  } else {
    if (interpreter.externally_managed && !py.break_system_packages)
      throw InputError(origin + ": " + interpreter.real_executable +
                           " is marked EXTERNALLY-MANAGED (PEP 668): its packages belong to the distribution",
                       "install into a virtual environment (python: venv: /opt/venv), or set "
                       "python: break_system_packages: true if you really mean to");
    scheme = interpreter.system_scheme;
  }

  // 3. Requirements and indexes.
  Requirements reqs = collect_requirements(py);
  std::vector<python::IndexSource> indexes;
  for (const auto& i : py.indexes) indexes.push_back({i.url, i.netrc, i.username_env, i.password_env, i.packages});
  for (const auto& extra : reqs.extra_indexes) {
    bool known = std::any_of(indexes.begin(), indexes.end(), [&](const auto& i) { return i.url == extra.url; });
    if (!known) indexes.push_back(extra);
  }
  python::FinderOptions finder_options;
  finder_options.indexes = indexes;
  finder_options.find_links = py.find_links;
  finder_options.find_links.insert(finder_options.find_links.end(), reqs.find_links.begin(), reqs.find_links.end());
  finder_options.strategy = py.index_strategy == recipe::IndexStrategy::kUnsafeBestMatch
                                ? python::IndexStrategy::kUnsafeBestMatch
                                : python::IndexStrategy::kFirstIndex;
  finder_options.store = &store;
  finder_options.native_sdist = options.native_sdist;
  finder_options.client.verify_tls = options.downloads.verify_tls;
  finder_options.remote.verify_tls = options.downloads.verify_tls;
  // A wheel the recipe lists with `verify: false` is the only way to accept a file without a hash.
  finder_options.require_hashes =
      std::none_of(py.wheels.begin(), py.wheels.end(), [](const recipe::PythonWheel& w) { return !w.verify; });
  python::PackageFinder finder(finder_options, interpreter.tag_policy(), interpreter.version);
  for (const auto& [name, hashes] : reqs.hashes) finder.pin_hashes(name, hashes);
  for (const auto& r : reqs.requirements) {
    const auto& specs = r.specifier.specifiers();
    if (specs.size() == 1 && specs[0].op() == python::Specifier::Op::kEqual && !specs[0].wildcard())
      finder.allow_yanked(r.normalized_name(), specs[0].version());
  }

  // 4. Resolution.
  python::ResolverOptions resolver_options;
  resolver_options.environment = interpreter.marker_environment();
  resolver_options.prereleases = prerelease_policy(py.prerelease, reqs.pre);
  resolver_options.constraints = reqs.constraints;
  std::vector<python::ResolvedPackage> resolved = python::resolve(reqs.requirements, finder, resolver_options);
  spdlog::info("python: resolved {} package{}", resolved.size(), resolved.size() == 1 ? "" : "s");

  // 5. Downloads: every wheel into the store, checked against its sha256 before anything uses it.
  std::vector<python::WheelArtifact> artifacts;
  std::vector<DownloadJob> jobs;
  for (const auto& p : resolved) {
    python::WheelArtifact a = finder.artifact(p.name, python::Candidate{p.version, p.url});
    // Several --hash pins and no hash from the index: any pinned digest will do (checked below).
    std::string expected = a.sha256.empty() && a.accepted_sha256.size() == 1 ? a.accepted_sha256[0] : a.sha256;
    jobs.push_back({a.url, expected, finder.auth_headers_for(a.url),
                    p.name + " " + p.version.to_string() + " (" + a.filename + ")"});
    artifacts.push_back(std::move(a));
  }
  DownloadStats stats;
  std::vector<DownloadResult> files = download_all(store, jobs, options.downloads, &stats);
  for (size_t i = 0; i < files.size(); ++i) {
    const auto& accepted = artifacts[i].accepted_sha256;
    std::string got = digest_hex(files[i].digest);
    if (!accepted.empty() && std::find(accepted.begin(), accepted.end(), got) == accepted.end())
      throw Error(jobs[i].what + " has sha256 " + got + ", which matches none of its pins (--hash or the recipe's sha256:)",
                       "the file on the index is not the one that was pinned; nothing from it was installed");
  }
  spdlog::info("python: {} wheel{} downloaded ({:.1f} MB), {} already in the store", stats.files_fetched,
               stats.files_fetched == 1 ? "" : "s", stats.bytes_fetched / 1e6, stats.files_cached);

  // 6. Install plans: each wheel's members become entries streaming from the stored wheel.
  std::vector<python::InstalledWheel> installed(resolved.size());
  std::vector<std::function<void()>> work;
  for (size_t i = 0; i < resolved.size(); ++i) {
    work.push_back([&, i] {
      python::InstallOptions o;
      o.filename = artifacts[i].filename;
      o.requested = resolved[i].requested;
      o.wheel_digest = files[i].digest;
      o.protected_paths = venv_files;
      installed[i] = artifacts[i].native_sdist
                         ? options.native_sdist->install(store.blob_path(files[i].digest), scheme, o)
                         : python::install_wheel(store.blob_path(files[i].digest), scheme, o);
    });
  }
  run_parallel(work, 4);
  if (options.after_install) options.after_install(installed, scheme);
  for (const auto& w : installed)
    for (const auto& warning : w.warnings) spdlog::warn("{}: {}", w.filename, warning);
  // Two wheels writing one file is an error even when they land in different layers: the image
  // would depend on layer order.
  (void)python::merge_installed_wheels(installed);

  LayerAssigner assigner(py, indexes);
  std::map<std::string, std::vector<python::InstalledWheel>> by_layer;
  std::map<std::string, std::vector<std::string>> names_by_layer;
  nlohmann::json packages = nlohmann::json::array();
  for (size_t i = 0; i < resolved.size(); ++i) {
    std::string layer = assigner.layer_for(resolved[i].name, artifacts[i]);
    names_by_layer[layer].push_back(resolved[i].name + "==" + resolved[i].version.to_string());
    packages.push_back({{"name", resolved[i].name},
                        {"version", resolved[i].version.to_string()},
                        {"filename", artifacts[i].filename},
                        {"url", net::redact_url(artifacts[i].url)},
                        {"sha256", digest_hex(files[i].digest)},
                        {"size", files[i].size},
                        {"index", artifacts[i].index},
                        {"layer", layer},
                        {"requested", resolved[i].requested},
                        {"extras", resolved[i].extras},
                        {"required_by", resolved[i].required_by}});
    by_layer[layer].push_back(std::move(installed[i]));
  }
  for (const auto& name : assigner.order()) {
    auto it = by_layer.find(name);
    if (it == by_layer.end()) continue;
    result.layers.push_back({name,
                             "rockpack python: " + describe_packages(names_by_layer[name]) + " (" +
                                 recipe.file.filename().string() + ")",
                             python::merge_installed_wheels(it->second)});
  }

  nlohmann::json interp = interpreter.to_json();
  if (!standalone_json.is_null()) interp["standalone"] = standalone_json;
  result.resolution = {{"interpreter", interp},
                       {"target", py.venv ? *py.venv : scheme.prefix},
                       {"index_strategy", py.index_strategy == recipe::IndexStrategy::kFirstIndex ? "first-index"
                                                                                                 : "unsafe-best-match"},
                       {"packages", packages}};
  result.scheme = scheme;
  return result;
}

void apply_python_step(BuildPlan& plan, const recipe::Recipe& recipe, PythonStepResult result) {
  for (auto& l : result.layers) plan.layers.push_back(std::move(l));
  std::set<std::string> recipe_env;
  for (const auto& [k, v] : recipe.env) recipe_env.insert(k);
  nlohmann::json& env = plan.config["config"]["Env"];
  if (!env.is_array()) env = nlohmann::json::array();
  for (const auto& [k, v] : result.env)
    if (!recipe_env.count(k)) set_env_var(env, k, v);
  if (!result.path_prefixes.empty() && !recipe_env.count("PATH")) {
    std::string path = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
    for (const auto& e : env) {
      std::string s = e.get<std::string>();
      if (s.rfind("PATH=", 0) == 0) path = s.substr(5);
    }
    std::string prefix;
    for (const auto& p : result.path_prefixes) prefix += p + ":";
    set_env_var(env, "PATH", prefix + path);
  }
  plan.resolution["python"] = std::move(result.resolution);
}

}  // namespace rp
