#include "inventory/inventory.hpp"

#include <algorithm>
#include <sstream>
#include <tuple>

#include "image/rootfs_view.hpp"

namespace rp::inventory {

namespace {

constexpr std::string_view kDpkgStatus = "var/lib/dpkg/status";

bool is_python_metadata(std::string_view path) { return path.ends_with(".dist-info/METADATA"); }

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.pop_back();
  size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  return s.substr(i);
}

// "Key: value" header lines up to the first blank line (RFC 822 style, continuation lines skipped).
template <typename OnField>
void for_each_field(std::istream& in, OnField on_field, bool stop_at_blank) {
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) {
      if (stop_at_blank) return;
      on_field("", "");  // paragraph break
      continue;
    }
    if (line[0] == ' ' || line[0] == '\t') continue;
    size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    on_field(line.substr(0, colon), trim(line.substr(colon + 1)));
  }
}

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
  Package current;
  bool installed = false;
  auto flush = [&] {
    if (!current.name.empty() && !current.version.empty() && installed) {
      current.kind = "deb";
      out.push_back(current);
    }
    current = Package{};
    installed = false;
  };
  std::istringstream in(text);
  for_each_field(in, [&](const std::string& key, const std::string& value) {
    if (key.empty()) return flush();
    if (key == "Package") current.name = value;
    else if (key == "Version") current.version = value;
    else if (key == "Architecture") current.arch = value;
    else if (key == "Source") current.source = value.substr(0, value.find(' '));
    // Packages removed but not purged stay in the file as "deinstall ok config-files".
    else if (key == "Status") installed = value.ends_with(" installed");
  }, false);
  flush();
  return out;
}

Package parse_python_metadata(const std::string& text) {
  Package p;
  p.kind = "python";
  std::istringstream in(text);
  std::string classifier_license;
  for_each_field(in, [&](const std::string& key, const std::string& value) {
    if (key == "Name") p.name = value;
    else if (key == "Version") p.version = value;
    else if (key == "License-Expression") p.license = value;
    else if (key == "License" && p.license.empty()) p.license = value;
  }, true);
  // Long license texts in License are common; keep only a one-line identifier-like value.
  if (p.license.size() > 100 || p.license == "UNKNOWN") p.license.clear();
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
