#include "plan/layer_split.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <string_view>

#include <spdlog/spdlog.h>

namespace rp {

namespace {

bool is_whiteout(const Entry& e) {
  std::string_view base = e.path;
  if (auto slash = base.rfind('/'); slash != std::string_view::npos) base.remove_prefix(slash + 1);
  return base.rfind(".wh.", 0) == 0;
}

std::string parent_of(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

// The entries that must travel together, by the index of the first of them (path order): a file
// and its hardlinks, or any other entry alone. Whiteouts are left out (they go to the first part).
struct Units {
  std::vector<std::vector<size_t>> members;  // each unit's entry indexes, ascending
  std::vector<uint64_t> bytes;               // each unit's tar bytes
};

Units group_units(const std::vector<Entry>& entries) {
  std::map<std::string_view, size_t> index_of;
  for (size_t i = 0; i < entries.size(); ++i) index_of.emplace(entries[i].path, i);
  // The unit of each entry: a hardlink joins its target's (which sorts before it: finalize_entries).
  std::vector<size_t> unit_of(entries.size(), SIZE_MAX);
  Units units;
  for (size_t i = 0; i < entries.size(); ++i) {
    const Entry& e = entries[i];
    if (is_whiteout(e)) continue;
    size_t unit = SIZE_MAX;
    if (e.type == EntryType::kHardlink) {
      auto target = index_of.find(e.link_target);
      if (target != index_of.end() && unit_of[target->second] != SIZE_MAX) unit = unit_of[target->second];
    }
    if (unit == SIZE_MAX) {
      unit = units.members.size();
      units.members.emplace_back();
      units.bytes.push_back(0);
    }
    unit_of[i] = unit;
    units.members[unit].push_back(i);
    units.bytes[unit] += tar_size_of(e);
  }
  return units;
}

}  // namespace

uint64_t tar_size_of(const Entry& entry) { return 512 + (entry.size() + 511) / 512 * 512; }

std::vector<LayerPlan> split_layer(LayerPlan layer, uint64_t cap) {
  uint64_t total = 0;
  for (const auto& e : layer.entries) total += tar_size_of(e);
  if (total <= cap || layer.entries.size() < 2) return {std::move(layer)};

  const std::vector<Entry>& entries = layer.entries;
  Units units = group_units(entries);
  // Consecutive runs of units (in the order of their first entry), each as large as fits.
  std::vector<std::set<size_t>> parts(1);
  uint64_t in_part = 0;
  for (size_t u = 0; u < units.members.size(); ++u) {
    if (in_part > 0 && in_part + units.bytes[u] > cap) {
      parts.emplace_back();
      in_part = 0;
    }
    parts.back().insert(units.members[u].begin(), units.members[u].end());
    in_part += units.bytes[u];
    if (units.bytes[u] > cap)
      spdlog::warn("layer {}: {} alone is {} bytes, more than the layer size cap ({} bytes); it gets a layer of its own",
                   layer.name, entries[units.members[u].front()].path, units.bytes[u], cap);
  }
  for (size_t i = 0; i < entries.size(); ++i)
    if (is_whiteout(entries[i])) parts.front().insert(i);
  if (parts.size() == 1) return {std::move(layer)};

  // Each part gets the directory entries above its entries, as the layer has them.
  std::map<std::string_view, size_t> index_of;
  for (size_t i = 0; i < entries.size(); ++i) index_of.emplace(entries[i].path, i);
  std::vector<LayerPlan> out;
  const size_t n = parts.size();
  for (size_t k = 0; k < n; ++k) {
    std::set<size_t> with_parents = parts[k];
    for (size_t i : parts[k]) {
      for (std::string dir = parent_of(entries[i].path); !dir.empty(); dir = parent_of(dir)) {
        auto d = index_of.find(dir);
        if (d == index_of.end() || !with_parents.insert(d->second).second) break;  // the rest is there already
      }
    }
    LayerPlan part;
    part.name = k == 0 ? layer.name : layer.name + " (part " + std::to_string(k + 1) + " of " + std::to_string(n) + ")";
    part.created_by = layer.created_by + " (part " + std::to_string(k + 1) + " of " + std::to_string(n) + ")";
    part.step = layer.step;
    part.entries.reserve(with_parents.size());
    for (size_t i : with_parents) part.entries.push_back(entries[i]);
    out.push_back(std::move(part));
  }
  spdlog::info("layer {}: {} bytes uncompressed, more than the layer size cap ({} bytes): split into {} layers",
               layer.name, total, cap, n);
  return out;
}

void split_oversized_layers(std::vector<LayerPlan>& layers, uint64_t cap) {
  std::vector<LayerPlan> out;
  out.reserve(layers.size());
  for (auto& l : layers)
    for (auto& part : split_layer(std::move(l), cap)) out.push_back(std::move(part));
  layers = std::move(out);
}

}  // namespace rp
