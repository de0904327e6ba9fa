#pragma once
// The entry type of a libarchive member, for every reader of layer tars (RootfsView, the sandbox's
// materialize): hardlinks first (libarchive reports them with the target's file type), then regular
// files, directories and symlinks; nullopt for devices, fifos and sockets, which no reader keeps.
#include <archive_entry.h>

#include <optional>

#include "entries/entry.hpp"

namespace rp {

inline std::optional<EntryType> archive_member_type(archive_entry* e) {
  if (archive_entry_hardlink(e)) return EntryType::kHardlink;
  switch (archive_entry_filetype(e)) {
    case AE_IFREG: return EntryType::kFile;
    case AE_IFDIR: return EntryType::kDirectory;
    case AE_IFLNK: return EntryType::kSymlink;
    default: return std::nullopt;
  }
}

}  // namespace rp
