#pragma once
// TheRock's GPU target families: which family's packages serve a GPU target such as gfx942, and
// reading a PYTORCH_ROCM_ARCH-style target list ("gfx90a;gfx942"). The table is TheRock's
// (therock_amdgpu_targets.cmake); a target outside it has no published packages.
#include <string>
#include <string_view>
#include <vector>

namespace rp::therock {

struct TargetFamily {
  std::string_view target;  // "gfx1100"
  std::string_view family;  // "gfx110X-all": the name on the index, case as TheRock writes it
  // The name older indexes used for the same family ("gfx110X-dgpu"); empty when there was none.
  std::string_view legacy_family;
};

// Every supported target, in TheRock's order.
const std::vector<TargetFamily>& target_families();

// "gfx942, gfx950, ..." for messages.
std::string supported_targets_text();

// The family of `target` ("gfx942" -> "gfx94X-dcgpu"). Throws rp::InputError listing the supported
// targets when there is none.
std::string family_for(std::string_view target);

// The family names worth trying on an index for `target`, current name first ("gfx110X-all",
// "gfx110X-dgpu"). Throws like family_for.
std::vector<std::string> family_candidates(std::string_view target);

// Splits a target list on ',' or ';', trims whitespace, lower-cases, drops feature suffixes
// ("gfx90a:xnack+" -> "gfx90a") and duplicates, keeps the order. Each must look like a target
// ("gfx" + alphanumerics) or be "all" (every target of the release); whether the release has it is
// checked against its rocm sdist (dist_info.hpp, check_targets). Throws rp::InputError otherwise;
// an empty list is an error too.
std::vector<std::string> parse_targets(std::string_view text);

// The distinct families of `targets`, in order of first appearance ("all" has none; a target
// outside TheRock's table throws as family_for does).
std::vector<std::string> families_for(const std::vector<std::string>& targets);

}  // namespace rp::therock
