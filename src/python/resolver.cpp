// The backtracking resolver. See resolver.hpp for the strategy.
#include "python/resolver.hpp"

#include <algorithm>

#include "python/resolver_state.hpp"
#include "python/text.hpp"
#include "util/error.hpp"

namespace rp::python {

namespace {

using resolver_detail::Constraint;
using resolver_detail::PackageState;
using resolver_detail::State;

// A set of package names whose decisions together cause a conflict.
using ConflictSet = std::set<std::string>;

class Resolver {
 public:
  Resolver(ResolverProvider& provider, const ResolverOptions& options) : provider_(provider), options_(options) {}

  std::vector<ResolvedPackage> run(const std::vector<Requirement>& requirements) {
    State root;
    for (const auto& r : requirements) {
      if (!r.applies(options_.environment)) continue;
      Constraint c{r, "", "", {}};
      // Nothing is pinned yet, so adding recipe requirements cannot conflict.
      add_constraint(root, r.normalized_name(), std::move(c));
    }
    State solution;
    ConflictSet conflict;
    if (!search(root, conflict, solution)) {
      std::string message = "cannot resolve the Python packages:";
      constexpr size_t kShown = 3;
      for (size_t i = 0; i < messages_.size() && i < kShown; ++i) message += "\n  - " + messages_[i];
      if (messages_.size() > kShown) {
        message += "\n  (and " + std::to_string(messages_.size() - kShown) + " more conflicts)";
      }
      if (!missing_.empty()) {
        std::string where = provider_.where_missing(*missing_.begin());
        if (!where.empty()) message += "\n  " + where;
      }
      std::string hint = missing_.empty()
                             ? "relax or change the versions in the recipe so that the requirements agree"
                             : "check the name of " + *missing_.begin() +
                                   " and that one of the recipe's indexes (or find_links) publishes a wheel of it "
                                   "for this interpreter";
      throw InputError(message, hint);
    }
    return output(solution);
  }

 private:
  // --- provider answers, cached ---------------------------------------------------------------

  const std::vector<Version>& versions(const std::string& name) {
    auto it = versions_.find(name);
    if (it != versions_.end()) return it->second;
    std::vector<Version> v = provider_.versions(name);
    // Newest first, each version once, whatever order the provider used.
    std::sort(v.begin(), v.end(), [](const Version& a, const Version& b) { return a > b; });
    v.erase(std::unique(v.begin(), v.end(), [](const Version& a, const Version& b) {
              return a == b && a.to_string() == b.to_string();
            }),
            v.end());
    return versions_.emplace(name, std::move(v)).first->second;
  }

  const std::vector<Requirement>& dependencies(const std::string& name, const Candidate& c) {
    std::string key = name + "\n" + c.version.to_string() + "\n" + c.url;
    auto it = deps_.find(key);
    if (it != deps_.end()) return it->second;
    return deps_.emplace(key, provider_.dependencies(name, c)).first->second;
  }

  const Version& url_version(const std::string& name, const std::string& url) {
    std::string key = name + "\n" + url;
    auto it = url_versions_.find(key);
    if (it != url_versions_.end()) return it->second;
    return url_versions_.emplace(key, provider_.url_version(name, url)).first->second;
  }

  // --- bookkeeping ----------------------------------------------------------------------------

  void record(std::string message) {
    if (std::find(messages_.begin(), messages_.end(), message) == messages_.end() && messages_.size() < 100) {
      messages_.push_back(std::move(message));
    }
  }

  void step() {
    if (++steps_ > options_.max_steps) {
      std::string message = "dependency resolution gave up after " + std::to_string(options_.max_steps) + " steps";
      if (!messages_.empty()) message += "; first conflict: " + messages_.front();
      throw Error(message, "pin the versions of the packages involved in the recipe to narrow the search");
    }
  }

  static bool matches_all(const PackageState& pkg, const Version& v) {
    return std::all_of(pkg.constraints.begin(), pkg.constraints.end(),
                       [&](const Constraint& c) { return c.requirement.specifier.matches(v); });
  }

  // The decisions that brought in the extras requested for `name`.
  static ConflictSet extras_causes(const PackageState& pkg) {
    ConflictSet out;
    for (const auto& c : pkg.constraints) {
      if (!c.requirement.extras.empty()) out.insert(c.causes.begin(), c.causes.end());
    }
    return out;
  }

