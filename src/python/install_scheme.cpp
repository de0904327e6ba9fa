#include "python/install_scheme.hpp"

namespace rp::python {

namespace {
std::string strip_trailing_slashes(std::string path) {
  // "/" becomes "" so that "/lib/..." comes out of prefix + "/lib/..."; data() puts it back.
  while (!path.empty() && path.back() == '/') path.pop_back();
  return path;
}

// The layout venvs and prefix installs share (sysconfig "posix_prefix" / "posix_venv").
InstallScheme prefix_layout(const std::string& prefix, int python_major, int python_minor) {
  std::string p = strip_trailing_slashes(prefix);
  InstallScheme s;
  s.prefix = p.empty() ? "/" : p;
  s.purelib = p + "/lib/python" + std::to_string(python_major) + "." + std::to_string(python_minor) + "/site-packages";
  s.platlib = s.purelib;
  s.scripts = p + "/bin";
  s.data = s.prefix;
  return s;
}

}  // namespace

InstallScheme InstallScheme::venv(const std::string& prefix, int python_major, int python_minor) {
  InstallScheme s = prefix_layout(prefix, python_major, python_minor);
  std::string p = strip_trailing_slashes(prefix);
  // venvs put headers under include/site (sysconfig "posix_venv"), keeping include/ for the base.
  s.include = p + "/include/site/python" + std::to_string(python_major) + "." + std::to_string(python_minor);
  s.python = p + "/bin/python";
  return s;
}

InstallScheme InstallScheme::prefix_install(const std::string& prefix, const std::string& python, int python_major,
                                            int python_minor) {
  InstallScheme s = prefix_layout(prefix, python_major, python_minor);
  s.include = strip_trailing_slashes(prefix) + "/include/python" + std::to_string(python_major) + "." +
              std::to_string(python_minor);
  s.python = python;
  return s;
}

}  // namespace rp::python
