#pragma once
// The executable scripts an install writes into bin/: shebangs pointing at the image's interpreter,
// `#!python` placeholders in a wheel's .data/scripts replaced by them, and the launchers generated
// for console_scripts / gui_scripts entry points (the form uv writes).
#include <optional>
#include <string>
#include <string_view>

#include "python/entry_points.hpp"

namespace rp::python {

// The shebang, ending with '\n'. Linux limits the shebang line to 127 bytes and splits it on
// spaces, so a long interpreter path or one with a space goes through /bin/sh:
//   #!/bin/sh
//   '''exec' '<python>' "$0" "$@"
//   ' '''
// which the shell runs as an exec and Python reads as a string literal.
std::string shebang_for(const std::string& python);

// True when `first_bytes` (the start of a script) begins with the `#!python` placeholder
// (`#!pythonw` included), which installers must replace with the real interpreter.
bool has_python_placeholder(std::string_view first_bytes);

// The script with its whole first line replaced by shebang_for(python); the rest is kept byte for
// byte. Call only when has_python_placeholder(script).
std::string replace_placeholder_shebang(std::string_view script, const std::string& python);

// The launcher for a console or GUI entry point. Extras are ignored, as pip and uv do.
std::string entry_point_launcher(const EntryPoint& entry_point, const std::string& python);

}  // namespace rp::python
