#pragma once
// The decompressed stream of a gzip file, for readers of gzip layer blobs that want it faster than
// libarchive's zlib filter (LayerArchive hands it to libarchive) and want both digests. Members
// that lie whole in the input buffer and inflate to at most the output buffer (rockpack's parallel
// gzip writes 1 MiB blocks as separate members) are inflated by libdeflate, about twice zlib's
// speed; any other member (the single member of most tools' layers, a copied wheel stream) by zlib,
// streaming. The compressed bytes go through `compressed_sha`, the decompressed ones through
// `uncompressed_sha` (either may be null), so a blob's digest and its diff_id are both checked in
// the one pass. Bytes after the last member that are not another member are hashed and ignored, as
// libarchive's filter ignores them. Errors are returned, not thrown, for a C callback to pass on.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "util/digest.hpp"

namespace rp {

class GzipFdReader {
 public:
  // The compressed window: a member that fits in half of it is always whole when it is tried, since
  // the window is topped up whenever less than half is left. Members that inflate to at most
  // `libdeflate_limit` go through libdeflate (rockpack's are 1 MiB). The fuzz target makes both
  // small, so that every path is reached with small inputs.
  static constexpr size_t kInputWindow = 8u << 20;
  static constexpr size_t kLibdeflateLimit = 4u << 20;
  GzipFdReader(int fd, Sha256* compressed_sha, Sha256* uncompressed_sha, size_t input_window = kInputWindow,
               size_t libdeflate_limit = kLibdeflateLimit);
  ~GzipFdReader();
  GzipFdReader(const GzipFdReader&) = delete;
  GzipFdReader& operator=(const GzipFdReader&) = delete;

  // The next decompressed bytes: > 0, 0 at the end, < 0 on an error (error() says which).
  int64_t next(const void** out);
  const std::string& error() const { return error_; }

 private:
  bool fill();  // reads more compressed input; false on a read error
  int64_t fail(const std::string& message);

  int fd_;
  Sha256* compressed_sha_;
  Sha256* uncompressed_sha_;
  std::vector<unsigned char> in_, out_;
  size_t in_pos_ = 0, in_end_ = 0;
  bool eof_ = false;
  bool streaming_ = false;  // inside a member zlib inflates
  bool done_ = false;
  uint64_t members_ = 0;
  std::string error_;
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace rp
