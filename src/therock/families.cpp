#include "therock/families.hpp"

#include <algorithm>
#include <cctype>

#include "util/error.hpp"

namespace rp::therock {

const std::vector<TargetFamily>& target_families() {
  static const std::vector<TargetFamily> table = {
      {"gfx900", "gfx900", ""},
      {"gfx906", "gfx906", ""},
      {"gfx908", "gfx908", ""},
      {"gfx90a", "gfx90a", ""},
      {"gfx942", "gfx94X-dcgpu", ""},
      {"gfx950", "gfx950-dcgpu", ""},
      {"gfx1030", "gfx103X-all", ""},
      {"gfx1031", "gfx103X-all", ""},
      {"gfx1032", "gfx103X-all", ""},
      {"gfx1033", "gfx103X-all", ""},
      {"gfx1034", "gfx103X-all", ""},
      {"gfx1035", "gfx103X-all", ""},
      {"gfx1036", "gfx103X-all", ""},
      {"gfx1100", "gfx110X-all", "gfx110X-dgpu"},
      {"gfx1101", "gfx110X-all", "gfx110X-dgpu"},
      {"gfx1102", "gfx110X-all", "gfx110X-dgpu"},
      {"gfx1103", "gfx110X-all", "gfx110X-dgpu"},
      {"gfx1151", "gfx1151", ""},
      {"gfx1200", "gfx120X-all", ""},
      {"gfx1201", "gfx120X-all", ""},
  };
  return table;
}

std::string supported_targets_text() {
  std::string out;
  for (const auto& row : target_families()) {
    if (!out.empty()) out += ", ";
    out += row.target;
  }
  return out;
}

namespace {

const TargetFamily& find_target(std::string_view target) {
  for (const auto& row : target_families()) {
    if (row.target == target) return row;
  }
  throw InputError("unknown GPU target '" + std::string(target) + "': TheRock publishes no packages for it",
                   "supported targets: " + supported_targets_text());
}

std::string trim(std::string_view s) {
  auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return std::string(s);
}

}  // namespace

std::string family_for(std::string_view target) { return std::string(find_target(target).family); }

std::vector<std::string> family_candidates(std::string_view target) {
  const auto& row = find_target(target);
  std::vector<std::string> out{std::string(row.family)};
  if (!row.legacy_family.empty()) out.emplace_back(row.legacy_family);
  return out;
}

std::vector<std::string> parse_targets(std::string_view text) {
  std::vector<std::string> targets;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find_first_of(",;", start);
    if (end == std::string_view::npos) end = text.size();
    std::string target = trim(text.substr(start, end - start));
    start = end + 1;
    // Feature flags (":xnack+", ":sramecc-") select code objects within one target, not a family.
    if (auto colon = target.find(':'); colon != std::string::npos) target.resize(colon);
    std::transform(target.begin(), target.end(), target.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (target.empty()) continue;
    // Which targets exist is the release's business (check_targets, when its rocm sdist is read);
    // here only the shape: "gfx" and a hex-ish id, or "all".
    bool shaped = target == "all" || (target.size() > 3 && target.starts_with("gfx") &&
                                      std::all_of(target.begin() + 3, target.end(), [](char c) {
                                        return std::isalnum(static_cast<unsigned char>(c)) != 0;
                                      }));
    if (!shaped)
      throw InputError("'" + target + "' is not a GPU target",
                       "targets are LLVM processor names such as gfx942, gfx950, gfx1100, gfx1201, or `all`");
    if (std::find(targets.begin(), targets.end(), target) == targets.end()) targets.push_back(target);
  }
  if (targets.empty()) {
    throw InputError("no GPU target given (expected a list such as \"gfx942\" or \"gfx90a;gfx942\")",
                     "supported targets: " + supported_targets_text());
  }
  return targets;
}

std::vector<std::string> families_for(const std::vector<std::string>& targets) {
  std::vector<std::string> families;
  for (const auto& target : targets) {
    if (target == "all") continue;
    std::string family = family_for(target);
    if (std::find(families.begin(), families.end(), family) == families.end()) families.push_back(family);
  }
  return families;
}

}  // namespace rp::therock
