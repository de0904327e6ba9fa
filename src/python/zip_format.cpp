#include "python/zip_format.hpp"

#include <algorithm>

#include "entries/path_parts.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

namespace rp::python {

namespace {

using namespace zip;

InputError bad_zip(std::string_view display_name, const std::string& what) {
  return InputError(std::string(display_name) + ": not a valid wheel: " + what,
                    "the wheel is damaged or not a zip archive; get it again, or report it to whoever published it");
}

}  // namespace

ZipEndInfo locate_central_directory(std::string_view tail, uint64_t file_size, std::string_view display_name) {
  if (tail.size() > file_size) throw bad_zip(display_name, "the server sent more bytes than the file has");
  if (file_size < kEndRecordSize) throw bad_zip(display_name, "too small to be a zip archive");
  const uint64_t tail_offset = file_size - tail.size();
  const uint64_t full_search = std::min<uint64_t>(file_size, kEndRecordSize + kMaxCommentSize);
  const unsigned char* t = bytes_of(tail);

  // The EOCD is the last record; only its comment may follow it.
  size_t eocd = std::string_view::npos;
  if (tail.size() >= kEndRecordSize) {
    for (size_t i = tail.size() - kEndRecordSize + 1; i-- > 0;) {
      if (le32(t + i) == kEndSignature && i + kEndRecordSize + le16(t + i + 20) == tail.size()) {
        eocd = i;
        break;
      }
    }
  }
  if (eocd == std::string_view::npos) {
    if (tail.size() < full_search) return ZipEndInfo{std::nullopt, full_search};
    throw bad_zip(display_name, "no end-of-central-directory record");
  }
  const unsigned char* e = t + eocd;
  const uint64_t eocd_offset = tail_offset + eocd;
  if (le16(e + 4) != 0 || le16(e + 6) != 0) throw bad_zip(display_name, "multi-disk archives are not supported");
  CentralDirectoryLocation loc{le32(e + 16), le32(e + 12), le16(e + 10)};
  uint64_t directory_end_limit = eocd_offset;

  if (eocd_offset >= kZip64LocatorSize) {
    const uint64_t locator_offset = eocd_offset - kZip64LocatorSize;
    if (locator_offset < tail_offset) {
      // Not in what we have; ask for enough to hold a locator and a zip64 end record before it.
      return ZipEndInfo{std::nullopt,
                        std::min(file_size, file_size - locator_offset + kZip64EndRecordSize)};
    }
    const unsigned char* l = t + (locator_offset - tail_offset);
    if (le32(l) == kZip64LocatorSignature) {
      if (le32(l + 4) != 0 || le32(l + 16) > 1) throw bad_zip(display_name, "multi-disk archives are not supported");
      const uint64_t record_offset = le64(l + 8);
      if (record_offset > locator_offset || locator_offset - record_offset < kZip64EndRecordSize)
        throw bad_zip(display_name, "the zip64 end record points outside the file");
      if (record_offset < tail_offset) return ZipEndInfo{std::nullopt, file_size - record_offset};
      const unsigned char* z = t + (record_offset - tail_offset);
      if (le32(z) != kZip64EndSignature) throw bad_zip(display_name, "the zip64 end record is missing");
      if (le32(z + 16) != 0 || le32(z + 20) != 0) throw bad_zip(display_name, "multi-disk archives are not supported");
      loc = CentralDirectoryLocation{le64(z + 48), le64(z + 40), le64(z + 32)};
      directory_end_limit = record_offset;
    }
  }
  if (loc.offset > directory_end_limit || loc.size > directory_end_limit - loc.offset)
    throw bad_zip(display_name, "the central directory points outside the file");
  if (loc.count > loc.size / kCentralHeaderSize)
    throw bad_zip(display_name, "the central directory is too small for its entry count");
  return ZipEndInfo{loc, 0};
}

std::vector<ZipMember> parse_central_directory(std::string_view directory, const CentralDirectoryLocation& location,
                                               std::string_view display_name) {
  if (directory.size() != location.size) throw bad_zip(display_name, "the central directory is incomplete");
  const unsigned char* c = bytes_of(directory);
  std::vector<ZipMember> members;
  members.reserve(static_cast<size_t>(location.count));
  size_t pos = 0;
  for (uint64_t i = 0; i < location.count; ++i) {
    const std::string entry = "central directory entry #" + std::to_string(i + 1);
    if (directory.size() - pos < kCentralHeaderSize || le32(c + pos) != kCentralHeaderSignature)
      throw bad_zip(display_name, "corrupt " + entry);
    const unsigned char* h = c + pos;
    ZipMember m;
    m.flags = le16(h + 8);
    m.method = le16(h + 10);
    m.crc32 = le32(h + 16);
    m.compressed_size = le32(h + 20);
    m.uncompressed_size = le32(h + 24);
    size_t name_len = le16(h + 28), extra_len = le16(h + 30), comment_len = le16(h + 32);
    uint32_t disk = le16(h + 34);
    m.external_attr = le32(h + 38);
    m.local_header_offset = le32(h + 42);
    if (directory.size() - pos - kCentralHeaderSize < name_len + extra_len + comment_len)
      throw bad_zip(display_name, entry + " runs past the directory");
    m.name.assign(directory.data() + pos + kCentralHeaderSize, name_len);
    if (const char* why = unsafe_member_name(m.name))
      throw bad_zip(display_name, "the name of " + entry + " ('" + printable(m.name) + "') holds " + why);
    const unsigned char* extra = h + kCentralHeaderSize + name_len;

    // Zip64 extended information (id 1) holds, in this order, only the saturated fields.
    bool need_usize = m.uncompressed_size == 0xffffffffu, need_csize = m.compressed_size == 0xffffffffu;
    bool need_offset = m.local_header_offset == 0xffffffffu, need_disk = disk == 0xffff;
    for (size_t x = 0; x + 4 <= extra_len;) {
      uint16_t id = le16(extra + x), len = le16(extra + x + 2);
      if (x + 4 + len > extra_len) throw bad_zip(display_name, "corrupt extra field in " + entry);
      if (id == 0x0001) {
        const unsigned char* f = extra + x + 4;
        size_t need = 8 * (need_usize + need_csize + need_offset) + 4 * need_disk;
        if (len < need) throw bad_zip(display_name, "truncated zip64 field in " + entry);
        if (need_usize) m.uncompressed_size = le64(f), f += 8, need_usize = false;
        if (need_csize) m.compressed_size = le64(f), f += 8, need_csize = false;
        if (need_offset) m.local_header_offset = le64(f), f += 8, need_offset = false;
        if (need_disk) disk = le32(f), need_disk = false;
      }
      x += 4 + len;
    }
    if (need_usize || need_csize || need_offset || need_disk)
      throw bad_zip(display_name, "missing zip64 field in " + entry);
    if (disk != 0) throw bad_zip(display_name, "multi-disk archives are not supported");
    // The member's local header and data come before the directory.
    if (m.local_header_offset > location.offset || location.offset - m.local_header_offset < kLocalHeaderSize ||
        m.compressed_size > location.offset - m.local_header_offset - kLocalHeaderSize)
      throw bad_zip(display_name, entry + " points outside the file");
    pos += kCentralHeaderSize + name_len + extra_len + comment_len;
    members.push_back(std::move(m));
  }
  return members;
}

}  // namespace rp::python
