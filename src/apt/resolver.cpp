#include "apt/resolver.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <unordered_map>

#include "util/error.hpp"
#include "util/suggest.hpp"

namespace rp::apt {

namespace {

constexpr int kDefaultPriority = 500;

int priority_rank(const std::string& p) {
  if (p == "required") return 0;
  if (p == "important") return 1;
  if (p == "standard") return 2;
  if (p == "optional") return 3;
  return 4;
}

struct Parsed {
  std::vector<AlternativeGroup> pre_depends, depends, recommends, provides, conflicts, breaks;
};

// What one obligation asks for: a request of the recipe, an alternative group of a chosen
// package's relations, or a newer version of an installed package whose dependencies broke.
struct Obligation {
  enum Kind { kRequest, kGroup, kUpgrade } kind = kGroup;
  size_t request = 0;                       // kRequest
  const AlternativeGroup* group = nullptr;  // kGroup
  const char* field = "Depends";            // kGroup: which field, for messages
  const Package* from = nullptr;            // kGroup: the package whose relation it is; kUpgrade: the broken one
  bool soft = false;                        // Recommends: may stay unmet
};

struct Option {
  const Package* package = nullptr;  // nullptr: leave a soft obligation unmet
};

struct Choice {
  size_t obligation;
  std::vector<Option> options;
  size_t next = 0;
  size_t agenda_size;
  size_t undo_size;
};

class Solver {
 public:
  Solver(const std::vector<Request>& requests, const std::vector<Package>& available,
         const std::vector<Package>& installed, const ResolverOptions& options)
      : requests_(requests), options_(options) {
    for (const auto& p : available) add_known(&p, false);
    for (const auto& p : installed) add_known(&p, true);
  }

  Resolution run();

 private:
  // ---- the universe ----
  void add_known(const Package* p, bool is_installed) {
    (is_installed ? installed_by_name_ : available_by_name_)[p->name].push_back(p);
    if (is_installed) installed_by_id_[p->id()] = p;
    // Only Provides is needed to know the universe; the other relations are parsed when the search
    // first looks at a package (a few hundred of an archive's ~70000), which keeps memory bounded.
    if (p->provides.empty()) return;
    auto provides = std::make_unique<std::vector<AlternativeGroup>>(parse_field(p, "Provides", p->provides));
    for (const auto& group : *provides)
      for (const auto& r : group) (is_installed ? installed_providers_ : available_providers_)[r.name].push_back({p, &r});
    provides_.push_back(std::move(provides));
  }

  static std::vector<AlternativeGroup> parse_field(const Package* p, const char* field, const std::string& text) {
    try {
      return relations_of(*p, field, text);
    } catch (const InputError& e) {
      throw Error(std::string(e.what()), "the repository's index is malformed");
    }
  }

  const Parsed& relations(const Package* p) {
    auto it = parsed_.find(p);
    if (it != parsed_.end()) return *it->second;
    auto parsed = std::make_unique<Parsed>();
    auto parse = [&](const char* field, const std::string& text) { return parse_field(p, field, text); };
    parsed->pre_depends = parse("Pre-Depends", p->pre_depends);
    parsed->depends = parse("Depends", p->depends);
    if (options_.recommends) parsed->recommends = parse("Recommends", p->recommends);
    parsed->provides = parse("Provides", p->provides);
    parsed->conflicts = parse("Conflicts", p->conflicts);
    parsed->breaks = parse("Breaks", p->breaks);
    const Parsed& ref = *parsed;
    parsed_[p] = std::move(parsed);
    return ref;
  }

  // apt's priority of `p`'s version (apt/preferences.hpp): a package pin matching it in any of the
  // releases that carry it, else the highest priority of those releases (100 for dpkg's status).
  int pin(const Package* p) const {
    auto it = pin_cache_.find(p);
    if (it != pin_cache_.end()) return it->second;
    int v = compute_pin(p);
    pin_cache_.emplace(p, v);
    return v;
  }

