#pragma once
// The resolver's search state and the conflict explanations built from it (internal to the resolver).
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "python/resolver.hpp"

namespace rp::python::resolver_detail {

// One requirement on a package, and why it is there.
struct Constraint {
  Requirement requirement;       // as the requirer wrote it
  std::string parent;            // normalized name of the requirer; empty for the recipe
  std::string parent_version;    // the requirer's chosen version, for messages
  std::set<std::string> causes;  // the decisions (package names) this constraint depends on
  bool from_constraints = false;  // a `-c` constraint: limits versions, installs nothing
};

struct PackageState {
  std::vector<Constraint> constraints;
  std::set<std::string> extras;
  size_t first_seen = 0;
  std::optional<Candidate> pin;
  std::set<size_t> active_deps;  // indices of the pinned candidate's dependencies already added
};

struct State {
  std::map<std::string, PackageState> packages;
  size_t next_seen = 0;
};

// "a 1.0 requires b>=2, b 2.1 requires c<1": the constraint, prefixed by how its requirer came in
// (omitted when the recipe asked for the requirer directly).
std::string describe(const State& state, const Constraint& c);

// "available rocm versions: 7.10.0a20251120, 7.9.0" (newest first, at most 10 shown).
std::string available_versions(const std::string& name, const std::vector<Version>& versions);

// No version of `name` satisfies all its constraints.
std::string explain_no_candidates(const State& state, const std::string& name, const std::vector<Version>& versions,
                                  bool prereleases_excluded);

// `added` cannot be satisfied by the already chosen version of `name`. `jointly_unsatisfiable`
// tells whether any available version satisfies all constraints at once.
std::string explain_pin_conflict(const State& state, const std::string& name, const Constraint& added,
                                 const std::vector<Version>& versions, bool jointly_unsatisfiable);

}  // namespace rp::python::resolver_detail
