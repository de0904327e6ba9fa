#pragma once
// Facts about an image's system read from the files that record them: which C library it has and
// its version, and which Python version its package manager installed. Helpers of read_interpreter,
// split out so each reader can be tested on its own text.
#include <optional>
#include <string>
#include <string_view>

#include "entries/file_tree.hpp"

namespace rp::python {

struct LibcInfo {
  std::string kind;     // "glibc" or "musl"
  std::string version;  // "2.36"; empty when unknown (musl without an apk database)
  std::string path;     // the file it was read from, "/lib/x86_64-linux-gnu/libc.so.6"
};

// The Debian multiarch triplet of a machine: "x86_64" -> "x86_64-linux-gnu".
std::string multiarch_triplet(std::string_view machine);

// Looks for glibc's libc.so.6 (or an old libc-2.NN.so / ld-2.NN.so) and musl's ld-musl-<arch>.so.1
// in /lib/<triplet>, /usr/lib/<triplet>, /lib64, /usr/lib64, /lib and /usr/lib. `musl_first` when the
// interpreter was built for musl. nullopt when there is no C library at all.
std::optional<LibcInfo> find_libc(const FileTree& fs, std::string_view machine, bool musl_first);

// glibc's version from the bytes of libc.so.6: its banner "GNU C Library ... version 2.36", else the
// highest GLIBC_2.NN symbol version it defines.
std::optional<std::string> glibc_version_from_library(std::string_view bytes);

// PY_VERSION from CPython's patchlevel.h: `#define PY_VERSION "3.11.9"`.
std::optional<std::string> version_from_patchlevel(std::string_view header);
// The upstream version of an installed pythonX.Y-minimal / libpythonX.Y-minimal / pythonX.Y
// package in a dpkg status file (or one file of distroless' status.d): "3.11.2-6+deb12u6" -> "3.11.2".
std::optional<std::string> version_from_dpkg_status(std::string_view status, int major, int minor);
// The same from Alpine's /lib/apk/db/installed (package python3, "3.11.9-r0" -> "3.11.9").
std::optional<std::string> version_from_apk_installed(std::string_view db, int major, int minor);
// The version of the musl package in Alpine's database ("1.2.4-r2" -> "1.2.4").
std::optional<std::string> musl_version_from_apk_installed(std::string_view db);

}  // namespace rp::python
