#pragma once
// An archive an ecosystem module turns into image entries (a standalone interpreter archive,
// TheRock's devel tarball), seen without knowing where its bytes are kept: the member list and, for
// each regular file, a ContentSource that streams the member's bytes into a layer. The plan stage
// implements these over the content store (assemble/store_archives.hpp); the python and therock
// modules only read them, which keeps the store out of the ecosystem modules.
#include <memory>
#include <string>
#include <vector>

#include "entries/entry.hpp"
#include "entries/tar_index.hpp"

namespace rp {

class MemberArchive {
 public:
  virtual ~MemberArchive() = default;
  // In archive order; paths as written.
  virtual const std::vector<TarIndexMember>& members() const = 0;
  // The bytes of the regular-file member `m`, one of members().
  virtual std::shared_ptr<ContentSource> content(const TarIndexMember& m) const = 0;
};

// Opens an archive handed over as bytes, e.g. a tarball inside a wheel.
class ArchiveOpener {
 public:
  virtual ~ArchiveOpener() = default;
  // `archive` is a plain tar or a compressed one (gzip, zstd, xz: detected). `what` names it in
  // errors. Throws rp::InputError for an archive that cannot be read.
  virtual std::unique_ptr<MemberArchive> open(const ContentSource& archive, const std::string& what) const = 0;
};

}  // namespace rp
