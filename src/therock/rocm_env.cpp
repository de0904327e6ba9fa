#include "therock/rocm_env.hpp"

#include <algorithm>

#include "util/strings.hpp"

namespace rp::therock {

namespace {

// Single quotes for the shell: nothing inside is expanded.
std::string shell_quote(const std::string& value) {
  std::string out = "'";
  for (char c : value) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

struct SearchPath {
  const char* name;
  std::vector<std::string> dirs;  // put in front of what is there
};

// What PyTorch's install_rocm.sh (.ci/docker/common/install_rocm.sh, Ubuntu) exports: the root
// from `rocm-sdk path --root`, its bin first on PATH, CMAKE_PREFIX_PATH and LD_LIBRARY_PATH.
std::vector<SearchPath> search_paths(const std::string& root) {
  return {
      {"PATH", {root + "/bin"}},
      {"CMAKE_PREFIX_PATH", {root}},
      {"LD_LIBRARY_PATH", {root + "/lib"}},
  };
}

// The variables of /etc/rocm_env.sh before the search paths.
EnvList script_variables(const RocmEnvInputs& in) {
  EnvList out = {{"ROCM_PATH", in.root}, {"ROCM_HOME", in.root}};
  out.insert(out.end(), in.knobs.begin(), in.knobs.end());
  return out;
}

// The image config has them too, and what the recipe's targets say: PYTORCH_ROCM_ARCH (unless
// `all`), and for a legacy per-family install ROCM_SDK_TARGET_FAMILY (`rocm` picks its libraries
// package from it; on multi-arch indexes it would have to be a target, and extras choose instead).
EnvList fixed_variables(const RocmEnvInputs& in) {
  EnvList out = {{"ROCM_PATH", in.root}, {"ROCM_HOME", in.root}};
  bool all = std::find(in.targets.begin(), in.targets.end(), "all") != in.targets.end();
  if (!all) out.emplace_back("PYTORCH_ROCM_ARCH", join(in.targets, ";"));
  if (!in.family.empty()) out.emplace_back("ROCM_SDK_TARGET_FAMILY", in.family);
  out.insert(out.end(), in.knobs.begin(), in.knobs.end());
  return out;
}

}  // namespace

EnvList rocm_image_env(const RocmEnvInputs& in, const std::vector<std::string>& image_env) {
  auto current = [&image_env](const std::string& name) -> std::string {
    for (const auto& e : image_env)
      if (e.rfind(name + "=", 0) == 0) return e.substr(name.size() + 1);
    return name == "PATH" ? "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" : "";
  };
  EnvList out = fixed_variables(in);
  for (const auto& sp : search_paths(in.root)) {
    std::string value = join(sp.dirs, ":");
    std::string rest = current(sp.name);
    out.emplace_back(sp.name, rest.empty() ? value : value + ":" + rest);
  }
  return out;
}

std::string rocm_env_script(const RocmEnvInputs& in) {
  std::string s =
      "# ROCm (TheRock) environment, written by rockpack from where the SDK is installed.\n"
      "# Sourced by /etc/bash.bashrc and /etc/profile.d/rocm-sdk.sh.\n";
  for (const auto& [name, value] : script_variables(in)) s += "export " + name + "=" + shell_quote(value) + "\n";
  for (const auto& sp : search_paths(in.root)) {
    const std::string name = sp.name;
    std::string value = join(sp.dirs, ":");
    // Idempotent: a login shell that is also interactive sources this twice. The existing value is
    // appended only when there is one: an empty entry would mean "." for PATH-like lists.
    s += "case \":${" + name + ":-}:\" in *" + shell_quote(":" + sp.dirs.front() + ":") + "*) ;; *) export " + name +
         "=" + shell_quote(value) + "${" + name + ":+:${" + name + "}} ;; esac\n";
  }
  return s;
}

std::string rocm_profile_script() {
  return "# Login shells get the ROCm environment too (rockpack).\n"
         "[ -f /etc/rocm_env.sh ] && . /etc/rocm_env.sh\n";
}

std::string bashrc_line() { return "[ -f /etc/rocm_env.sh ] && . /etc/rocm_env.sh  # ROCm environment (rockpack)\n"; }

std::string bashrc_with_rocm_env(const std::string& bashrc) {
  if (bashrc.find(bashrc_line()) != std::string::npos) return bashrc;
  std::string out = bashrc;
  if (!out.empty() && out.back() != '\n') out += '\n';
  return out + bashrc_line();
}

}  // namespace rp::therock
