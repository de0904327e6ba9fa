#include "entries/tar_index.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <optional>

#include "entries/path_parts.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

namespace rp {

namespace {

constexpr size_t kTarBlock = 512;
constexpr uint64_t kMaxExtendedHeader = 1u << 20;  // PAX records, GNU long names
// The first bytes of a serialized index; a new layout gets a new number, and an older record is
// then a cache miss.
constexpr std::string_view kRecordMagic = "rockpack tar index 3\n";

uint64_t round_up(uint64_t n) { return (n + kTarBlock - 1) / kTarBlock * kTarBlock; }

class TarFile {
 public:
  TarFile(const fs::path& file, std::string what) : what_(std::move(what)) {
    fd_ = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) throw Error("cannot open " + what_ + ": " + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd_, &st) != 0) throw Error("cannot stat " + what_ + ": " + std::strerror(errno));
    size_ = static_cast<uint64_t>(st.st_size);
  }
  ~TarFile() { ::close(fd_); }
  TarFile(const TarFile&) = delete;
  TarFile& operator=(const TarFile&) = delete;

  uint64_t size() const { return size_; }

  std::string read_at(uint64_t offset, uint64_t count) const {
    if (offset > size_ || count > size_ - offset) fail("it is truncated");
    std::string out(count, '\0');
    size_t done = 0;
    while (done < count) {
      ssize_t n = ::pread(fd_, out.data() + done, count - done, static_cast<off_t>(offset + done));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) throw Error("cannot read " + what_ + ": " + (n < 0 ? std::strerror(errno) : "unexpected end"));
      done += static_cast<size_t>(n);
    }
    return out;
  }

  [[noreturn]] void fail(const std::string& why) const {
    throw InputError(what_ + " is not a valid tar archive: " + why, "check the archive, or download it again");
  }

 private:
  std::string what_;
  int fd_ = -1;
  uint64_t size_ = 0;
};

// A NUL-terminated field of at most `n` bytes.
std::string text_field(const char* p, size_t n) {
  size_t len = 0;
  while (len < n && p[len] != '\0') ++len;
  return std::string(p, len);
}

// Octal (space/NUL padded) or GNU base-256 (high bit of the first byte set).
std::optional<uint64_t> number_field(const char* p, size_t n) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  if (u[0] & 0x80) {
    if (u[0] != 0x80) return std::nullopt;  // negative
    uint64_t v = 0;
    for (size_t i = 1; i < n; ++i) {
      if (v >> 56) return std::nullopt;
      v = (v << 8) | u[i];
    }
    return v;
  }
  size_t i = 0;
  while (i < n && (p[i] == ' ' || p[i] == '\0')) ++i;
  uint64_t v = 0;
  bool any = false;
  for (; i < n && p[i] >= '0' && p[i] <= '7'; ++i) {
    if (v >> 60) return std::nullopt;
    v = v * 8 + static_cast<uint64_t>(p[i] - '0');
    any = true;
  }
  for (; i < n; ++i)
    if (p[i] != ' ' && p[i] != '\0') return std::nullopt;
  return any ? v : 0;
}

bool checksum_ok(const char* h) {
  auto stored = number_field(h + 148, 8);
  if (!stored) return false;
  uint64_t sum = 0;
  for (size_t i = 0; i < kTarBlock; ++i)
    sum += (i >= 148 && i < 156) ? ' ' : static_cast<unsigned char>(h[i]);
  return sum == *stored;
}

// PAX records: "<len> <key>=<value>\n".
// Owner fields a PAX header may override.
struct PaxOwner {
  std::optional<uint64_t> uid, gid;
  std::optional<std::string> uname, gname;
};

