#pragma once
#include <string>

#include "util/fs.hpp"

namespace rp::build {

// The git commit and the origin URL of the repository holding `dir`, when there is one. The URL is
// stripped of any user:password@ part (tokens in remote URLs must never reach image annotations) and
// kept only when it is an http(s) URL.
struct VcsInfo {
  std::string revision;
  std::string source;
};
VcsInfo detect_vcs(const fs::path& dir);

}  // namespace rp::build