  int release_priority(const Package* q) const {
    size_t o = static_cast<size_t>(q->origin);
    std::optional<int> source_pin;
    if (q->origin >= 0 && o < options_.origin_priority.size()) source_pin = options_.origin_priority[o];
    const ReleaseFacts* f = facts_of(q);
    if (!f) return source_pin.value_or(kDefaultPriority);
    return options_.policy.release_priority(*f, source_pin);
  }

  const ReleaseFacts* facts_of(const Package* q) const {
    if (q->release < 0 || static_cast<size_t>(q->release) >= options_.releases.size()) return nullptr;
    return &options_.releases[static_cast<size_t>(q->release)];
  }

  int compute_pin(const Package* p) const {
    std::vector<const ReleaseFacts*> releases;
    std::optional<int> best;
    if (auto* list = find_list(available_by_name_, p->name))
      for (const Package* q : *list) {
        if (q->architecture != p->architecture || q->version != p->version) continue;
        int r = release_priority(q);
        best = best ? std::max(*best, r) : r;
        if (const ReleaseFacts* f = facts_of(q)) releases.push_back(f);
      }
    if (p->origin < 0) {
      releases.push_back(&installed_facts_);
      best = std::max(best.value_or(100), 100);
    }
    if (!options_.policy.empty())
      if (auto pinned = options_.policy.package_pin(p->name, p->version, releases)) return *pinned;
    return best.value_or(kDefaultPriority);
  }

  // apt's candidate for a request (pkgPolicy::GetCandidateVer): from the newest version down, the
  // first of strictly higher priority than the candidate so far wins; priority 0 and negative ones
  // never do, nor (below 1000) a version older than the installed one.
  const Package* candidate(const Request& req) const {
    std::vector<const Package*> versions;
    const Package* current = nullptr;
    if (auto* list = find_list(installed_by_name_, req.name))
      for (const Package* p : *list)
        if (request_arch_ok(p, req)) {
          versions.push_back(p);
          current = p;
        }
    if (auto* list = find_list(available_by_name_, req.name))
      for (const Package* p : *list)
        if (arch_usable(p) && request_arch_ok(p, req)) versions.push_back(p);
    std::stable_sort(versions.begin(), versions.end(), [](const Package* a, const Package* b) { return a->version > b->version; });
    const Package* best = nullptr;
    int best_priority = -1;
    for (const Package* v : versions) {
      int prio = pin(v);
      if (prio == 0 || prio <= best_priority) continue;
      if (current && prio < 1000 && v->version < current->version) continue;
      best = v;
      best_priority = prio;
    }
    return best;
  }

  // A plain request ("name", no version) asks for the candidate, as apt-get install does.
  static bool plain(const Request& req) { return req.op == VersionOp::kAny && req.version_glob.empty(); }

  bool request_met(const Request& req) const {
    if (plain(req) && (find_list(available_by_name_, req.name) || find_list(installed_by_name_, req.name))) {
      const Package* want = candidate(req);
      if (want) {
        for (auto* list : {find_list(installed_by_name_, req.name), find_list(available_by_name_, req.name)})
          if (list)
            for (const Package* p : *list)
              if (effective(p) && request_arch_ok(p, req) && p->version == want->version) return true;
        return false;
      }
    }
    return request_satisfier(req) != nullptr;
  }

  std::string native(const std::string& arch) const {
    return arch == "all" || arch.empty() ? options_.native_arch : arch;
  }

  bool arch_usable(const Package* p) const {
    if (p->architecture == "all" || p->architecture == options_.native_arch) return true;
    return std::find(options_.foreign_archs.begin(), options_.foreign_archs.end(), p->architecture) !=
           options_.foreign_archs.end();
  }

