#pragma once
// Writes the root filesystem built so far into a directory the sandbox can chroot into: one layer's
// entries at a time, lowest first, so OCI whiteouts (".wh.<name>", ".wh..wh..opq") of a layer
// remove what lower layers wrote. Contents stream from each entry's ContentSource; modes, owners,
// symlinks, hard links and file xattrs are kept. Symlinks in a path's parents are followed the way a
// container runtime follows them (usrmerge: bin -> usr/bin), but resolved inside `root` only
// (openat2 RESOLVE_IN_ROOT), so an image can never make rockpack write outside `root`.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "entries/entry.hpp"
#include "sandbox/id_map.hpp"

struct archive;  // libarchive's reader handle

namespace rp {

// Owners are written through `ids` (a sandbox's user namespace: container root becomes its host id);
// the default writes them as they are. `mtime`: the modification time files and symlinks get, the
// one the layer writer gives every entry (SOURCE_DATE_EPOCH): what a command reads from it -- a
// .pyc's record of its source's mtime -- then holds in the image and is the same on every build.
// Without it they keep the time they were written.
void materialize_layer(const std::vector<Entry>& entries, const std::filesystem::path& root, const IdMapping& ids = {},
                       std::optional<int64_t> mtime = std::nullopt);

// The same for a layer tar read with libarchive (a base image's layer): every member up to the end
// of the archive, with its own mtime. Devices and fifos are skipped (the sandbox mounts its own
// /dev); members with ".." are skipped. Throws rp::Error naming `where` for an unreadable archive.
void materialize_archive(::archive* a, const std::filesystem::path& root, const std::string& where,
                         const IdMapping& ids = {});

struct SandboxUser {
  uint32_t uid = 0;
  uint32_t gid = 0;
};

// "name", "uid", "name:group" or "uid:gid" as the image config's User; names are looked up in the
// rootfs' /etc/passwd and /etc/group, opened inside the root (symlinks resolved there, never on the
// host), regular files only, at most 4 MiB read. Throws InputError naming `origin` for an unknown
// name or an unreadable file.
SandboxUser resolve_user(const std::filesystem::path& root, const std::string& user, const std::string& origin);

}  // namespace rp
