#pragma once
// Archives kept in the store and indexed for streaming members into layers (the model is
// entries/tar_index.hpp). A compressed archive is decompressed once into the store as a plain tar; a
// plain tar is indexed where it is. The index is cached as a store record, so a warm build neither
// decompresses nor scans it again.
#include <string>

#include "entries/tar_index.hpp"
#include "store/content_store.hpp"

namespace rp {

// The index of the archive blob `archive_digest` (tar, tar.gz, tar.zst, tar.xz: detected), from the
// store record "tar-index" when present, else by decompressing it into the store (a plain tar is
// used as it is) and indexing it. `what` names the archive in errors.
TarIndex load_tar_index(ContentStore& store, const std::string& archive_digest, const std::string& what);

}  // namespace rp