  // dpkg's deparchsatisfied(): whether `p` (a package, or the provider of a virtual one) meets the
  // architecture part of `r`, a relation of a package of `dep_arch`.
  bool arch_ok(const Package* p, const Relation& r, const std::string& dep_arch) const {
    if (r.arch_qualifier.empty() && p->multi_arch == MultiArch::kForeign) return true;
    if (r.arch_qualifier == "any") return p->multi_arch == MultiArch::kAllowed;
    std::string want = r.arch_qualifier.empty() ? native(dep_arch)
                       : r.arch_qualifier == "native" ? options_.native_arch
                                                      : r.arch_qualifier;
    return native(p->architecture) == want;
  }

  // ---- the current state ----
  bool effective(const Package* p) const {
    auto it = chosen_.find(p->id());
    if (it != chosen_.end()) return it->second == p;
    auto inst = installed_by_id_.find(p->id());
    return inst != installed_by_id_.end() && inst->second == p;
  }

  template <typename Fn>
  void for_each_effective(Fn fn) const {
    for (const auto& [id, p] : chosen_) fn(p);
    for (const auto& [id, p] : installed_by_id_)
      if (!chosen_.count(id)) fn(p);
  }

  // Whether `p` (real or through a Provides) satisfies `r` (a relation of a package of `dep_arch`).
  bool provides_match(const Relation& provided, const Relation& r) const {
    if (r.op == VersionOp::kAny) return true;
    return provided.op == VersionOp::kEqual && version_matches(provided.version, r.op, r.version);
  }

  const Package* effective_satisfier(const Relation& r, const std::string& dep_arch) const {
    for (auto* list : {find_list(installed_by_name_, r.name), find_list(available_by_name_, r.name)})
      if (list)
        for (const Package* p : *list)
          if (effective(p) && arch_ok(p, r, dep_arch) && r.version_ok(p->version)) return p;
    for (auto* list : {find_list(installed_providers_, r.name), find_list(available_providers_, r.name)})
      if (list)
        for (const auto& [p, provided] : *list)
          if (effective(p) && arch_ok(p, r, dep_arch) && provides_match(*provided, r)) return p;
    return nullptr;
  }

  template <typename Map>
  static const typename Map::mapped_type* find_list(const Map& m, const std::string& key) {
    auto it = m.find(key);
    return it == m.end() ? nullptr : &it->second;
  }

  const Package* request_satisfier(const Request& req) const {
    if (auto* list = find_list(installed_by_name_, req.name))
      for (const Package* p : *list)
        if (effective(p) && request_arch_ok(p, req) && req.version_ok(p->version)) return p;
    if (auto* list = find_list(available_by_name_, req.name))
      for (const Package* p : *list)
        if (effective(p) && request_arch_ok(p, req) && req.version_ok(p->version)) return p;
    if (req.op == VersionOp::kAny && req.version_glob.empty() && !find_list(available_by_name_, req.name) &&
        !find_list(installed_by_name_, req.name)) {
      Relation r;
      r.name = req.name;
      r.arch_qualifier = req.arch;
      return effective_satisfier(r, options_.native_arch);
    }
    return nullptr;
  }

  bool request_arch_ok(const Package* p, const Request& req) const {
    std::string want = req.arch.empty() || req.arch == "native" ? options_.native_arch : req.arch;
    return req.arch == "any" || native(p->architecture) == want;
  }

  // Whether `a` declares a conflict (Conflicts or Breaks) with `b`. A package never conflicts with
  // itself, including through a virtual package it both provides and conflicts with.
  std::optional<std::string> declares_conflict(const Package* a, const Package* b) {
    if (a->name == b->name) return std::nullopt;
    const Parsed& pa = relations(a);
    const Parsed& pb = relations(b);
    for (const auto* groups : {&pa.conflicts, &pa.breaks}) {
      const char* field = groups == &pa.conflicts ? "conflicts with" : "breaks";
      for (const auto& group : *groups)
        for (const auto& r : group) {
          if (!r.applies_to(options_.native_arch)) continue;
          if (r.name == b->name && r.version_ok(b->version))
            return a->display() + " " + field + " " + r.str() + ", and " + b->display() + " is " + state_of(b);
          for (const auto& pg : pb.provides)
            for (const auto& provided : pg)
              if (provided.name == r.name && provides_match(provided, r))
                return a->display() + " " + field + " " + r.str() + ", which " + b->display() + " (" + state_of(b) +
                       ") provides";
        }
    }
    return std::nullopt;
  }

