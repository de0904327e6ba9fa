#pragma once
// The filesystem change of a sandboxed step as layer entries, found by comparing a snapshot of the
// root filesystem taken before the step with one taken after it (the fallback where an overlayfs
// upper directory is not available).
//
// A snapshot holds each path's stat identity (type, mode, owner, size, mtime, ctime, inode, birth time): a path
// whose identity differs after the step is part of the layer. Deletions become OCI whiteouts
// (".wh.<name>"), a directory that was removed and created again becomes an opaque directory
// (".wh..wh..opq") so no lower child shows through. Build litter is dropped (see is_build_litter).
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "entries/entry.hpp"

namespace rp {

struct PathStat {
  uint32_t mode = 0;  // full st_mode: type and permission bits
  uint32_t uid = 0;
  uint32_t gid = 0;
  uint64_t size = 0;
  int64_t mtime_ns = 0;
  int64_t ctime_ns = 0;
  uint64_t ino = 0;
  int64_t btime_ns = 0;  // directories, where the file system records it
  uint64_t nlink = 1;
  std::string link_target;  // symlinks only
};

// Relative path (no leading "/") -> stat identity, sorted bytewise.
using TreeSnapshot = std::map<std::string, PathStat>;

// Walks `root` without following symlinks or crossing into other file systems. The contents of
// `skip` (relative directories such as "proc", "dev", "sys": the sandbox's own mounts) are left out,
// the directories themselves are kept.
TreeSnapshot snapshot_tree(const std::filesystem::path& root, const std::vector<std::string>& skip = {"proc", "sys", "dev"});

struct DiffOptions {
  bool keep_pycache = false;  // keep __pycache__ directories the step created
  bool keep_litter = false;   // keep /tmp, apt caches and lists, /var/log changes
  std::string origin;         // the step, for error messages
};

// Whether a changed path is build litter dropped by default: anything under tmp/, var/cache/apt/,
// var/cache/ldconfig/, var/lib/apt/lists/, var/log/ (the directories themselves stay), and the *-old backups dpkg and
// debconf keep of their databases directly in var/lib/dpkg/ and var/cache/debconf/.
bool is_build_litter(const std::string& path);

// The layer entries for the change from `before` to `after` of the tree at `root` (files are read
// from there when the layer is written). The result has gone through finalize_entries().
std::vector<Entry> diff_trees(const std::filesystem::path& root, const TreeSnapshot& before, const TreeSnapshot& after,
                              const DiffOptions& options);

}  // namespace rp
