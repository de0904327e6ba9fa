#pragma once
// An index of a plain tar archive's members with the byte offset of each member's data, so a member
// can be streamed straight out of the tar into a layer. This is the model only: where the tar lives
// (a store blob, decompressed once and its index cached) is assemble/tar_index.hpp's business, and
// ecosystem modules see an indexed archive through entries/member_archive.hpp.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "entries/entry.hpp"
#include "util/fs.hpp"

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
  std::string tar_digest;  // the plain tar blob the offsets point into
  std::vector<TarIndexMember> members;

  // The cached form: compact binary (see tar_index.cpp), because a warm build reads it back on every
  // run and TheRock's devel tarball has 20,000 members: as JSON that alone took 0.15 s.
  std::string serialize() const;
  // Reads serialize()'s bytes back. Throws rp::Error for anything else (a damaged or older record):
  // every length and count is checked against the bytes left, so no input makes it read out of
  // bounds or allocate more than the input's size.
  static TarIndex parse(std::string_view bytes);
};

// Reads the member headers of a plain (uncompressed) tar file, seeking over the data. Regular
// files, directories, symlinks and hardlinks only. Throws rp::InputError naming `what` for a
// malformed, truncated or unsupported archive.
std::vector<TarIndexMember> index_plain_tar(const fs::path& file, const std::string& what);

}  // namespace rp
