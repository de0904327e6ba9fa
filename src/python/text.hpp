#pragma once
// Small string helpers shared by the Python packaging parsers. ASCII only on purpose: every format
// handled here (versions, names, markers, headers) is defined over ASCII, and locale-dependent
// functions would make parsing depend on the machine.
#include <string>
#include <string_view>
#include <vector>

namespace rp::python {

bool is_space(char c);  // space, tab, CR, LF, FF, VT
bool is_alnum(char c);
std::string_view trim(std::string_view s);
std::string ascii_lower(std::string_view s);
bool iequals(std::string_view a, std::string_view b);
std::vector<std::string_view> split(std::string_view s, char sep);

// PEP 503 name normalization: runs of "-", "_", "." become "-", then lowercase.
std::string normalize_name(std::string_view name);
// A project name per PEP 508: ASCII letters/digits, with "-", "_", "." allowed inside.
bool is_valid_project_name(std::string_view name);

// For error messages: quotes nothing, replaces control bytes with '?', and cuts long input with "...".
std::string printable(std::string_view s, size_t max = 200);

}  // namespace rp::python