void apply_pax(const std::string& data, std::optional<std::string>& path, std::optional<std::string>& link,
               uint64_t& size, bool& has_size, PaxOwner& owner, const TarFile& tar) {
  size_t pos = 0;
  while (pos < data.size()) {
    if (data[pos] == '\0') break;  // padding some writers leave
    size_t space = data.find(' ', pos);
    if (space == std::string::npos || space == pos || space - pos > 20) tar.fail("malformed PAX record");
    uint64_t len = 0;
    for (size_t i = pos; i < space; ++i) {
      if (data[i] < '0' || data[i] > '9') tar.fail("malformed PAX record length");
      len = len * 10 + static_cast<uint64_t>(data[i] - '0');
    }
    if (len <= space - pos + 2 || len > data.size() - pos || data[pos + len - 1] != '\n') tar.fail("malformed PAX record");
    std::string record = data.substr(space + 1, pos + len - 1 - (space + 1));
    size_t eq = record.find('=');
    if (eq == std::string::npos) tar.fail("PAX record without '='");
    std::string key = record.substr(0, eq), value = record.substr(eq + 1);
    if (key == "path") path = value;
    else if (key == "linkpath") link = value;
    else if (key == "size") {
      uint64_t s = 0;
      if (value.empty() || value.size() > 19) tar.fail("malformed PAX size");
      for (char c : value) {
        if (c < '0' || c > '9') tar.fail("malformed PAX size");
        s = s * 10 + static_cast<uint64_t>(c - '0');
      }
      size = s;
      has_size = true;
    } else if (key == "uid" || key == "gid") {
      uint64_t v = 0;
      if (value.empty() || value.size() > 10) tar.fail("malformed PAX " + key);
      for (char c : value) {
        if (c < '0' || c > '9') tar.fail("malformed PAX " + key);
        v = v * 10 + static_cast<uint64_t>(c - '0');
      }
      (key == "uid" ? owner.uid : owner.gid) = v;
    } else if (key == "uname") {
      owner.uname = value;
    } else if (key == "gname") {
      owner.gname = value;
    } else if (key.rfind("GNU.sparse.", 0) == 0) {
      tar.fail("sparse files are not supported");
    }
    pos += len;
  }
}

}  // namespace

std::vector<TarIndexMember> index_plain_tar(const fs::path& file, const std::string& what) {
  TarFile tar(file, what);
  std::vector<TarIndexMember> out;
  std::optional<std::string> next_path, next_link;
  uint64_t next_size = 0;  // from a PAX "size" record, when has_next_size
  bool has_next_size = false;
  PaxOwner next_owner;
  uint64_t pos = 0;
  for (;;) {
    if (pos + kTarBlock > tar.size()) {
      if (pos == tar.size() && !out.empty()) break;  // no end blocks: accepted, as GNU tar does
      tar.fail("it is truncated");
    }
    std::string header = tar.read_at(pos, kTarBlock);
    const char* h = header.data();
    if (header.find_first_not_of('\0') == std::string::npos) break;  // end of archive
    if (!checksum_ok(h)) tar.fail("bad header checksum at offset " + std::to_string(pos));
    auto size_field = number_field(h + 124, 12);
    if (!size_field) tar.fail("bad size field at offset " + std::to_string(pos));
    char type = h[156];
    uint64_t data_offset = pos + kTarBlock;
    bool extension = type == 'x' || type == 'g' || type == 'L' || type == 'K';
    uint64_t stored = has_next_size && !extension ? next_size : *size_field;
    if (stored > tar.size() - std::min(tar.size(), data_offset)) tar.fail("member data runs past the end");
    uint64_t next = data_offset + round_up(stored);

    if (extension) {
      if (stored > kMaxExtendedHeader) tar.fail("extended header too large");
      std::string data = tar.read_at(data_offset, stored);
      if (type == 'x') {
        apply_pax(data, next_path, next_link, next_size, has_next_size, next_owner, tar);
      } else if (type == 'L') {
        next_path = text_field(data.data(), data.size());
      } else if (type == 'K') {
        next_link = text_field(data.data(), data.size());
      }  // 'g' (global PAX) carries nothing an image needs
      pos = next;
      continue;
    }

    TarIndexMember m;
    std::string name = text_field(h, 100);
    if (std::memcmp(h + 257, "ustar\0", 6) == 0) {  // POSIX ustar: a prefix field for long names
      std::string prefix = text_field(h + 345, 155);
      if (!prefix.empty()) name = prefix + "/" + name;
    }
    m.path = next_path.value_or(name);
    m.link_target = next_link.value_or(text_field(h + 157, 100));
    auto mode = number_field(h + 100, 8);
    if (!mode) tar.fail("bad mode field for " + printable(m.path));
    m.mode = static_cast<uint32_t>(*mode & 07777);
    auto uid = number_field(h + 108, 8), gid = number_field(h + 116, 8);
    if (!uid || !gid || *uid > 0xffffffffu || *gid > 0xffffffffu) tar.fail("bad owner fields for " + printable(m.path));
    m.uid = static_cast<uint32_t>(next_owner.uid.value_or(*uid) & 0xffffffffu);
    m.gid = static_cast<uint32_t>(next_owner.gid.value_or(*gid) & 0xffffffffu);
    if (std::memcmp(h + 257, "ustar", 5) == 0) {
      m.uname = text_field(h + 265, 32);
      m.gname = text_field(h + 297, 32);
    }
    if (next_owner.uname) m.uname = *next_owner.uname;
    if (next_owner.gname) m.gname = *next_owner.gname;
    switch (type) {
      case '0': case '\0': case '7': m.type = EntryType::kFile; break;
      case '1': m.type = EntryType::kHardlink; break;
      case '2': m.type = EntryType::kSymlink; break;
      case '5': m.type = EntryType::kDirectory; break;
      case 'S': tar.fail("sparse member " + printable(m.path) + " is not supported");
      default: tar.fail("member " + printable(m.path) + " has the unsupported type '" + std::string(1, type) + "'");
    }
    if (m.type == EntryType::kFile) {
      m.size = stored;
      m.offset = data_offset;
    }
    if (m.type != EntryType::kSymlink && m.type != EntryType::kHardlink) m.link_target.clear();
    if (m.path.empty()) tar.fail("member with an empty name at offset " + std::to_string(pos));
    // PAX and GNU long names carry any byte; the ustar fields end at the first NUL already.
    if (const char* why = unsafe_member_name(m.path))
      tar.fail("the member name '" + printable(m.path) + "' at offset " + std::to_string(pos) + " holds " + why);
    if (const char* why = unsafe_member_name(m.link_target))
      tar.fail("the link target '" + printable(m.link_target) + "' of " + printable(m.path) + " holds " + why);
    out.push_back(std::move(m));
    next_path.reset();
    next_link.reset();
    has_next_size = false;
    next_owner = PaxOwner();
    pos = next;
  }
  return out;
}

