#include "assemble/store_archives.hpp"

#include "assemble/tar_index.hpp"
#include "assemble/tar_member_content.hpp"

namespace rp {

namespace {

class StoreArchive final : public MemberArchive {
 public:
  StoreArchive(const ContentStore& store, std::string archive_digest, std::string what, TarIndex index)
      : store_(store),
        archive_(std::make_shared<const TarArchiveRef>(TarArchiveRef{index.tar_digest, std::move(archive_digest), std::move(what)})),
        index_(std::move(index)) {}

  const std::vector<TarIndexMember>& members() const override { return index_.members; }

  // The archive's digest and the member's path name the bytes (TarMemberContent's content key).
  std::shared_ptr<ContentSource> content(const TarIndexMember& m) const override {
    return std::make_shared<TarMemberContent>(store_, archive_, m.offset, m.size, m.path);
  }

 private:
  const ContentStore& store_;
  std::shared_ptr<const TarArchiveRef> archive_;
  TarIndex index_;
};

// Which store blob holds the bytes of a content source, by its content key.
constexpr const char* kCopyRecord = "archive-copy";

}  // namespace

std::unique_ptr<MemberArchive> open_store_archive(ContentStore& store, const std::string& archive_digest,
                                                  const std::string& what) {
  return std::make_unique<StoreArchive>(store, archive_digest, what, load_tar_index(store, archive_digest, what));
}

std::unique_ptr<MemberArchive> StoreArchiveOpener::open(const ContentSource& archive, const std::string& what) const {
  const std::string key = archive.content_key();
  std::string digest;
  if (auto record = store_.get_record(kCopyRecord, key)) {
    auto it = record->find("blob");
    if (it != record->end() && it->is_string() && store_.contains(it->get<std::string>())) digest = it->get<std::string>();
  }
  if (digest.empty()) {
    auto writer = store_.begin_blob();
    archive.write_to(*writer);
    digest = writer->commit();
    store_.put_record(kCopyRecord, key, {{"blob", digest}});
  }
  return open_store_archive(store_, digest, what);
}

}  // namespace rp
