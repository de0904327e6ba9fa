#include "apt/patterns.hpp"

#include <set>

#include "util/error.hpp"

namespace rp::apt {

namespace {

const char* kPriorities[] = {"required", "important", "standard", "optional", "extra"};

std::string priority_of(std::string_view text) {
  constexpr std::string_view kPrefix = "?priority(";
  if (text.substr(0, kPrefix.size()) != kPrefix || text.back() != ')') return {};
  return std::string(text.substr(kPrefix.size(), text.size() - kPrefix.size() - 1));
}

}  // namespace

bool is_pattern(std::string_view text) { return !text.empty() && text.front() == '?'; }

void check_pattern(std::string_view text) {
  if (text == "?essential") return;
  std::string p = priority_of(text);
  for (const char* known : kPriorities)
    if (p == known) return;
  throw InputError("apt pattern '" + std::string(text) + "' is not supported",
                   "use ?essential or ?priority(required|important|standard|optional), or name packages");
}

std::vector<std::string> expand_pattern(std::string_view text, const std::vector<Package>& available, const std::string& arch) {
  check_pattern(text);
  std::string priority = priority_of(text);
  std::set<std::string> names;
  for (const auto& p : available) {
    if (p.architecture != arch && p.architecture != "all") continue;
    if (priority.empty() ? p.essential : p.priority == priority) names.insert(p.name);
  }
  return {names.begin(), names.end()};
}

}  // namespace rp::apt
