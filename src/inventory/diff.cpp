#include "inventory/diff.hpp"

#include <cctype>
#include <map>
#include <set>
#include <tuple>

namespace rp::inventory {

namespace {

using nlohmann::json;

json config_changes(const json& a, const json& b) {
  json out = json::array();
  for (const char* key : {"Env", "Entrypoint", "Cmd", "User", "WorkingDir", "ExposedPorts", "Volumes", "StopSignal"}) {
    json va = a.value(key, json()), vb = b.value(key, json());
    if (va != vb) out.push_back({{"field", key}, {"old", va}, {"new", vb}});
  }
  json la = a.value("Labels", json::object()), lb = b.value("Labels", json::object());
  if (!la.is_object()) la = json::object();
  if (!lb.is_object()) lb = json::object();
  std::set<std::string> keys;
  for (const auto& [k, v] : la.items()) keys.insert(k);
  for (const auto& [k, v] : lb.items()) keys.insert(k);
  for (const auto& k : keys) {
    json va = la.value(k, json()), vb = lb.value(k, json());
    if (va != vb) out.push_back({{"field", "Labels." + k}, {"old", va}, {"new", vb}});
  }
  return out;
}

json layer_changes(const Inventory& a, const Inventory& b) {
  std::multiset<std::string> in_b;
  for (const auto& l : b.layers) in_b.insert(l.diff_id);
  std::multiset<std::string> in_a;
  for (const auto& l : a.layers) in_a.insert(l.diff_id);
  json out = {{"shared", json::array()}, {"only_a", json::array()}, {"only_b", json::array()}};
  uint64_t shared_size = 0, a_size = 0, b_size = 0;
  auto entry = [](const Layer& l) { return json{{"diff_id", l.diff_id}, {"digest", l.digest}, {"size", l.size}}; };
  for (const auto& l : a.layers) {
    auto it = in_b.find(l.diff_id);
    if (it != in_b.end()) {
      in_b.erase(it);
      out["shared"].push_back(entry(l));
      shared_size += l.size;
    } else {
      out["only_a"].push_back(entry(l));
      a_size += l.size;
    }
  }
  for (const auto& l : b.layers) {
    auto it = in_a.find(l.diff_id);
    if (it != in_a.end()) {
      in_a.erase(it);
    } else {
      out["only_b"].push_back(entry(l));
      b_size += l.size;
    }
  }
  out["shared_size"] = shared_size;
  out["only_a_size"] = a_size;
  out["only_b_size"] = b_size;
  return out;
}

json package_changes(const Inventory& a, const Inventory& b) {
  // One key per installed copy: a package may sit in two site directories, or in two architectures.
  using Key = std::tuple<PackageKind, std::string, std::string>;  // kind, name, arch or location
  // Python: the site directory (the .dist-info name carries the version) and the PEP 503 name.
  auto key = [](const Package& p) {
    if (p.kind != PackageKind::kPython) return Key{p.kind, p.name, p.arch};
    std::string name;
    for (char c : p.name) {
      char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (l == '_' || l == '.') l = '-';
      if (l != '-' || name.empty() || name.back() != '-') name += l;
    }
    return Key{p.kind, name, p.location.substr(0, p.location.rfind('/'))};
  };
  std::map<Key, const Package*> ma, mb;
  for (const auto& p : a.packages) ma[key(p)] = &p;
  for (const auto& p : b.packages) mb[key(p)] = &p;
  json out = {{"added", json::array()}, {"removed", json::array()}, {"changed", json::array()}};
  for (const auto& [k, p] : ma) {
    auto it = mb.find(k);
    if (it == mb.end()) out["removed"].push_back(to_json(*p));
    else if (it->second->version != p->version) {
      json c = to_json(*it->second);
      c.erase("version");
      c["old"] = p->version;
      c["new"] = it->second->version;
      out["changed"].push_back(c);
    }
  }
  for (const auto& [k, p] : mb)
    if (!ma.count(k)) out["added"].push_back(to_json(*p));
  return out;
}

json file_changes(const Inventory& a, const Inventory& b) {
  std::map<std::string, const File*> ma, mb;
  for (const auto& f : a.files) ma[f.path] = &f;
  for (const auto& f : b.files) mb[f.path] = &f;
  auto entry = [](const File& f) {
    json j = {{"path", f.path}, {"type", f.type}, {"size", f.size}};
    if (!f.link_target.empty()) j["link_target"] = f.link_target;
    return j;
  };
  json out = {{"added", json::array()}, {"removed", json::array()}, {"changed", json::array()}};
  for (const auto& [path, f] : ma) {
    auto it = mb.find(path);
    if (it == mb.end()) {
      out["removed"].push_back(entry(*f));
      continue;
    }
    const File& g = *it->second;
    if (f->type != g.type || f->size != g.size || f->mode != g.mode || f->link_target != g.link_target)
      out["changed"].push_back({{"path", path}, {"type", g.type}, {"old_size", f->size}, {"new_size", g.size},
                                {"old_mode", f->mode}, {"new_mode", g.mode}});
  }
  for (const auto& [path, f] : mb)
    if (!ma.count(path)) out["added"].push_back(entry(*f));
  return out;
}

bool empty_changes(const json& j) { return j["added"].empty() && j["removed"].empty() && j["changed"].empty(); }

}  // namespace

json diff(const Inventory& a, const Inventory& b) {
  json out;
  auto side = [](const Inventory& i) {
    json counts = json::object();
    for (const auto& p : i.packages) {
      const std::string kind(inventory_kind_name(p.kind));
      counts[kind] = counts.value(kind, 0) + 1;
    }
    return json{{"source", i.source}, {"digest", i.manifest_digest}, {"packages", counts}};
  };
  out["a"] = side(a);
  out["b"] = side(b);
  out["config"] = config_changes(a.config, b.config);
  out["layers"] = layer_changes(a, b);
  out["packages"] = package_changes(a, b);
  bool identical = out["config"].empty() && out["layers"]["only_a"].empty() && out["layers"]["only_b"].empty() &&
                   empty_changes(out["packages"]);
  // A file list is compared only when both sides took one (--files).
  if (!a.files.empty() || !b.files.empty()) {
    out["files"] = file_changes(a, b);
    identical = identical && empty_changes(out["files"]);
  }
  out["identical"] = identical;
  return out;
}

}  // namespace rp::inventory
