#pragma once
// CPython's build-time configuration as the interpreter records it in
// lib/pythonX.Y/_sysconfigdata_<abiflags>_<platform>_<multiarch>.py: one Python dict literal
//   build_time_vars = {'ABIFLAGS': '', 'SOABI': 'cpython-311-x86_64-linux-gnu', 'Py_DEBUG': 0, ...}
// whose values are strings (adjacent literals concatenated, possibly in parentheses) and integers.
// The file comes from an image, so it is parsed as untrusted text, never executed.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace rp::python {

struct SysconfigVars {
  // Every value as text; integers in decimal ("0", "-1"), True/False/None as written.
  std::map<std::string, std::string> values;

  std::optional<std::string> get(const std::string& name) const;
  // The value when it is an integer literal; nullopt otherwise.
  std::optional<int64_t> get_int(const std::string& name) const;
};

// Throws rp::InputError naming `where` (the file), the line and the column of the problem.
SysconfigVars parse_sysconfigdata(std::string_view text, const std::string& where);

}  // namespace rp::python
