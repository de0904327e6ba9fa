#pragma once
// Whether a set of installed distributions is closed under its dependencies: every requirement of
// the recipe and every Requires-Dist of an installed distribution (markers evaluated for the target
// interpreter, with the extras something asked for) is met by a distribution of the set. A resolver
// produces such a set by construction; a lock file is text anyone can edit, so a locked install is
// checked: deleting a dependency from the lock must not build an environment without it.
#include <string>
#include <vector>

#include "python/marker.hpp"
#include "python/pep440.hpp"
#include "python/pep508.hpp"

namespace rp::python {

struct LockedDistribution {
  std::string name;  // normalized
  Version version;
  std::vector<Requirement> requires_dist;  // from its METADATA
};

// One requirement the set does not meet: "torch 2.1 requires filelock" ("" as `required_by` for
// the recipe's own requirements).
struct MissingDependency {
  std::string required_by;  // normalized name, or "" for the recipe
  std::string requirement;  // as Requirement::to_string(false)
  bool wrong_version = false;  // present, but its version is outside the requirement's specifier
};

// Every unmet requirement, in a stable order (by dependent, then requirement). Pre-releases count
// as matching (a lock may well hold one).
std::vector<MissingDependency> missing_dependencies(const std::vector<Requirement>& requirements,
                                                    const std::vector<LockedDistribution>& installed,
                                                    const MarkerEnvironment& environment);

}  // namespace rp::python
