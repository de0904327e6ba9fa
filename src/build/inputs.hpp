#pragma once
// What `build`, `plan` and `validate` share: reading --set pairs and SOURCE_DATE_EPOCH, and loading the
// recipe with them.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "plan/plan.hpp"
#include "plan/steps.hpp"
#include "recipe/model.hpp"

namespace rp::build {

// "KEY=VALUE" pairs; throws InputError for a pair without '='.
std::map<std::string, std::string> parse_set_args(const std::vector<std::string>& pairs);
// $SOURCE_DATE_EPOCH when set; throws InputError when it is not a non-negative integer.
std::optional<int64_t> source_date_epoch_from_env();
// `variant`: one variant of the recipe's matrix: (its args and tags), or empty.
recipe::LoadOptions load_options(const std::vector<std::string>& set_pairs, const std::string& variant = {});

// Loads the recipe and plans the build: the base (make_plan), then every step (run_steps) in
// `steps.mode` — kOffline for `validate` (every check that needs no network), kResolve for `plan`,
// kBuild for `build`. `recipe_file` "-" reads the recipe from stdin (relative paths in it are
// relative to the working directory); `platform`, when given, replaces the recipe's (build --platform);
// `allow_paths` are the host directories `files: src` may read besides the recipe's own (--allow-path).
struct LoadedPlan {
  recipe::Recipe recipe;
  BuildPlan plan;
};
LoadedPlan load_and_plan(const std::string& recipe_file, const std::vector<std::string>& set_pairs,
                         PlanOptions plan_options = {}, const std::optional<Platform>& platform = {},
                         const StepRunOptions& steps = StepRunOptions::offline(),
                         const std::vector<std::string>& allow_paths = {}, const std::string& variant = {});

}  // namespace rp::build
