#pragma once
// A layer blob of the store opened for reading with libarchive: gzip, zstd or plain tar by the
// descriptor's media type. The blob's bytes are hashed as libarchive pulls them, so a corrupt store
// copy is noticed although libarchive reads the file itself. RootfsView (metadata) and the run
// step's materialization (files on disk) both read base layers through it.
#include <archive.h>

#include <memory>
#include <string>
#include <vector>

#include "image/descriptor.hpp"
#include "store/content_store.hpp"

namespace rp {

class LayerArchive {
 public:
  // Throws rp::Error for a missing blob or an unsupported media type.
  LayerArchive(const ContentStore& store, const Descriptor& layer);
  ~LayerArchive();
  LayerArchive(const LayerArchive&) = delete;
  LayerArchive& operator=(const LayerArchive&) = delete;

  archive* get() { return archive_; }
  // "layer sha256:...", for messages.
  const std::string& where() const { return where_; }
  // libarchive's last error, or "unknown error".
  std::string error() const;
  // Call after archive_read_next_header returned ARCHIVE_EOF: hashes what libarchive left unread
  // (the padding after the end-of-archive blocks) and throws rp::Error when the blob does not match
  // its digest.
  void verify_digest();

 private:
  struct Reader;
  std::unique_ptr<Reader> reader_;
  archive* archive_ = nullptr;
  std::string where_;
  std::string digest_;
};

}  // namespace rp
