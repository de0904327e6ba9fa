#pragma once
// The recipe's `accounts:` section, planned: one layer with the image's passwd, group, shadow and
// gshadow (the base's lines kept, the recipe's added) and the new home directories. The logic is
// src/apt/accounts; this step feeds it the image so far and the recipe's requests.
#include <string>

#include "plan/step.hpp"

namespace rp {

class AccountsStep final : public Step {
 public:
  std::string name() const override { return "accounts"; }
  bool applies(const recipe::Recipe& recipe) const override { return recipe.accounts.has_value(); }
  StepOutput plan(const StepContext& context) const override;
  bool reads_from_base(std::string_view path) const override;
};

}  // namespace rp
