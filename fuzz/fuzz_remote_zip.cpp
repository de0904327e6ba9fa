// Fuzzes the remote zip reader: the input is a whole "remote file" served through an in-memory
// RangeSource, so the end-record search, zip64 records, central directory parsing, the member's
// local header and the inflater all see hostile bytes. Only rp::Error may come out, and a METADATA
// that is returned must have passed its CRC (its size equals the directory's claim).
// Seed it with real wheels: ./fuzz_remote_zip corpus/ /usr/share/python-wheels/
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "python/remote_wheel.hpp"
#include "util/error.hpp"

namespace {

class MemorySource final : public rp::python::RangeSource {
 public:
  explicit MemorySource(std::string_view bytes) : bytes_(bytes) {}
  std::string read_tail(uint64_t length, uint64_t* file_size) override {
    *file_size = bytes_.size();
    uint64_t n = std::min<uint64_t>(length, bytes_.size());
    return std::string(bytes_.substr(bytes_.size() - n));
  }
  std::string read_range(uint64_t offset, uint64_t length) override {
    // The reader must only ask for bytes inside the file it was told about.
    if (offset > bytes_.size() || length > bytes_.size() - offset) __builtin_trap();
    return std::string(bytes_.substr(offset, length));
  }

 private:
  std::string_view bytes_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  MemorySource source(bytes);
  rp::python::RemoteReadOptions options;
  options.tail_size = 1024;  // small, so the "fetch more" paths run too
  options.max_member_size = 1 << 20;
  try {
    std::string text = rp::python::read_remote_metadata(source, "fuzz.whl", "fuzz", options);
    if (text.size() > options.max_member_size) __builtin_trap();
  } catch (const rp::Error&) {
  }
  // The pure parsers directly, on the input as a tail.
  try {
    auto end = rp::python::locate_central_directory(bytes, size, "fuzz.whl");
    if (end.location && end.location->offset <= size && end.location->size <= size - end.location->offset) {
      auto members = rp::python::parse_central_directory(
          bytes.substr(end.location->offset, end.location->size), *end.location, "fuzz.whl");
      for (const auto& m : members) {
        if (m.local_header_offset > size) continue;
        uint64_t need = 0;
        (void)rp::python::extract_member(m, bytes.substr(m.local_header_offset), 1 << 20, "fuzz.whl", &need);
      }
    }
  } catch (const rp::Error&) {
  }
  return 0;
}
