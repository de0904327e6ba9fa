// Zip central directory parsing (with zip64) and checked member streaming.
//
// Layout reminders (APPNOTE.TXT): the end-of-central-directory record (EOCD, 22 bytes + comment)
// is at the end of the file; when a count or offset does not fit 16/32 bits it is 0xFFFF/0xFFFFFFFF
// and the real value lives in the zip64 EOCD record, found through the zip64 locator just before
// the EOCD. Each central directory entry points to a local header that precedes the member's data.
#include "python/wheel_archive.hpp"

#include <fcntl.h>
#include <isa-l/igzip_lib.h>
#include <libdeflate.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

#include "python/zip_format.hpp"
#include "util/error.hpp"

namespace rp::python {

namespace {

using namespace zip;  // the format's constants and integer readers

constexpr uint16_t kFlagEncrypted = 0x0001;
constexpr uint16_t kFlagStrongEncryption = 0x0040;
// Deflate cannot compress better than about 1032:1; anything claiming more is lying about its size
// (a zip bomb or a corrupt directory). A little slack for tiny members.
constexpr uint64_t kMaxDeflateRatio = 1032;
constexpr uint64_t kDeflateSlack = 1024;

std::string errno_text() { return std::strerror(errno); }

// Why a member name is unsafe to install, or empty when it is fine. Names are relative,
// '/'-separated paths; nothing may climb out of the install root or be read differently on
// another platform.
std::string unsafe_name_reason(std::string_view name) {
  if (name.empty()) return "an empty name";
  if (name.front() == '/') return "an absolute path";
  if (name.find('\\') != std::string_view::npos) return "a backslash";
  if (name.find('\0') != std::string_view::npos) return "a NUL byte";
  std::string_view rest = name;
  if (rest.back() == '/') rest.remove_suffix(1);  // directory entries end with '/'
  size_t start = 0;
  while (start <= rest.size()) {
    size_t end = rest.find('/', start);
    if (end == std::string_view::npos) end = rest.size();
    std::string_view part = rest.substr(start, end - start);
    if (part.empty()) return "an empty path component";
    if (part == "..") return "a '..' component";
    if (part == ".") return "a '.' component";
    start = end + 1;
  }
  return {};
}

// Pulls a member's uncompressed bytes in chunks; at the end checks the size and CRC-32 against
// the central directory, so a corrupt or tampered member can never pass unnoticed.
//
// A large member's single deflate stream is inflated on one core, so its speed is the speed of the
// whole step that waits for it: rocm-sdk-devel's `_devel.tar` (about 1.5 GB in a real ROCm wheel)
// is copied into the store before the devel tree can be planned. ISA-L's inflate does that about
// 2.2 times as fast as zlib's (the ROCm mock's 1.58 GB `_devel.tar`: 2.1 s of CPU against 4.7 s on
// the benchmark machine). zlib stays for the readers that pass the raw deflate bytes on
// (`deflated`): it stops reading exactly at the stream's end, which the copy into a gzip layer needs.
class MemberReader {
 public:
  // `deflated`, when given, receives the raw deflate bytes the reader consumes, exactly those and in
  // order (not bytes after the end of the stream): the member's compressed form, read only once.
  MemberReader(const WheelArchive& archive, const ZipMember& member, ByteSink* deflated = nullptr)
      : archive_(archive), member_(member), deflated_(deflated) {
    if (member.method != ZipMember::kDeflated) return;
    if (!deflated_) {
      isal_ = std::make_unique<inflate_state>();
      isal_inflate_init(isal_.get());
      isal_->crc_flag = ISAL_DEFLATE;  // raw deflate, as zip stores it
      return;
    }
    std::memset(&stream_, 0, sizeof stream_);
    // Negative window bits: raw deflate, as zip stores it (no zlib header or trailer).
    if (inflateInit2(&stream_, -MAX_WBITS) != Z_OK) fail("cannot initialise zlib");
    inflating_ = true;
  }
  ~MemberReader() {
    if (inflating_) inflateEnd(&stream_);
  }
  MemberReader(const MemberReader&) = delete;
  MemberReader& operator=(const MemberReader&) = delete;

