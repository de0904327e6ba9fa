#include "plan/apt_step.hpp"

#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <set>

#include "apt/copyright.hpp"
#include "apt/deb_file.hpp"
#include "apt/dpkg_database.hpp"
#include "apt/installer.hpp"
#include "apt/maintainer_scripts.hpp"
#include "apt/native_effects.hpp"
#include "apt/patterns.hpp"
#include "apt/resolver.hpp"
#include "apt/sources.hpp"
#include "assemble/tar_index.hpp"
#include "assemble/tar_member_content.hpp"
#include "net/url.hpp"
#include "plan/apt_indexes.hpp"
#include "plan/lock_plan.hpp"
#include "plan/sandbox_layers.hpp"
#include "sandbox/materialize.hpp"
#include "sandbox/sandbox.hpp"
#include "util/cpus.hpp"
#include "util/digest.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/parallel.hpp"
#include "util/strings.hpp"

namespace rp {

namespace {

constexpr const char* kDebRecord = "apt-deb";
constexpr int kDebRecordVersion = 2;  // 2: the data index in a blob (TarIndex::serialize)
constexpr const char* kResolutionRecord = "apt-resolution";
constexpr int kResolutionRecordVersion = 1;

// A resolution as a store record: the chosen packages with every field the later stages use.
nlohmann::json resolution_to_json(const apt::Resolution& r) {
  nlohmann::json j = {{"version", kResolutionRecordVersion}, {"already_installed", r.already_installed}};
  j["install"] = nlohmann::json::array();
  for (const auto& x : r.install) {
    const apt::Package& p = x.package;
    j["install"].push_back({{"name", p.name}, {"version", p.version.str()}, {"architecture", p.architecture},
                            {"multi_arch", apt::multi_arch_text(p.multi_arch)}, {"essential", p.essential},
                            {"priority", p.priority}, {"section", p.section}, {"source", p.source},
                            {"source_version", p.source_version}, {"depends", p.depends}, {"pre_depends", p.pre_depends},
                            {"recommends", p.recommends}, {"provides", p.provides}, {"conflicts", p.conflicts},
                            {"breaks", p.breaks}, {"replaces", p.replaces}, {"filename", p.filename}, {"size", p.size},
                            {"sha256", p.sha256}, {"origin", p.origin}, {"requested", x.requested},
                            {"required_by", x.required_by}, {"replaces_installed", x.replaces_installed}});
  }
  return j;
}

// False for a record of another version or a damaged one (then the build resolves again).
bool resolution_from_json(const nlohmann::json& j, apt::Resolution& out) {
  try {
    if (j.value("version", 0) != kResolutionRecordVersion) return false;
    apt::Resolution r;
    r.already_installed = j.at("already_installed").get<std::vector<std::string>>();
    for (const auto& x : j.at("install")) {
      apt::ResolvedPackage rp;
      apt::Package& p = rp.package;
      p.name = x.at("name").get<std::string>();
      p.version = apt::Version::parse(x.at("version").get<std::string>());
      p.architecture = x.at("architecture").get<std::string>();
      p.multi_arch = apt::parse_multi_arch(x.at("multi_arch").get<std::string>());
      p.essential = x.at("essential").get<bool>();
      p.priority = x.at("priority").get<std::string>();
      p.section = x.at("section").get<std::string>();
      p.source = x.at("source").get<std::string>();
      p.source_version = x.at("source_version").get<std::string>();
      p.depends = x.at("depends").get<std::string>();
      p.pre_depends = x.at("pre_depends").get<std::string>();
      p.recommends = x.at("recommends").get<std::string>();
      p.provides = x.at("provides").get<std::string>();
      p.conflicts = x.at("conflicts").get<std::string>();
      p.breaks = x.at("breaks").get<std::string>();
      p.replaces = x.at("replaces").get<std::string>();
      p.filename = x.at("filename").get<std::string>();
      p.size = x.at("size").get<uint64_t>();
      p.sha256 = x.at("sha256").get<std::string>();
      p.origin = x.at("origin").get<int>();
      rp.requested = x.at("requested").get<bool>();
      rp.required_by = x.at("required_by").get<std::vector<std::string>>();
      rp.replaces_installed = x.at("replaces_installed").get<std::string>();
      r.install.push_back(std::move(rp));
    }
    out = std::move(r);
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

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

// A .deb made ready for the installer: its control files and its data.tar as a plain tar in the
// store, indexed. Cached by the .deb's digest, so a warm build neither decompresses nor scans.
struct PreparedDeb {
  apt::ControlArchive control;
  TarIndex data;
};

PreparedDeb prepare_deb(ContentStore& store, const std::string& deb_digest, const std::string& what) {
  if (auto rec = store.get_record(kDebRecord, deb_digest)) {
    try {
      if (rec->value("version", 0) == kDebRecordVersion) {
        PreparedDeb out;
        std::string index_blob = rec->at("data_index").get<std::string>();
        bool complete = store.contains(index_blob);
        if (complete) out.data = TarIndex::parse(store.read_all(index_blob));
        complete = complete && store.contains(out.data.tar_digest);
        for (const auto& [name, c] : rec->at("control").items()) {
          std::string digest = c.at("digest").get<std::string>();
          if (!store.contains(digest)) complete = false;
          if (!complete) break;
          out.control.files[name] = store.read_all(digest);
          out.control.modes[name] = c.at("mode").get<uint32_t>();
        }
        if (complete) return out;
      }
    } catch (const std::exception&) {
      // A damaged record: prepare again.
    }
  }
  fs::path file = store.blob_path(deb_digest);
  apt::DebLayout layout = apt::read_deb_layout(file, what);
  PreparedDeb out;
  out.control = apt::read_control_archive(file, layout.control, what);
  auto writer = store.begin_blob();
  apt::decompress_data_archive(file, layout.data, *writer, what);
  out.data.tar_digest = writer->commit();
  out.data.members = index_plain_tar(store.blob_path(out.data.tar_digest), what + " (" + layout.data.name + ")");
  nlohmann::json control = nlohmann::json::object();
  for (const auto& [name, bytes] : out.control.files)
    control[name] = {{"digest", store.put(bytes)}, {"mode", out.control.modes.at(name)}};
  store.put_record(kDebRecord, deb_digest, {{"version", kDebRecordVersion}, {"data_index", store.put(out.data.serialize())}, {"control", control}});
  return out;
}

apt::DebContents deb_contents(const ContentStore& store, const apt::Package& package, const std::string& deb_digest,
                              PreparedDeb prepared) {
  apt::DebContents deb;
  deb.package = package;
  deb.control = std::move(prepared.control);
  std::string name = package.name + "_" + package.version.str() + "_" + package.architecture + ".deb";
  deb.members.reserve(prepared.data.members.size());
  auto archive = std::make_shared<const TarArchiveRef>(TarArchiveRef{prepared.data.tar_digest, deb_digest, name});
  for (const auto& m : prepared.data.members) {
    apt::DataMember d;
    d.path = m.path;
    d.type = m.type;
    d.mode = m.mode;
    d.uid = m.uid;
    d.gid = m.gid;
    d.uname = m.uname;
    d.gname = m.gname;
    d.link_target = m.link_target;
    if (m.type == EntryType::kFile)
      d.content = std::make_shared<TarMemberContent>(store, archive, m.offset, m.size, m.path);
    deb.members.push_back(std::move(d));
  }
  return deb;
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

namespace {

// apt: scripts: run — the packages' maintainer scripts in the sandbox on the image with the apt
// layers, as dpkg would run them after unpacking (apt/maintainer_scripts.hpp); what they change is
// one more layer, cached like a run: item.
LayerPlan maintainer_scripts_layer(const StepContext& context, const recipe::AptSection& section,
                                   const apt::InstalledDatabase& installed, const std::vector<apt::UnpackedPackage>& added,
                                   const std::vector<LayerPlan>& apt_layers) {
  const std::string origin = section.where.str() + " apt (maintainer scripts)";
  // The state dpkg leaves after unpacking: the new packages "unpacked", conffiles as .dpkg-new.
  std::vector<Entry> unpacked;
  Entry status;
  status.path = "var/lib/dpkg/status";
  status.mode = 0644;
  status.content = std::make_shared<InlineContent>(apt::merged_status(installed, added, true));
  status.origin = origin;
  unpacked.push_back(std::move(status));
  std::map<std::string, const Entry*> planned;
  for (const auto& l : apt_layers)
    for (const auto& e : l.entries) planned[e.path] = &e;
  for (const auto& p : added)
    for (const auto& [path, md5] : p.conffiles) {
      std::string key = path.substr(path.find_first_not_of('/'));
      auto it = planned.find(key);
      if (it == planned.end() || it->second->type != EntryType::kFile) continue;  // dpkg says what is missing
      Entry waiting = *it->second;
      waiting.path = key + ".dpkg-new";
      unpacked.push_back(std::move(waiting));
      Entry gone;
      size_t slash = key.rfind('/');
      gone.path = slash == std::string::npos ? ".wh." + key : key.substr(0, slash + 1) + ".wh." + key.substr(slash + 1);
      gone.content = std::make_shared<InlineContent>("");
      unpacked.push_back(std::move(gone));
    }
  auto own_policy = std::make_shared<bool>(false);

  SandboxJob job;
  job.name = "apt scripts";
  job.origin = origin;
  job.argv = {"/bin/sh", "-c", apt::configure_script(added)};
  job.env = apt::configure_environment();
  // useradd (adduser), man-db and others honour it: /etc/shadow's last-change day is then the build's.
  job.env.push_back("SOURCE_DATE_EPOCH=" + std::to_string(context.plan.source_date_epoch));
  job.user = "0";
  job.workdir = "/";
  job.timeout_seconds = 3600;
  job.failure_hint = "a maintainer script failed: its output is above; use scripts: native to install without running them";
  job.prepare = [&, own_policy](const fs::path& root, const IdMapping& ids) {
    materialize_layer(unpacked, root, ids);
    struct stat st {};
    if (::lstat((root / "usr/sbin/policy-rc.d").c_str(), &st) == 0) return;  // the image has its own
    Entry policy;
    policy.path = "usr/sbin/policy-rc.d";
    policy.mode = 0755;
    policy.content = std::make_shared<InlineContent>(apt::policy_rc_d());
    materialize_layer({policy}, root, ids);
    *own_policy = true;
  };
  job.cleanup = [own_policy](const fs::path& root, const IdMapping& ids) {
    if (!*own_policy) return;
    Entry gone;
    gone.path = "usr/sbin/.wh.policy-rc.d";
    gone.content = std::make_shared<InlineContent>("");
    materialize_layer({gone}, root, ids);
  };
  spdlog::info("apt: running the maintainer scripts of {} packages in the sandbox", added.size());
  SandboxLayers sandbox(context.plan, *context.store);
  SandboxLayerResult result = sandbox.run(job, apt_layers);
  LayerPlan layer;
  layer.name = "apt-scripts";
  layer.created_by = "rockpack apt: maintainer scripts (preinst install, dpkg --configure --pending)";
  layer.entries = std::move(result.entries);
  return layer;
}

}  // namespace

bool AptStep::reads_from_base(std::string_view path) const { return apt_file_of_interest(path); }

StepOutput AptStep::plan(const StepContext& context) const {
  const recipe::AptSection& section = *context.recipe.apt;
  StepOutput out;
  // validate: the section's requests and sources were checked as the recipe loaded.
  if (context.mode == StepMode::kOffline) return out;
  const std::string arch = context.platform().architecture;

  RootfsView view = context.rootfs(apt_file_of_interest);

  // Sources: the image's own, then the recipe's (as one more sources.list.d file would add them); a
  // base entry for the same URL and suite as a recipe source gives way to it. `replace_sources`:
  // the recipe's alone.
  std::vector<apt::SourceEntry> entries;
  std::map<std::string, apt::Keyring> recipe_keys;  // by origin
  std::vector<apt::SourceEntry> from_recipe;
  for (const auto& s : section.sources) {
    apt::SourceEntry e = recipe_source(s);
    apt::Keyring keys;
    if (s.signed_by_file) keys.files.push_back({s.signed_by_file->string(), read_file(*s.signed_by_file)});
    if (!s.signed_by_inline.empty()) keys.files.push_back({e.origin + " (inline signed_by key)", s.signed_by_inline});
    recipe_keys[e.origin] = std::move(keys);
    from_recipe.push_back(std::move(e));
  }
  if (!section.replace_sources)
    for (auto& e : apt::image_sources(view)) {
      bool shadowed = std::any_of(from_recipe.begin(), from_recipe.end(), [&](const apt::SourceEntry& r) {
        return r.url == e.url && r.suite == e.suite;
      });
      if (!shadowed) entries.push_back(std::move(e));
    }
  entries.insert(entries.end(), from_recipe.begin(), from_recipe.end());
  if (entries.empty())
    throw InputError(section.where.str() + ": apt: has no sources: and the base image configures none",
                     "add apt.sources (url, suite, components, signed_by), or use a base image with "
                     "/etc/apt/sources.list(.d)");
  auto keyring_for = [&](const apt::SourceEntry& e) {
    auto it = recipe_keys.find(e.origin);
    return it != recipe_keys.end() ? it->second : apt::image_keyring(e, view);
  };
  // For the lock file: what the section asks for; a strict lock is checked before any index is read.
  out.lock_inputs = apt_lock_inputs(section, entries);
  for (const auto& [category, values] : out.lock_inputs) check_locked_inputs(context.lock, context.step, category, values);
  AptIndexOptions index_options;
  index_options.architecture = arch;
  index_options.now = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  index_options.downloads = context.downloads;
  AptIndexes indexes = load_apt_indexes(entries, keyring_for, *context.store, index_options);

  auto record = std::make_shared<AptRecord>();
  for (const auto& s : indexes.sources) record->sources.push_back({s.entry.describe(), s.signed_by});
  // For the lock file: each Release as fetched.
  for (const auto& s : indexes.sources) out.lock_pins["release " + s.entry.describe()] = s.release_sha256;

  // Resolution on top of what the base has installed.
  apt::InstalledDatabase installed;
  std::string status_text = view.read("/var/lib/dpkg/status", 256u << 20).value_or("");
  if (!status_text.empty()) installed = apt::parse_status_file(status_text, "/var/lib/dpkg/status of the base image");
  // A scratch base gets the merged-/usr links first, so packages' /bin/x land in usr/bin; like
  // debootstrap and mmdebstrap, it then gets usr-is-merged (which says so) rather than usrmerge
  // (which would convert a system that needs no converting).
  std::vector<Entry> merged_usr = section.merged_usr ? apt::merged_usr_entries(view, arch) : std::vector<Entry>{};
  for (auto& e : merged_usr) e.origin = "apt (merged /usr)";
  apt::ResolverOptions options;
  options.native_arch = arch;
  options.recommends = section.recommends;
  for (const auto& s : indexes.sources) options.origin_priority.push_back(s.entry.priority);
  // apt's pins: each release's default (NotAutomatic / ButAutomaticUpgrades) and the base's
  // /etc/apt/preferences(.d).
  std::vector<std::string> preference_warnings;
  options.policy = apt::PinPolicy(apt::image_preferences(view, &preference_warnings));
  for (const auto& w : preference_warnings) spdlog::warn("apt: {}", w);
  options.releases = indexes.releases;
  nlohmann::json release_key = nlohmann::json::array();
  for (const auto& r : options.releases)
    release_key.push_back({r.archive, r.codename, r.origin, r.label, r.component, r.version, r.site, r.default_priority});

  // The resolution is a function of the verified indexes, the requests, the options and the base's
  // status: cached under those, a warm build reads no index at all.
  nlohmann::json key_material = {{"version", kResolutionRecordVersion}, {"arch", arch},
                                 {"recommends", section.recommends}, {"merged_usr", !merged_usr.empty()},
                                 {"status", sha256_hex(status_text)}, {"releases", release_key},
                                 {"preferences", options.policy.fingerprint()}};
  for (const auto& p : options.origin_priority) key_material["priorities"].push_back(p ? nlohmann::json(*p) : nlohmann::json());
  for (const auto& [text, where] : section.packages) key_material["requests"].push_back(text);
  for (const auto& b : indexes.blobs) key_material["indexes"].push_back(std::to_string(b.source) + " " + b.digest);
  const std::string resolution_key = sha256_hex(key_material.dump());
  apt::Resolution resolution;
  auto cached = context.store->get_record(kResolutionRecord, resolution_key);
  if (!cached || !resolution_from_json(*cached, resolution)) {
    parse_apt_indexes(indexes, *context.store);
    std::vector<apt::Request> requests;
    std::set<std::string> requested;
    if (!merged_usr.empty() && std::any_of(indexes.packages.begin(), indexes.packages.end(),
                                           [](const apt::Package& p) { return p.name == "usr-is-merged"; })) {
      requested.insert("usr-is-merged");
      requests.push_back(apt::Request::parse("usr-is-merged"));
    }
    for (const auto& [text, where] : section.packages) {
      if (apt::is_pattern(text)) {
        for (const auto& name : apt::expand_pattern(text, indexes.packages, arch))
          if (requested.insert(name).second) requests.push_back(apt::Request::parse(name));
      } else if (requested.insert(text).second) {
        requests.push_back(apt::Request::parse(text));
      }
    }
    resolution = apt::resolve(requests, indexes.packages, installed.installed, options);
    indexes.packages.clear();
    indexes.packages.shrink_to_fit();
    context.store->put_record(kResolutionRecord, resolution_key, resolution_to_json(resolution));
  }
  record->already_installed = resolution.already_installed;

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
    record->packages.push_back(std::move(rec));
    // The signed index's Size bounds the download: an endless stream stops there.
    jobs.push_back({src.deb_base + "/" + p.filename, p.sha256, {}, p.display(), p.size});
  }
  {
    // The resolution's edges, turned around: the packages each one's Depends/Pre-Depends picked
    // (only those this step installs; what the base already has is not a component here).
    std::map<std::string, std::vector<std::string>> depends_on;
    for (const auto& p : record->packages)
      for (const auto& dependent : p.required_by) depends_on[dependent].push_back(p.component.name);
    for (auto& p : record->packages) {
      auto d = depends_on.find(p.component.name);
      if (d == depends_on.end()) continue;
      std::sort(d->second.begin(), d->second.end());
      d->second.erase(std::unique(d->second.begin(), d->second.end()), d->second.end());
      p.component.depends_on = d->second;
    }
  }
  spdlog::info("apt: {} packages to install ({} requests already met by the base)", resolution.install.size(),
               resolution.already_installed.size());
  // build --locked: the repositories are resolved again (a .deb's control data comes from its
  // index), and the result must be the locked one, file for file.
  if (const StepLock* locked = context.locked(); locked && context.lock.strict)
    check_locked_debs(*locked, context.lock.path, *record);

  // Which layer each package goes into.
  auto layer_of = [&](size_t i) -> std::string {
    const apt::Package& p = resolution.install[i].package;
    switch (section.layers) {
      case recipe::AptLayers::kOne: return "apt";
      case recipe::AptLayers::kPerOrigin: return "apt-" + net::host_port(indexes.sources.at(static_cast<size_t>(p.origin)).entry.url);
      case recipe::AptLayers::kPerPackage:
        if (section.layer_budget == 0 || i + 1 < section.layer_budget) return "apt-" + p.name;
        return "apt-rest";
    }
    return "apt";
  };
  for (size_t i = 0; i < record->packages.size(); ++i) record->packages[i].component.layer = layer_of(i);

  auto finish = [&]() {
    for (const auto& p : record->packages) out.components.push_back(p.component);
    bool unverified = std::any_of(record->sources.begin(), record->sources.end(), [](const auto& s) { return s.signed_by.empty(); });
    if (unverified) {
      std::vector<std::string> names;
      for (const auto& s : record->sources)
        if (s.signed_by.empty()) names.push_back(s.description);
      out.config.labels.emplace_back("org.rockpack.apt.unverified-sources", join(names, ", "));
    }
    out.records.emplace_back("apt", record);
  };
  if (context.mode == StepMode::kResolve) {
    // `plan` lists the layers without contents.
    std::set<std::string> seen;
    for (const auto& p : record->packages)
      if (seen.insert(p.component.layer).second) out.layers.push_back({p.component.layer, "apt: " + p.component.layer, {}, {}});
    finish();
    return out;
  }

  // Downloads, then each .deb made ready (in parallel: decompressing data.tar is the CPU work).
  std::vector<DownloadResult> debs = download_all(*context.store, jobs, context.downloads);
  for (size_t i = 0; i < debs.size(); ++i)
    if (debs[i].size != resolution.install[i].package.size)
      throw Error(jobs[i].what + " has " + std::to_string(debs[i].size) + " bytes, its index says " +
                      std::to_string(resolution.install[i].package.size),
                  "the mirror serves a .deb that does not match its index; nothing was installed");
  std::vector<PreparedDeb> prepared(debs.size());
  std::vector<std::function<void()>> work;
  for (size_t i = 0; i < debs.size(); ++i)
    work.push_back([&, i] { prepared[i] = prepare_deb(*context.store, debs[i].digest, jobs[i].what + " (.deb)"); });
  run_parallel(work, static_cast<int>(worker_count()));

  view.add_entries(merged_usr);

  apt::Installer installer(view);
  for (size_t i = 0; i < debs.size(); ++i)
    installer.install(deb_contents(*context.store, resolution.install[i].package, debs[i].digest, std::move(prepared[i])));

  // Each package's license, from its machine-readable copyright file as installed (DEP-5).
  for (size_t i = 0; i < record->packages.size() && i < installer.packages().size(); ++i) {
    auto& component = record->packages[i].component;
    if (installer.packages()[i].record.name != component.name) continue;
    if (auto text = installer.tree().read("usr/share/doc/" + component.name + "/copyright", 4u << 20))
      component.license = apt::dep5_license(*text);
  }

  std::vector<apt::UnpackedPackage> added;
  for (const auto& p : installer.packages()) {
    added.push_back(p.record);
    for (const auto& w : p.warnings) spdlog::warn("apt: {} {}: {}", p.record.name, p.record.version, w);
  }
  bool run_scripts = section.scripts != recipe::AptScripts::kNative && !added.empty();
  if (run_scripts && section.scripts == recipe::AptScripts::kAuto) {
    if (auto why = sandbox_unavailable()) {
      // The image then differs from one built where the sandbox works: say so loudly.
      spdlog::warn("apt: scripts: auto: the sandbox cannot run here ({}); the maintainer scripts are not run, their "
                   "common effects are produced natively",
                   *why);
      run_scripts = false;
    }
  }
  record->scripts = run_scripts ? "run" : "native";
  if (run_scripts && !installer.tree().lstat("/usr/bin/dpkg"))
    throw InputError(section.where.str() + ": apt: scripts: run needs dpkg in the image, and neither the base nor the "
                                           "packages have /usr/bin/dpkg",
                     "add dpkg to apt.packages (a minbase has it), or use scripts: native");
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

  // The dpkg database: the whole status file, each package's info files, base lists that lost files.
  std::vector<Entry> database;
  {
    Entry status;
    status.path = "var/lib/dpkg/status";
    status.mode = 0644;
    status.content = std::make_shared<InlineContent>(apt::merged_status(installed, added));
    status.origin = "apt (dpkg database)";
    database.push_back(std::move(status));
  }
  for (const auto& p : added)
    for (auto& e : apt::info_entries(p)) database.push_back(std::move(e));
  for (auto& e : apt::takeover_entries(view, installer.takeovers())) database.push_back(std::move(e));
  for (auto& e : apt::new_database_entries(view)) database.push_back(std::move(e));

  std::map<std::string, std::map<std::string, Entry>> layers;  // name -> entries by path
  std::vector<std::string> order;
  auto layer = [&](const std::string& name) -> std::map<std::string, Entry>& {
    if (!layers.count(name)) order.push_back(name);
    return layers[name];
  };
  std::string first = resolution.install.empty() ? "apt" : layer_of(0);
  add_entries(layer(first), merged_usr);
  for (size_t i = 0; i < installer.packages().size(); ++i) add_entries(layer(layer_of(i)), installer.packages()[i].entries);
  std::string last = section.layers == recipe::AptLayers::kOne ? "apt" : "apt-database";
  add_entries(layer(last), std::move(database));
  add_entries(layer(last), std::move(effects.entries));
  for (const auto& name : order) {
    LayerPlan l;
    l.name = name;
    l.created_by = "rockpack apt: " + name;
    l.entries = values(layers[name]);
    out.layers.push_back(std::move(l));
  }
  if (run_scripts) out.layers.push_back(maintainer_scripts_layer(context, section, installed, added, out.layers));
  finish();
  return out;
}

}  // namespace rp
