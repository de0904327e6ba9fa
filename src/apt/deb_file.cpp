#include "apt/deb_file.hpp"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <vector>

#include "entries/path_parts.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace rp::apt {

namespace {

constexpr size_t kArHeader = 60;
constexpr uint64_t kMaxControl = 64u << 20;

std::string trimmed(const char* p, size_t n) {
  std::string s(p, n);
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

std::string read_at(int fd, uint64_t offset, size_t count, const std::string& what) {
  std::string out(count, '\0');
  size_t done = 0;
  while (done < count) {
    ssize_t n = ::pread(fd, out.data() + done, count - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error("cannot read " + what + ": " + std::strerror(errno));
    if (n == 0) break;
    done += static_cast<size_t>(n);
  }
  out.resize(done);
  return out;
}

// libarchive's read callback over a byte range of a file; nothing may throw through it.
struct RangeReader {
  int fd = -1;
  uint64_t offset = 0;
  uint64_t remaining = 0;
  std::vector<char> buffer = std::vector<char>(1 << 20);

  static la_ssize_t read(archive* a, void* self_ptr, const void** out) {
    auto* self = static_cast<RangeReader*>(self_ptr);
    if (self->remaining == 0) return 0;
    size_t want = static_cast<size_t>(std::min<uint64_t>(self->remaining, self->buffer.size()));
    ssize_t n;
    do n = ::pread(self->fd, self->buffer.data(), want, static_cast<off_t>(self->offset));
    while (n < 0 && errno == EINTR);
    if (n < 0) {
      archive_set_error(a, errno, "%s", std::strerror(errno));
      return -1;
    }
    if (n == 0) {
      archive_set_error(a, EIO, "the .deb ends inside a member");
      return -1;
    }
    self->offset += static_cast<uint64_t>(n);
    self->remaining -= static_cast<uint64_t>(n);
    *out = self->buffer.data();
    return n;
  }
};

using ArchivePtr = std::unique_ptr<archive, decltype(&archive_read_free)>;

// Opens a member of the .deb with libarchive: as a tar (`raw` false) or as one decompressed stream.
ArchivePtr open_member(RangeReader& reader, bool raw, const std::string& what) {
  archive* a = archive_read_new();
  ArchivePtr owner(a, archive_read_free);
  archive_read_support_filter_gzip(a);
  archive_read_support_filter_xz(a);
  archive_read_support_filter_zstd(a);
  archive_read_support_filter_bzip2(a);
  archive_read_support_filter_lzma(a);
  if (raw) archive_read_support_format_raw(a);
  else archive_read_support_format_tar(a);
  if (archive_read_open(a, &reader, nullptr, &RangeReader::read, nullptr) != ARCHIVE_OK)
    throw Error("cannot open " + what + ": " + (archive_error_string(a) ? archive_error_string(a) : "unknown error"));
  return owner;
}

UniqueFd open_deb(const std::filesystem::path& file, const std::string& what) {
  int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error("cannot open " + what + ": " + std::strerror(errno));
  return UniqueFd(fd);
}

// One member of a .deb open in libarchive: the file, the byte range libarchive reads through (it
// keeps a pointer to it, so this object never moves) and the archive handle.
struct MemberArchive {
  MemberArchive(const std::filesystem::path& file, const DebMember& member, bool raw, const std::string& what)
      : fd(open_deb(file, what)),
        reader{fd.get(), member.offset, member.size},
        where(what + " (" + member.name + ")"),
        archive(open_member(reader, raw, where)) {}
  MemberArchive(const MemberArchive&) = delete;
  MemberArchive& operator=(const MemberArchive&) = delete;

  UniqueFd fd;
  RangeReader reader;
  std::string where;
  ArchivePtr archive;
};

std::string archive_error(archive* a) { return archive_error_string(a) ? archive_error_string(a) : "unknown error"; }

bool compression_ok(const std::string& name, const std::string& base, bool data) {
  if (name == base) return true;
  for (const char* ext : {".gz", ".xz", ".zst"})
    if (name == base + ext) return true;
  return data && (name == base + ".bz2" || name == base + ".lzma");
}

}  // namespace

DebLayout read_deb_layout(const std::filesystem::path& file, const std::string& what) {
  UniqueFd owner = open_deb(file, what);
  int fd = owner.get();
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw Error("cannot stat " + what + ": " + std::strerror(errno));
  uint64_t size = static_cast<uint64_t>(st.st_size);
  auto bad = [&](const std::string& why) {
    return Error(what + " is not a valid .deb: " + why, "the file is damaged or not a Debian package");
  };
  if (read_at(fd, 0, 8, what) != "!<arch>\n") throw bad("it is not an ar archive");
  DebLayout layout;
  bool have_binary = false, have_control = false, have_data = false;
  uint64_t pos = 8;
  int index = 0;
  while (pos < size) {
    if (pos % 2 == 1) ++pos;  // members are padded to an even offset
    if (pos >= size) break;
    std::string h = read_at(fd, pos, kArHeader, what);
    if (h.size() != kArHeader || h.substr(58, 2) != "`\n") throw bad("a damaged ar member header at offset " + std::to_string(pos));
    std::string name = trimmed(h.data(), 16);
    if (!name.empty() && name.back() == '/') name.pop_back();  // GNU ar
    std::string size_text = trimmed(h.data() + 48, 10);
    uint64_t member_size = 0;
    if (size_text.empty()) throw bad("member " + name + " has no size");
    for (char c : size_text) {
      if (c < '0' || c > '9') throw bad("member " + name + " has a malformed size");
      member_size = member_size * 10 + static_cast<uint64_t>(c - '0');
    }
    uint64_t data_offset = pos + kArHeader;
    if (member_size > size - std::min(size, data_offset)) throw bad("member " + name + " runs past the end of the file");
    DebMember m{name, data_offset, member_size};
    if (index == 0) {
      if (name != "debian-binary") throw bad("its first member is '" + name + "', not debian-binary");
      std::string version = read_at(fd, data_offset, static_cast<size_t>(std::min<uint64_t>(member_size, 16)), what);
      if (version.rfind("2.", 0) != 0) throw bad("format version '" + version.substr(0, version.find('\n')) + "' is not 2.x");
      have_binary = true;
    } else if (name.rfind("control.tar", 0) == 0) {
      if (have_control || !compression_ok(name, "control.tar", false)) throw bad("unexpected member " + name);
      layout.control = m;
      have_control = true;
    } else if (name.rfind("data.tar", 0) == 0) {
      if (have_data || !have_control || !compression_ok(name, "data.tar", true)) throw bad("unexpected member " + name);
      layout.data = m;
      have_data = true;
    } else if (name.empty() || name[0] != '_') {
      // Members starting with '_' are reserved for extensions dpkg ignores; others are errors.
      if (!have_data) throw bad("unexpected member '" + name + "'");
    }
    pos = data_offset + member_size;
    ++index;
  }
  if (!have_binary) throw bad("debian-binary is missing");
  if (!have_control) throw bad("control.tar is missing");
  if (!have_data) throw bad("data.tar is missing");
  return layout;
}

ControlArchive read_control_archive(const std::filesystem::path& file, const DebMember& member, const std::string& what) {
  MemberArchive member_archive(file, member, false, what);
  archive* a = member_archive.archive.get();
  const std::string& where = member_archive.where;
  ControlArchive out;
  uint64_t total = 0;
  archive_entry* e;
  int r;
  while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
    std::string name = archive_entry_pathname(e) ? archive_entry_pathname(e) : "";
    while (name.rfind("./", 0) == 0) name.erase(0, 2);
    if (name.empty() || name == ".") continue;
    if (const char* why = unsafe_member_name(name))
      throw InputError(where + ": the member name '" + printable(name) + "' holds " + why, "the package is hostile or broken");
    if (archive_entry_filetype(e) == AE_IFDIR) continue;
    if (archive_entry_filetype(e) != AE_IFREG || name.find('/') != std::string::npos)
      throw Error(where + ": unexpected member '" + printable(name) + "'", "a control archive holds plain files only");
    int64_t size = archive_entry_size(e);
    total += static_cast<uint64_t>(std::max<int64_t>(size, 0));
    if (size < 0 || total > kMaxControl) throw Error(where + " is larger than " + std::to_string(kMaxControl >> 20) + " MiB");
    std::string bytes(static_cast<size_t>(size), '\0');
    la_ssize_t n = size > 0 ? archive_read_data(a, bytes.data(), bytes.size()) : 0;
    if (n != size) throw Error("cannot read " + where + ": " + archive_error(a));
    out.files[name] = std::move(bytes);
    out.modes[name] = static_cast<uint32_t>(archive_entry_perm(e));
  }
  if (r != ARCHIVE_EOF) throw Error("cannot read " + where + ": " + archive_error(a), "the package is damaged");
  if (!out.files.count("control")) throw Error(where + " has no control file", "the package is damaged");
  return out;
}

void decompress_data_archive(const std::filesystem::path& file, const DebMember& member, ByteSink& sink,
                             const std::string& what) {
  MemberArchive member_archive(file, member, true, what);
  archive* a = member_archive.archive.get();
  const std::string& where = member_archive.where;
  archive_entry* e;
  if (archive_read_next_header(a, &e) != ARCHIVE_OK)
    throw Error("cannot decompress " + where + ": " + archive_error(a), "the package is damaged");
  std::vector<char> chunk(1 << 20);
  la_ssize_t n;
  while ((n = archive_read_data(a, chunk.data(), chunk.size())) > 0) sink.write(chunk.data(), static_cast<size_t>(n));
  if (n < 0) throw Error("cannot decompress " + where + ": " + archive_error(a), "the package is damaged");
}

}  // namespace rp::apt
