#pragma once
// Where a wheel's parts land in the image (the sysconfig "scheme"), as absolute paths of the final
// image. The installer computes every target from these and writes it under the layer root, like
// pip's `--root`, so the scheme must describe where the files will be at run time.
#include <string>

namespace rp::python {

struct InstallScheme {
  std::string prefix;   // "/opt/venv"
  std::string purelib;  // "/opt/venv/lib/python3.11/site-packages"
  std::string platlib;  // same as purelib on Debian-style and venv layouts
  std::string scripts;  // "/opt/venv/bin"
  std::string data;     // "/opt/venv"
  // The include directory; a wheel's headers go to `<include>/<distribution name>`.
  std::string include;  // "/opt/venv/include/site/python3.11"
  // The interpreter written into script shebangs: "/opt/venv/bin/python".
  std::string python;

  // A virtual environment at `prefix` for CPython major.minor (posix_venv layout):
  // lib/pythonX.Y/site-packages, bin, include/site/pythonX.Y, interpreter bin/python.
  static InstallScheme venv(const std::string& prefix, int python_major, int python_minor);
  // A plain prefix install (posix_prefix layout): lib/pythonX.Y/site-packages, bin,
  // include/pythonX.Y; `python` is the interpreter the scripts should run.
  static InstallScheme prefix_install(const std::string& prefix, const std::string& python, int python_major,
                                      int python_minor);

  std::string headers_for(const std::string& distribution) const { return include + "/" + distribution; }
};

}  // namespace rp::python
