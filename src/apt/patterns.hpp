#pragma once
// The two apt search patterns a recipe may use instead of package names, for building a Debian
// system from nothing the way debootstrap --variant=minbase does:
//
//   ?essential           every package marked Essential: yes
//   ?priority(required)  every package of that Priority (required, important, standard, optional)
//
// (apt-patterns(7) has many more; these are the ones bootstrapping needs.)
#include <string>
#include <string_view>
#include <vector>

#include "apt/package_index.hpp"

namespace rp::apt {

// Whether `text` is written as a pattern (starts with '?').
bool is_pattern(std::string_view text);

// Throws rp::InputError naming the pattern when it is not one of the supported ones.
void check_pattern(std::string_view text);

// The names (sorted, unique) of the packages of `available` for `arch` (or "all") the pattern
// selects.
std::vector<std::string> expand_pattern(std::string_view text, const std::vector<Package>& available, const std::string& arch);

}  // namespace rp::apt
