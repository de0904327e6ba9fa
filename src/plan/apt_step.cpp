#include "plan/apt_step.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <set>

#include "apt/copyright.hpp"
#include "apt/dpkg_database.hpp"
#include "apt/installer.hpp"
#include "apt/maintainer_scripts.hpp"
#include "apt/native_effects.hpp"
#include "apt/resolver.hpp"
#include "apt/sources.hpp"
#include "net/url.hpp"
#include "plan/apt_debs.hpp"
#include "plan/apt_indexes.hpp"
#include "plan/apt_resolution.hpp"
#include "plan/apt_scripts.hpp"
#include "plan/lock_plan.hpp"
#include "plan/sandbox_layers.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/phase_clock.hpp"
#include "util/strings.hpp"

namespace rp {

namespace {

// What the apt step reads from the image below it: apt's configuration and keyrings, dpkg's
// database, accounts, and what the native effects look at.
bool apt_file_of_interest(std::string_view p) {
  auto starts = [&](std::string_view prefix) { return p.substr(0, prefix.size()) == prefix; };
  return starts("etc/apt/") || starts("etc/dpkg/") || starts("var/lib/dpkg/") || starts("usr/share/keyrings/") || p == "etc/passwd" ||
         p == "etc/group" || starts("usr/share/ca-certificates/") || p == "etc/ca-certificates.conf" ||
         starts("usr/share/base-passwd/");
}

// A recipe source as an apt source entry, with its keys.
apt::SourceEntry recipe_source(const recipe::AptSource& s) {
  apt::SourceEntry e;
  e.origin = s.where.str();
  e.url = s.url;
  e.suite = s.suite;
  e.components = s.components;
  e.trusted = s.trusted;
  e.priority = s.priority;
  return e;
}

// Entries by path, a later one replacing an earlier one (an effect overriding what a package left).
void add_entries(std::map<std::string, Entry>& into, std::vector<Entry> entries) {
  for (auto& e : entries) {
    auto it = into.find(e.path);
    if (it != into.end() && it->second.type == EntryType::kDirectory && e.type == EntryType::kDirectory) continue;
    into.insert_or_assign(e.path, std::move(e));
  }
}

std::vector<Entry> values(std::map<std::string, Entry>& m) {
  std::vector<Entry> out;
  out.reserve(m.size());
  for (auto& [path, e] : m) out.push_back(std::move(e));
  return out;
}

// What the section asks for, by category, as a lock file records it.
std::map<std::string, std::vector<std::string>> apt_lock_inputs(const recipe::AptSection& section,
                                                                const std::vector<apt::SourceEntry>& sources) {
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& s : sources) out["sources"].push_back(net::redact_credentials(s.describe()));
  auto& packages = out["packages"];
  for (const auto& [text, where] : section.packages) packages.push_back(text);
  std::sort(packages.begin(), packages.end());
  out["options"] = {std::string("recommends ") + (section.recommends ? "true" : "false"),
                    std::string("merged_usr ") + (section.merged_usr ? "true" : "false")};
  return out;
}

// A locked build's resolution against the lock: the same packages, versions and files.
void check_locked_debs(const StepLock& locked, const std::string& lock_path, const AptRecord& record) {
  std::map<std::string, const ResolvedComponent*> want, have;
  for (const auto& c : locked.components)
    if (c.kind == PackageKind::kDeb) want[c.name] = &c;
  for (const auto& p : record.packages) have[p.component.name] = &p.component;
  std::vector<std::string> differences;
  for (const auto& [name, c] : want) {
    auto it = have.find(name);
    if (it == have.end())
      differences.push_back(name + " " + c->version + " is locked but no longer resolved");
    else if (it->second->version != c->version)
      differences.push_back(name + " resolves to " + it->second->version + ", locked " + c->version);
    else if (it->second->sha256 != c->sha256)
      differences.push_back(name + " " + c->version + " has sha256 " + it->second->sha256 + " in the index, locked " + c->sha256);
  }
  for (const auto& [name, c] : have)
    if (!want.count(name)) differences.push_back(name + " " + c->version + " is resolved but not locked");
  if (differences.empty()) return;
  throw Error("apt: the repositories no longer give what " + lock_path + " locked: " + join(differences, "; "),
              "apt packages are resolved from the repositories' current indexes, so a locked build needs them to "
              "still offer the locked versions (a dated snapshot mirror keeps them); or run `rockpack lock RECIPE` "
              "to lock what they offer now");
}

// The sources: the image's own, then the recipe's (as one more sources.list.d file would add them);
// a base entry for the same URL and suite as a recipe source gives way to it. `replace_sources`:
// the recipe's alone.
struct AptSources {
  std::vector<apt::SourceEntry> entries;
  std::map<std::string, apt::Keyring> recipe_keys;  // the recipe's signed_by, by origin
};

AptSources apt_sources(const recipe::AptSection& section, const FileTree& base) {
  AptSources out;
  std::vector<apt::SourceEntry> from_recipe;
  for (const auto& s : section.sources) {
    apt::SourceEntry e = recipe_source(s);
    apt::Keyring keys;
    if (s.signed_by_file) keys.files.push_back({s.signed_by_file->string(), read_file(*s.signed_by_file)});
    if (!s.signed_by_inline.empty()) keys.files.push_back({e.origin + " (inline signed_by key)", s.signed_by_inline});
    out.recipe_keys[e.origin] = std::move(keys);
    from_recipe.push_back(std::move(e));
  }
  if (!section.replace_sources)
    for (auto& e : apt::image_sources(base)) {
      bool shadowed = std::any_of(from_recipe.begin(), from_recipe.end(), [&](const apt::SourceEntry& r) {
        return r.url == e.url && r.suite == e.suite;
      });
      if (!shadowed) out.entries.push_back(std::move(e));
    }
  out.entries.insert(out.entries.end(), from_recipe.begin(), from_recipe.end());
  if (out.entries.empty())
    throw InputError(section.where.str() + ": apt: has no sources: and the base image configures none",
                     "add apt.sources (url, suite, components, signed_by), or use a base image with "
                     "/etc/apt/sources.list(.d)");
  return out;
}

// The keyrings: a recipe source's own keys, else the ones the base image configures for it.
AptIndexes verified_indexes(const StepContext& context, const AptSources& sources, const FileTree& base,
                            const std::string& arch) {
  auto keyring_for = [&](const apt::SourceEntry& e) {
    auto it = sources.recipe_keys.find(e.origin);
    return it != sources.recipe_keys.end() ? it->second : apt::image_keyring(e, base);
  };
  AptIndexOptions index_options;
  index_options.architecture = arch;
  index_options.now = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  index_options.downloads = context.downloads;
  return load_apt_indexes(sources.entries, keyring_for, *context.store, index_options);
}

// The records: one per package to install (in install order), each with the download that fetches
// its .deb (the signed index's Size bounds it: an endless stream stops there).
std::vector<DownloadJob> record_packages(AptRecord& record, const AptIndexes& indexes, const apt::Resolution& resolution) {
  std::vector<DownloadJob> jobs;
  for (const auto& r : resolution.install) {
    const apt::Package& p = r.package;
    const AptSourceState& src = indexes.sources.at(static_cast<size_t>(p.origin));
    AptPackageRecord rec;
    rec.component.kind = PackageKind::kDeb;
    rec.component.name = p.name;
    rec.component.version = p.version.str();
    rec.component.url = net::redact_url(src.deb_base + "/" + p.filename);
    rec.component.sha256 = p.sha256;
    rec.component.size = p.size;
    rec.component.origin = src.entry.describe();
    rec.component.filename = p.filename.substr(p.filename.find_last_of('/') + 1);
    rec.component.requested = r.requested;
    rec.component.arch = p.architecture;
    rec.component.release_origin = src.release.origin;
    rec.component.release_version = src.release.version;
    rec.component.release_suite = src.release.suite;
    rec.architecture = p.architecture;
    rec.source_package = p.source;
    rec.source_version = p.source_version;
    rec.requested = r.requested;
    rec.required_by = r.required_by;
    record.packages.push_back(std::move(rec));
    jobs.push_back({src.deb_base + "/" + p.filename, p.sha256, {}, p.display(), p.size});
  }
  return jobs;
}

// The resolution's edges, turned around: the packages each one's Depends/Pre-Depends picked (only
// those this step installs; what the base already has is not a component here).
void record_dependency_edges(AptRecord& record) {
  std::map<std::string, std::vector<std::string>> depends_on;
  for (const auto& p : record.packages)
    for (const auto& dependent : p.required_by) depends_on[dependent].push_back(p.component.name);
  for (auto& p : record.packages) {
    auto d = depends_on.find(p.component.name);
    if (d == depends_on.end()) continue;
    std::sort(d->second.begin(), d->second.end());
    d->second.erase(std::unique(d->second.begin(), d->second.end()), d->second.end());
    p.component.depends_on = d->second;
  }
}

// Which layer the i-th package to install goes into (apt: layers:).
std::string apt_layer_name(const recipe::AptSection& section, const AptIndexes& indexes, const apt::Resolution& resolution,
                           size_t i) {
  const apt::Package& p = resolution.install[i].package;
  switch (section.layers) {
    case recipe::AptLayers::kOne: return "apt";
    case recipe::AptLayers::kPerOrigin: return "apt-" + net::host_port(indexes.sources.at(static_cast<size_t>(p.origin)).entry.url);
    case recipe::AptLayers::kPerPackage:
      if (section.layer_budget == 0 || i + 1 < section.layer_budget) return "apt-" + p.name;
      return "apt-rest";
  }
  return "apt";
}

// The record's part of the output: components, the loud label for unverified sources, the record.
void finish_output(StepOutput& out, const std::shared_ptr<AptRecord>& record) {
  for (const auto& p : record->packages) out.components.push_back(p.component);
  bool unverified = std::any_of(record->sources.begin(), record->sources.end(), [](const auto& s) { return s.signed_by.empty(); });
  if (unverified) {
    std::vector<std::string> names;
    for (const auto& s : record->sources)
      if (s.signed_by.empty()) names.push_back(s.description);
    out.config.labels.emplace_back("org.rockpack.apt.unverified-sources", join(names, ", "));
  }
  out.records.emplace_back("apt", record);
}

// `plan` lists the layers without contents.
std::vector<LayerPlan> empty_layers(const AptRecord& record) {
  std::vector<LayerPlan> out;
  std::set<std::string> seen;
  for (const auto& p : record.packages)
    if (seen.insert(p.component.layer).second) out.push_back({p.component.layer, "apt: " + p.component.layer, {}, {}});
  return out;
}

// Each package's license, from its machine-readable copyright file as installed (DEP-5).
void record_licenses(AptRecord& record, apt::Installer& installer) {
  for (size_t i = 0; i < record.packages.size() && i < installer.packages().size(); ++i) {
    auto& component = record.packages[i].component;
    if (installer.packages()[i].record.name != component.name) continue;
    if (auto text = installer.tree().read("usr/share/doc/" + component.name + "/copyright", 4u << 20))
      component.license = apt::dep5_license(*text);
  }
}

// The dpkg database: the whole status file, each package's info files, base lists that lost files.
std::vector<Entry> dpkg_database(const FileTree& base, const apt::InstalledDatabase& installed,
                                 const std::vector<apt::UnpackedPackage>& added, const apt::Installer& installer) {
  std::vector<Entry> database;
  Entry status;
  status.path = "var/lib/dpkg/status";
  status.mode = 0644;
  status.content = std::make_shared<InlineContent>(apt::merged_status(installed, added));
  status.origin = "apt (dpkg database)";
  database.push_back(std::move(status));
  for (const auto& p : added)
    for (auto& e : apt::info_entries(p)) database.push_back(std::move(e));
  for (auto& e : apt::takeover_entries(base, installer.takeovers())) database.push_back(std::move(e));
  for (auto& e : apt::new_database_entries(base)) database.push_back(std::move(e));
  return database;
}

// What goes into the image, layer by layer: the merged-/usr links with the first package, each
// package's files in its layer, then the dpkg database and the native effects in the last one.
struct AptLayerInputs {
  std::vector<Entry> merged_usr;
  std::vector<Entry> database;
  std::vector<Entry> effects;
};

std::vector<LayerPlan> package_layers(const recipe::AptSection& section, const AptRecord& record, apt::Installer& installer,
                                      AptLayerInputs inputs) {
  std::map<std::string, std::map<std::string, Entry>> layers;  // name -> entries by path
  std::vector<std::string> order;
  auto layer = [&](const std::string& name) -> std::map<std::string, Entry>& {
    if (!layers.count(name)) order.push_back(name);
    return layers[name];
  };
  std::string first = record.packages.empty() ? "apt" : record.packages[0].component.layer;
  add_entries(layer(first), std::move(inputs.merged_usr));
  for (size_t i = 0; i < installer.packages().size(); ++i)
    add_entries(layer(record.packages[i].component.layer), installer.packages()[i].entries);
  std::string last = section.layers == recipe::AptLayers::kOne ? "apt" : "apt-database";
  add_entries(layer(last), std::move(inputs.database));
  add_entries(layer(last), std::move(inputs.effects));
  std::vector<LayerPlan> out;
  for (const auto& name : order) {
    LayerPlan l;
    l.name = name;
    l.created_by = "rockpack apt: " + name;
    l.entries = values(layers[name]);
    out.push_back(std::move(l));
  }
  return out;
}

}  // namespace

