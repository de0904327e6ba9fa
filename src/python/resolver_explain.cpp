// Human-readable explanations of resolution conflicts.
#include "python/resolver_state.hpp"

namespace rp::python::resolver_detail {

namespace {

// How deep the "who required whom" prefix may go; deeper chains are cut (and cycles with them).
constexpr int kMaxChain = 6;

std::string describe_at(const State& state, const Constraint& c, int depth) {
  std::string who = c.from_constraints ? "a constraints file"
                    : c.parent.empty()   ? "the recipe"
                                         : c.parent + " " + c.parent_version;
  std::string text = who + " requires " + c.requirement.to_string(false);
  if (c.parent.empty() || depth >= kMaxChain) return text;
  auto it = state.packages.find(c.parent);
  if (it == state.packages.end() || it->second.constraints.empty()) return text;
  // The first requirement on the parent is the one that brought it in.
  const Constraint& first = it->second.constraints.front();
  if (first.parent.empty() || first.parent == c.parent) return text;
  return describe_at(state, first, depth + 1) + ", " + text;
}

std::string join_others(const State& state, const std::vector<Constraint>& cs, const Constraint* skip) {
  std::string out;
  for (const auto& c : cs) {
    if (&c == skip) continue;
    if (!out.empty()) out += " and ";
    out += describe(state, c);
  }
  return out;
}

}  // namespace

std::string describe(const State& state, const Constraint& c) { return describe_at(state, c, 0); }

std::string available_versions(const std::string& name, const std::vector<Version>& versions) {
  if (versions.empty()) return "no versions of " + name + " are available (none on the index, or none compatible with the target)";
  constexpr size_t kShown = 10;
  std::string out = "available " + name + " versions: ";
  for (size_t i = 0; i < versions.size() && i < kShown; ++i) out += (i ? ", " : "") + versions[i].to_string();
  if (versions.size() > kShown) out += ", ... (" + std::to_string(versions.size() - kShown) + " more)";
  return out;
}

std::string explain_no_candidates(const State& state, const std::string& name, const std::vector<Version>& versions,
                                  bool prereleases_excluded) {
  const auto& cs = state.packages.at(name).constraints;
  const Constraint& last = cs.back();
  std::string out = describe(state, last);
  if (cs.size() == 1) {
    out += versions.empty() ? "" : ", but no version of " + name + " matches";
  } else {
    out += ", but " + join_others(state, cs, &last);
  }
  out += "; " + available_versions(name, versions);
  if (prereleases_excluded) out += " (pre-releases are not allowed)";
  return out;
}

std::string explain_pin_conflict(const State& state, const std::string& name, const Constraint& added,
                                 const std::vector<Version>& versions, bool jointly_unsatisfiable) {
  const PackageState& pkg = state.packages.at(name);
  std::string out = describe(state, added);
  std::string others = join_others(state, pkg.constraints, &pkg.constraints.back());
  if (jointly_unsatisfiable && !others.empty()) {
    return out + ", but " + others + "; " + available_versions(name, versions);
  }
  out += ", but " + name + " " + pkg.pin->version.to_string();
  if (!pkg.pin->url.empty()) out += " (from " + pkg.pin->url + ")";
  out += " was already chosen";
  if (!others.empty()) out += " because " + others;
  return out;
}

}  // namespace rp::python::resolver_detail