  // Fills up to `capacity` bytes; returns 0 once the member is complete (and verified when
  // `verify` is set).
  size_t read(char* out, size_t capacity, bool verify = true) {
    size_t n = member_.method == ZipMember::kStored ? read_stored(out, capacity) : read_deflated(out, capacity);
    if (n > 0) {
      produced_ += n;
      if (produced_ > member_.uncompressed_size) fail("is larger than its recorded size");
      crc_ = libdeflate_crc32(crc_, out, n);
    } else if (verify) {
      if (produced_ != member_.uncompressed_size)
        fail("is " + std::to_string(produced_) + " bytes, its directory entry says " +
             std::to_string(member_.uncompressed_size));
      if (crc_ != member_.crc32) fail("fails its CRC-32 check (corrupt or tampered)");
    }
    return n;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw Error(archive_.display_name() + ": member '" + member_.name + "' " + what,
                "the wheel is damaged; download it again or report it to its publisher");
  }

  size_t read_stored(char* out, size_t capacity) {
    uint64_t left = member_.compressed_size - consumed_;
    size_t n = static_cast<size_t>(std::min<uint64_t>(left, capacity));
    if (n == 0) return 0;
    archive_.read_at(member_.data_offset + consumed_, out, n);
    consumed_ += n;
    return n;
  }

  size_t read_deflated(char* out, size_t capacity) {
    return isal_ ? read_deflated_isal(out, capacity) : read_deflated_zlib(out, capacity);
  }

  size_t read_deflated_isal(char* out, size_t capacity) {
    if (finished_) return 0;
    // ISA-L counts in uint32_t; a chunk of at most 1 GiB keeps the arithmetic exact.
    size_t chunk = std::min<size_t>(capacity, 1u << 30);
    inflate_state& s = *isal_;
    s.next_out = reinterpret_cast<uint8_t*>(out);
    s.avail_out = static_cast<uint32_t>(chunk);
    while (s.avail_out > 0 && !finished_) {
      if (s.avail_in == 0 && consumed_ < member_.compressed_size) {
        size_t n = static_cast<size_t>(std::min<uint64_t>(member_.compressed_size - consumed_, sizeof input_));
        archive_.read_at(member_.data_offset + consumed_, input_, n);
        consumed_ += n;
        s.next_in = reinterpret_cast<uint8_t*>(input_);
        s.avail_in = static_cast<uint32_t>(n);
      }
      const uint8_t* in_before = s.next_in;
      const uint32_t out_before = s.avail_out;
      int rc = isal_inflate(&s);
      if (rc != ISAL_DECOMP_OK) fail("has a corrupt deflate stream (ISA-L error " + std::to_string(rc) + ")");
      if (s.block_state == ISAL_BLOCK_FINISH) {
        finished_ = true;
      } else if (s.next_in == in_before && s.avail_out == out_before) {
        // No progress with room for output: the input is used up (the member ends before its
        // stream does) or the decoder cannot go on.
        fail(s.avail_in == 0 ? "is truncated (its deflate stream does not end)" : "has a corrupt deflate stream");
      }
    }
    return chunk - s.avail_out;
  }

  size_t read_deflated_zlib(char* out, size_t capacity) {
    if (finished_) return 0;
    // zlib counts in uInt; a chunk of at most 1 GiB keeps the arithmetic exact.
    size_t chunk = std::min<size_t>(capacity, 1u << 30);
    stream_.next_out = reinterpret_cast<Bytef*>(out);
    stream_.avail_out = static_cast<uInt>(chunk);
    while (stream_.avail_out > 0 && !finished_) {
      if (stream_.avail_in == 0) {
        uint64_t left = member_.compressed_size - consumed_;
        if (left == 0) fail("is truncated (its deflate stream does not end)");
        size_t n = static_cast<size_t>(std::min<uint64_t>(left, sizeof input_));
        archive_.read_at(member_.data_offset + consumed_, input_, n);
        consumed_ += n;
        stream_.next_in = reinterpret_cast<Bytef*>(input_);
        stream_.avail_in = static_cast<uInt>(n);
      }
      const Bytef* before = stream_.next_in;
      int rc = inflate(&stream_, Z_NO_FLUSH);
      if (deflated_ && stream_.next_in != before) deflated_->write(before, static_cast<size_t>(stream_.next_in - before));
      if (rc == Z_STREAM_END) {
        finished_ = true;
      } else if (rc != Z_OK) {
        // Z_BUF_ERROR only means no progress was possible; with input and output space left it
        // cannot happen, so any other code is a corrupt stream.
        fail(std::string("has a corrupt deflate stream (") + (stream_.msg ? stream_.msg : "zlib error") + ")");
      }
    }
    return chunk - stream_.avail_out;
  }