// The record: the magic line, then varints (LEB128, shortest form) and strings (a varint length, then the bytes):
//   tar_digest, member count, then per member: path, type (0 file, 1 dir, 2 symlink, 3 hardlink),
//   mode, size, offset, link_target, uid, gid, uname, gname.
std::string TarIndex::serialize() const {
  std::string out(kRecordMagic);
  auto number = [&out](uint64_t v) {
    do {
      unsigned char byte = v & 0x7f;
      v >>= 7;
      out.push_back(static_cast<char>(v ? byte | 0x80 : byte));
    } while (v);
  };
  auto text = [&](const std::string& s) {
    number(s.size());
    out += s;
  };
  text(tar_digest);
  number(members.size());
  for (const auto& m : members) {
    text(m.path);
    number(static_cast<uint64_t>(m.type));
    number(m.mode);
    number(m.size);
    number(m.offset);
    text(m.link_target);
    number(m.uid);
    number(m.gid);
    text(m.uname);
    text(m.gname);
  }
  return out;
}

static_assert(static_cast<int>(EntryType::kFile) == 0 && static_cast<int>(EntryType::kDirectory) == 1 &&
              static_cast<int>(EntryType::kSymlink) == 2 && static_cast<int>(EntryType::kHardlink) == 3);

TarIndex TarIndex::parse(std::string_view bytes) {
  auto bad = [](const char* why) { return Error(std::string("malformed tar index record: ") + why); };
  if (bytes.substr(0, kRecordMagic.size()) != kRecordMagic) throw bad("not a record of this version");
  size_t pos = kRecordMagic.size();
  auto number = [&](uint64_t limit) {
    uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
      if (pos >= bytes.size()) throw bad("it is truncated");
      if (shift > 63) throw bad("a number is too long");
      auto byte = static_cast<unsigned char>(bytes[pos++]);
      if (byte == 0 && shift > 0) throw bad("a number is not in its shortest form");
      if (shift == 63 && byte > 1) throw bad("a number is larger than 64 bits");
      v |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if (!(byte & 0x80)) break;
    }
    if (v > limit) throw bad("a number is out of range");
    return v;
  };
  auto text = [&] {
    uint64_t n = number(UINT64_MAX);
    if (n > bytes.size() - pos) throw bad("a string runs past the end");
    std::string s(bytes.substr(pos, n));
    pos += n;
    return s;
  };
  TarIndex index;
  index.tar_digest = text();
  // Every member takes at least 10 bytes: a count larger than that cannot be honest (and must not
  // reserve memory).
  uint64_t count = number(UINT64_MAX);
  if (count > (bytes.size() - pos) / 10) throw bad("more members than the bytes could hold");
  index.members.reserve(count);
  for (uint64_t i = 0; i < count; ++i) {
    TarIndexMember m;
    m.path = text();
    m.type = static_cast<EntryType>(number(static_cast<uint64_t>(EntryType::kHardlink)));
    m.mode = static_cast<uint32_t>(number(07777));
    m.size = number(UINT64_MAX);
    m.offset = number(UINT64_MAX);
    m.link_target = text();
    m.uid = static_cast<uint32_t>(number(UINT32_MAX));
    m.gid = static_cast<uint32_t>(number(UINT32_MAX));
    m.uname = text();
    m.gname = text();
    // A record written before names were checked: not trusted, so the archive is indexed (and
    // refused) again.
    if (unsafe_member_name(m.path) || unsafe_member_name(m.link_target)) throw bad("a member name holds a NUL or newline");
    index.members.push_back(std::move(m));
  }
  if (pos != bytes.size()) throw bad("bytes after the last member");
  return index;
}

}  // namespace rp
