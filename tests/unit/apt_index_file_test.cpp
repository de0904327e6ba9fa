// Fetched index files decompressed by their name (apt::decompress_index): the compressions
// repositories publish, and nothing else passed off under a compressed name.
#include <doctest/doctest.h>

#include <string>

#include "apt/package_index.hpp"
#include "assemble/compression.hpp"
#include "util/byte_sink.hpp"
#include "util/error.hpp"

using rp::apt::decompress_index;

namespace {

const std::string kText = "Package: a\nVersion: 1\n";

std::string compressed(const std::string& how, const std::string& text) {
  rp::StringSink out;
  auto c = rp::make_compressor(rp::Compression::parse(how), out, 1);
  c->write(text.data(), text.size());
  c->finish();
  return out.take();
}

// `printf 'Package: a\nVersion: 1\n' | xz -9` and `| bzip2`.
const unsigned char kXz[] = {
    0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00, 0x00, 0x04, 0xe6, 0xd6, 0xb4, 0x46, 0x02, 0x00, 0x21, 0x01, 0x1c, 0x00, 0x00, 0x00,
    0x10, 0xcf, 0x58, 0xcc, 0x01, 0x00, 0x15, 0x50, 0x61, 0x63, 0x6b, 0x61, 0x67, 0x65, 0x3a, 0x20, 0x61, 0x0a, 0x56, 0x65,
    0x72, 0x73, 0x69, 0x6f, 0x6e, 0x3a, 0x20, 0x31, 0x0a, 0x00, 0x00, 0x00, 0x78, 0xaa, 0xc0, 0x89, 0xdb, 0x80, 0xf1, 0x1c,
    0x00, 0x01, 0x2e, 0x16, 0x56, 0x09, 0x55, 0xdf, 0x1f, 0xb6, 0xf3, 0x7d, 0x01, 0x00, 0x00, 0x00, 0x00, 0x04, 0x59, 0x5a};
const unsigned char kBzip2[] = {
    0x42, 0x5a, 0x68, 0x39, 0x31, 0x41, 0x59, 0x26, 0x53, 0x59, 0xa5, 0x1a, 0xdd, 0x36, 0x00, 0x00, 0x03, 0xdb, 0x80, 0x00,
    0x10, 0x40, 0x00, 0x20, 0x10, 0x41, 0x00, 0x2a, 0xa9, 0x98, 0x00, 0x20, 0x00, 0x22, 0x26, 0x4d, 0x32, 0x69, 0xb4, 0x21,
    0x4c, 0x00, 0x13, 0x44, 0x65, 0x25, 0x10, 0xc5, 0xb7, 0x0f, 0x3e, 0x4c, 0x17, 0x73, 0x9f, 0x17, 0x72, 0x45, 0x38, 0x50,
    0x90, 0xa5, 0x1a, 0xdd, 0x36};

// `printf '' | xz`: byte for byte Debian's bookworm-updates contrib/binary-amd64/Packages.xz (sha256
// 0040f94d11d0039505328a90b2ff48968db873e9e7967307631bf40ef5679275, size 32), an empty component.
const unsigned char kEmptyXz[] = {0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00, 0x00, 0x04, 0xe6, 0xd6, 0xb4, 0x46, 0x00, 0x00, 0x00, 0x00,
                                  0x1c, 0xdf, 0x44, 0x21, 0x1f, 0xb6, 0xf3, 0x7d, 0x01, 0x00, 0x00, 0x00, 0x00, 0x04, 0x59, 0x5a};

std::string error_of(const std::string& bytes, const std::string& path) {
  try {
    (void)decompress_index(bytes, path, "the index");
  } catch (const rp::Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("apt/index_file: gzip, zstd, xz and bzip2 indexes -- an uncompressed one as it is") {
  CHECK(decompress_index(compressed("gzip", kText), "main/binary-amd64/Packages.gz", "x") == kText);
  CHECK(decompress_index(compressed("zstd", kText), "main/binary-amd64/Packages.zst", "x") == kText);
  CHECK(decompress_index(std::string(reinterpret_cast<const char*>(kXz), sizeof kXz), "Packages.xz", "x") == kText);
  CHECK(decompress_index(std::string(reinterpret_cast<const char*>(kBzip2), sizeof kBzip2), "Packages.bz2", "x") == kText);
  CHECK(decompress_index(kText, "main/binary-amd64/Packages", "x") == kText);
}

TEST_CASE("apt/index_file: an empty index compressed is an empty index") {
  // It was "cannot decompress: Unrecognized archive format": libarchive's raw format needs a byte.
  std::string empty_xz(reinterpret_cast<const char*>(kEmptyXz), sizeof kEmptyXz);
  CHECK(decompress_index(empty_xz, "contrib/binary-amd64/Packages.xz", "x").empty());
  CHECK(decompress_index(compressed("gzip", ""), "contrib/binary-amd64/Packages.gz", "x").empty());
  CHECK(decompress_index(compressed("zstd", ""), "Packages.zst", "x").empty());
  CHECK(decompress_index("", "Packages", "x").empty());
  CHECK(rp::apt::parse_packages_index(decompress_index(empty_xz, "Packages.xz", "x"), "x", 0).empty());
}

TEST_CASE("apt/index_file: a damaged or uncompressed file under a compressed name is an error") {
  std::string gz = compressed("gzip", kText);
  CHECK(error_of(gz.substr(0, gz.size() / 2), "Packages.gz").rfind("cannot decompress the index", 0) == 0);
  // Plain text named .gz was passed through as it was.
  CHECK(error_of(kText, "Packages.gz") == "cannot decompress the index: it is not compressed as its name Packages.gz says");
  // uuencoded text named .xz was decoded (libarchive's "all" filters include uudecode, and lrzip
  // and grzip through external programs); only the published compressions are read now.
  CHECK(error_of("begin 644 x\n.4&%C:V%G93H@979I; H \n`\nend\n", "Packages.xz") ==
        "cannot decompress the index: it is not compressed as its name Packages.xz says");
}
