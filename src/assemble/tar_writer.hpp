#pragma once
// A deterministic PAX tar writer. Headers carry only what an image needs: path, mode, uid/gid,
// size, one fixed mtime, link target. No user/group names, no atime/ctime, no device numbers for
// regular entries. Paths or link targets over 100 bytes, sizes over 8 GiB and large ids go into a
// PAX extended header, as Go's archive/tar (moby, containerd) writes them.
#include <cstdint>
#include <string>

#include "assemble/compression.hpp"
#include "entries/entry.hpp"
#include "util/byte_sink.hpp"

namespace rp {

// A content produced on another thread while the writer takes it (a file too large to hold whole,
// assemble/read_ahead.hpp): pieces of its bytes and, when the writer copies its deflate stream,
// pieces of that stream, in the order they were produced.
class ContentStream {
 public:
  struct Chunk {
    std::shared_ptr<const std::string> bytes;
    bool deflated = false;  // a piece of the raw deflate stream, not of the file's bytes
  };
  virtual ~ContentStream() = default;
  // The next piece; false at the end. Rethrows what producing the content threw.
  virtual bool next(Chunk& chunk) = 0;
};

// A regular file's content produced ahead of time (assemble/read_ahead.hpp), exactly what its
// ContentSource writes: `bytes` as write_to gives them, and with `has_deflated` also the raw deflate
// stream write_with_deflate gives, for a gzip layer to copy. A large file comes as a `stream` instead.
struct RenderedContent {
  std::shared_ptr<const std::string> bytes;  // shared: the diff_id's hasher may keep it past add()
  std::string deflated;
  bool has_deflated = false;
  std::shared_ptr<ContentStream> stream;  // set: the content comes piece by piece (bytes, deflated unused)
};

class TarWriter {
 public:
  // With `passthrough` (the layer's gzip compressor), contents that hold a deflate stream (large
  // wheel members) are copied into the layer as their own gzip members instead of compressed again.
  TarWriter(ByteSink& out, int64_t mtime, DeflatePassthrough* passthrough = nullptr)
      : out_(out), mtime_(mtime), passthrough_(passthrough) {}
  // Writes the entry's header and streams its content. Entries must come in the final order.
  // With `rendered`, a regular file's content is taken from it instead of its ContentSource; it must
  // hold the deflate stream exactly when this writer would copy one (passthrough and a content
  // with a deflate stream).
  void add(const Entry& entry, const RenderedContent* rendered = nullptr);
  // Whether add() copies this entry's deflate stream instead of compressing its bytes.
  bool copies_deflate(const Entry& entry) const {
    return passthrough_ && entry.content && entry.content->has_deflate_stream();
  }
  // Writes the two zero blocks that end an archive.
  void finish();
  uint64_t bytes_written() const { return written_; }

 private:
  void emit(const void* data, size_t size);
  void emit_shared(const std::shared_ptr<const std::string>& bytes);
  void pad_to_block(uint64_t size);
  void write_pax_header(const std::string& name, const std::string& records);

  ByteSink& out_;
  int64_t mtime_;
  DeflatePassthrough* passthrough_;
  uint64_t written_ = 0;
};

}  // namespace rp
