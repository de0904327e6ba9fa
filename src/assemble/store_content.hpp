#pragma once
#include "entries/entry.hpp"
#include "store/content_store.hpp"

namespace rp {

// File content taken from a blob of the content store, verified as it streams.
class StoreBlobContent final : public ContentSource {
 public:
  StoreBlobContent(const ContentStore& store, std::string digest, uint64_t size)
      : store_(store), digest_(std::move(digest)), size_(size) {}
  uint64_t size() const override { return size_; }
  void write_to(ByteSink& sink) const override { store_.read(digest_, sink); }
  std::string content_key() const override { return digest_; }
  std::string describe() const override { return "store blob " + digest_; }

 private:
  const ContentStore& store_;
  std::string digest_;
  uint64_t size_;
};

}  // namespace rp