  const WheelArchive& archive_;
  const ZipMember& member_;
  ByteSink* deflated_;
  z_stream stream_{};
  bool inflating_ = false;
  std::unique_ptr<inflate_state> isal_;  // 87 KB of state: on the heap, not a worker's stack
  bool finished_ = false;
  uint64_t consumed_ = 0;
  uint64_t produced_ = 0;
  uint32_t crc_ = 0;
  char input_[64 * 1024];
};

// A deflated member up to this size is inflated in one call by libdeflate, which is about twice as
// fast as zlib's streaming inflate but needs the whole input and output in memory; larger members
// stream through ISA-L (or zlib, when the deflate stream is copied too), so memory stays bounded
// whatever the wheel. In a ROCm wheel nearly every member is below it (the libraries are ~1,500
// shared objects of a few MB). The same limit as the layers' read-ahead (assemble/read_ahead.hpp,
// kMaxFileSize), which counts a member this size whole against its memory share: above it, it
// streams the member through a pipe and this reader must stream it too.
constexpr uint64_t kWholeInflateMax = 8u << 20;
// Buffers up to this size stay allocated on their thread for the next member; larger ones are
// freed after use, so a few large members do not keep tens of MB per thread. Each worker of a
// layer's read-ahead keeps two (input and output): 2 MiB a worker, whatever the core count.
constexpr size_t kKeepBufferMax = 1u << 20;

struct InflateBuffers {
  std::string in, out;
  libdeflate_decompressor* decompressor = nullptr;
  ~InflateBuffers() { libdeflate_free_decompressor(decompressor); }
  void trim() {
    if (in.capacity() > kKeepBufferMax) std::string().swap(in);
    if (out.capacity() > kKeepBufferMax) std::string().swap(out);
  }
};

}  // namespace

// libdeflate in one call (kWholeInflateMax); false when the member is not for it. Checks what the
// streaming reader checks, before anything reaches `sink`: the stream, the size and the CRC-32.
bool WheelArchive::inflate_whole(const ZipMember& member, ByteSink& sink, ByteSink* deflated) const {
  if (member.method != ZipMember::kDeflated || member.uncompressed_size > kWholeInflateMax ||
      member.compressed_size > kWholeInflateMax)
    return false;
  static thread_local InflateBuffers buffers;
  if (!buffers.decompressor && !(buffers.decompressor = libdeflate_alloc_decompressor()))
    throw Error("out of memory: cannot allocate a deflate decompressor");
  auto fail = [&](const std::string& what) {
    buffers.trim();
    throw Error(display_name_ + ": member '" + member.name + "' " + what,
                "the wheel is damaged; download it again or report it to its publisher");
  };
  buffers.in.resize(member.compressed_size);
  buffers.out.resize(member.uncompressed_size);
  read_at(member.data_offset, buffers.in.data(), buffers.in.size());
  size_t used_in = 0, produced = 0;
  libdeflate_result r =
      libdeflate_deflate_decompress_ex(buffers.decompressor, buffers.in.data(), buffers.in.size(),
                                       buffers.out.data(), buffers.out.size(), &used_in, &produced);
  if (r == LIBDEFLATE_INSUFFICIENT_SPACE) fail("is larger than its recorded size");
  if (r == LIBDEFLATE_BAD_DATA) {
    // Also what a stream cut short gives: say which, as the streaming reader does.
    fail("has a corrupt or truncated deflate stream");
  }
  if (r != LIBDEFLATE_SUCCESS) fail("cannot be inflated (libdeflate error " + std::to_string(r) + ")");
  if (produced != member.uncompressed_size)
    fail("is " + std::to_string(produced) + " bytes, its directory entry says " + std::to_string(member.uncompressed_size));
  if (libdeflate_crc32(0, buffers.out.data(), produced) != member.crc32) fail("fails its CRC-32 check (corrupt or tampered)");
  if (deflated) deflated->write(buffers.in.data(), used_in);
  sink.write(buffers.out.data(), produced);
  buffers.trim();
  return true;
}

std::shared_ptr<const WheelArchive> WheelArchive::open(const fs::path& file, std::string display_name) {
  int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error("cannot open wheel " + file.string() + ": " + errno_text());
  std::shared_ptr<WheelArchive> archive(
      new WheelArchive(file, display_name.empty() ? file.string() : std::move(display_name), fd));
  struct stat st {};
  if (::fstat(archive->fd_.get(), &st) != 0) throw Error("cannot stat wheel " + file.string() + ": " + errno_text());
  if (!S_ISREG(st.st_mode)) throw InputError(archive->display_name_ + ": not a regular file");
  archive->file_size_ = static_cast<uint64_t>(st.st_size);
  archive->file_identity_ = std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino) + ":" +
                            std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_sec) + "." +
                            std::to_string(st.st_mtim.tv_nsec);
  archive->read_central_directory();
  return archive;
}

