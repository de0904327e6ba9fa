#pragma once
// entries/member_archive.hpp over the content store: archives that ecosystem modules turn into
// entries are kept as store blobs, indexed once (assemble/tar_index.hpp), and their members stream
// into layers straight from the plain tar (TarMemberContent). The store must outlive what these hand out.
#include <memory>
#include <string>

#include "entries/member_archive.hpp"
#include "store/content_store.hpp"

namespace rp {

// The archive blob `archive_digest` (already verified, in `store`), named `what` in messages and in
// its members' descriptions.
std::unique_ptr<MemberArchive> open_store_archive(ContentStore& store, const std::string& archive_digest,
                                                  const std::string& what);

// Opens archives handed over as bytes by copying them into the store once: a record keyed by the
// source's content key remembers the copy, so a warm build neither copies nor scans again.
class StoreArchiveOpener final : public ArchiveOpener {
 public:
  explicit StoreArchiveOpener(ContentStore& store) : store_(store) {}
  std::unique_ptr<MemberArchive> open(const ContentSource& archive, const std::string& what) const override;

 private:
  ContentStore& store_;
};

}  // namespace rp
