#pragma once
// Writes the root filesystem built so far into a directory the sandbox can chroot into: one layer's
// entries at a time, lowest first, so OCI whiteouts (".wh.<name>", ".wh..wh..opq") of a layer
// remove what lower layers wrote. Contents stream from each entry's ContentSource; modes, owners,
// symlinks and hard links are kept. A path whose parent is a symlink is refused, so an image can
// never make rockpack write outside `root`.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "entries/entry.hpp"

namespace rp {

void materialize_layer(const std::vector<Entry>& entries, const std::filesystem::path& root);

struct SandboxUser {
  uint32_t uid = 0;
  uint32_t gid = 0;
};

// "name", "uid", "name:group" or "uid:gid" as the image config's User; names are looked up in the
// rootfs' /etc/passwd and /etc/group. Throws InputError naming `origin` for an unknown name.
SandboxUser resolve_user(const std::filesystem::path& root, const std::string& user, const std::string& origin);

}  // namespace rp