nlohmann::json AptRecord::to_json() const {
  nlohmann::json j;
  j["sources"] = nlohmann::json::array();
  for (const auto& s : sources)
    j["sources"].push_back({{"source", s.description}, {"signed_by", s.signed_by.empty() ? "UNVERIFIED (trusted: true)" : s.signed_by}});
  j["packages"] = nlohmann::json::array();
  for (const auto& p : packages) {
    nlohmann::json x = {{"name", p.component.name},       {"version", p.component.version},
                        {"architecture", p.architecture}, {"source", p.source_package},
                        {"source_version", p.source_version}, {"repository", p.component.origin},
                        {"url", p.component.url},         {"sha256", p.component.sha256},
                        {"size", p.component.size},       {"requested", p.requested}};
    if (!p.required_by.empty()) x["required_by"] = p.required_by;
    if (!p.component.layer.empty()) x["layer"] = p.component.layer;
    j["packages"].push_back(std::move(x));
  }
  j["already_installed"] = already_installed;
  j["maintainer_scripts"] = scripts;
  j["maintainer_scripts_not_run"] = scripts_not_run;
  j["native_effects"] = native_effects;
  return j;
}

bool AptStep::reads_from_base(std::string_view path) const { return apt_file_of_interest(path); }

StepOutput AptStep::plan(const StepContext& context) const { return plan_apt(context, *context.recipe.apt); }

