#pragma once
// The recipe's `rocm:` section: TheRock's ROCm SDK from its Python index, resolved together with
// the `python:` section (one resolution, so torch's `rocm[...]==V` pins and the `rocm` the recipe
// asks for meet on the same index), the `rocm` sdist installed natively, the devel tree expanded,
// and the environment, env files and labels that make the image ready when it starts.
//
//   targets -> families -> index URLs -> rocm version (latest or pin, checked) -> index layout
//   -> the python step with typed PythonAdditions (indexes, rocm[...], layers, TheRock's hooks)
//   -> env files layer -> Env changes, labels, the rocm record
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "plan/step.hpp"

namespace rp {

// What the rocm section resolved; to_json() is the "rocm" object of `--resolved`.
struct RocmRecord final : StepRecord {
  std::string version;
  std::string layout;  // "per-family", "multi-arch" (flat) or "whl-next" (structured)
  std::vector<std::string> targets, families, indexes, components;
  bool expand_devel = true;
  std::string root;  // where the SDK is in the image (ROCM_PATH)
  nlohmann::json to_json() const override;
};

// `python:` and `rocm:` together (a recipe with rocm: has python:, the loader checks it): the
// python step does not run on its own then.
class RocmStep final : public Step {
 public:
  std::string name() const override { return "rocm"; }
  bool applies(const recipe::Recipe& recipe) const override { return recipe.rocm.has_value(); }
  StepOutput plan(const StepContext& context) const override;
  // The interpreter's files (the python step it runs) and /etc/bash.bashrc.
  bool reads_from_base(std::string_view path) const override;
  bool locks() const override { return true; }
};

}  // namespace rp
