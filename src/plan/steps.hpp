#pragma once
// The build's steps, in their one order (steps.cpp says why it is this order), and the loop that
// runs them on a plan whose base is set (make_plan).
#include <memory>
#include <string>
#include <vector>

#include "plan/step.hpp"

namespace rp {

// Every step, in image order; a step whose section the recipe lacks is skipped (Step::applies).
const std::vector<std::unique_ptr<Step>>& build_steps();

// How long a step's plan() took (wall time): what `build --report` shows per step.
struct StepTiming {
  std::string step;
  double seconds = 0;
};

struct StepRunOptions {
  StepMode mode = StepMode::kBuild;
  ContentStore* store = nullptr;  // required unless mode is kOffline
  DownloadOptions downloads;
  std::vector<StepTiming>* timings = nullptr;  // when set, run_steps appends one timing per step it ran
  // `rockpack build --strict`: an integrity problem a build otherwise warns about fails it (today:
  // a wheel member that does not match its RECORD hash).
  bool strict = false;
  LockUse lock;  // build --locked (strict), lock --update; none by default
  // When set, a step may hand it layers that are final before the step ends, to be written while
  // the step goes on (plan/layer_prebuild.hpp). Not owned.
  LayerPrebuild* prebuild = nullptr;

  // `validate`: the checks that need no network and no store (StepMode::kOffline).
  static StepRunOptions offline() {
    StepRunOptions o;
    o.mode = StepMode::kOffline;
    return o;
  }
};

// With a strict lock (build --locked): checks that it was written for this recipe — its name,
// platform, base, args and the steps that lock inputs — before anything is fetched; throws
// InputError saying what differs. No-op otherwise.
void check_lock(const recipe::Recipe& recipe, const StepRunOptions& options);

// What the steps that apply to `recipe` read from the base (Step::reads_from_base, any of them).
RootfsView::KeepContent files_steps_read_from_base(const recipe::Recipe& recipe);

// Runs every step that applies, in order, each on the plan as the earlier ones left it. With a strict
// lock, first checks that the lock fits the recipe (check_lock) and the base's digest.
void run_steps(BuildPlan& plan, const recipe::Recipe& recipe, const StepRunOptions& options);

}  // namespace rp