  // --- constraint propagation -----------------------------------------------------------------

  // Adds `c` to `name`. When `name` is already decided, checks the decision against it and adds
  // the dependencies that newly requested extras switch on. Returns the conflict set on failure.
  std::optional<ConflictSet> add_constraint(State& state, const std::string& name, Constraint c) {
    auto [it, inserted] = state.packages.try_emplace(name);
    PackageState& pkg = it->second;
    if (inserted) {
      pkg.first_seen = state.next_seen++;
      for (const auto& r : options_.constraints) {
        if (r.normalized_name() != name || !r.applies(options_.environment)) continue;
        Constraint limit{r, "", "", {}, true};
        pkg.constraints.push_back(std::move(limit));
      }
    }
    bool new_extras = false;
    for (const auto& e : c.requirement.extras) new_extras |= pkg.extras.insert(e).second;
    ConflictSet causes = c.causes;
    pkg.constraints.push_back(std::move(c));
    if (!pkg.pin) return std::nullopt;

    const Constraint& added = pkg.constraints.back();
    bool ok = added.requirement.url.empty() ? added.requirement.specifier.matches(pkg.pin->version)
                                            : added.requirement.url == pkg.pin->url;
    if (!ok) {
      const auto& all = versions(name);
      bool jointly = std::none_of(all.begin(), all.end(), [&](const Version& v) { return matches_all(pkg, v); });
      record(resolver_detail::explain_pin_conflict(state, name, added, all, jointly || !added.requirement.url.empty()));
      causes.insert(name);
      return causes;
    }
    if (new_extras) return activate(state, name);
    return std::nullopt;
  }

  // Adds the dependencies of the decided `name` whose markers now hold (with its extras).
  std::optional<ConflictSet> activate(State& state, const std::string& name) {
    const Candidate pin = *state.packages.at(name).pin;
    const auto& deps = dependencies(name, pin);
    for (size_t i = 0; i < deps.size(); ++i) {
      PackageState& pkg = state.packages.at(name);  // re-fetched: add_constraint may insert packages
      if (pkg.active_deps.count(i) || !deps[i].applies(options_.environment, pkg.extras)) continue;
      pkg.active_deps.insert(i);
      Constraint c{deps[i], name, pin.version.to_string(), {name}};
      if (deps[i].marker && deps[i].marker->mentions_extra()) {
        ConflictSet more = extras_causes(pkg);
        c.causes.insert(more.begin(), more.end());
      }
      if (auto conflict = add_constraint(state, deps[i].normalized_name(), std::move(c))) return conflict;
    }
    return std::nullopt;
  }

  // --- the search -----------------------------------------------------------------------------

  // The next package to decide: direct URLs first, then "==" pins, then first-required order.
  static std::string select(const State& state) {
    std::string best;
    std::pair<int, size_t> best_key{3, 0};
    for (const auto& [name, pkg] : state.packages) {
      if (pkg.pin) continue;
      int rank = 2;
      for (const auto& c : pkg.constraints) {
        if (!c.requirement.url.empty()) rank = std::min(rank, 0);
        if (c.requirement.specifier.is_pin()) rank = std::min(rank, 1);
      }
      std::pair<int, size_t> key{rank, pkg.first_seen};
      if (best.empty() || key < best_key) {
        best = name;
        best_key = key;
      }
    }
    return best;
  }

