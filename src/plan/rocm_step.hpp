#pragma once
// The recipe's `rocm:` section, planned on top of the python section: which TheRock index(es) and
// which `rocm` version, the `rocm[components]==V` requirement added to the python requirements
// (torch & co. resolve against the same index), the `rocm` sdist installed natively, the devel tree
// expanded, and the environment, env files and labels that make the image ready when it starts.
//
//   targets -> families -> index URLs -> rocm version (latest or pin, checked) -> python step with
//   the TheRock hooks -> env files layer -> config Env, labels, resolution
#include "plan/plan.hpp"
#include "plan/python_step.hpp"
#include "recipe/model.hpp"

namespace rp {

// Plans and applies `python:` and `rocm:` together (the recipe must have both). Downloads what the
// resolution needs into options.store.
void apply_rocm_step(BuildPlan& plan, const recipe::Recipe& recipe, PythonStepOptions options);

}  // namespace rp
