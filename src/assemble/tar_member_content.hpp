#pragma once
// A layer file whose bytes are a byte range of a plain tar blob in the store (see tar_index.hpp):
// a member of a downloaded archive streams into the layer with no unpacked copy of the archive.
#include <string>

#include "entries/entry.hpp"
#include "store/content_store.hpp"

namespace rp {

class TarMemberContent final : public ContentSource {
 public:
  // `archive_digest` is the verified digest of the archive as downloaded: with the member path it
  // identifies the bytes, so the cache key needs no hashing. `archive_name` is for messages.
  TarMemberContent(const ContentStore& store, std::string tar_digest, uint64_t offset, uint64_t size,
                   std::string archive_digest, std::string archive_name, std::string member)
      : store_(store),
        tar_digest_(std::move(tar_digest)),
        offset_(offset),
        size_(size),
        archive_digest_(std::move(archive_digest)),
        archive_name_(std::move(archive_name)),
        member_(std::move(member)) {}

  uint64_t size() const override { return size_; }
  // Throws rp::Error when the tar blob is missing or shorter than the index says.
  void write_to(ByteSink& sink) const override;
  // "tar-member:<archive digest>:<member path>"
  std::string content_key() const override;
  std::string describe() const override { return archive_name_ + ":" + member_; }

 private:
  const ContentStore& store_;
  std::string tar_digest_;
  uint64_t offset_;
  uint64_t size_;
  std::string archive_digest_;
  std::string archive_name_;
  std::string member_;
};

}  // namespace rp
