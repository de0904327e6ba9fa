#pragma once
// Combining several installed wheels into one layer. Wheels share directories all the time
// (site-packages, bin, namespace packages such as "nvidia/" or "google/"), so directories merge;
// two wheels writing the same file would make the result depend on install order, so that is an
// error naming both wheels, unless both write the very same bytes with the same mode (several
// wheels of one namespace ship an identical empty "__init__.py").
#include <vector>

#include "entries/entry.hpp"
#include "python/wheel_installer.hpp"

namespace rp::python {

// Throws rp::InputError when two of `wheels` install different files at one path, or a file where
// another has a directory (naming the first such path, bytewise, and both wheels).
void check_wheels_fit_together(const std::vector<InstalledWheel>& wheels);

// All entries of `wheels`, each path once (the first wheel's entry), sorted by path; the same check.
// The entries are moved out of `wheels`: a ROCm layer has 20,000 of them.
std::vector<Entry> merge_installed_wheels(std::vector<InstalledWheel> wheels);

}  // namespace rp::python
