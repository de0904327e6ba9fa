#pragma once
// What rockpack needs to know about the Python interpreter of an image, read from the image's files
// only (the interpreter is never run: the image may be for another architecture, and running code
// from it on the build host is not wanted). The facts decide the wheel tags, the marker
// environment, where packages are installed, and what a venv looks like.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/platform.hpp"
#include "entries/file_tree.hpp"
#include "python/install_scheme.hpp"
#include "python/marker.hpp"
#include "python/wheel_filename.hpp"

namespace rp::python {

struct Interpreter {
  std::string executable;       // as given, "/usr/bin/python3"
  std::string real_executable;  // symlinks resolved, "/usr/bin/python3.11"
  std::string version;          // full "3.11.2"
  int major = 3, minor = 0;
  std::string soabi;            // "cpython-311-x86_64-linux-gnu"
  std::string abiflags;         // "" (or "t" for free-threaded)
  std::string prefix;           // sys.prefix, "/usr" or "/opt/python"
  std::string stdlib;           // "/usr/lib/python3.11"
  std::string include;          // "/usr/include/python3.11" (may be absent from the image)
  InstallScheme system_scheme;  // where a non-venv install goes
  std::optional<std::string> externally_managed;  // the EXTERNALLY-MANAGED file's text (PEP 668)
  std::string libc = "glibc";   // or "musl"
  std::string libc_version;     // "2.36"; empty when a musl version could not be found
  std::string machine;          // "x86_64", "aarch64" (from the platform)
  // Facts that had to be guessed, for the build log ("full version unknown: assuming 3.11.0").
  std::vector<std::string> notes;

  MarkerEnvironment marker_environment() const;
  // Throws rp::InputError for a musl interpreter (only manylinux tags are modelled so far).
  TagPolicy tag_policy() const;
  nlohmann::json to_json() const;
  // Throws rp::Error for a malformed cache record.
  static Interpreter from_json(const nlohmann::json& j);
};

// True for the image files read_interpreter reads the contents of (sysconfigdata, patchlevel.h,
// EXTERNALLY-MANAGED, libc.so.6 and friends, the dpkg and apk databases): RootfsView::add_layer
// keeps these. `path` is relative to the root, without a leading '/'.
bool interpreter_file_of_interest(std::string_view path);

// Reads the interpreter at `path` in `fs`. Throws rp::InputError when the path is not an interpreter
// (naming what the image has instead) or the installation is incomplete (no stdlib, no
// _sysconfigdata, no libc).
Interpreter read_interpreter(const FileTree& fs, const std::string& path, const Platform& platform);

// uname's machine for an OCI platform: amd64 -> x86_64, arm64 -> aarch64, ... Throws InputError
// for platforms Python wheels have no tags for.
std::string machine_for_platform(const Platform& platform);

}  // namespace rp::python