  // The versions to try for `name`, best first; empty (with the reason recorded) when none fits.
  std::vector<Candidate> candidates(const State& state, const std::string& name) {
    const PackageState& pkg = state.packages.at(name);
    std::vector<Candidate> out;
    const Constraint* url_constraint = nullptr;
    for (const auto& c : pkg.constraints) {
      if (c.requirement.url.empty()) continue;
      if (url_constraint && url_constraint->requirement.url != c.requirement.url) {
        record(describe(state, c) + ", but " + describe(state, *url_constraint) + " (two different URLs)");
        return out;
      }
      url_constraint = &c;
    }
    if (url_constraint) {
      // A direct reference is the only candidate; other specifiers must accept its version.
      const Version& v = url_version(name, url_constraint->requirement.url);
      if (matches_all(pkg, v)) {
        out.push_back({v, url_constraint->requirement.url});
      } else {
        record(resolver_detail::explain_no_candidates(state, name, {v}, false));
      }
      return out;
    }

    const auto& all = versions(name);
    std::vector<Version> matching, stable;
    for (const auto& v : all) {
      if (!matches_all(pkg, v)) continue;
      matching.push_back(v);
      if (!v.is_prerelease()) stable.push_back(v);
    }
    bool named = std::any_of(pkg.constraints.begin(), pkg.constraints.end(),
                             [](const Constraint& c) { return c.requirement.specifier.names_prerelease(); });
    const std::vector<Version>* chosen = &stable;
    switch (options_.prereleases) {
      case PrereleasePolicy::kAllow:
        chosen = &matching;
        break;
      case PrereleasePolicy::kDisallow:
        break;
      case PrereleasePolicy::kIfNecessaryOrExplicit:
        if (named || stable.empty()) chosen = &matching;
        break;
    }
    for (const auto& v : *chosen) out.push_back({v, ""});
    if (all.empty()) missing_.insert(name);
    if (out.empty()) {
      bool excluded = options_.prereleases == PrereleasePolicy::kDisallow && !matching.empty();
      record(resolver_detail::explain_no_candidates(state, name, all, excluded));
    }
    return out;
  }

  // Decides `name` = `candidate` and adds its dependencies.
  std::optional<ConflictSet> decide(State& state, const std::string& name, const Candidate& candidate) {
    state.packages.at(name).pin = candidate;
    return activate(state, name);
  }

  // Depth-first search with conflict-directed backjumping. On failure, `conflict` holds the
  // decisions responsible; a caller whose decision is not among them does not try alternatives.
  bool search(const State& state, ConflictSet& conflict, State& solution) {
    std::string name = select(state);
    if (name.empty()) {
      solution = state;
      return true;
    }
    step();
    ConflictSet accumulated;
    for (const auto& c : state.packages.at(name).constraints) accumulated.insert(c.causes.begin(), c.causes.end());
    accumulated.erase(name);

    for (const auto& candidate : candidates(state, name)) {
      step();
      State next = state;
      ConflictSet sub;
      if (auto bad = decide(next, name, candidate)) {
        sub = std::move(*bad);
      } else if (search(next, sub, solution)) {
        return true;
      }
      if (options_.backjumping && !sub.count(name)) {
        // This decision played no part in the failure below: other versions would fail the same way.
        conflict = std::move(sub);
        return false;
      }
      sub.erase(name);
      accumulated.insert(sub.begin(), sub.end());
    }
    conflict = std::move(accumulated);
    return false;
  }

  // --- the answer ----------------------------------------------------------------------------

  static std::vector<ResolvedPackage> output(const State& state) {
    std::vector<ResolvedPackage> out;
    for (const auto& [name, pkg] : state.packages) {
      ResolvedPackage r;
      r.name = name;
      r.version = pkg.pin->version;
      r.url = pkg.pin->url;
      r.extras.assign(pkg.extras.begin(), pkg.extras.end());
      std::set<std::string> parents;
      for (const auto& c : pkg.constraints) {
        if (c.from_constraints) continue;
        if (c.parent.empty()) {
          r.requested = true;
        } else if (c.parent != name) {
          parents.insert(c.parent);
        }
      }
      r.required_by.assign(parents.begin(), parents.end());
      out.push_back(std::move(r));
    }
    return out;  // std::map iteration: sorted by normalized name
  }

  ResolverProvider& provider_;
  const ResolverOptions& options_;
  std::map<std::string, std::vector<Version>> versions_;
  std::map<std::string, std::vector<Requirement>> deps_;
  std::map<std::string, Version> url_versions_;
  std::vector<std::string> messages_;
  std::set<std::string> missing_;  // packages no source offers any version of
  size_t steps_ = 0;
};

}  // namespace

std::vector<ResolvedPackage> resolve(const std::vector<Requirement>& requirements, ResolverProvider& provider,
                                     const ResolverOptions& options) {
  return Resolver(provider, options).run(requirements);
}

}  // namespace rp::python
