#pragma once
// Between the plan and the lock file: the lock a resolved plan gives (`rockpack lock`), and the
// checks that a lock still fits the recipe a locked build is asked for (`build --locked`). A lock
// that does not fit is stale: rp::InputError (exit 2) saying what differs and to run `rockpack lock`.
#include <map>
#include <string>
#include <vector>

#include "plan/lock_file.hpp"
#include "plan/plan.hpp"
#include "recipe/model.hpp"

namespace rp {

// The recipe's args as a lock records them: a value whose name looks secret (…TOKEN, …PASSWORD,
// …SECRET, …KEY, …CREDENTIAL(S), …AUTH) is "<secret>", and credentials in URLs are removed.
std::map<std::string, std::string> lockable_args(const std::map<std::string, std::string>& args);

// The lock of a plan resolved in StepMode::kResolve or kBuild: recipe name, platform, base, args,
// and per step its inputs, pins and components. Throws rp::Error when a component has no sha256
// (nothing could check it later).
LockFile lock_from_plan(const BuildPlan& plan, const recipe::Recipe& recipe);

// Checks, before anything is fetched, that `use.lock` was written for this recipe: the same name,
// platform, base reference, args and steps. Throws InputError listing every difference.
void check_lock_fits_recipe(const LockUse& use, const recipe::Recipe& recipe, const std::vector<std::string>& steps);

// Checks the base the plan resolved against the locked digest; throws rp::Error when it differs.
void check_locked_base(const LockUse& use, const BuildPlan& plan);

// Checks one category of a step's inputs against the lock ("requirements" of "python"); throws
// InputError naming what was added and removed. No-op without a strict lock.
void check_locked_inputs(const LockUse& use, const std::string& step, const std::string& category,
                         const std::vector<std::string>& now);

}  // namespace rp
