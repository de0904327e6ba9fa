#include "plan/apt_resolution.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <set>
#include <vector>

#include <nlohmann/json.hpp>

#include "apt/patterns.hpp"
#include "apt/preferences.hpp"
#include "util/digest.hpp"

namespace rp {

namespace {

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

// The resolver's options: architecture, recommends, each source's priority and apt's pins.
apt::ResolverOptions resolver_options(const AptResolutionInputs& inputs, const AptIndexes& indexes, const FileTree& base) {
  apt::ResolverOptions options;
  options.native_arch = inputs.architecture;
  options.recommends = inputs.section->recommends;
  for (const auto& s : indexes.sources) options.origin_priority.push_back(s.entry.priority);
  // apt's pins: each release's default (NotAutomatic / ButAutomaticUpgrades) and the base's
  // /etc/apt/preferences(.d).
  std::vector<std::string> preference_warnings;
  options.policy = apt::PinPolicy(apt::image_preferences(base, &preference_warnings));
  for (const auto& w : preference_warnings) spdlog::warn("apt: {}", w);
  options.releases = indexes.releases;
  return options;
}

// The store key of a resolution: everything it is a function of.
std::string resolution_key(const AptResolutionInputs& inputs, const AptIndexes& indexes, const apt::ResolverOptions& options) {
  nlohmann::json release_key = nlohmann::json::array();
  for (const auto& r : options.releases)
    release_key.push_back({r.archive, r.codename, r.origin, r.label, r.component, r.version, r.site, r.default_priority});
  nlohmann::json key_material = {{"version", kResolutionRecordVersion}, {"arch", inputs.architecture},
                                 {"recommends", inputs.section->recommends}, {"merged_usr", inputs.merged_usr},
                                 {"status", sha256_hex(inputs.status_text)}, {"releases", release_key},
                                 {"preferences", options.policy.fingerprint()}};
  for (const auto& p : options.origin_priority) key_material["priorities"].push_back(p ? nlohmann::json(*p) : nlohmann::json());
  for (const auto& [text, where] : inputs.section->packages) key_material["requests"].push_back(text);
  for (const auto& b : indexes.blobs) key_material["indexes"].push_back(std::to_string(b.source) + " " + b.digest);
  return sha256_hex(key_material.dump());
}

// The section's requests, patterns expanded against the indexes, each name once; usr-is-merged
// first on a scratch base that gets the merged-/usr links (as debootstrap and mmdebstrap do).
std::vector<apt::Request> apt_requests(const AptResolutionInputs& inputs, const AptIndexes& indexes) {
  std::vector<apt::Request> requests;
  std::set<std::string> requested;
  if (inputs.merged_usr && std::any_of(indexes.packages.begin(), indexes.packages.end(),
                                       [](const apt::Package& p) { return p.name == "usr-is-merged"; })) {
    requested.insert("usr-is-merged");
    requests.push_back(apt::Request::parse("usr-is-merged"));
  }
  for (const auto& [text, where] : inputs.section->packages) {
    if (apt::is_pattern(text)) {
      for (const auto& name : apt::expand_pattern(text, indexes.packages, inputs.architecture))
        if (requested.insert(name).second) requests.push_back(apt::Request::parse(name));
    } else if (requested.insert(text).second) {
      requests.push_back(apt::Request::parse(text));
    }
  }
  return requests;
}

}  // namespace

apt::Resolution resolve_apt_cached(const AptResolutionInputs& inputs, AptIndexes& indexes, const FileTree& base,
                                   ContentStore& store) {
  apt::ResolverOptions options = resolver_options(inputs, indexes, base);
  const std::string key = resolution_key(inputs, indexes, options);
  apt::Resolution resolution;
  auto cached = store.get_record(kResolutionRecord, key);
  if (cached && resolution_from_json(*cached, resolution)) return resolution;
  parse_apt_indexes(indexes, store);
  resolution = apt::resolve(apt_requests(inputs, indexes), indexes.packages, inputs.installed->installed, options);
  indexes.packages.clear();
  indexes.packages.shrink_to_fit();
  store.put_record(kResolutionRecord, key, resolution_to_json(resolution));
  return resolution;
}

}  // namespace rp
