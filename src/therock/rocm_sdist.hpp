#pragma once
// TheRock's `rocm` distribution is published only as an sdist (rocm-<ver>.tar.gz). Rockpack does not
// build it: it reads _dist_info.py from the archive (see dist_info.hpp) and takes the rocm_sdk
// package's files to install them itself with a generated dist-info. The archive is untrusted:
// entry count and sizes are bounded, paths are checked, links inside the package are refused.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "therock/dist_info.hpp"

namespace rp::therock {

// The console script TheRock's setup.py declares (setup.py is not read: it is code).
inline constexpr std::string_view kRocmSdkConsoleScript = "rocm-sdk = rocm_sdk.__main__:main";

struct SdistFile {
  std::string path;     // relative to the sdist's src/: "rocm_sdk/__main__.py"
  std::string content;  // the whole file (the package is a few kB)
  bool executable = false;
};

struct RocmSdist {
  std::string root;      // the single top-level directory: "rocm-7.10.0a20251120"
  std::string pkg_info;  // PKG-INFO text (Name and Version checked against _dist_info.py)
  DistInfo dist_info;
  std::vector<SdistFile> package_files;  // every regular file under src/rocm_sdk/, sorted by path
};

// Reads `archive` (a tar, normally gzip-compressed). `display_name` names it in messages
// (the file name when `archive` is a content-store blob); defaults to the path. Throws
// rp::InputError when it is not a well-formed rocm sdist: not a tar, several top-level
// directories, unsafe paths, no src/rocm_sdk/_dist_info.py, a link or special file inside
// src/rocm_sdk/, a PKG-INFO naming another project or version, or limits exceeded (10,000 entries,
// 4 MiB per package file, 64 MiB in all).
RocmSdist read_rocm_sdist(const std::filesystem::path& archive, std::string_view display_name = {});

}  // namespace rp::therock
