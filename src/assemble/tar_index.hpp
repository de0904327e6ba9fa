#pragma once
// An index of a tar archive's members with the byte offset of each member's data, so a member can
// be streamed straight out of the (uncompressed) tar into a layer. A compressed archive is
// decompressed once into the store as a plain tar; the index is cached as a store record, so a warm
// build neither decompresses nor scans it again.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "entries/entry.hpp"
#include "store/content_store.hpp"

namespace rp {

struct TarIndexMember {
  std::string path;  // as written in the archive (PAX and GNU long names applied)
  EntryType type = EntryType::kFile;
  uint32_t mode = 0;
  uint64_t size = 0;    // data bytes, regular files only
  uint64_t offset = 0;  // where the data starts in the plain tar
  std::string link_target;  // symlink target or hardlink target, as written
  uint32_t uid = 0, gid = 0;          // numeric owner as written
  std::string uname, gname;           // owner names, when the archive has them (.deb data: "root", "shadow")
};

struct TarIndex {
  std::string tar_digest;  // the plain tar blob in the store
  std::vector<TarIndexMember> members;

  nlohmann::json to_json() const;
  // Throws rp::Error for a malformed record.
  static TarIndex from_json(const nlohmann::json& j);
};

// Reads the member headers of a plain (uncompressed) tar file, seeking over the data. Regular
// files, directories, symlinks and hardlinks only. Throws rp::InputError naming `what` for a
// malformed, truncated or unsupported archive.
std::vector<TarIndexMember> index_plain_tar(const fs::path& file, const std::string& what);

// The index of the archive blob `archive_digest` (tar, tar.gz, tar.zst, tar.xz: detected), from the
// store record "tar-index" when present, else by decompressing it into the store and indexing it.
// `what` names the archive in errors.
TarIndex load_tar_index(ContentStore& store, const std::string& archive_digest, const std::string& what);

}  // namespace rp
