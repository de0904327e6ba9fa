#include "build/inputs.hpp"

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <sstream>
#include <iterator>

#include "util/error.hpp"
#include "util/phase_clock.hpp"

namespace rp::build {

std::map<std::string, std::string> parse_set_args(const std::vector<std::string>& pairs) {
  std::map<std::string, std::string> out;
  for (const auto& p : pairs) {
    auto eq = p.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError("--set '" + p + "' is not KEY=VALUE", "e.g. --set UBUNTU_VERSION=24.04");
    out[p.substr(0, eq)] = p.substr(eq + 1);
  }
  return out;
}

std::optional<int64_t> source_date_epoch_from_env() {
  const char* v = std::getenv("SOURCE_DATE_EPOCH");
  if (!v || !*v) return std::nullopt;
  std::string s(v);
  bool digits = s.size() <= 12;
  for (char c : s) digits = digits && c >= '0' && c <= '9';
  if (!digits)
    throw InputError("SOURCE_DATE_EPOCH='" + s + "' is not a number of seconds",
                     "set it to e.g. $(git log -1 --format=%ct), or unset it");
  return std::stoll(s);
}

recipe::LoadOptions load_options(const std::vector<std::string>& set_pairs, const std::string& variant) {
  recipe::LoadOptions o;
  o.variant = variant;
  o.set_args = parse_set_args(set_pairs);
  o.source_date_epoch = source_date_epoch_from_env();
  o.now = static_cast<int64_t>(std::time(nullptr));
  return o;
}

LoadedPlan load_and_plan(const std::string& recipe_file, const std::vector<std::string>& set_pairs,
                         PlanOptions plan_options, const std::optional<Platform>& platform,
                         const StepRunOptions& steps,
                         const std::vector<std::string>& allow_paths, const std::string& variant) {
  recipe::LoadOptions load = load_options(set_pairs, variant);
  for (const auto& dir : allow_paths) load.allow_paths.push_back(std::filesystem::absolute(dir).lexically_normal());
  if (recipe_file == "-") {
    std::ostringstream in;  // (not istreambuf_iterator: GCC 12 warns falsely of a null dereference in it)
    in << std::cin.rdbuf();
    std::string text = std::move(in).str();
    if (text.empty()) throw InputError("the recipe on stdin is empty", "pipe a recipe in: rockpack build - < recipe.yaml");
    load.recipe_text = std::move(text);
  }
  recipe::Recipe recipe = recipe::load_recipe(recipe_file, load);
  if (platform) recipe.platform = *platform;
  plan_options.source_date_epoch = load.source_date_epoch.value_or(0);
  check_lock(recipe, steps);  // a stale lock is refused before the base is pulled
  auto started = std::chrono::steady_clock::now();
  PhaseClock phase;
  BuildPlan plan = make_plan(recipe, plan_options);  // pulls or imports the base
  if (steps.timings)
    steps.timings->push_back({"base", std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count()});
  phase.lap("plan.base");  // its check goes on meanwhile (BuildPlan::base_verified)
  run_steps(plan, recipe, steps);
  return {std::move(recipe), std::move(plan)};
}

}  // namespace rp::build
