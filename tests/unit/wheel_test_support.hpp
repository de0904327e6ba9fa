#pragma once
// Test helpers for the wheel installer: a small zip writer that can also produce the broken and
// hostile archives the reader must reject (bad CRCs, lying sizes, encryption flags, forced zip64),
// a builder for complete little wheels, and a layer round trip through TarWriter and libarchive.
#include <zlib.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "entries/entry.hpp"
#include "assemble/tar_writer.hpp"
#include "python/wheel_record.hpp"
#include "test_helpers.hpp"
#include "util/byte_sink.hpp"

namespace rp::test {

struct ZipSpec {
  std::string name;
  std::string data;
  uint32_t unix_mode = 0100644;  // goes into external_attr >> 16
  bool deflate = true;
  // Hostile variations:
  bool corrupt_crc = false;
  uint16_t extra_flags = 0;                // e.g. 1 = encrypted
  int method = -1;                         // overrides the compression method in the directory
  uint64_t central_size_bump = 0;          // added to both sizes in the central directory
  uint64_t claimed_uncompressed_size = 0;  // nonzero: this size in the central directory
};

inline void put16(std::string& out, uint32_t v) {
  out.push_back(static_cast<char>(v & 0xff));
  out.push_back(static_cast<char>((v >> 8) & 0xff));
}
inline void put32(std::string& out, uint32_t v) {
  put16(out, v & 0xffff);
  put16(out, v >> 16);
}
inline void put64(std::string& out, uint64_t v) {
  put32(out, static_cast<uint32_t>(v));
  put32(out, static_cast<uint32_t>(v >> 32));
}

inline std::string raw_deflate(const std::string& data) {
  z_stream s{};
  deflateInit2(&s, 6, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&s, data.size()) + 16, '\0');
  s.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  s.avail_in = static_cast<uInt>(data.size());
  s.next_out = reinterpret_cast<Bytef*>(out.data());
  s.avail_out = static_cast<uInt>(out.size());
  deflate(&s, Z_FINISH);
  out.resize(s.total_out);
  deflateEnd(&s);
  return out;
}

// A zip archive of `members`; with `zip64`, every central directory entry and the end record use
// the zip64 forms even though the sizes would fit (that is what the reader must handle).
inline std::string build_zip(const std::vector<ZipSpec>& members, bool zip64 = false) {
  std::string out, central;
  for (const auto& m : members) {
    std::string stored = m.deflate ? raw_deflate(m.data) : m.data;
    uint32_t crc = static_cast<uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(m.data.data()),
                                               static_cast<uInt>(m.data.size())));
    if (m.corrupt_crc) crc ^= 0x5a5a5a5a;
    uint16_t method = m.deflate ? 8 : 0;
    uint64_t offset = out.size();
    put32(out, 0x04034b50);
    put16(out, zip64 ? 45 : 20);
    put16(out, m.extra_flags);
    put16(out, method);
    put16(out, 0);
    put16(out, 0x21);
    put32(out, crc);
    put32(out, static_cast<uint32_t>(stored.size()));
    put32(out, static_cast<uint32_t>(m.data.size()));
    put16(out, static_cast<uint32_t>(m.name.size()));
    put16(out, 0);
    out += m.name;
    out += stored;

    uint64_t csize = stored.size() + m.central_size_bump;
    uint64_t usize = (m.claimed_uncompressed_size ? m.claimed_uncompressed_size : m.data.size()) + m.central_size_bump;
    put32(central, 0x02014b50);
    put16(central, (3 << 8) | 45);  // made by Unix
    put16(central, zip64 ? 45 : 20);
    put16(central, m.extra_flags);
    put16(central, m.method >= 0 ? static_cast<uint32_t>(m.method) : method);
    put16(central, 0);
    put16(central, 0x21);
    put32(central, crc);
    put32(central, zip64 ? 0xffffffffu : static_cast<uint32_t>(csize));
    put32(central, zip64 ? 0xffffffffu : static_cast<uint32_t>(usize));
    put16(central, static_cast<uint32_t>(m.name.size()));
    put16(central, zip64 ? 28 : 0);
    put16(central, 0);  // comment
    put16(central, 0);  // disk
    put16(central, 0);  // internal attributes
    put32(central, m.unix_mode << 16);
    put32(central, zip64 ? 0xffffffffu : static_cast<uint32_t>(offset));
    central += m.name;
    if (zip64) {
      put16(central, 1);
      put16(central, 24);
      put64(central, usize);
      put64(central, csize);
      put64(central, offset);
    }
  }
  uint64_t cd_offset = out.size();
  out += central;
  if (zip64) {
    uint64_t z64_offset = out.size();
    put32(out, 0x06064b50);
    put64(out, 44);
    put16(out, 45);
    put16(out, 45);
    put32(out, 0);
    put32(out, 0);
    put64(out, members.size());
    put64(out, members.size());
    put64(out, central.size());
    put64(out, cd_offset);
    put32(out, 0x07064b50);
    put32(out, 0);
    put64(out, z64_offset);
    put32(out, 1);
  }
  put32(out, 0x06054b50);
  put16(out, 0);
  put16(out, 0);
  put16(out, zip64 ? 0xffff : static_cast<uint32_t>(members.size()));
  put16(out, zip64 ? 0xffff : static_cast<uint32_t>(members.size()));
  put32(out, zip64 ? 0xffffffffu : static_cast<uint32_t>(central.size()));
  put32(out, zip64 ? 0xffffffffu : static_cast<uint32_t>(cd_offset));
  put16(out, 0);
  return out;
}

