#include "plan/files_step.hpp"

#include <map>

#include "plan/host_files.hpp"

namespace rp {

namespace {

bool normalize_root(const std::string& path) { return path.find_first_not_of("/.") == std::string::npos; }

LayerPlan& layer_named(std::vector<LayerPlan>& layers, const std::string& name) {
  for (auto& l : layers)
    if (l.name == name) return l;
  layers.push_back({name, "", {}, {}});
  return layers.back();
}

// "files: /etc/passwd, /bin/busybox, 3 more (recipe.yaml)" — short enough for `docker history`.
std::string describe_layer(const std::string& name, const std::vector<std::string>& dests, const std::string& file) {
  std::string s = "rockpack " + name + ": ";
  for (size_t i = 0; i < dests.size() && i < 3; ++i) s += (i ? ", " : "") + dests[i];
  if (dests.size() > 3) s += ", " + std::to_string(dests.size() - 3) + " more";
  return s + " (" + file + ")";
}

}  // namespace

StepOutput FilesStep::plan(const StepContext& context) const {
  const recipe::Recipe& r = context.recipe;
  StepOutput out;
  std::vector<LayerPlan>& layers = out.layers;
  std::string recipe_file = r.file.filename().string();
  std::map<std::string, std::vector<std::string>> dests_by_layer;
  for (const auto& f : r.files) {
    LayerPlan& layer = layer_named(layers, f.layer);
    std::string origin = f.where.str();
    // A tree copied to "/" spreads its contents over the root, as `COPY dir/ /` does.
    bool to_root = f.src && fs::is_directory(*f.src) && normalize_root(f.dest);
    std::string dest = to_root ? std::string() : normalize_image_path(f.dest, origin);
    if (f.content) {
      Entry e;
      e.path = dest;
      e.type = EntryType::kFile;
      e.mode = f.mode.value_or(0644);
      e.uid = f.uid;
      e.gid = f.gid;
      e.content = std::make_shared<InlineContent>(*f.content);
      e.origin = origin;
      layer.entries.push_back(std::move(e));
    } else {
      add_host_entries({*f.src, dest, f.mode, f.uid, f.gid, origin}, layer.entries);
    }
    dests_by_layer[f.layer].push_back(f.dest);
  }
  for (const auto& s : r.symlinks) {
    LayerPlan& layer = layer_named(layers, s.layer);
    Entry e;
    e.origin = s.where.str();
    e.path = normalize_image_path(s.path, e.origin);
    e.type = EntryType::kSymlink;
    e.mode = 0777;
    e.uid = s.uid;
    e.gid = s.gid;
    e.link_target = s.target;
    layer.entries.push_back(std::move(e));
    dests_by_layer[s.layer].push_back(s.path);
  }
  for (auto& layer : layers) {
    finalize_entries(layer.entries);
    layer.created_by = describe_layer(layer.name, dests_by_layer[layer.name], recipe_file);
  }
  return out;
}

}  // namespace rp
