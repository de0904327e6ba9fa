#pragma once
// Dependency resolution: from the recipe's requirements to one version of every package needed.
//
// A depth-first search over package versions with conflict-directed backjumping: packages are
// decided one at a time (direct URLs first, then `==` pins, then in the order they were first
// required), newest acceptable version first; each decision adds that version's dependencies as
// constraints. When a package has no version left, the search jumps back to the most recent
// decision that contributed to the conflict (skipping decisions that could not have helped).
// When nothing works, the error explains the conflicts as chains of "X requires Y".
#include <cstddef>
#include <string>
#include <vector>

#include "python/marker.hpp"
#include "python/pep440.hpp"
#include "python/pep508.hpp"

namespace rp::python {

// One installable version of a package: from the index, or a direct URL reference.
struct Candidate {
  Version version;
  std::string url;  // empty for index candidates
};

// Where versions and dependencies come from. Implementations talk to indexes; the resolver caches
// every answer, so each question is asked at most once per resolution.
class ResolverProvider {
 public:
  virtual ~ResolverProvider() = default;
  // Installable versions of the normalized project `name`, already filtered for wheel tags,
  // Requires-Python and yanking. Any order; an unknown project gives an empty list.
  virtual std::vector<Version> versions(const std::string& name) = 0;
  // The version of the distribution at a direct reference (`name @ url`).
  virtual Version url_version(const std::string& name, const std::string& url) = 0;
  // The candidate's Requires-Dist, markers unevaluated (the resolver evaluates them against the
  // target environment and the extras requested for the package).
  virtual std::vector<Requirement> dependencies(const std::string& name, const Candidate& candidate) = 0;
  // Where the provider looked for a project that has no versions ("no project 'x' on <index>"), for
  // the error that names it; empty when it has nothing to say.
  virtual std::string where_missing(const std::string& /*name*/) { return {}; }
};

enum class PrereleasePolicy {
  // Stable versions; pre-releases of a package when one of its specifiers names a pre-release
  // (">=2.10.0a0") or when no stable version satisfies its specifiers (uv's default).
  kIfNecessaryOrExplicit,
  kAllow,     // pre-releases compete with stable versions
  kDisallow,  // never pre-releases
};

struct ResolverOptions {
  MarkerEnvironment environment;
  // Constraints (pip's `-c`): they narrow the versions of a package once something requires it,
  // and never bring a package in by themselves.
  std::vector<Requirement> constraints;
  PrereleasePolicy prereleases = PrereleasePolicy::kIfNecessaryOrExplicit;
  // Candidate versions tried before giving up; keeps pathological cases from running forever.
  size_t max_steps = 100000;
  // Off only for testing: plain chronological backtracking must find the same answer.
  bool backjumping = true;
};

struct ResolvedPackage {
  std::string name;  // normalized
  Version version;
  std::string url;                       // the direct reference, when it came from one
  std::vector<std::string> extras;       // requested extras, normalized, sorted
  bool requested = false;                // named by the recipe itself
  std::vector<std::string> required_by;  // normalized names of the packages that depend on it, sorted
};

// Resolves `requirements` (the recipe's; markers are evaluated against options.environment).
// Returns the packages sorted by name. Throws rp::InputError explaining the conflict when no
// solution exists, rp::Error when the step budget runs out; provider exceptions pass through.
std::vector<ResolvedPackage> resolve(const std::vector<Requirement>& requirements, ResolverProvider& provider,
                                     const ResolverOptions& options = {});

}  // namespace rp::python