  std::string state_of(const Package* p) const {
    if (p->origin < 0) return "installed in the base image";
    return "chosen for this image";
  }

  // Why `c` cannot join the current set, or nullopt when it can.
  std::optional<std::string> blocker(const Package* c) {
    auto same = chosen_.find(c->id());
    if (same != chosen_.end() && same->second != c)
      return c->display() + " cannot be installed together with " + same->second->display() + ", chosen already";
    std::optional<std::string> why;
    for_each_effective([&](const Package* q) {
      if (why || q->id() == c->id()) return;
      if (auto w = declares_conflict(c, q)) why = w;
      else if (auto w2 = declares_conflict(q, c)) why = w2;
    });
    return why;
  }

  // ---- choices ----
  std::vector<const Package*> real_candidates(const Relation& r, const std::string& dep_arch) const {
    std::vector<const Package*> out;
    if (auto* list = find_list(available_by_name_, r.name))
      for (const Package* p : *list)
        if (pin(p) >= 0 && arch_usable(p) && arch_ok(p, r, dep_arch) && r.version_ok(p->version)) out.push_back(p);
    sort_candidates(out);
    return out;
  }

  void sort_candidates(std::vector<const Package*>& v) const {
    std::stable_sort(v.begin(), v.end(), [this](const Package* a, const Package* b) {
      if (pin(a) != pin(b)) return pin(a) > pin(b);
      if (a->version != b->version) return a->version > b->version;
      return a->origin < b->origin;
    });
  }

  std::vector<const Package*> provider_candidates(const Relation& r, const std::string& dep_arch) const {
    std::vector<const Package*> out;
    if (auto* list = find_list(available_providers_, r.name))
      for (const auto& [p, provided] : *list)
        if (pin(p) >= 0 && arch_usable(p) && arch_ok(p, r, dep_arch) && provides_match(*provided, r)) out.push_back(p);
    std::stable_sort(out.begin(), out.end(), [this](const Package* a, const Package* b) {
      if (priority_rank(a->priority) != priority_rank(b->priority)) return priority_rank(a->priority) < priority_rank(b->priority);
      if (pin(a) != pin(b)) return pin(a) > pin(b);
      if (a->name != b->name) return a->name < b->name;
      return a->version > b->version;
    });
    return out;
  }

  std::vector<const Package*> candidates_for(const Obligation& ob) const {
    std::vector<const Package*> out;
    auto add = [&out](const std::vector<const Package*>& more) {
      for (const Package* p : more)
        if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
    };
    switch (ob.kind) {
      case Obligation::kRequest: {
        const Request& req = requests_[ob.request];
        if (auto* list = find_list(available_by_name_, req.name)) {
          std::vector<const Package*> real;
          for (const Package* p : *list)
            if (pin(p) >= 0 && arch_usable(p) && request_arch_ok(p, req) && req.version_ok(p->version)) real.push_back(p);
          sort_candidates(real);
          // apt's candidate first (downgrade protection can make it other than the first by pin).
          if (plain(req))
            if (const Package* c = candidate(req); c && c->origin >= 0) add({c});
          add(real);
        } else if (req.op == VersionOp::kAny && req.version_glob.empty()) {
          Relation r;
          r.name = req.name;
          r.arch_qualifier = req.arch;
          add(provider_candidates(r, options_.native_arch));
        }
        break;
      }
      case Obligation::kGroup: {
        std::string dep_arch = ob.from ? ob.from->architecture : options_.native_arch;
        for (const auto& r : *ob.group) {
          if (!r.applies_to(options_.native_arch)) continue;
          add(real_candidates(r, dep_arch));
          add(provider_candidates(r, dep_arch));
        }
        break;
      }
      case Obligation::kUpgrade: {
        if (auto* list = find_list(available_by_name_, ob.from->name))
          for (const Package* p : *list)
            if (p->architecture == ob.from->architecture && p->version > ob.from->version && pin(p) >= 0) out.push_back(p);
        sort_candidates(out);
        break;
      }
    }
    return out;
  }

