#pragma once
// The order in which apt-get would have dpkg unpack and configure the new packages, so that
// maintainer scripts run in apt's sequence (apt: scripts: run) and scripts that allocate system
// ids (adduser --system, systemd-sysusers) give the ids apt-get gives.
//
// apt (apt-pkg/packagemanager.cc, apt-pkg/deb/dpkgpm.cc) walks its unpack order and, as it goes:
//  - before unpacking a package, configures each package it Pre-Depends on that is unpacked but not
//    yet configured (a new one is unpacked first; a package upgraded but not yet unpacked is still
//    configured at its old version, which satisfies), its own Depends and Pre-Depends configured
//    before it;
//  - right after unpacking a package flagged for immediate configuration (an Essential package, the
//    package `apt`, and everything their Depends and Pre-Depends name, recursively, through both
//    the installed and the new versions), configures it the same way;
//  - gives dpkg consecutive operations of one kind in one call (`dpkg --unpack` of several .debs,
//    `dpkg --no-triggers --configure a b c`), and ends with `dpkg --configure --pending`, which
//    configures the rest in dpkg's own order.
// The unpack order used here is the resolution's (dependencies first, Pre-Depends before the rest),
// not apt's scored order list: preinsts rarely allocate ids; the configure points are apt's.
#include <cstddef>
#include <string>
#include <vector>

#include "apt/package_index.hpp"
#include "apt/unpacked_package.hpp"

namespace rp::apt {

struct ScriptBatch {
  enum class Action { kUnpack, kConfigure };
  Action action = Action::kUnpack;
  std::vector<size_t> packages;  // indexes into `added`, in the order dpkg is given them
};

// The batches before the final `dpkg --configure --pending`. Every package of `added` is unpacked
// exactly once; a package is configured at most once, and only after every new package its
// Depends and Pre-Depends pick has been (a dependency loop is cut where it closes).
std::vector<ScriptBatch> script_sequence(const std::vector<UnpackedPackage>& added, const std::vector<Package>& installed);

// "unpack a b; configure c d; ..." (package names): for logs and tests.
std::string describe(const std::vector<ScriptBatch>& sequence, const std::vector<UnpackedPackage>& added);

}  // namespace rp::apt
