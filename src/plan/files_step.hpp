#pragma once
// The recipe's `files:` and `symlinks:` sections: host files and trees, inline contents and links,
// grouped into the layers the recipe names (in the order the names first appear).
#include "plan/step.hpp"

namespace rp {

class FilesStep final : public Step {
 public:
  std::string name() const override { return "files"; }
  bool applies(const recipe::Recipe& recipe) const override { return !recipe.files.empty() || !recipe.symlinks.empty(); }
  // The same in every mode: host paths are read (and checked) even by `validate`.
  StepOutput plan(const StepContext& context) const override;
};

}  // namespace rp