  bool satisfied(const Obligation& ob) const {
    switch (ob.kind) {
      case Obligation::kRequest: return request_met(requests_[ob.request]);
      case Obligation::kGroup: return group_met(*ob.group, ob.from ? ob.from->architecture : options_.native_arch);
      case Obligation::kUpgrade: return !effective(ob.from);
    }
    return false;
  }

  void choose(const Package* p, size_t because) {
    auto it = chosen_.find(p->id());
    undo_.push_back({p->id(), it == chosen_.end() ? nullptr : it->second});
    chosen_[p->id()] = p;
    chosen_because_[p->id()] = because;
    const Parsed& parsed = relations(p);
    for (const auto& g : parsed.pre_depends) agenda_.push_back({Obligation::kGroup, 0, &g, "Pre-Depends", p, false});
    for (const auto& g : parsed.depends) agenda_.push_back({Obligation::kGroup, 0, &g, "Depends", p, false});
    for (const auto& g : parsed.recommends) agenda_.push_back({Obligation::kGroup, 0, &g, "Recommends", p, true});
  }

  void undo_to(size_t size) {
    while (undo_.size() > size) {
      auto [id, previous] = undo_.back();
      undo_.pop_back();
      if (previous) chosen_[id] = previous;
      else {
        chosen_.erase(id);
        chosen_because_.erase(id);
      }
    }
  }

  // An installed package whose dependencies an upgrade broke.
  const Package* broken_installed() const {
    for (const auto& [id, p] : installed_by_id_) {
      if (chosen_.count(id)) continue;
      auto it = parsed_.find(p);
      if (it == parsed_.end()) continue;
      for (const auto* groups : {&it->second->pre_depends, &it->second->depends})
        for (const auto& g : *groups)
          // Only breakage we caused counts: a base that was broken before stays as it was.
          if (!group_met(g, p->architecture) && satisfied_before(g, p)) return p;
    }
    return nullptr;
  }

  // A group is met when one of its alternatives that apply on this architecture is met (a group
  // none of whose alternatives apply is dropped, as dpkg drops it).
  bool group_met(const AlternativeGroup& g, const std::string& dep_arch) const {
    bool any_applies = false;
    for (const auto& r : g) {
      if (!r.applies_to(options_.native_arch)) continue;
      any_applies = true;
      if (effective_satisfier(r, dep_arch)) return true;
    }
    return !any_applies;
  }

  bool satisfied_before(const AlternativeGroup& g, const Package* p) const {
    bool any_applies = false;
    for (const auto& r : g) {
      if (!r.applies_to(options_.native_arch)) continue;
      any_applies = true;
      if (auto* list = find_list(installed_by_name_, r.name))
        for (const Package* q : *list)
          if (arch_ok(q, r, p->architecture) && r.version_ok(q->version)) return true;
      if (auto* list = find_list(installed_providers_, r.name))
        for (const auto& [q, provided] : *list)
          if (arch_ok(q, r, p->architecture) && provides_match(*provided, r)) return true;
    }
    return !any_applies;
  }

