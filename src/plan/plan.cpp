#include "plan/plan.hpp"

#include <ctime>

#include "plan/steps.hpp"
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

void add_config_values(const recipe::Recipe& r, nlohmann::json& cfg) {
  nlohmann::json& c = cfg["config"];
  if (!r.env.empty()) {
    // Recipe env replaces same-named variables of the base and adds the rest, in recipe order.
    nlohmann::json env = c.value("Env", nlohmann::json::array());
    for (const auto& [k, v] : r.env) set_env_var(env, k, v);
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
  bool replaced = false;
  for (auto& e : env) {
    std::string s = e.get<std::string>();
    if (s.substr(0, s.find('=')) == name) {
      e = name + "=" + value;
      replaced = true;
    }
  }
  if (!replaced) env.push_back(name + "=" + value);
}

void BuildPlan::drop_base_reads() {
  if (!base_verified.valid()) return;
  if (!base_verified.get()) return;  // rethrows the check's error
  std::promise<std::shared_ptr<const BaseLayerReads>> checked;
  checked.set_value(nullptr);
  base_verified = checked.get_future().share();
}

nlohmann::json resolution_json(const BuildPlan& plan) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [key, record] : plan.records)
    if (record) out[key] = record->to_json();
  return out;
}

BuildPlan make_plan(const recipe::Recipe& r, const PlanOptions& options) {
  BuildPlan plan;
  plan.name = r.name;
  if (r.variant) plan.variant = r.variant->name;
  plan.source_date_epoch = options.source_date_epoch;
  plan.created = rfc3339(options.source_date_epoch);
  plan.tags = r.tags;

  // A base's config is the starting point (Env, Entrypoint, Cmd, WorkingDir, User, Labels, history
  // and its diff_ids); the recipe's values go on top.
  std::optional<BaseImage> base = options.base;
  if (!base && options.resolve_base && r.base != "scratch")
    base = options.resolve_base(r.base, r.platform, files_steps_read_from_base(r));
  nlohmann::json cfg = base ? base->image.config : nlohmann::json::object();
  if (base) {
    plan.base = base->image;
    plan.base_name = base->name;
    plan.base_digest = base->digest;
    plan.base_verified = base->verified;
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
