#pragma once
// Login shells and the image Env. `docker run` hands a process the image's Env, but a login shell
// (`bash -l`, `su -`, an SSH session) starts over from /etc/profile, which on Debian and Ubuntu sets
// PATH to a fixed list: the venv's and ROCm's bin directories are gone, and `bash -lc 'python -V'`
// fails. PyTorch's CI runs its build in a login shell. So an image whose PATH has directories a
// login shell would drop gets /etc/profile.d/zz-rockpack-env.sh (its own small layer), written from
// the final Env: it puts the image's PATH entries first (in the image's order, keeping what
// /etc/profile added after them) and sets every other Env variable a login shell lost. It sorts
// last, after e.g. rocm-sdk.sh.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "entries/entry.hpp"
#include "plan/step.hpp"

namespace rp {

inline constexpr const char* kLoginEnvPath = "etc/profile.d/zz-rockpack-env.sh";
inline constexpr const char* kLoginEnvLayer = "login-env";

// The script for a config Env array ("NAME=value" strings); nullopt when the Env has no PATH entry
// that /etc/profile's PATH lacks (then a login shell loses nothing).
std::optional<std::string> login_env_script(const nlohmann::json& env);

// The last step: the script (when needed) as the plan's last layer, "login-env", written from the
// final Env. It runs after every step that changes Env (steps.cpp).
class LoginEnvStep final : public Step {
 public:
  std::string name() const override { return "login-env"; }
  bool applies(const recipe::Recipe&) const override { return true; }
  StepOutput plan(const StepContext& context) const override;
};

}  // namespace rp
