#pragma once
// The zip format (APPNOTE.TXT) as both wheel readers need it: the local file on disk
// (wheel_archive.cpp) and the remote one read by ranges (remote_wheel.cpp). Its constants and
// integer readers, and the parsing of the end records and the central directory — pure functions
// over bytes, so they can be fuzzed; every offset and length they read is untrusted.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rp::python::zip {

constexpr uint32_t kLocalHeaderSignature = 0x04034b50;
constexpr uint32_t kCentralHeaderSignature = 0x02014b50;
constexpr uint32_t kEndSignature = 0x06054b50;
constexpr uint32_t kZip64EndSignature = 0x06064b50;
constexpr uint32_t kZip64LocatorSignature = 0x07064b50;
constexpr uint64_t kEndRecordSize = 22;
constexpr uint64_t kZip64LocatorSize = 20;
constexpr uint64_t kZip64EndRecordSize = 56;
constexpr uint64_t kCentralHeaderSize = 46;
constexpr uint64_t kLocalHeaderSize = 30;
constexpr uint64_t kMaxCommentSize = 0xffff;

// Little-endian integers at `p` (the caller has checked the bounds).
inline uint16_t le16(const unsigned char* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }
inline uint32_t le32(const unsigned char* p) {
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) | (static_cast<uint32_t>(p[2]) << 16) |
         (static_cast<uint32_t>(p[3]) << 24);
}
inline uint64_t le64(const unsigned char* p) { return le32(p) | (static_cast<uint64_t>(le32(p + 4)) << 32); }
// The bytes of a string, for the readers above.
inline const unsigned char* bytes_of(std::string_view s) { return reinterpret_cast<const unsigned char*>(s.data()); }

}  // namespace rp::python::zip

namespace rp::python {

struct ZipMember {
  std::string name;  // as stored: '/'-separated, relative; directories end with '/'
  uint16_t method = 0;  // kStored or kDeflated
  uint16_t flags = 0;
  uint32_t crc32 = 0;
  uint64_t compressed_size = 0;
  uint64_t uncompressed_size = 0;
  uint64_t local_header_offset = 0;
  uint64_t data_offset = 0;  // first byte of the (compressed) data, after the local header
  uint32_t external_attr = 0;

  static constexpr uint16_t kStored = 0;
  static constexpr uint16_t kDeflated = 8;

  bool is_directory() const { return !name.empty() && name.back() == '/'; }
  // The Unix st_mode written by Unix zip tools in the high 16 bits; 0 when the creator did not set it.
  uint32_t unix_mode() const { return external_attr >> 16; }
};

struct CentralDirectoryLocation {
  uint64_t offset = 0;  // of the first central directory entry, from the start of the file
  uint64_t size = 0;
  uint64_t count = 0;
};

// What the end of a zip file says. When `tail` (the last bytes of a file of `file_size` bytes) does
// not reach back far enough (the zip64 end record lies before it), `need_tail` is the number of tail
// bytes to fetch instead; otherwise `location` is set.
struct ZipEndInfo {
  std::optional<CentralDirectoryLocation> location;
  uint64_t need_tail = 0;
};

// Throws rp::InputError (naming `display_name`) when there is no valid end record or the directory
// it describes lies outside the file.
ZipEndInfo locate_central_directory(std::string_view tail, uint64_t file_size, std::string_view display_name);

// Parses the central directory bytes (exactly `location.size` bytes from `location.offset`).
// Members get everything but `data_offset` (that needs the local header). Throws rp::InputError.
std::vector<ZipMember> parse_central_directory(std::string_view directory, const CentralDirectoryLocation& location,
                                               std::string_view display_name);

}  // namespace rp::python
