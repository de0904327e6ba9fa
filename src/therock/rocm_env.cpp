#include "therock/rocm_env.hpp"

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

std::vector<SearchPath> search_paths(const std::string& root) {
  return {
      {"PATH", {root + "/bin"}},
      {"CMAKE_PREFIX_PATH", {root}},
      {"CPLUS_INCLUDE_PATH", {root + "/include"}},
      {"C_INCLUDE_PATH", {root + "/include"}},
      {"PKG_CONFIG_PATH", {root + "/lib/pkgconfig"}},
      // TheRock bundles its system dependencies (libdrm, numa, ...) under lib/rocm_sysdeps.
      {"LD_LIBRARY_PATH", {root + "/lib", root + "/lib/rocm_sysdeps/lib"}},
      {"LIBRARY_PATH", {root + "/lib", root + "/lib/rocm_sysdeps/lib"}},
  };
}

EnvList fixed_variables(const RocmEnvInputs& in) {
  const std::string bitcode = in.root + "/lib/llvm/amdgcn/bitcode";
  EnvList out = {
      {"ROCM_PATH", in.root},
      {"ROCM_HOME", in.root},
      {"ROCM_SOURCE_DIR", in.root},
      {"ROCM_BIN", in.root + "/bin"},
      {"ROCM_CMAKE", in.root + "/lib/cmake"},
      {"HIP_DEVICE_LIB_PATH", bitcode},
      {"ROCM_DEVICE_LIB_PATH", bitcode},
      {"PYTORCH_ROCM_ARCH", join(in.targets, ";")},
      // `rocm` picks its libraries package at run time from this first, so it agrees with the
      // family that was installed even on a machine whose GPU says otherwise.
      {"ROCM_SDK_TARGET_FAMILY", in.family},
  };
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
  for (const auto& [name, value] : fixed_variables(in)) s += "export " + name + "=" + shell_quote(value) + "\n";
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
