#pragma once
// A layer file whose bytes are a byte range of a plain tar blob in the store (see tar_index.hpp):
// a member of a downloaded archive streams into the layer with no unpacked copy of the archive.
#include <memory>
#include <string>

#include "entries/entry.hpp"
#include "store/content_store.hpp"

namespace rp {

// The archive a member comes from, shared by all its members (a devel tarball has 20,000).
struct TarArchiveRef {
  std::string tar_digest;      // the plain tar blob the offsets point into
  std::string archive_digest;  // the archive as downloaded, verified: with a member path it names the bytes
  std::string archive_name;    // for messages
};

class TarMemberContent final : public ContentSource {
 public:
  TarMemberContent(const ContentStore& store, std::shared_ptr<const TarArchiveRef> archive, uint64_t offset,
                   uint64_t size, std::string member)
      : store_(store), archive_(std::move(archive)), offset_(offset), size_(size), member_(std::move(member)) {}

  uint64_t size() const override { return size_; }
  // Throws rp::Error when the tar blob is missing or shorter than the index says.
  void write_to(ByteSink& sink) const override;
  // "tar-member:<archive digest>:<member path>": no hashing needed for the cache key.
  std::string content_key() const override;
  std::string describe() const override { return archive_->archive_name + ":" + member_; }

 private:
  const ContentStore& store_;
  std::shared_ptr<const TarArchiveRef> archive_;
  uint64_t offset_;
  uint64_t size_;
  std::string member_;
};

}  // namespace rp
