#pragma once
// Layer compression. Both compressors are deterministic for a given level whatever the thread count:
// gzip output is a series of independent gzip members of fixed-size input blocks (readers treat
// concatenated members as one stream: Go's gzip, containerd, moby), and zstd's multithreaded mode
// produces the same frame for any worker count >= 1.
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

// A ByteSink that compresses into `out`; finish() must be called once all input is written.
class Compressor : public ByteSink {
 public:
  virtual void finish() = 0;
};

// threads = 0 means one per core.
std::unique_ptr<Compressor> make_compressor(const Compression& c, ByteSink& out, unsigned threads = 0);

}  // namespace rp
