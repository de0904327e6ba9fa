#include "inventory/layered_packages.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include "image/rootfs_view.hpp"
#include "util/deb822.hpp"
#include "util/digest.hpp"

namespace rp::inventory {

namespace {

// Bump when what the record holds or how it is read changes.
constexpr int kRecordVersion = 2;
constexpr const char* kRecordKind = "base-packages";

// One installed copy: a package may sit in two site directories, or in two architectures.
using Key = std::tuple<PackageKind, std::string, std::string>;
Key key_of(const Package& p) { return {p.kind, p.name, p.kind == PackageKind::kPython ? p.location : p.arch}; }

// The packages after each layer, each keeping the layer it first appeared in with its version.
class Attribution {
 public:
  void after_layer(const FileTree& tree, int layer) {
    std::map<Key, Package> next;
    for (auto& p : installed_packages(tree)) {
      Key k = key_of(p);
      auto before = current_.find(k);
      p.layer = before != current_.end() && before->second.version == p.version ? before->second.layer : layer;
      next.emplace(std::move(k), std::move(p));  // the first of duplicates (status and status.d) wins
    }
    current_ = std::move(next);
  }
  void set(std::vector<Package> packages) {
    current_.clear();
    for (auto& p : packages) current_.emplace(key_of(p), std::move(p));
  }
  std::vector<Package> packages() const {
    std::vector<Package> out;
    for (const auto& [k, p] : current_) out.push_back(p);
    return out;
  }

 private:
  std::map<Key, Package> current_;
};

// What the package parsers read of a file, and nothing else: dpkg stanzas keep the fields
// parse_dpkg_status reads, Python metadata its header fields; the distribution files stay whole.
std::string trimmed(const std::string& path, const std::string& text) {
  const bool python = path.ends_with("METADATA") || path.ends_with("PKG-INFO") || path.ends_with(".egg-info");
  const bool dpkg = path.starts_with("var/lib/dpkg/");
  if (!python && !dpkg) return text;
  Deb822Options options;
  options.strict = false;
  Deb822Reader reader(text, path, options);
  std::string out;
  static const char* kDpkgFields[] = {"Package", "Status", "Version", "Architecture", "Source"};
  static const char* kPythonFields[] = {"Name", "Version", "License-Expression", "License"};
  while (auto stanza = reader.next()) {
    std::string part;
    for (const char* field : dpkg ? std::vector<const char*>(std::begin(kDpkgFields), std::end(kDpkgFields))
                                  : std::vector<const char*>(std::begin(kPythonFields), std::end(kPythonFields)))
      if (auto v = stanza->get(field); v && v->find('\n') == std::string::npos) part += std::string(field) + ": " + *v + "\n";
    if (!part.empty()) out += (out.empty() ? "" : "\n") + part;
    if (python) break;  // the headers; the description follows
  }
  return out;
}

nlohmann::json package_json(const Package& p) {
  nlohmann::json j = to_json(p);
  j["layer"] = p.layer;
  return j;
}

std::optional<Package> package_from(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("kind") || !j["kind"].is_string()) return std::nullopt;
  auto kind = parse_package_kind(j["kind"].get<std::string>());
  if (!kind) return std::nullopt;
  Package p;
  p.kind = *kind;
  p.name = j.value("name", "");
  p.version = j.value("version", "");
  p.arch = j.value("arch", "");
  p.source = j.value("source", "");
  p.license = j.value("license", "");
  p.location = j.value("location", "");
  p.layer = j.value("layer", -1);
  return p;
}

// The base's packages and package files, read from its layers.
nlohmann::json read_base(const Image& base, const ContentStore& store) {
  RootfsView view;
  Attribution attribution;
  auto reads = read_package_files(base, store);
  for (size_t i = 0; i < reads.size(); ++i) {
    view.apply_layer(*reads[i]);
    attribution.after_layer(view, static_cast<int>(i));
  }
  nlohmann::json record = {{"version", kRecordVersion}, {"packages", nlohmann::json::array()},
                           {"files", nlohmann::json::array()}, {"symlinks", nlohmann::json::array()}};
  for (const auto& p : attribution.packages()) record["packages"].push_back(package_json(p));
  for (const auto& path : view.find([](std::string_view p) { return is_package_file(p); })) {
    // A symlink to another package file (/etc/os-release -> ../usr/lib/os-release) stays one, so
    // that a later layer replacing the target is seen through it; any other is read through.
    auto node = view.lstat(path);
    if (node && node->type == EntryType::kSymlink) {
      auto real = view.realpath(path);
      if (real && real->size() > 1 && is_package_file(real->substr(1)) && view.read(*real)) {
        record["symlinks"].push_back({{"path", path}, {"target", node->link_target}});
        continue;
      }
    }
    if (auto text = view.read(path)) record["files"].push_back({{"path", path}, {"text", trimmed(path, *text)}});
  }
  // The top-level symlinks (merged /usr: lib -> usr/lib), so that a later layer's paths land where
  // they would in the image.
  for (const auto& name : view.list(""))
    if (auto node = view.lstat(name); node && node->type == EntryType::kSymlink)
      record["symlinks"].push_back({{"path", name}, {"target", node->link_target}});
  return record;
}

}  // namespace

