#pragma once
// A read-only view of a root file system, as the ecosystem modules (python, therock, apt, accounts)
// see the image built so far: they ask what a path is, list directories and read small files, and
// never learn whether the answer came from a base image's layer blobs, planned entries or a test's
// in-memory tree. The plan stage's RootfsView implements it over layers and entries.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "entries/entry.hpp"

namespace rp {

class FileTree {
 public:
  struct Node {
    EntryType type = EntryType::kFile;  // never kHardlink: a hardlink is its target's node
    uint32_t mode = 0;
    uint64_t size = 0;
    std::string link_target;  // symlinks: the target as written
    uint32_t uid = 0, gid = 0;  // numeric owner
  };

  // Contents larger than this are never returned by read() unless a caller asks for a larger max.
  static constexpr uint64_t kDefaultMaxRead = 32u << 20;

  virtual ~FileTree() = default;
  // Paths are accepted with or without a leading '/'. Symlinks in the parent components are
  // followed; the last component is not.
  virtual std::optional<Node> lstat(std::string_view path) const = 0;
  // The absolute path ("/usr/bin/python3.11") with every symlink resolved (absolute and relative
  // targets, at most 40 links); nullopt when a component is missing or the links loop.
  virtual std::optional<std::string> realpath(std::string_view path) const = 0;
  // The child names of a directory (symlinks to it followed), sorted; empty when it is no directory.
  virtual std::vector<std::string> list(std::string_view dir) const = 0;
  // A regular file's bytes (symlinks followed); nullopt when it is absent, not a file, larger than
  // `max`, or its content is not available to this view.
  virtual std::optional<std::string> read(std::string_view path, size_t max = kDefaultMaxRead) const = 0;
  // Every path (relative, no leading '/', symlinks not followed) for which `match` is true, sorted.
  // The default walks list(); a view that holds an index of its paths answers faster.
  virtual std::vector<std::string> find(const std::function<bool(std::string_view path)>& match) const;
};

}  // namespace rp
