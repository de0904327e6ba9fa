#include "plan/plan.hpp"

#include <ctime>

#include "plan/host_files.hpp"
#include "util/error.hpp"

namespace rp {

std::string rfc3339(int64_t epoch_seconds) {
  std::time_t t = static_cast<std::time_t>(epoch_seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

namespace {

bool normalize_root(const std::string& path) { return path.find_first_not_of("/.") == std::string::npos; }

LayerPlan& layer_named(std::vector<LayerPlan>& layers, const std::string& name) {
  for (auto& l : layers)
    if (l.name == name) return l;
  layers.push_back({name, "", {}});
  return layers.back();
}

// "files: /etc/passwd, /bin/busybox, 3 more (recipe.yaml)" — short enough for `docker history`.
std::string describe_layer(const std::string& name, const std::vector<std::string>& dests, const std::string& file) {
  std::string s = "rockpack " + name + ": ";
  for (size_t i = 0; i < dests.size() && i < 3; ++i) s += (i ? ", " : "") + dests[i];
  if (dests.size() > 3) s += ", " + std::to_string(dests.size() - 3) + " more";
  return s + " (" + file + ")";
}

void add_config_values(const recipe::Recipe& r, nlohmann::json& cfg) {
  nlohmann::json& c = cfg["config"];
  if (!r.env.empty()) {
    // Recipe env replaces same-named variables of the base and adds the rest, in recipe order.
    nlohmann::json env = c.value("Env", nlohmann::json::array());
    for (const auto& [k, v] : r.env) {
      std::string entry = k + "=" + v;
      bool replaced = false;
      for (auto& e : env) {
        std::string s = e.get<std::string>();
        if (s.substr(0, s.find('=')) == k) {
          e = entry;
          replaced = true;
        }
      }
      if (!replaced) env.push_back(entry);
    }
    c["Env"] = env;
  }
  if (r.user) c["User"] = *r.user;
  if (r.workdir) c["WorkingDir"] = *r.workdir;
  if (r.entrypoint) {
    c["Entrypoint"] = *r.entrypoint;
    // As in docker: a new entrypoint drops the base's cmd unless the recipe sets one.
    if (!r.cmd) c.erase("Cmd");
  }
  if (r.cmd) c["Cmd"] = *r.cmd;
  for (const auto& [k, v] : r.labels) c["Labels"][k] = v;
  if (c.is_null()) cfg["config"] = nlohmann::json::object();
}

}  // namespace

void set_env_var(nlohmann::json& env, const std::string& name, const std::string& value) {
  if (!env.is_array()) env = nlohmann::json::array();
  for (auto& e : env) {
    std::string s = e.get<std::string>();
    if (s.substr(0, s.find('=')) == name) {
      e = name + "=" + value;
      return;
    }
  }
  env.push_back(name + "=" + value);
}

BuildPlan make_plan(const recipe::Recipe& r, const PlanOptions& options) {
  BuildPlan plan;
  plan.name = r.name;
  plan.source_date_epoch = options.source_date_epoch;
  plan.created = rfc3339(options.source_date_epoch);
  plan.tags = r.tags;

  std::string recipe_file = r.file.filename().string();
  std::map<std::string, std::vector<std::string>> dests_by_layer;
  for (const auto& f : r.files) {
    LayerPlan& layer = layer_named(plan.layers, f.layer);
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
    LayerPlan& layer = layer_named(plan.layers, s.layer);
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
  for (auto& layer : plan.layers) {
    finalize_entries(layer.entries);
    layer.created_by = describe_layer(layer.name, dests_by_layer[layer.name], recipe_file);
  }

  // A base's config is the starting point (Env, Entrypoint, Cmd, WorkingDir, User, Labels, history
  // and its diff_ids); the recipe's values go on top.
  std::optional<BaseImage> base = options.base;
  if (!base && options.resolve_base && r.base != "scratch") base = options.resolve_base(r.base, r.platform);
  nlohmann::json cfg = base ? base->image.config : nlohmann::json::object();
  if (base) {
    plan.base = base->image;
    plan.base_name = base->name;
    plan.base_digest = base->digest;
  }
  cfg["architecture"] = r.platform.architecture;
  cfg["os"] = r.platform.os;
  if (!r.platform.variant.empty()) cfg["variant"] = r.platform.variant;
  else cfg.erase("variant");
  cfg["created"] = plan.created;
  if (!cfg.contains("config") || !cfg["config"].is_object()) cfg["config"] = nlohmann::json::object();
  if (!base) cfg["rootfs"] = {{"type", "layers"}, {"diff_ids", nlohmann::json::array()}};
  if (!cfg.contains("history") || !cfg["history"].is_array()) cfg["history"] = nlohmann::json::array();
  add_config_values(r, cfg);
  plan.config = cfg;

  plan.annotations["org.opencontainers.image.created"] = plan.created;
  plan.annotations["org.opencontainers.image.title"] = r.name;
  if (!r.tags.empty()) plan.annotations["org.opencontainers.image.version"] = r.tags.front();
  if (!options.revision.empty()) plan.annotations["org.opencontainers.image.revision"] = options.revision;
  if (!options.source.empty()) plan.annotations["org.opencontainers.image.source"] = options.source;
  if (base) {
    plan.annotations["org.opencontainers.image.base.name"] = base->name;
    if (!base->digest.empty()) plan.annotations["org.opencontainers.image.base.digest"] = base->digest;
  }
  for (const auto& [k, v] : r.annotations) plan.annotations[k] = v;
  return plan;
}

}  // namespace rp
