#pragma once
// The recipe's `run:` section, planned: each item runs in the sandbox (src/sandbox) on the image as
// built so far, and what it changed becomes one layer. A run layer is cached in the store by
// everything its result can depend on (the parent image's layers, the command, env, user, workdir,
// network, the `cache_key` files), so a warm build does not run the command again. docs/run.md.
#include <string>
#include <vector>

#include "plan/sandbox_layers.hpp"
#include "plan/step.hpp"

namespace rp {

// The sandbox job of a `run:` or `checks:` item: `/bin/sh -c` for shell:, `env` (the image's Env)
// with the item's env: on top, the item's user/workdir or else the defaults given.
SandboxJob sandbox_job_of(const recipe::RunItem& item, const std::string& section, const std::vector<std::string>& env,
                          const std::string& default_user, const std::string& default_workdir);

class RunStep final : public Step {
 public:
  std::string name() const override { return "run"; }
  bool applies(const recipe::Recipe& recipe) const override { return !recipe.run.empty(); }
  StepOutput plan(const StepContext& context) const override;
};

}  // namespace rp
