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

// All entries of `wheels`, each path once, sorted by path. Throws rp::InputError when two wheels
// install different files at one path, or a file where another wheel has a directory.
std::vector<Entry> merge_installed_wheels(const std::vector<InstalledWheel>& wheels);

}  // namespace rp::python
