// The one place that says which steps a build runs and in which order. The order follows the data:
// each step sees the image the earlier ones made (its RootfsView), so a step comes after what it
// reads. The base (make_plan) comes before all of them.
//
//   base -> [packages (apt), accounts] -> files -> python | rocm -> run -> login-env
//
// The order the data asks for puts `files:` after python and rocm (a recipe's files may overwrite
// what packages installed). Images built before this seam put the recipe's files first, and their
// digests must not change, so `files` keeps its place before the python step: a python or rocm step
// sees the recipe's files (an interpreter copied in by `files:` is found). apt and accounts go
// before files (a file may need a user they create); run goes after everything it could run.
// login-env is last: it writes the final Env for login shells.
#include "plan/steps.hpp"

#include <malloc.h>

#include <chrono>

#include "plan/accounts_step.hpp"
#include "plan/apt_step.hpp"
#include "plan/files_step.hpp"
#include "plan/layer_split.hpp"
#include "plan/lock_plan.hpp"
#include "plan/login_env.hpp"
#include "plan/python_step.hpp"
#include "plan/rocm_step.hpp"
#include "plan/run_step.hpp"
#include "store/cache_admin.hpp"
#include "util/phase_clock.hpp"

namespace rp {

const std::vector<std::unique_ptr<Step>>& build_steps() {
  static const std::vector<std::unique_ptr<Step>> steps = [] {
    std::vector<std::unique_ptr<Step>> s;
    s.push_back(std::make_unique<AptStep>());  // apt: Debian packages (before accounts: a user's shell may come from one)
    s.push_back(std::make_unique<AccountsStep>());  // accounts: users and groups (after apt: base-passwd, shells)
    s.push_back(std::make_unique<FilesStep>());
    s.push_back(std::make_unique<PythonStep>());  // python: without rocm:
    s.push_back(std::make_unique<RocmStep>());    // rocm: with its python: (one resolution)
    s.push_back(std::make_unique<RunStep>());  // run: commands in the sandbox, on everything above
    s.push_back(std::make_unique<LoginEnvStep>());
    return s;
  }();
  return steps;
}

void check_lock(const recipe::Recipe& recipe, const StepRunOptions& options) {
  if (!options.lock) return;
  std::vector<std::string> locking;
  for (const auto& step : build_steps())
    if (step->applies(recipe) && step->locks()) locking.push_back(step->name());
  check_lock_fits_recipe(options.lock, recipe, locking);
}

RootfsView::KeepContent files_steps_read_from_base(const recipe::Recipe& recipe) {
  std::vector<const Step*> reading;
  for (const auto& step : build_steps())
    if (step->applies(recipe)) reading.push_back(step.get());
  return [reading](std::string_view path) {
    for (const Step* step : reading)
      if (step->reads_from_base(path)) return true;
    return false;
  };
}

void run_steps(BuildPlan& plan, const recipe::Recipe& recipe, const StepRunOptions& options) {
  check_lock(recipe, options);
  check_locked_base(options.lock, plan);
  for (const auto& step : build_steps()) {
    if (!step->applies(recipe)) continue;
    StepContext context{recipe, plan, options.mode, options.store, options.downloads, step->name(), options.lock, options.strict,
                        options.prebuild};
    auto started = std::chrono::steady_clock::now();
    PhaseClock phase;
    StepOutput output = step->plan(context);
    phase.lap("plan.step." + step->name());
    if (options.timings)
      options.timings->push_back(
          {step->name(), std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count()});
    apply_step_output(plan, recipe, step->name(), std::move(output));
  }
  split_oversized_layers(plan.layers, recipe.max_layer_size ? parse_size(*recipe.max_layer_size) : kDefaultMaxLayerSize);
  plan.drop_base_reads();
  // Planning's garbage (the base's member lists, the views, index pages) was freed on several
  // threads, into several of malloc's arenas, which keep it: give it back before the layers are
  // written, the build's peak.
  ::malloc_trim(0);
}

}  // namespace rp
