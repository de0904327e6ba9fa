#pragma once
// Python's own name rules. The general ASCII string helpers the parsers use live in
// util/strings.hpp (shared by every module); they are named here too so the parsers read as before.
#include <string>
#include <string_view>
#include <vector>

#include "util/strings.hpp"

namespace rp::python {

using rp::ascii_lower;
using rp::iequals;
using rp::is_alnum;
using rp::is_space;
using rp::printable;
using rp::split;
using rp::trim;

// PEP 503 name normalization: runs of "-", "_", "." become "-", then lowercase.
std::string normalize_name(std::string_view name);
// A project name per PEP 508: ASCII letters/digits, with "-", "_", "." allowed inside.
bool is_valid_project_name(std::string_view name);

}  // namespace rp::python
