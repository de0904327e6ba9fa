#pragma once
// Turns files and directory trees of the build host into layer entries. A directory keeps its
// symlinks (as links, never followed), its hardlinks (as tar hardlinks to the first path of each
// group in sorted order) and its modes; ownership comes from the recipe, not the host.
#include <optional>
#include <string>
#include <vector>

#include "entries/entry.hpp"
#include "util/fs.hpp"

namespace rp {

struct HostCopy {
  fs::path src;
  std::string dest;              // normalized image path (no leading '/')
  std::optional<uint32_t> mode;  // only for a single file
  uint32_t uid = 0;
  uint32_t gid = 0;
  std::string origin;  // "recipe.yaml:12:5" for messages
};

// Appends the entries for one copy. Throws InputError for sockets, devices, FIFOs and unreadable paths.
void add_host_entries(const HostCopy& copy, std::vector<Entry>& out);

}  // namespace rp
