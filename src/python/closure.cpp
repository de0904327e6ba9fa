#include "python/closure.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace rp::python {

std::vector<MissingDependency> missing_dependencies(const std::vector<Requirement>& requirements,
                                                    const std::vector<LockedDistribution>& installed,
                                                    const MarkerEnvironment& environment) {
  std::map<std::string, const LockedDistribution*> by_name;
  for (const auto& d : installed) by_name.emplace(d.name, &d);

  // The extras asked of each distribution, to a fixed point: a requirement that applies only with
  // an extra ("x; extra == 'gpu'") counts once something asked for that extra. Each round adds at
  // least one (name, extra) pair, and there are finitely many, so this ends.
  std::map<std::string, std::set<std::string>> extras;
  auto ask = [&](const Requirement& r) {
    bool grew = false;
    for (const auto& e : r.extras) grew |= extras[r.normalized_name()].insert(e).second;
    return grew;
  };
  for (const auto& r : requirements)
    if (r.applies(environment)) ask(r);
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& d : installed)
      for (const auto& r : d.requires_dist)
        if (r.applies(environment, extras[d.name])) grew |= ask(r);
  }

  std::vector<MissingDependency> out;
  auto check = [&](const std::string& dependent, const Requirement& r) {
    auto it = by_name.find(r.normalized_name());
    if (it == by_name.end()) out.push_back({dependent, r.to_string(false), false});
    else if (r.url.empty() && !r.specifier.empty() && !r.specifier.contains(it->second->version, true))
      out.push_back({dependent, r.to_string(false), true});
  };
  for (const auto& r : requirements)
    if (r.applies(environment)) check("", r);
  for (const auto& d : installed)
    for (const auto& r : d.requires_dist)
      if (r.applies(environment, extras[d.name])) check(d.name, r);
  std::sort(out.begin(), out.end(), [](const MissingDependency& a, const MissingDependency& b) {
    return std::tie(a.required_by, a.requirement) < std::tie(b.required_by, b.requirement);
  });
  out.erase(std::unique(out.begin(), out.end(),
                        [](const MissingDependency& a, const MissingDependency& b) {
                          return a.required_by == b.required_by && a.requirement == b.requirement;
                        }),
            out.end());
  return out;
}

}  // namespace rp::python
