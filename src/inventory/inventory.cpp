#include "inventory/inventory.hpp"

#include <algorithm>
#include <tuple>

#include "image/rootfs_view.hpp"
#include "util/deb822.hpp"

namespace rp::inventory {

namespace {

constexpr std::string_view kDpkgStatus = "var/lib/dpkg/status";

bool is_python_metadata(std::string_view path) { return path.ends_with(".dist-info/METADATA"); }

std::string type_name(EntryType t) {
  switch (t) {
    case EntryType::kDirectory: return "dir";
    case EntryType::kSymlink: return "symlink";
    default: return "file";
  }
}

}  // namespace

std::vector<Package> parse_dpkg_status(const std::string& text) {
  std::vector<Package> out;
  Deb822Options options;
  options.strict = false;  // read as dpkg-query would: what cannot be parsed is skipped
  Deb822Reader reader(text, "/var/lib/dpkg/status", options);
  while (auto stanza = reader.next()) {
    // Packages removed but not purged stay in the file as "deinstall ok config-files".
    if (!stanza->value("Status").ends_with(" installed")) continue;
    Package p;
    p.kind = "deb";
    p.name = stanza->value("Package");
    p.version = stanza->value("Version");
    p.arch = stanza->value("Architecture");
    std::string source = stanza->value("Source");
    p.source = source.substr(0, source.find(' '));  // "glibc (2.36-9)": the version is not part of the name
    if (!p.name.empty() && !p.version.empty()) out.push_back(std::move(p));
  }
  return out;
}

Package parse_python_metadata(const std::string& text) {
  Package p;
  p.kind = "python";
  // METADATA's headers are its first stanza: the description body follows the first blank line.
  Deb822Options options;
  options.strict = false;
  Deb822Reader reader(text, "METADATA", options);
  if (auto headers = reader.next()) {
    p.name = headers->value("Name");
    p.version = headers->value("Version");
    p.license = headers->value("License-Expression");
    if (p.license.empty()) p.license = headers->value("License");
  }
  // Long license texts in License are common; keep only a one-line identifier-like value.
  if (p.license.size() > 100 || p.license.find('\n') != std::string::npos || p.license == "UNKNOWN") p.license.clear();
  return p;
}

std::vector<Package> rocm_packages_from_labels(const nlohmann::json& labels) {
  // The rocm step labels the image with the ROCm release it installed (its wheels are listed as
  // python packages too); the GPU families go into `arch`, so a family change is a change.
  std::vector<Package> out;
  if (!labels.is_object()) return out;
  auto version = labels.find("org.rockpack.rocm.version");
  if (version == labels.end() || !version->is_string()) return out;
  Package p;
  p.kind = "rocm";
  p.name = "rocm";
  p.version = version->get<std::string>();
  auto family = labels.find("org.rockpack.rocm.family");
  if (family != labels.end() && family->is_string()) p.arch = family->get<std::string>();
  out.push_back(p);
  return out;
}

nlohmann::json to_json(const Package& p) {
  nlohmann::json j = {{"kind", p.kind}, {"name", p.name}, {"version", p.version}};
  if (!p.arch.empty()) j["arch"] = p.arch;
  if (!p.source.empty()) j["source"] = p.source;
  if (!p.license.empty()) j["license"] = p.license;
  if (!p.location.empty()) j["location"] = p.location;
  return j;
}

Inventory take_inventory(const Image& image, const ContentStore& store, bool with_files) {
  Inventory inv;
  inv.config = image.config.value("config", nlohmann::json::object());
  RootfsView view;
  auto keep = [](std::string_view p) { return p == kDpkgStatus || is_python_metadata(p); };
  for (const auto& layer : image.layers) {
    view.add_layer(store, layer.blob, keep);
    inv.layers.push_back({layer.blob.digest, layer.diff_id, static_cast<uint64_t>(layer.blob.size)});
  }
  if (auto status = view.read(kDpkgStatus))
    for (auto& p : parse_dpkg_status(*status)) inv.packages.push_back(std::move(p));
  for (const auto& path : view.find(is_python_metadata)) {
    auto text = view.read(path);
    if (!text) continue;
    Package p = parse_python_metadata(*text);
    if (p.name.empty()) continue;
    p.location = "/" + path.substr(0, path.size() - std::string_view("/METADATA").size());
    inv.packages.push_back(std::move(p));
  }
  for (auto& p : rocm_packages_from_labels(inv.config.value("Labels", nlohmann::json::object())))
    inv.packages.push_back(std::move(p));
  std::sort(inv.packages.begin(), inv.packages.end(), [](const Package& a, const Package& b) {
    return std::tie(a.kind, a.name, a.location, a.arch) < std::tie(b.kind, b.name, b.location, b.arch);
  });
  if (with_files) {
    for (const auto& path : view.find([](std::string_view) { return true; })) {
      auto node = view.lstat(path);
      if (!node) continue;
      inv.files.push_back({"/" + path, type_name(node->type), node->type == EntryType::kFile ? node->size : 0,
                           node->mode, node->link_target});
    }
  }
  return inv;
}

}  // namespace rp::inventory
