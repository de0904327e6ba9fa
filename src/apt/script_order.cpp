#include "apt/script_order.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <map>
#include <set>

#include "apt/relation.hpp"
#include "util/strings.hpp"

namespace rp::apt {

namespace {

std::string control_field(const UnpackedPackage& p, const std::string& name) {
  for (const auto& [key, value] : p.control)
    if (key.size() == name.size() && std::equal(key.begin(), key.end(), name.begin(), [](char a, char b) {
          return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
        }))
      return value;
  return "";
}

// A relationship field's groups; an unparsable field (already accepted by the resolver, so not
// expected) orders nothing rather than failing the build.
std::vector<AlternativeGroup> relations(const std::string& text, const std::string& what) {
  try {
    return parse_relations(text, what);
  } catch (const std::exception&) {
    return {};
  }
}

class Sequencer {
 public:
  Sequencer(const std::vector<UnpackedPackage>& added, const std::vector<Package>& installed) : added_(added) {
    state_.assign(added.size(), State::kPending);
    unpacked_at_.assign(added.size(), 0);
    for (size_t i = 0; i < added.size(); ++i) {
      by_name_.emplace(added[i].name, i);
      for (const auto& group : relations(control_field(added[i], "Provides"), added[i].name + " Provides"))
        for (const auto& r : group) provider_.emplace(r.name, i);
      depends_.push_back(relations(control_field(added[i], "Depends"), added[i].name + " Depends"));
      pre_depends_.push_back(relations(control_field(added[i], "Pre-Depends"), added[i].name + " Pre-Depends"));
    }
    for (const auto& p : installed) installed_.emplace(p.name, &p);
    flag_immediate(installed);
  }

  std::vector<ScriptBatch> run() {
    for (size_t i = 0; i < added_.size(); ++i) unpack(i);
    // apt hands dpkg a configure batch in unpack order; dpkg itself defers a package whose
    // dependencies are not configured yet to later in the same call.
    for (auto& b : batches_)
      if (b.action == ScriptBatch::Action::kConfigure)
        std::stable_sort(b.packages.begin(), b.packages.end(),
                         [&](size_t x, size_t y) { return unpacked_at_[x] < unpacked_at_[y]; });
    return std::move(batches_);
  }

 private:
  enum class State { kPending, kUnpacked, kConfigured };

  // The new package a dependency group waits for, or none when it is satisfied as things stand.
  // At unpack time (apt's view) a configured package of the base that is not being replaced, or an
  // upgrade not yet unpacked (its installed version still answers), satisfies it. At configure time
  // (dpkg's view of this image, where every new package is already "unpacked" in the status) only
  // a base package or a configured new one does.
  std::optional<size_t> waits_for(const AlternativeGroup& group, bool for_configure) const {
    for (const auto& r : group) {
      auto added = by_name_.find(r.name);
      if (added != by_name_.end()) {
        if (state_[added->second] == State::kConfigured) return std::nullopt;
        if (!for_configure && state_[added->second] == State::kPending && installed_.count(r.name)) return std::nullopt;
        return added->second;
      }
      if (installed_.count(r.name)) return std::nullopt;
      auto provider = provider_.find(r.name);
      if (provider != provider_.end())
        return state_[provider->second] == State::kConfigured ? std::nullopt : std::optional<size_t>(provider->second);
    }
    return std::nullopt;  // nothing new answers it (the resolver chose something else, or nothing)
  }

  void unpack(size_t i) {
    if (state_[i] != State::kPending || visiting_.count(i)) return;
    visiting_.insert(i);
    for (const auto& group : pre_depends_[i])
      if (auto t = waits_for(group, false)) configure(*t);
    visiting_.erase(i);
    if (state_[i] != State::kPending) return;  // a loop unpacked it meanwhile
    state_[i] = State::kUnpacked;
    unpacked_at_[i] = unpacks_++;
    add(ScriptBatch::Action::kUnpack, i);
    if (immediate_.count(added_[i].name)) configure(i);
  }

  void configure(size_t i) {
    if (state_[i] == State::kConfigured || configuring_.count(i)) return;
    configuring_.insert(i);
    if (state_[i] == State::kPending) unpack(i);
    if (state_[i] != State::kConfigured) {
      for (const auto* field : {&pre_depends_[i], &depends_[i]})
        for (const auto& group : *field)
          if (auto t = waits_for(group, true); t && *t != i) configure(*t);
      if (state_[i] == State::kUnpacked) {
        state_[i] = State::kConfigured;
        add(ScriptBatch::Action::kConfigure, i);
      }
    }
    configuring_.erase(i);
  }

  void add(ScriptBatch::Action action, size_t i) {
    if (batches_.empty() || batches_.back().action != action) batches_.push_back({action, {}});
    batches_.back().packages.push_back(i);
  }

  // apt's immediate configuration: Essential packages (and `apt`, which apt treats as one), and
  // every package their Depends and Pre-Depends name, through installed and new versions alike.
  void flag_immediate(const std::vector<Package>& installed) {
    std::vector<std::string> todo;
    auto flag = [&](const std::string& name) {
      if (immediate_.insert(name).second) todo.push_back(name);
    };
    for (const auto& p : installed)
      if (p.essential || p.name == "apt") flag(p.name);
    for (const auto& p : added_)
      if (p.name == "apt" || control_field(p, "Essential") == "yes") flag(p.name);
    while (!todo.empty()) {
      std::string name = todo.back();
      todo.pop_back();
      auto names = [&](const std::vector<AlternativeGroup>& groups) {
        for (const auto& group : groups)
          for (const auto& r : group) flag(r.name);
      };
      if (auto it = installed_.find(name); it != installed_.end()) {
        names(relations(it->second->depends, name + " Depends"));
        names(relations(it->second->pre_depends, name + " Pre-Depends"));
      }
      if (auto it = by_name_.find(name); it != by_name_.end()) {
        names(depends_[it->second]);
        names(pre_depends_[it->second]);
      }
    }
  }

  const std::vector<UnpackedPackage>& added_;
  std::vector<State> state_;
  std::vector<size_t> unpacked_at_;  // the position of each package's unpack
  size_t unpacks_ = 0;
  std::map<std::string, size_t> by_name_;    // first package of that name
  std::map<std::string, size_t> provider_;   // first new package providing that name
  std::map<std::string, const Package*> installed_;
  std::vector<std::vector<AlternativeGroup>> depends_, pre_depends_;
  std::set<std::string> immediate_;
  std::set<size_t> visiting_, configuring_;
  std::vector<ScriptBatch> batches_;
};

}  // namespace

std::vector<ScriptBatch> script_sequence(const std::vector<UnpackedPackage>& added, const std::vector<Package>& installed) {
  return Sequencer(added, installed).run();
}

std::string describe(const std::vector<ScriptBatch>& sequence, const std::vector<UnpackedPackage>& added) {
  std::vector<std::string> parts;
  for (const auto& b : sequence) {
    std::vector<std::string> names;
    for (size_t i : b.packages) names.push_back(added.at(i).name);
    parts.push_back(std::string(b.action == ScriptBatch::Action::kUnpack ? "unpack " : "configure ") + join(names, " "));
  }
  return join(parts, "; ");
}

}  // namespace rp::apt