const ZipMember* WheelArchive::find(std::string_view name) const {
  auto it = by_name_.find(std::string(name));
  return it == by_name_.end() ? nullptr : &members_[it->second];
}

void WheelArchive::read_at(uint64_t offset, void* buffer, size_t size) const {
  if (offset > file_size_ || size > file_size_ - offset)
    throw Error(display_name_ + ": read past the end of the file (it changed or is truncated)");
  auto* out = static_cast<char*>(buffer);
  while (size > 0) {
    ssize_t n = ::pread(fd_.get(), out, size, static_cast<off_t>(offset));
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error("cannot read " + display_name_ + ": " + errno_text());
    }
    if (n == 0) throw Error(display_name_ + ": unexpected end of file (it changed or is truncated)");
    out += n;
    offset += static_cast<uint64_t>(n);
    size -= static_cast<size_t>(n);
  }
}

void WheelArchive::read_central_directory() {
  auto bad = [this](const std::string& what) {
    return InputError(display_name_ + ": not a valid wheel: " + what, "a wheel must be a plain zip archive");
  };
  // The end records: the last 64 KiB + 22 bytes hold them unless a zip64 end record lies further
  // back, in which case the parser says how much of the tail it needs.
  uint64_t tail_size = std::min<uint64_t>(file_size_, kEndRecordSize + kMaxCommentSize);
  std::optional<CentralDirectoryLocation> location;
  for (int attempt = 0; attempt < 2 && !location; ++attempt) {
    std::string tail(static_cast<size_t>(tail_size), '\0');
    read_at(file_size_ - tail_size, tail.data(), tail.size());
    ZipEndInfo end = locate_central_directory(tail, file_size_, display_name_);
    location = end.location;
    tail_size = end.need_tail;
  }
  if (!location) throw bad("no usable end-of-central-directory record");
  const uint64_t cd_offset = location->offset;

  std::string cd(static_cast<size_t>(location->size), '\0');
  read_at(cd_offset, cd.data(), cd.size());
  std::vector<ZipMember> parsed = parse_central_directory(cd, *location, display_name_);
  members_.reserve(parsed.size());
  for (ZipMember& m : parsed) {
    std::string reason = unsafe_name_reason(m.name);
    if (!reason.empty())
      throw InputError(display_name_ + ": member '" + m.name + "' has " + reason,
                       "refusing to install a wheel whose paths could escape the install location");
    if (m.flags & (kFlagEncrypted | kFlagStrongEncryption))
      throw InputError(display_name_ + ": member '" + m.name + "' is encrypted", "wheels cannot be encrypted");
    if (m.method != ZipMember::kStored && m.method != ZipMember::kDeflated)
      throw InputError(display_name_ + ": member '" + m.name + "' uses compression method " +
                           std::to_string(m.method) + "; only stored (0) and deflate (8) are supported",
                       "wheels must use stored or deflate compression");
    if (m.method == ZipMember::kStored && m.compressed_size != m.uncompressed_size)
      throw bad("stored member '" + m.name + "' has different compressed and uncompressed sizes");
    if (m.method == ZipMember::kDeflated && m.uncompressed_size > kDeflateSlack &&
        (m.uncompressed_size - kDeflateSlack) / kMaxDeflateRatio > m.compressed_size)
      throw bad("member '" + m.name + "' claims an impossible compression ratio (" +
                std::to_string(m.compressed_size) + " -> " + std::to_string(m.uncompressed_size) + " bytes)");
    if (m.is_directory() && m.uncompressed_size != 0) throw bad("directory entry '" + m.name + "' has content");

    // The local header repeats the name; its length decides where the data starts.
    if (m.local_header_offset > cd_offset || cd_offset - m.local_header_offset < kLocalHeaderSize)
      throw bad("member '" + m.name + "' points outside the file");
    unsigned char local[kLocalHeaderSize];
    read_at(m.local_header_offset, local, sizeof local);
    if (le32(local) != kLocalHeaderSignature) throw bad("member '" + m.name + "' has no local header");
    uint64_t local_name_len = le16(local + 26), local_extra_len = le16(local + 28);
    m.data_offset = m.local_header_offset + kLocalHeaderSize + local_name_len + local_extra_len;
    if (m.data_offset > cd_offset || m.compressed_size > cd_offset - m.data_offset)
      throw bad("member '" + m.name + "' points outside the file");
    const size_t name_len = m.name.size();
    if (local_name_len != name_len) throw bad("member '" + m.name + "' has a different name in its local header");
    std::string local_name(name_len, '\0');
    read_at(m.local_header_offset + kLocalHeaderSize, local_name.data(), name_len);
    // Two names for one member is a known trick to show a checker one file and install another.
    if (local_name != m.name) throw bad("member '" + m.name + "' has a different name in its local header");

    if (!by_name_.emplace(m.name, members_.size()).second)
      throw InputError(display_name_ + ": member '" + m.name + "' appears twice",
                       "a wheel may hold each path only once");
    members_.push_back(std::move(m));
  }

  // No two members may share bytes: overlapping members are how zip bombs multiply their output.
  std::vector<const ZipMember*> by_offset;
  by_offset.reserve(members_.size());
  for (const auto& m : members_) by_offset.push_back(&m);
  std::sort(by_offset.begin(), by_offset.end(),
            [](const ZipMember* a, const ZipMember* b) { return a->local_header_offset < b->local_header_offset; });
  for (size_t i = 1; i < by_offset.size(); ++i) {
    const ZipMember& prev = *by_offset[i - 1];
    if (by_offset[i]->local_header_offset < prev.data_offset + prev.compressed_size)
      throw bad("members '" + prev.name + "' and '" + by_offset[i]->name + "' overlap");
  }
}

