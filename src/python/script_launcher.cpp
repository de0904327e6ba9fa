#include "python/script_launcher.hpp"

namespace rp::python {

namespace {
// execve reads at most this many bytes of a "#!" line (BINPRM_BUF_SIZE - 1 on Linux).
constexpr size_t kMaxShebangLength = 127;
}  // namespace

std::string shebang_for(const std::string& python) {
  if (python.size() + 3 > kMaxShebangLength || python.find(' ') != std::string::npos)
    return "#!/bin/sh\n'''exec' '" + python + "' \"$0\" \"$@\"\n' '''\n";
  return "#!" + python + "\n";
}

bool has_python_placeholder(std::string_view first_bytes) { return first_bytes.starts_with("#!python"); }

std::string replace_placeholder_shebang(std::string_view script, const std::string& python) {
  size_t end_of_line = script.find('\n');
  std::string_view rest = end_of_line == std::string_view::npos ? std::string_view() : script.substr(end_of_line + 1);
  return shebang_for(python) + std::string(rest);
}

std::string entry_point_launcher(const EntryPoint& entry_point, const std::string& python) {
  // `from pkg.mod import obj` then `obj.attr()` for "pkg.mod:obj.attr".
  std::string import_name = entry_point.attr.substr(0, entry_point.attr.find('.'));
  return shebang_for(python) +
         "# -*- coding: utf-8 -*-\n"
         "import sys\n"
         "from " + entry_point.module + " import " + import_name + "\n"
         "if __name__ == \"__main__\":\n"
         "    if sys.argv[0].endswith(\"-script.pyw\"):\n"
         "        sys.argv[0] = sys.argv[0][:-11]\n"
         "    elif sys.argv[0].endswith(\".exe\"):\n"
         "        sys.argv[0] = sys.argv[0][:-4]\n"
         "    sys.exit(" + entry_point.attr + "())\n";
}

}  // namespace rp::python