  // ---- explanations ----
  std::string chain_of(size_t ob_index) const {
    std::vector<std::string> lines;
    size_t guard = 0;
    for (size_t i = ob_index; guard++ < 64;) {
      const Obligation& ob = agenda_[i];
      if (ob.kind == Obligation::kRequest) {
        lines.push_back("the recipe asks for " + requests_[ob.request].text);
        break;
      }
      if (ob.kind == Obligation::kUpgrade) {
        lines.push_back(ob.from->display() + " (installed) needs a newer version after an upgrade");
        break;
      }
      lines.push_back(ob.from->display() + " " + (ob.field == std::string("Pre-Depends") ? "pre-depends on " :
                                                  ob.field == std::string("Recommends") ? "recommends " : "depends on ") +
                      to_string(*ob.group));
      auto it = chosen_because_.find(ob.from->id());
      if (it == chosen_because_.end()) break;
      i = it->second;
    }
    std::reverse(lines.begin(), lines.end());
    std::string out;
    for (const auto& l : lines) out += "\n  " + l;
    return out;
  }

  std::string missing_cause(const Obligation& ob) {
    auto names_of = [&]() {
      std::vector<std::string> names;
      if (ob.kind == Obligation::kRequest) names.push_back(requests_[ob.request].name);
      else if (ob.kind == Obligation::kGroup)
        for (const auto& r : *ob.group) names.push_back(r.name);
      else names.push_back(ob.from->name);
      return names;
    };
    std::vector<std::string> parts;
    for (const auto& name : names_of()) {
      auto* real = find_list(available_by_name_, name);
      auto* virt = find_list(available_providers_, name);
      if (!real && !virt) {
        std::string s = "no source has a package named " + name;
        std::vector<std::string> all;
        if (ob.kind == Obligation::kRequest) {
          for (const auto& [n, list] : available_by_name_) all.push_back(n);
          std::string hint = did_you_mean(name, all);
          if (!hint.empty()) s += " (" + hint + ")";
        }
        parts.push_back(s);
        continue;
      }
      std::string s;
      if (real) {
        std::string versions;
        size_t shown = 0;
        for (const Package* p : *real) {
          if (shown++ == 6) {
            versions += ", ...";
            break;
          }
          versions += (versions.empty() ? "" : ", ") + p->version.str() + " (" + p->architecture + ")";
        }
        s = "the sources have " + name + " " + versions;
      } else {
        std::string providers;
        std::set<std::string> seen;
        for (const auto& [p, provided] : *virt)
          if (seen.insert(p->name).second && seen.size() <= 6) providers += (providers.empty() ? "" : ", ") + p->display();
        s = name + " is a virtual package provided by " + providers;
      }
      parts.push_back(s);
    }
    std::string out;
    for (const auto& p : parts) out += (out.empty() ? "" : "; ") + p;
    return out;
  }

  void record_failure(size_t ob_index, const std::string& cause) {
    std::string text = chain_of(ob_index) + "\n  but " + cause;
    if (std::find(failures_.begin(), failures_.end(), text) == failures_.end() && failures_.size() < 4)
      failures_.push_back(text);
  }

  bool backtrack(size_t& pos) {
    while (!stack_.empty()) {
      Choice& top = stack_.back();
      undo_to(top.undo_size);
      agenda_.resize(top.agenda_size);
      if (++top.next < top.options.size()) {
        if (++steps_ > options_.max_steps) budget_exhausted();
        apply(top, top.next);
        pos = top.obligation + 1;
        return true;
      }
      stack_.pop_back();
    }
    return false;
  }

  void apply(const Choice& c, size_t option) {
    const Option& o = c.options[option];
    if (o.package) choose(o.package, c.obligation);
  }

  [[noreturn]] void budget_exhausted() const {
    throw Error("apt: no solution found within " + std::to_string(options_.max_steps) + " choices",
                "pin versions of the packages involved (name=version) to narrow the search");
  }

  std::vector<ResolvedPackage> collect();