void WheelArchive::stream_member(const ZipMember& member, ByteSink& sink) const {
  if (inflate_whole(member, sink, nullptr)) return;
  MemberReader reader(*this, member);
  static thread_local std::string buffer(256 * 1024, '\0');
  while (size_t n = reader.read(buffer.data(), buffer.size())) sink.write(buffer.data(), n);
}

void WheelArchive::stream_member_with_deflate(const ZipMember& member, ByteSink& sink, ByteSink& deflated) const {
  if (member.method != ZipMember::kDeflated)
    throw Error("internal: " + display_name_ + ": member '" + member.name + "' is not deflated");
  if (inflate_whole(member, sink, &deflated)) return;
  MemberReader reader(*this, member, &deflated);
  static thread_local std::string buffer(256 * 1024, '\0');
  while (size_t n = reader.read(buffer.data(), buffer.size())) sink.write(buffer.data(), n);
}

std::string WheelArchive::read_member(const ZipMember& member, uint64_t max_size) const {
  if (member.uncompressed_size > max_size)
    throw InputError(display_name_ + ": member '" + member.name + "' is " + std::to_string(member.uncompressed_size) +
                     " bytes, more than the " + std::to_string(max_size) + " allowed for it");
  StringSink sink;
  stream_member(member, sink);
  return sink.take();
}

std::string WheelArchive::read_prefix(const ZipMember& member, size_t count) const {
  MemberReader reader(*this, member);
  std::string out(static_cast<size_t>(std::min<uint64_t>(count, member.uncompressed_size)), '\0');
  size_t have = 0;
  while (have < out.size()) {
    size_t n = reader.read(out.data() + have, out.size() - have, /*verify=*/false);
    if (n == 0) break;
    have += n;
  }
  out.resize(have);
  return out;
}

}  // namespace rp::python
