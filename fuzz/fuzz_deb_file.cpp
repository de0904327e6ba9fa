// Fuzzes the .deb reader (apt::read_deb_layout, apt::read_control_archive,
// apt::decompress_data_archive) on arbitrary bytes written to a file, as the installer reads a
// downloaded package, and the index decompressor (apt::decompress_index) on the same bytes as
// Packages.xz and Packages.gz. Only rp::Error may come out. Members must lie inside the file.
// Seed it with real packages: ./fuzz_deb_file corpus/ /var/cache/apt/archives/ (small ones)
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "apt/deb_file.hpp"
#include "apt/package_index.hpp"
#include "util/byte_sink.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "fuzz_scratch.hpp"

namespace {

// Counts what is written and stops a decompression bomb (the real data archive is hashed first).
class CappedCountingSink final : public rp::ByteSink {
 public:
  void write(const void*, size_t size) override {
    count_ += size;
    if (count_ > (256u << 20)) throw rp::Error("fuzz: more than 256 MiB decompressed");
  }
  uint64_t count() const { return count_; }

 private:
  uint64_t count_ = 0;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = fuzz_scratch_dir() + "/input.deb";
  std::string_view input(reinterpret_cast<const char*>(data), size);
  write_scratch_file(path, input);
  try {
    rp::apt::DebLayout layout = rp::apt::read_deb_layout(path, "fuzz.deb");
    for (const auto* m : {&layout.control, &layout.data})
      if (m->offset > size || m->size > size - m->offset) __builtin_trap();
    try {
      auto control = rp::apt::read_control_archive(path, layout.control, "fuzz.deb");
      if (!control.files.count("control") || control.files.size() != control.modes.size()) __builtin_trap();
    } catch (const rp::Error&) {
    }
    CappedCountingSink sink;
    rp::apt::decompress_data_archive(path, layout.data, sink, "fuzz.deb");
  } catch (const rp::Error&) {
  }
  for (const char* name : {"x.xz", "x.gz"}) {
    try {
      (void)rp::apt::decompress_index(input, name, "fuzz index");
    } catch (const rp::Error&) {
    }
  }
  return 0;
}
