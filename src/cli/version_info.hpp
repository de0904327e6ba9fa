#pragma once
// `rockpack --version`: the release, the commit it was built from (git describe at configure time),
// the build type, and the libraries compiled in with their versions (compression, archives, TLS),
// like `skopeo --version` plus `podman version` — what a bug report needs.
#include <string>

namespace rp::cli {

std::string version_line();  // "rockpack 0.1.0 (v0.1.0-12-gabcdef0)"
std::string version_text();  // version_line() and the details, one per line

}  // namespace rp::cli
