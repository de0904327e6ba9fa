#pragma once
// Resolution of Debian packages: from the recipe's requests to the exact set of .debs to install on
// top of what the image already has, following dpkg's and apt's rules:
//
//  - Depends and Pre-Depends with alternatives (tried in order, as apt does), versioned and
//    unversioned Provides (a versioned dependency is met by a versioned Provides only), virtual
//    packages (any provider);
//  - Multi-Arch: a plain dependency is met by a package of the depending package's architecture
//    ("all" counts as native) or by a Multi-Arch: foreign one of any; "pkg:any" by a Multi-Arch:
//    allowed one; "pkg:native" and "pkg:amd64" by that architecture;
//  - Conflicts and Breaks, both ways, against the packages chosen and those installed;
//  - candidates by pin priority, then version (newest first), like apt's candidate; a source with
//    priority < 0 never provides a candidate;
//  - a requested package goes to its candidate (apt's policy: highest priority, newest among equals,
//    no downgrade below priority 1000), which upgrades a base package that is older, as
//    `apt-get install NAME` does; `NAME=version` keeps a base version that matches;
//  - packages installed in the base (dpkg status) at a satisfying version are kept, not installed
//    again; a dependency the installed version does not meet upgrades it.
//
// The search is depth first over the choices (alternative, provider, version), backtracking when a
// choice leads to a dead end. When nothing works, the error explains the failure as a chain
// ("build-essential 12.9 depends on gcc (>= 4:12.2) -> ...: no version of gcc satisfies it").
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "apt/package_index.hpp"
#include "apt/preferences.hpp"
#include "apt/relation.hpp"

namespace rp::apt {

// One package the recipe asks for: "cmake", "cmake=3.22*", "python3-dev (>= 3.10)", "libc6:i386".
struct Request {
  std::string text;  // as written, for messages
  std::string name;
  std::string arch;  // "" = native
  VersionOp op = VersionOp::kAny;
  Version version;
  std::string version_glob;  // from "name=glob" ('*' and '?' allowed); empty otherwise

  // Parses the forms above. Throws rp::InputError for anything else.
  static Request parse(const std::string& text);
  bool version_ok(const Version& v) const;
};

struct ResolverOptions {
  std::string native_arch = "amd64";
  std::vector<std::string> foreign_archs;  // other architectures the sources offer (dpkg --add-architecture)
  bool recommends = false;  // install Recommends as apt does by default (best effort)
  // A pin of a whole source (Package::origin), as the recipe's `priority:` gives it; a missing entry
  // leaves the source to its Release's default and the preferences.
  std::vector<std::optional<int>> origin_priority;
  // The releases packages come from (Package::release), and the base's apt preferences: a version's
  // priority is computed as apt computes it (apt/preferences.hpp). A package without a release has
  // 500; an installed version 100 unless a source or a pin gives it more.
  std::vector<ReleaseFacts> releases;
  PinPolicy policy;
  size_t max_steps = 200000;  // choices tried before giving up
};

struct ResolvedPackage {
  Package package;
  bool requested = false;                // named by the recipe
  std::vector<std::string> required_by;  // names of the packages that depend on it, sorted
  std::string replaces_installed;        // the installed version it upgrades, if any
};

struct Resolution {
  // What to install, dependencies before their dependents (Pre-Depends first), ties by name.
  std::vector<ResolvedPackage> install;
  // Requests the base image already satisfies: "cmake 3.25.1-1 (installed)".
  std::vector<std::string> already_installed;
};

// Resolves `requests` against `available` (every package of every source) on top of `installed`.
// Throws rp::InputError explaining why when no solution exists, rp::Error when the step budget ran out.
Resolution resolve(const std::vector<Request>& requests, const std::vector<Package>& available,
                   const std::vector<Package>& installed, const ResolverOptions& options);

}  // namespace rp::apt
