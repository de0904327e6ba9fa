#include "plan/step.hpp"

namespace rp {

namespace {

std::string var_name(const std::string& entry) { return entry.substr(0, entry.find('=')); }

// Debian's and Ubuntu's PATH for root, what an image without PATH gets in front of a prefix.
const char* kDefaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

}  // namespace

RootfsView StepContext::rootfs(const RootfsView::KeepContent& keep) const {
  RootfsView view;
  // The check's read kept what every step's reads_from_base asks for (make_plan).
  if (std::shared_ptr<const BaseLayerReads> read = plan.base_reads()) {
    for (const auto& layer : *read) view.apply_layer(*layer);
  } else {
    for (const auto& l : plan.base.layers) view.add_layer(*store, l.blob, keep);
  }
  for (const auto& l : plan.layers) view.add_entries(l.entries);
  return view;
}

std::vector<std::string> StepContext::image_env() const {
  std::vector<std::string> out;
  if (!plan.config.contains("config")) return out;
  for (const auto& e : plan.config["config"].value("Env", nlohmann::json::array()))
    if (e.is_string()) out.push_back(e.get<std::string>());
  return out;
}

void apply_env_changes(nlohmann::json& env, const std::vector<EnvChange>& changes, const recipe::Recipe& recipe) {
  if (!env.is_array()) env = nlohmann::json::array();
  auto recipe_sets = [&recipe](const std::string& name) {
    for (const auto& [k, v] : recipe.env)
      if (k == name) return true;
    return false;
  };
  for (const auto& c : changes) {
    if (recipe_sets(c.name)) continue;
    std::string value = c.value;
    if (c.kind == EnvChange::Kind::kPrependPath) {
      std::string path = kDefaultPath;
      for (const auto& e : env)
        if (var_name(e.get<std::string>()) == "PATH") path = e.get<std::string>().substr(5);
      value += path;
    }
    set_env_var(env, c.name, value);
  }
}

void apply_step_output(BuildPlan& plan, const recipe::Recipe& recipe, const std::string& step, StepOutput output) {
  for (auto& l : output.layers) {
    l.step = step;
    plan.layers.push_back(std::move(l));
  }
  nlohmann::json& config = plan.config["config"];
  if (!output.config.env.empty() || output.config.ensure_env) apply_env_changes(config["Env"], output.config.env, recipe);
  if (!output.config.labels.empty()) {
    nlohmann::json& labels = config["Labels"];
    if (!labels.is_object()) labels = nlohmann::json::object();
    for (const auto& [k, v] : output.config.labels)
      if (!recipe.labels.count(k) && !v.empty()) labels[k] = v;
  }
  for (auto& c : output.components) plan.components.push_back({step, std::move(c)});
  for (auto& r : output.records) plan.records.push_back(std::move(r));
  if (!output.lock_inputs.empty()) plan.lock_inputs[step] = std::move(output.lock_inputs);
  if (!output.lock_pins.empty()) plan.lock_pins[step] = std::move(output.lock_pins);
}

}  // namespace rp
