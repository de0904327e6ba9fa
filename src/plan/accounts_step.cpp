#include "plan/accounts_step.hpp"

#include <spdlog/spdlog.h>

#include <cstdlib>

#include "apt/accounts.hpp"

namespace rp {

bool AccountsStep::reads_from_base(std::string_view p) const {
  return p == "etc/passwd" || p == "etc/group" || p == "etc/shadow" || p == "etc/gshadow";
}

StepOutput AccountsStep::plan(const StepContext& context) const {
  const recipe::AccountsSection& section = *context.recipe.accounts;
  StepOutput out;
  if (context.mode == StepMode::kOffline) return out;
  RootfsView view = context.rootfs([this](std::string_view p) { return reads_from_base(p); });
  std::vector<apt::GroupRequest> groups;
  for (const auto& g : section.groups) groups.push_back({g.where.str(), g.name, g.gid, g.members, g.replace});
  std::vector<apt::UserRequest> users;
  for (const auto& u : section.users)
    users.push_back({u.where.str(), u.name, u.uid, u.gid, u.groups, u.home, u.shell, u.gecos, u.create_home, u.replace});
  // The shadow files' last-change day: SOURCE_DATE_EPOCH's, so the layer is reproducible.
  int64_t days = 0;
  if (const char* sde = std::getenv("SOURCE_DATE_EPOCH")) days = std::strtoll(sde, nullptr, 10) / 86400;
  apt::AccountsResult result = apt::plan_accounts(view, groups, users, days);
  for (const auto& d : result.done) spdlog::info("accounts: {}", d);
  LayerPlan layer;
  layer.name = "accounts";
  layer.created_by = "rockpack accounts: " + std::to_string(section.groups.size()) + " groups, " +
                     std::to_string(section.users.size()) + " users";
  layer.entries = std::move(result.entries);
  if (context.mode == StepMode::kResolve) layer.entries.clear();
  out.layers.push_back(std::move(layer));
  return out;
}

}  // namespace rp
