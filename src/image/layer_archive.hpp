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
  // With `diff_id` given, a gzip or plain tar layer's uncompressed bytes are checked against it too
  // (verify_digest); a zstd layer's are not (libarchive decompresses those).
  LayerArchive(const ContentStore& store, const Descriptor& layer, const std::string& diff_id = {});
  // The blob read in place from `file` (an OCI layout's blobs/sha256/<hex>), hashed as it is read
  // just as a store blob is: verify_digest() checks it against the descriptor's digest.
  LayerArchive(const fs::path& file, const Descriptor& layer, const std::string& diff_id = {});
  ~LayerArchive();
  LayerArchive(const LayerArchive&) = delete;
  LayerArchive& operator=(const LayerArchive&) = delete;

  // Whether verify_digest() checks `layer`'s diff_id too (gzip and plain tar layers).
  static bool checks_diff_id(const Descriptor& layer);
  // The compression of the blob at `file` by its first bytes (gzip 1f 8b, zstd 28 b5 2f fd, else a
  // plain tar): "gzip", "zstd" or "none". A media type is only what someone wrote; readers that
  // trust it (umoci, containerd) refuse a layer whose bytes say otherwise. Throws rp::Error when the
  // file cannot be read.
  static std::string sniff_compression(const fs::path& file);
  // The compression a layer media type names: "gzip", "zstd", "none", or "" for an unknown type.
  static std::string compression_of(const std::string& media_type);

  archive* get() { return archive_; }
  // "layer sha256:...", for messages.
  const std::string& where() const { return where_; }
  // libarchive's last error, or "unknown error".
  std::string error() const;
  // Call after archive_read_next_header returned ARCHIVE_EOF: hashes what libarchive left unread
  // (the padding after the end-of-archive blocks) and throws rp::Error when the blob does not match
  // its digest, or its uncompressed bytes the diff_id given.
  void verify_digest();

 private:
  struct Reader;
  void open(const fs::path& file, const Descriptor& layer);
  std::unique_ptr<Reader> reader_;
  archive* archive_ = nullptr;
  std::string where_;
  std::string digest_;
  std::string diff_id_;
};

}  // namespace rp
