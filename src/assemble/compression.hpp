#pragma once
// Layer compression. Both compressors are deterministic for a given level whatever the thread count:
// gzip output is a series of independent gzip members of fixed-size input blocks (readers treat
// concatenated members as one stream: Go's gzip, containerd, moby), and zstd's multithreaded mode
// produces the same frame for any worker count >= 1.
#include <cstdint>
#include <memory>
#include <string>

#include "util/byte_sink.hpp"

namespace rp {

struct Compression {
  enum class Kind { kGzip, kZstd, kNone };
  Kind kind = Kind::kGzip;
  int level = 6;

  // "gzip", "gzip:9", "zstd", "zstd:19", "none". Throws InputError.
  static Compression parse(const std::string& text);
  std::string str() const;         // canonical "gzip:6"
  const char* media_type() const;  // OCI layer media type
};

// Copies a deflate stream made elsewhere (a wheel's zip member) into a gzip layer as a gzip member
// of its own, instead of compressing the same bytes again. Between begin() and end() the
// compressor still receives the uncompressed bytes through write() (the diff_id is hashed on the way
// to it) but only checksums them for the member's trailer; the stream goes to deflate_sink().
class DeflatePassthrough {
 public:
  virtual ~DeflatePassthrough() = default;
  // Ends the current gzip member (writing out every block before it) and starts the copied one.
  virtual void begin() = 0;
  virtual ByteSink& deflate_sink() = 0;
  // Writes the member's trailer (CRC-32 and size of the uncompressed bytes written meanwhile).
  virtual void end() = 0;
};

// A ByteSink that compresses into `out`; finish() must be called once all input is written.
class Compressor : public ByteSink {
 public:
  virtual void finish() = 0;
  // Non-null when this compressor can copy deflate streams: gzip at level 6 or below. Wheels are
  // deflated at zlib's default level 6 (Python's zipfile), so compressing their members again at
  // the same level would spend most of a layer's time to gain nothing; a recipe that asks for more
  // than 6 gets everything compressed again.
  virtual DeflatePassthrough* deflate_passthrough() { return nullptr; }
  // The most memory the compression library held at once (zstd: its contexts, jobs and input ring,
  // counted by its allocator); 0 when not counted.
  virtual uint64_t peak_memory() const { return 0; }
};

// threads = 0 means util/cpus.hpp's worker count.
std::unique_ptr<Compressor> make_compressor(const Compression& c, ByteSink& out, unsigned threads = 0);

// What the compressors start with `threads` workers, bounded by a layer's share of
// memory::kCompressionShare (assemble/memory_budget.hpp), not by the workers: gzip keeps at most 16
// blocks of 1 MiB (with their output) in flight; zstd runs `threads` + 1 workers (`threads` on one
// CPU), as many as their contexts, 2 MiB jobs (input and output) and input ring fit in 32 MiB at
// that level (3 at level 3), and at least 2.
unsigned zstd_workers(int level, unsigned threads);

}  // namespace rp
