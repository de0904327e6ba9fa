// rockpack validate: every offline check of every section (the steps in StepMode::kOffline: files read,
// requirements and rocm targets/versions checked); `rockpack plan` is the online check.
#include <cstdio>

#include "build/inputs.hpp"
#include "cli/family.hpp"
#include "cli/commands.hpp"
#include "cli/progress_display.hpp"
#include "plan/plan.hpp"

namespace rp::cli {

namespace {
struct ValidateArgs {
  std::string recipe;
  std::vector<std::string> set;
  std::vector<std::string> allow_paths;
  std::string variant;
};

void validate_one(const ValidateArgs& args, const std::string& variant) {
  StepRunOptions offline;
  offline.mode = StepMode::kOffline;
  BuildPlan plan = build::load_and_plan(args.recipe, args.set, {}, {}, offline, args.allow_paths, variant).plan;
  size_t entries = 0;
  uint64_t bytes = 0;
  for (const auto& l : plan.layers) {
    entries += l.entries.size();
    for (const auto& e : l.entries) bytes += e.size();
  }
  std::string what = variant.empty() ? args.recipe : args.recipe + " variant " + variant;
  std::printf("%s: ok — image %s, %zu layer%s, %zu entries (%s), tags: ", what.c_str(), plan.name.c_str(),
              plan.layers.size(), plan.layers.size() == 1 ? "" : "s", entries, human_bytes(bytes).c_str());
  for (size_t i = 0; i < plan.tags.size(); ++i) std::printf("%s%s", i ? ", " : "", plan.tags[i].c_str());
  std::printf("%s\n", plan.tags.empty() ? "(none)" : "");
}

// A recipe with a matrix: is checked as every one of its variants (or the one --variant names).
void run_validate(const ValidateArgs& args) {
  if (!args.variant.empty() || args.recipe == "-") return validate_one(args, args.variant);
  std::vector<FamilyMember> family = load_family(args.recipe, args.set, args.allow_paths);
  if (family.empty()) return validate_one(args, {});
  std::printf("%s: %zu variants\n", args.recipe.c_str(), family.size());
  for (const auto& m : family) validate_one(args, m.name);
}
}  // namespace

void add_validate_command(CLI::App& app, GlobalOptions&) {
  auto args = std::make_shared<ValidateArgs>();
  CLI::App* cmd = app.add_subcommand("validate", "Check a recipe without building it (exit 2 when it is invalid)");
  cmd->add_option("recipe", args->recipe, "The recipe file (YAML)")->required();
  cmd->add_option("--set", args->set, "Override a recipe arg: --set KEY=VALUE (repeatable)")->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--allow-path", args->allow_paths, "As for build: a host directory files: src may read besides the recipe's (repeatable)")->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--variant", args->variant, "Check one variant of the recipe's matrix: (default: every variant)");
  cmd->callback([args] { run_validate(*args); });
}

}  // namespace rp::cli
