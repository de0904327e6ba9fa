#include "assemble/tar_writer.hpp"

#include <cstdio>
#include <cstring>

#include "util/error.hpp"
#include "util/strings.hpp"

namespace rp {

namespace {

constexpr size_t kBlock = 512;
constexpr uint64_t kMaxOctal11 = 077777777777ULL;  // largest size/mtime in 11 octal digits
constexpr uint64_t kMaxOctal7 = 07777777ULL;       // largest uid/gid in 7 octal digits

struct UstarHeader {
  char bytes[kBlock];
};

void put_octal(char* field, size_t width, uint64_t value) {
  // width includes the terminating NUL, as POSIX ustar writes numeric fields.
  std::snprintf(field, width, "%0*llo", static_cast<int>(width - 1), static_cast<unsigned long long>(value));
}

void put_string(char* field, size_t width, const std::string& value) {
  std::memcpy(field, value.data(), std::min(width, value.size()));
}

UstarHeader make_header(const std::string& name, char typeflag, uint32_t mode, uint64_t uid, uint64_t gid,
                        uint64_t size, uint64_t mtime, const std::string& linkname) {
  UstarHeader h;
  std::memset(h.bytes, 0, kBlock);
  char* b = h.bytes;
  put_string(b + 0, 100, name);
  put_octal(b + 100, 8, mode & 07777);
  put_octal(b + 108, 8, uid <= kMaxOctal7 ? uid : 0);
  put_octal(b + 116, 8, gid <= kMaxOctal7 ? gid : 0);
  put_octal(b + 124, 12, size <= kMaxOctal11 ? size : 0);
  put_octal(b + 136, 12, mtime <= kMaxOctal11 ? mtime : 0);
  b[156] = typeflag;
  put_string(b + 157, 100, linkname);
  std::memcpy(b + 257, "ustar", 6);  // magic "ustar\0"
  std::memcpy(b + 263, "00", 2);     // version
  // Device numbers are meaningful only for device entries; Go writes zeros here too.
  put_octal(b + 329, 8, 0);
  put_octal(b + 337, 8, 0);
  std::memset(b + 148, ' ', 8);
  unsigned sum = 0;
  for (size_t i = 0; i < kBlock; ++i) sum += static_cast<unsigned char>(b[i]);
  std::snprintf(b + 148, 8, "%06o", sum);  // six digits, NUL, then the space already there
  b[155] = ' ';
  return h;
}

// One PAX record: "<len> <key>=<value>\n" where <len> counts the whole record including itself.
std::string pax_record(const std::string& key, const std::string& value) {
  size_t body = 1 + key.size() + 1 + value.size() + 1;  // " key=value\n"
  size_t len = body + 1;
  while (std::to_string(len).size() + body != len) len = std::to_string(len).size() + body;
  return std::to_string(len) + " " + key + "=" + value + "\n";
}

char typeflag_of(EntryType t) {
  switch (t) {
    case EntryType::kFile: return '0';
    case EntryType::kHardlink: return '1';
    case EntryType::kSymlink: return '2';
    case EntryType::kDirectory: return '5';
  }
  return '0';
}

}  // namespace

void TarWriter::emit(const void* data, size_t size) {
  out_.write(data, size);
  written_ += size;
}

void TarWriter::emit_shared(const std::shared_ptr<const std::string>& bytes) {
  out_.write_shared(bytes);
  written_ += bytes->size();
}

void TarWriter::pad_to_block(uint64_t size) {
  static const char kZeros[kBlock] = {};
  size_t rem = size % kBlock;
  if (rem) emit(kZeros, kBlock - rem);
}

void TarWriter::write_pax_header(const std::string& name, const std::string& records) {
  // The extended header's own name is informative only; derive it from the entry so it is stable.
  std::string base = name.substr(0, 80);
  UstarHeader h = make_header("PaxHeaders/" + base, 'x', 0644, 0, 0, records.size(), static_cast<uint64_t>(mtime_), "");
  emit(h.bytes, kBlock);
  emit(records.data(), records.size());
  pad_to_block(records.size());
}

void TarWriter::add(const Entry& entry, const RenderedContent* rendered) {
  // The last guard: a NUL would end the name in the ustar field but not in the PAX record, so
  // readers would disagree on which path this is. The readers of .debs, wheels and layers refuse it
  // first, with the archive's name; this catches any other way in.
  if (entry.path.find('\0') != std::string::npos || entry.link_target.find('\0') != std::string::npos)
    throw InputError("the path '" + printable(entry.path) + "'" + (entry.origin.empty() ? "" : " (from " + entry.origin + ")") +
                         " or its link target holds a NUL byte, which no tar can hold",
                     "remove the file from what the step installs");
  std::string name = entry.path;
  if (entry.type == EntryType::kDirectory) name += '/';
  uint64_t size = entry.size();

  std::string pax;
  if (name.size() > 100) pax += pax_record("path", name);
  if (entry.link_target.size() > 100) pax += pax_record("linkpath", entry.link_target);
  if (size > kMaxOctal11) pax += pax_record("size", std::to_string(size));
  if (entry.uid > kMaxOctal7) pax += pax_record("uid", std::to_string(entry.uid));
  if (entry.gid > kMaxOctal7) pax += pax_record("gid", std::to_string(entry.gid));
  for (const auto& [k, v] : entry.xattrs) pax += pax_record("SCHILY.xattr." + k, v);
  if (!pax.empty()) write_pax_header(name, pax);

  UstarHeader h = make_header(name, typeflag_of(entry.type), entry.mode, entry.uid, entry.gid, size,
                              static_cast<uint64_t>(mtime_), entry.link_target);
  emit(h.bytes, kBlock);
  if (entry.type == EntryType::kFile && size > 0) {
    // Count what the source delivers so a short or long source cannot desynchronize the archive.
    struct Counting final : ByteSink {
      TarWriter& w;
      uint64_t n = 0;
      explicit Counting(TarWriter& tw) : w(tw) {}
      void write(const void* data, size_t s) override {
        w.emit(data, s);
        n += s;
      }
      void write_shared(const std::shared_ptr<const std::string>& bytes) override {
        w.emit_shared(bytes);
        n += bytes->size();
      }
    } counting(*this);
    bool copy = copies_deflate(entry);
    if (rendered && rendered->has_deflated != copy)
      throw Error("internal: /" + entry.path + " was read ahead " + (copy ? "without" : "with") + " its deflate stream");
    if (rendered && rendered->stream) {
      if (copy) passthrough_->begin();
      ContentStream::Chunk chunk;
      while (rendered->stream->next(chunk)) {
        if (chunk.deflated && !copy) throw Error("internal: /" + entry.path + " streamed a deflate stream it does not copy");
        if (chunk.deflated)
          passthrough_->deflate_sink().write(chunk.bytes->data(), chunk.bytes->size());
        else
          counting.write_shared(chunk.bytes);
      }
      if (copy) passthrough_->end();
    } else if (copy) {
      passthrough_->begin();
      if (rendered) {
        counting.write_shared(rendered->bytes);
        passthrough_->deflate_sink().write(rendered->deflated.data(), rendered->deflated.size());
      } else {
        entry.content->write_with_deflate(counting, passthrough_->deflate_sink());
      }
      passthrough_->end();
    } else if (rendered) {
      counting.write_shared(rendered->bytes);
    } else {
      entry.content->write_to(counting);
    }
    if (counting.n != size)
      throw Error("/" + entry.path + ": its source (" + entry.content->describe() + ") delivered " +
                  std::to_string(counting.n) + " bytes instead of " + std::to_string(size));
    pad_to_block(size);
  }
}

void TarWriter::finish() {
  static const char kZeros[2 * kBlock] = {};
  emit(kZeros, sizeof kZeros);
}

}  // namespace rp
