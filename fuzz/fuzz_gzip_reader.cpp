// Fuzzes GzipFdReader (util/gzip_fd_reader.hpp): our own walk over gzip members, handing members
// that fit to libdeflate and the rest to zlib, used to read layer blobs of images that `rockpack
// diff`, `inspect` and `--compare-to` take from anywhere. The bytes are written to a file, as the
// reader reads a blob by its fd. Nothing may crash or hang; checked: the decompressed bytes handed
// out are exactly the ones the reader hashed as the diff_id, and the compressed hash covers every
// input byte once the stream is read to its end.
#include <fcntl.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "util/digest.hpp"
#include "util/gzip_fd_reader.hpp"
#include "fuzz_scratch.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = fuzz_scratch_dir() + "/input.gz";
  std::string_view input(reinterpret_cast<const char*>(data), size);
  write_scratch_file(path, input);
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  rp::Sha256 compressed, uncompressed, handed_out;
  {
    // Small windows: members larger than the libdeflate limit and window refills happen with small
    // inputs too (and the default 12 MiB of buffers per input made ASan crawl).
    rp::GzipFdReader reader(fd, &compressed, &uncompressed, 4096, 2048);
    const void* out = nullptr;
    int64_t n;
    uint64_t total = 0;
    while ((n = reader.next(&out)) > 0) {
      handed_out.update(out, static_cast<size_t>(n));
      total += static_cast<uint64_t>(n);
      if (total > (uint64_t{256} << 20)) break;  // a bomb: the caller's own bound stops it, not ours to test
    }
    if (n < 0 && reader.error().empty()) __builtin_trap();  // a failure must say what failed
    if (n == 0) {
      if (uncompressed.finish_digest() != handed_out.finish_digest()) __builtin_trap();
      if (compressed.finish_digest() != rp::sha256_digest(input)) __builtin_trap();
    }
  }
  ::close(fd);
  return 0;
}
