#pragma once
// A virtual environment as `python -m venv --without-pip <dir>` makes it, planned as layer entries
// instead of created by running the interpreter.
#include <string>
#include <vector>

#include "entries/entry.hpp"
#include "python/install_scheme.hpp"
#include "python/interpreter.hpp"

namespace rp::python {

// pyvenv.cfg, bin/python (symlink to the real interpreter), bin/python3 and bin/pythonX.Y (-> python),
// lib/pythonX.Y/site-packages/, lib64 -> lib, include/, bin/activate (+ .fish, .csh). `venv_dir` is
// absolute ("/opt/venv"); entries are relative to the root, root-owned, with `origin` set.
// Throws rp::InputError for a relative or root venv_dir.
std::vector<Entry> venv_entries(const Interpreter& python, const std::string& venv_dir, const std::string& origin);

// Where packages go inside that venv.
InstallScheme venv_scheme(const Interpreter& python, const std::string& venv_dir);

}  // namespace rp::python