LayeredPackages layered_packages(const Image& base, const ContentStore& store,
                                 const std::vector<const std::vector<Entry>*>& new_layers) {
  std::string key;
  for (const auto& l : base.layers) key += l.blob.digest + " " + l.diff_id + "\n";
  key = sha256_hex(key);
  std::optional<nlohmann::json> record = store.get_record(kRecordKind, key);
  if (!record || !record->is_object() || record->value("version", 0) != kRecordVersion) {
    record = read_base(base, store);
    store.put_record(kRecordKind, key, *record);
  }

  // The base as far as packages go: its package files and top-level symlinks, as entries. A warm and
  // a cold build see the same view, so they list the same packages.
  std::vector<Entry> base_entries;
  for (const auto& f : record->value("symlinks", nlohmann::json::array())) {
    Entry e;
    e.path = f.value("path", "");
    e.type = EntryType::kSymlink;
    e.link_target = f.value("target", "");
    if (!e.path.empty()) base_entries.push_back(std::move(e));
  }
  for (const auto& f : record->value("files", nlohmann::json::array())) {
    Entry e;
    e.path = f.value("path", "");
    e.content = std::make_shared<InlineContent>(f.value("text", ""));
    if (!e.path.empty()) base_entries.push_back(std::move(e));
  }
  RootfsView view;
  view.add_entries(base_entries);
  Attribution attribution;
  std::vector<Package> from_base;
  for (const auto& j : record->value("packages", nlohmann::json::array()))
    if (auto p = package_from(j)) from_base.push_back(std::move(*p));
  attribution.set(std::move(from_base));

  const int base_layers = static_cast<int>(base.layers.size());
  for (size_t i = 0; i < new_layers.size(); ++i) {
    view.add_entries(*new_layers[i]);
    // Only a layer that writes or removes a package file can change the list.
    bool touches = false;
    for (const auto& e : *new_layers[i]) {
      std::string_view name = std::string_view(e.path).substr(e.path.rfind('/') == std::string::npos ? 0 : e.path.rfind('/') + 1);
      if (is_package_file(e.path) || name.starts_with(".wh.")) {
        touches = true;
        break;
      }
    }
    if (touches) attribution.after_layer(view, base_layers + static_cast<int>(i));
  }
  LayeredPackages out;
  out.packages = attribution.packages();
  std::sort(out.packages.begin(), out.packages.end(), [](const Package& a, const Package& b) {
    return std::tie(a.kind, a.name, a.location, a.arch) < std::tie(b.kind, b.name, b.location, b.arch);
  });
  out.distro = distro_of(view);
  return out;
}

}  // namespace rp::inventory