StepOutput plan_apt(const StepContext& context, const recipe::AptSection& section) {
  StepOutput out;
  // validate: the section's requests and sources were checked as the recipe loaded.
  if (context.mode == StepMode::kOffline) return out;
  PhaseClock clock;  // the -v log's "phase apt ..." lines: where the step's time goes
  const std::string arch = context.platform().architecture;
  RootfsView view = context.rootfs(apt_file_of_interest);

  // Sources and keyrings; for the lock file, what the section asks for (a strict lock is checked
  // before any index is read), then the verified indexes and each Release as fetched.
  AptSources sources = apt_sources(section, view);
  out.lock_inputs = apt_lock_inputs(section, sources.entries);
  for (const auto& [category, values] : out.lock_inputs) check_locked_inputs(context.lock, context.step, category, values);
  AptIndexes indexes = verified_indexes(context, sources, view, arch);
  clock.lap("apt indexes");
  auto record = std::make_shared<AptRecord>();
  for (const auto& s : indexes.sources) record->sources.push_back({s.entry.describe(), s.signed_by});
  for (const auto& s : indexes.sources) out.lock_pins["release " + s.entry.describe()] = s.release_sha256;

  // Resolution on top of what the base has installed. A scratch base gets the merged-/usr links
  // first, so packages' /bin/x land in usr/bin; like debootstrap and mmdebstrap, it then gets
  // usr-is-merged (which says so) rather than usrmerge (which would convert a system that needs no
  // converting).
  apt::InstalledDatabase installed;
  AptResolutionInputs resolution_inputs;
  resolution_inputs.section = &section;
  resolution_inputs.architecture = arch;
  resolution_inputs.status_text = view.read("/var/lib/dpkg/status", 256u << 20).value_or("");
  if (!resolution_inputs.status_text.empty())
    installed = apt::parse_status_file(resolution_inputs.status_text, "/var/lib/dpkg/status of the base image");
  resolution_inputs.installed = &installed;
  std::vector<Entry> merged_usr = section.merged_usr ? apt::merged_usr_entries(view, arch) : std::vector<Entry>{};
  for (auto& e : merged_usr) e.origin = "apt (merged /usr)";
  resolution_inputs.merged_usr = !merged_usr.empty();
  apt::Resolution resolution = resolve_apt_cached(resolution_inputs, indexes, view, *context.store);
  record->already_installed = resolution.already_installed;
  clock.lap("apt resolution");

  // Records, downloads, layer names.
  std::vector<DownloadJob> jobs = record_packages(*record, indexes, resolution);
  record_dependency_edges(*record);
  spdlog::info("apt: {} packages to install ({} requests already met by the base)", resolution.install.size(),
               resolution.already_installed.size());
  // build --locked: the repositories are resolved again (a .deb's control data comes from its
  // index), and the result must be the locked one, file for file.
  if (const StepLock* locked = context.locked(); locked && context.lock.strict)
    check_locked_debs(*locked, context.lock.path, *record);
  for (size_t i = 0; i < record->packages.size(); ++i)
    record->packages[i].component.layer = apt_layer_name(section, indexes, resolution, i);
  if (context.mode == StepMode::kResolve) {
    out.layers = empty_layers(*record);
    finish_output(out, record);
    return out;
  }

  // With scripts to run on new packages (a .deb not in the store yet: their layer cannot be cached),
  // the sandbox's root gets the image so far meanwhile, on the cores the downloads leave idle.
  std::optional<SandboxLayers> sandbox;
  if (section.scripts == recipe::AptScripts::kRun &&
      std::any_of(resolution.install.begin(), resolution.install.end(),
                  [&](const auto& r) { return !context.store->contains("sha256:" + r.package.sha256); })) {
    sandbox.emplace(context.plan, *context.store);
    sandbox->start_root();
  }

  // Downloads and .deb preparation, then the install: the installer maps members onto the image
  // (merged /usr, owners, Replaces), and each package's license is read from what it installed.
  std::vector<PreparedDeb> prepared = download_and_prepare_debs(*context.store, jobs, resolution, context.downloads);
  clock = PhaseClock();
  view.add_entries(merged_usr);
  apt::Installer installer(view);
  for (size_t i = 0; i < prepared.size(); ++i)
    installer.install(deb_contents(*context.store, resolution.install[i].package, std::move(prepared[i])));
  record_licenses(*record, installer);

  // Scripts: run in the sandbox afterwards, or their common effects produced natively now.
  std::vector<apt::UnpackedPackage> added;
  for (const auto& p : installer.packages()) {
    added.push_back(p.record);
    for (const auto& w : p.warnings) spdlog::warn("apt: {} {}: {}", p.record.name, p.record.version, w);
  }
  bool run_scripts = apt_scripts_run(section, installer.tree(), added);
  record->scripts = run_scripts ? "run" : "native";
  apt::NativeEffects effects;
  if (!run_scripts) {
    effects = apt::native_effects(installer.tree(), added);
    record->native_effects = effects.done;
    record->scripts_not_run = apt::scripts_not_run(added);
  }
  if (!record->scripts_not_run.empty())
    spdlog::warn("apt: maintainer scripts were not run (their common effects were produced natively: {}): {}",
                 effects.done.empty() ? "none applied" : std::to_string(effects.done.size()) + " effects",
                 join(record->scripts_not_run, "; "));

  // The dpkg database and the layers.
  AptLayerInputs layer_inputs;
  layer_inputs.merged_usr = std::move(merged_usr);
  layer_inputs.database = dpkg_database(view, installed, added, installer);
  layer_inputs.effects = std::move(effects.entries);
  out.layers = package_layers(section, *record, installer, std::move(layer_inputs));
  clock.lap("apt install (members onto the image, dpkg database)");
  if (run_scripts) {
    // The packages' layers are final now. They are written while the scripts run (which keep about
    // one core busy), not while the sandbox's root is written: that is on the scripts' path.
    auto write_layers = [&] {
      if (context.prebuild)
        for (const auto& l : out.layers) context.prebuild->start(context.plan, context.recipe, l);
    };
    out.layers.push_back(
        maintainer_scripts_layer(context, section, installed, added, out.layers, sandbox ? &*sandbox : nullptr, write_layers));
  }
  finish_output(out, record);
  return out;
}

}  // namespace rp