  const std::vector<Request>& requests_;
  const ResolverOptions& options_;
  std::unordered_map<std::string, std::vector<const Package*>> available_by_name_, installed_by_name_;
  std::unordered_map<std::string, std::vector<std::pair<const Package*, const Relation*>>> available_providers_,
      installed_providers_;
  std::map<std::string, const Package*> installed_by_id_;
  std::unordered_map<const Package*, std::unique_ptr<Parsed>> parsed_;
  // The parsed Provides of every package that has one (the provider maps point into them).
  std::vector<std::unique_ptr<std::vector<AlternativeGroup>>> provides_;
  mutable std::unordered_map<const Package*, int> pin_cache_;
  const ReleaseFacts installed_facts_ = installed_release();

  std::map<std::string, const Package*> chosen_;
  std::map<std::string, size_t> chosen_because_;  // id -> obligation that chose it
  std::vector<std::pair<std::string, const Package*>> undo_;
  std::vector<Obligation> agenda_;
  std::vector<Choice> stack_;
  std::vector<std::string> failures_;
  size_t steps_ = 0;
};

Resolution Solver::run() {
  for (size_t i = 0; i < requests_.size(); ++i) agenda_.push_back({Obligation::kRequest, i, nullptr, "", nullptr, false});
  // Installed packages' relations are parsed up front: the final check needs them.
  for (const auto& [id, p] : installed_by_id_) (void)relations(p);
  size_t pos = 0;
  for (;;) {
    if (pos == agenda_.size()) {
      const Package* broken = broken_installed();
      if (!broken) break;
      agenda_.push_back({Obligation::kUpgrade, 0, nullptr, "", broken, false});
    }
    const Obligation ob = agenda_[pos];
    if (satisfied(ob)) {
      ++pos;
      continue;
    }
    std::vector<Option> options;
    std::vector<std::string> blocked;
    for (const Package* c : candidates_for(ob)) {
      if (auto why = blocker(c)) blocked.push_back(*why);
      else options.push_back({c});
    }
    if (ob.soft) options.push_back({nullptr});
    if (options.empty()) {
      std::string cause;
      if (!blocked.empty()) {
        cause = "every candidate is blocked:";
        for (size_t i = 0; i < blocked.size() && i < 4; ++i) cause += "\n    " + blocked[i];
      } else if (ob.kind == Obligation::kRequest) {
        const Request& req = requests_[ob.request];
        cause = "nothing satisfies " + req.text + ": " + missing_cause(ob);
      } else if (ob.kind == Obligation::kUpgrade) {
        cause = "no newer version of " + ob.from->name + " fits: " + missing_cause(ob);
      } else {
        cause = "nothing satisfies " + to_string(*ob.group) + ": " + missing_cause(ob);
      }
      record_failure(pos, cause);
      if (!backtrack(pos)) {
        std::string message = "apt: cannot install the requested packages:";
        for (const auto& f : failures_) message += f;
        throw InputError(message,
                         "change the requested packages or versions, add the source that has the missing package, or "
                         "build on a base whose installed packages do not conflict");
      }
      continue;
    }
    if (++steps_ > options_.max_steps) budget_exhausted();
    stack_.push_back({pos, std::move(options), 0, agenda_.size(), undo_.size()});
    apply(stack_.back(), 0);
    ++pos;
  }

  Resolution out;
  for (const auto& req : requests_) {
    const Package* p = request_satisfier(req);
    if (p && p->origin < 0) out.already_installed.push_back(req.text + ": " + p->display() + " is installed in the base image");
  }
  out.install = collect();
  return out;
}

std::vector<ResolvedPackage> Solver::collect() {
  std::map<std::string, ResolvedPackage> by_id;
  for (const auto& [id, p] : chosen_) {
    ResolvedPackage r;
    r.package = *p;
    if (auto inst = installed_by_id_.find(id); inst != installed_by_id_.end()) r.replaces_installed = inst->second->version.str();
    by_id[id] = std::move(r);
  }
  for (const auto& req : requests_)
    if (const Package* p = request_satisfier(req); p && by_id.count(p->id())) by_id[p->id()].requested = true;
  // Edges: a chosen package -> the chosen packages it needs (Pre-Depends are "hard" edges).
  std::map<std::string, std::set<std::string>> needs;
  for (const auto& [id, p] : chosen_) {
    const Parsed& parsed = relations(p);
    for (const auto* groups : {&parsed.pre_depends, &parsed.depends})
      for (const auto& g : *groups)
        for (const auto& r : g) {
          if (!r.applies_to(options_.native_arch)) continue;
          const Package* s = effective_satisfier(r, p->architecture);
          if (!s) continue;
          if (by_id.count(s->id()) && s->id() != id) {
            needs[id].insert(s->id());
            auto& rb = by_id[s->id()].required_by;
            if (std::find(rb.begin(), rb.end(), p->name) == rb.end()) rb.push_back(p->name);
          }
          break;
        }
  }
  // Dependencies first; a cycle (common among Debian's core packages) is broken by name order.
  std::vector<ResolvedPackage> out;
  std::set<std::string> done, visiting;
  std::function<void(const std::string&)> visit = [&](const std::string& id) {
    if (done.count(id) || visiting.count(id)) return;
    visiting.insert(id);
    for (const auto& dep : needs[id]) visit(dep);
    visiting.erase(id);
    done.insert(id);
    out.push_back(by_id[id]);
  };
  for (auto& [id, r] : by_id) visit(id);
  for (auto& r : out) std::sort(r.required_by.begin(), r.required_by.end());
  return out;
}

}  // namespace

Request Request::parse(const std::string& text) {
  auto fail = [&](const std::string& why) {
    return InputError("apt package '" + text + "': " + why,
                      "write name, name=version (glob * allowed, e.g. cmake=3.22*), \"name (>= version)\" or name:arch");
  };
  Request r;
  r.text = text;
  std::string s = text;
  while (!s.empty() && s.back() == ' ') s.pop_back();
  while (!s.empty() && s.front() == ' ') s.erase(0, 1);
  if (s.empty()) throw fail("it is empty");
  size_t eq = s.find('=');
  size_t paren = s.find('(');
  if (eq != std::string::npos && (paren == std::string::npos || eq < paren)) {
    r.version_glob = s.substr(eq + 1);
    s = s.substr(0, eq);
    if (r.version_glob.empty()) throw fail("the version after '=' is empty");
    for (char c : r.version_glob)
      if (c == ' ' || c == ',' || c == '|') throw fail("the version after '=' has a blank, ',' or '|'");
    // An exact version (no glob) must be a valid Debian version.
    if (r.version_glob.find_first_of("*?[") == std::string::npos) {
      try {
        (void)Version::parse(r.version_glob);
      } catch (const InputError& e) {
        throw fail(e.what());
      }
    }
  }
  std::vector<AlternativeGroup> groups;
  try {
    groups = parse_relations(s, "apt package");
  } catch (const InputError& e) {
    throw fail(e.what());
  }
  if (groups.size() != 1 || groups[0].size() != 1) throw fail("name one package (no ',' or '|')");
  const Relation& rel = groups[0][0];
  if (!rel.architectures.empty()) throw fail("architecture restrictions [...] do not apply to requests");
  if (!r.version_glob.empty() && rel.op != VersionOp::kAny) throw fail("give either =version or (op version), not both");
  r.name = rel.name;
  r.arch = rel.arch_qualifier;
  r.op = rel.op;
  r.version = rel.version;
  return r;
}

bool Request::version_ok(const Version& v) const {
  if (!version_glob.empty()) {
    if (version_glob.find_first_of("*?[") == std::string::npos) return v == Version::parse(version_glob);
    return fnmatch(version_glob.c_str(), v.str().c_str(), 0) == 0;
  }
  return op == VersionOp::kAny || version_matches(v, op, version);
}

Resolution resolve(const std::vector<Request>& requests, const std::vector<Package>& available,
                   const std::vector<Package>& installed, const ResolverOptions& options) {
  Solver solver(requests, available, installed, options);
  return solver.run();
}

}  // namespace rp::apt
