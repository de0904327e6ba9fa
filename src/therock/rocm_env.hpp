#pragma once
// The environment an image with TheRock's ROCm needs, as PyTorch's CI images set it (their
// /etc/rocm_env.sh, written from `rocm-sdk path --root`): every path computed from where the SDK
// was actually installed, so a build in the container finds hipcc, the CMake packages and the
// device libraries without running anything first.
#include <string>
#include <utility>
#include <vector>

namespace rp::therock {

struct RocmEnvInputs {
  std::string root;          // absolute: <site-packages>/_rocm_sdk_devel (or _rocm_sdk_core without devel)
  std::vector<std::string> targets;  // GPU targets, for PYTORCH_ROCM_ARCH
  std::string family;        // ROCM_SDK_TARGET_FAMILY (legacy per-family installs); empty: not set
  std::vector<std::pair<std::string, std::string>> knobs;  // the recipe's rocm.env, in order
};

using EnvList = std::vector<std::pair<std::string, std::string>>;

// The variables for the image config, fully expanded. `image_env` is the image's Env so far
// (NAME=value strings); PATH and the search paths are prepended to what it has.
EnvList rocm_image_env(const RocmEnvInputs& in, const std::vector<std::string>& image_env);

// /etc/rocm_env.sh: the same variables for shells, prepending to whatever the shell has.
std::string rocm_env_script(const RocmEnvInputs& in);

// /etc/profile.d/rocm-sdk.sh: login shells source /etc/rocm_env.sh.
std::string rocm_profile_script();

// The line appended to /etc/bash.bashrc so interactive shells source /etc/rocm_env.sh.
std::string bashrc_line();

// `bashrc` (the base image's /etc/bash.bashrc, possibly empty) with bashrc_line() appended once.
std::string bashrc_with_rocm_env(const std::string& bashrc);

}  // namespace rp::therock