// A complete small wheel: payload members plus a .dist-info with METADATA, WHEEL, optional
// entry_points.txt and a correct RECORD.
struct TestWheel {
  std::string name = "demo_pkg";
  std::string version = "1.0";
  std::string filename_version;  // defaults to `version`
  std::string metadata_name;     // defaults to `name`
  bool root_is_purelib = true;
  std::string wheel_version = "1.0";
  std::string entry_points;
  std::vector<ZipSpec> files;
  bool zip64 = false;
  // Rows to use instead of the correct ones (path -> "hash,size").
  std::map<std::string, std::string> record_overrides;

  std::string dist_info() const { return name + "-" + version + ".dist-info"; }
  std::string data_dir() const { return name + "-" + version + ".data"; }
  std::string filename() const {
    return name + "-" + (filename_version.empty() ? version : filename_version) + "-py3-none-any.whl";
  }

  std::string bytes() const {
    std::vector<ZipSpec> all = files;
    all.push_back({dist_info() + "/METADATA", "Metadata-Version: 2.1\nName: " +
                                                  (metadata_name.empty() ? name : metadata_name) +
                                                  "\nVersion: " + version + "\n\nA test package.\n"});
    all.push_back({dist_info() + "/WHEEL", "Wheel-Version: " + wheel_version +
                                               "\nGenerator: rockpack-tests\nRoot-Is-Purelib: " +
                                               (root_is_purelib ? "true" : "false") + "\nTag: py3-none-any\n"});
    if (!entry_points.empty()) all.push_back({dist_info() + "/entry_points.txt", entry_points});
    std::string record;
    for (const auto& f : all) {
      if (f.name.back() == '/') continue;
      auto it = record_overrides.find(f.name);
      record += f.name + "," +
                (it != record_overrides.end() ? it->second
                                              : python::record_hash(f.data) + "," + std::to_string(f.data.size())) +
                "\n";
    }
    record += dist_info() + "/RECORD,,\n";
    all.push_back({dist_info() + "/RECORD", record});
    return build_zip(all, zip64);
  }

  // Writes the wheel into `dir` under its file name and returns the path.
  std::filesystem::path write(const TempDir& dir) const { return dir.write(filename(), bytes()); }
};

// Writes `entries` as a layer tar (finalize_entries first, as LayerBuilder does) and reads it back
// with libarchive.
inline std::string layer_tar_bytes(std::vector<Entry> entries) {
  finalize_entries(entries);
  StringSink sink;
  TarWriter tar(sink, 0);
  for (const auto& e : entries) tar.add(e);
  tar.finish();
  return sink.take();
}

inline std::map<std::string, TarMember> read_layer(std::vector<Entry> entries) {
  std::map<std::string, TarMember> out;
  for (auto& m : read_tar(layer_tar_bytes(std::move(entries)))) {
    std::string path = m.path;
    if (!path.empty() && path.back() == '/') path.pop_back();
    out[path] = std::move(m);
  }
  return out;
}

}  // namespace rp::test
