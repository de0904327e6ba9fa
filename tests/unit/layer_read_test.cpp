#include <doctest/doctest.h>
#include <fcntl.h>
#include <libdeflate.h>
#include <unistd.h>
#include <zlib.h>

#include <string>

#include "image/rootfs_view.hpp"
#include "image_test_support.hpp"
#include "inventory/diff.hpp"
#include "inventory/inventory.hpp"
#include "test_helpers.hpp"
#include "util/digest.hpp"
#include "util/error.hpp"
#include "util/gzip_fd_reader.hpp"

using namespace rp;
using namespace rp::test;

namespace {

// Bytes that compress somewhat (so members are smaller than their input), deterministic.
std::string sample(size_t size, uint32_t seed) {
  std::string s(size, '\0');
  uint32_t x = seed;
  for (size_t i = 0; i < size; ++i) {
    x = x * 1103515245u + 12345u;
    s[i] = static_cast<char>((x >> 16) % 17 + 'a');
  }
  return s;
}

// One gzip member by libdeflate, as rockpack's parallel compressor writes each block.
std::string libdeflate_member(const std::string& data) {
  libdeflate_compressor* c = libdeflate_alloc_compressor(6);
  std::string out(libdeflate_gzip_compress_bound(c, data.size()), '\0');
  out.resize(libdeflate_gzip_compress(c, data.data(), data.size(), out.data(), out.size()));
  libdeflate_free_compressor(c);
  return out;
}

// One gzip member by zlib, streamed, as most tools write a whole layer.
std::string zlib_member(const std::string& data) {
  z_stream z{};
  REQUIRE(deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) == Z_OK);
  std::string out(deflateBound(&z, data.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  REQUIRE(deflate(&z, Z_FINISH) == Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

struct ReadResult {
  std::string data;
  std::string error;
  std::string compressed_digest;
  std::string uncompressed_digest;
};

ReadResult read_all(const TempDir& dir, const std::string& gz) {
  auto file = dir.write("blob.gz", gz);
  int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  Sha256 compressed, uncompressed;
  ReadResult r;
  {
    GzipFdReader reader(fd, &compressed, &uncompressed);
    const void* p;
    int64_t n;
    while ((n = reader.next(&p)) > 0) r.data.append(static_cast<const char*>(p), static_cast<size_t>(n));
    if (n < 0) r.error = reader.error();
  }
  ::close(fd);
  r.compressed_digest = compressed.finish_digest();
  r.uncompressed_digest = uncompressed.finish_digest();
  return r;
}

}  // namespace

TEST_CASE("gzip fd reader: many small members (libdeflate), one big member (zlib), mixed, both digests") {
  TempDir dir;
  const std::string data = sample(11u << 20, 7);
  std::string blocks;
  for (size_t at = 0; at < data.size(); at += 1u << 20) blocks += libdeflate_member(data.substr(at, 1u << 20));
  std::string one = zlib_member(data);
  // A copied stream between blocks, larger than the reader's output buffer: zlib, then back.
  std::string mixed = libdeflate_member(data.substr(0, 1000)) + zlib_member(data.substr(1000, 9u << 20)) +
                      libdeflate_member(data.substr(1000 + (9u << 20))) + libdeflate_member("");
  for (const std::string* gz : {&blocks, &one, &mixed}) {
    ReadResult r = read_all(dir, *gz);
    CHECK(r.error.empty());
    CHECK(r.data.size() == data.size());
    CHECK(r.data == data);
    CHECK(r.compressed_digest == sha256_digest(*gz));
    CHECK(r.uncompressed_digest == sha256_digest(data));
  }
}

TEST_CASE("gzip fd reader: trailing bytes are hashed, not read; damage is an error") {
  TempDir dir;
  const std::string data = sample(3u << 20, 3);
  std::string gz = libdeflate_member(data.substr(0, 1u << 20)) + libdeflate_member(data.substr(1u << 20));
  ReadResult padded = read_all(dir, gz + std::string(4096, '\0'));
  CHECK(padded.error.empty());
  CHECK(padded.data == data);
  CHECK(padded.compressed_digest == sha256_digest(gz + std::string(4096, '\0')));

  std::string flipped = gz;
  flipped[flipped.size() / 3] = static_cast<char>(flipped[flipped.size() / 3] ^ 0x55);
  CHECK_FALSE(read_all(dir, flipped).error.empty());
  CHECK_FALSE(read_all(dir, gz.substr(0, gz.size() - 10)).error.empty());
  std::string big = zlib_member(data);
  CHECK_FALSE(read_all(dir, big.substr(0, big.size() / 2)).error.empty());
  CHECK_FALSE(read_all(dir, "not gzip at all").error.empty());
  CHECK_FALSE(read_all(dir, "").error.empty());
}

TEST_CASE("layer read: the diff_id the config gives is checked against the uncompressed tar") {
  TempDir dir;
  ContentStore store(dir.path / "store");
  std::vector<Entry> entries = {dir_entry("etc"), file_entry("etc/a", "A"), file_entry("etc/b", sample(5u << 20, 1))};
  Descriptor layer = store_layer(store, entries, "gzip");
  const std::string diff_id = sha256_digest(raw_tar(entries));
  auto keep = [](std::string_view p) { return p == "etc/a"; };
  auto read = RootfsView::read_layer(store, layer, keep, diff_id);
  RootfsView view;
  view.apply_layer(*read);
  CHECK(view.read("/etc/a") == std::optional<std::string>("A"));
  CHECK(view.lstat("/etc/b")->size == 5u << 20);
  CHECK_THROWS_AS(RootfsView::read_layer(store, layer, keep, sha256_digest("another tar")), Error);
  // In place (an OCI layout's blob file) reads the same.
  auto in_place = RootfsView::read_layer(store.blob_path(layer.digest), layer, keep, diff_id);
  RootfsView view2;
  view2.apply_layer(*in_place);
  CHECK(view2.read("/etc/a") == std::optional<std::string>("A"));
  // A plain tar's diff_id is its digest.
  Descriptor plain = store_layer(store, entries, "none");
  CHECK_NOTHROW(RootfsView::read_layer(store, plain, keep, plain.digest));
  CHECK_THROWS_AS(RootfsView::read_layer(store, plain, keep, diff_id + "0"), Error);
}

TEST_CASE("inventories of two images at once: a shared layer read once, each image's own layers applied in order") {
  TempDir dir;
  ContentStore store(dir.path / "store");
  auto meta = [](const std::string& name, const std::string& version) {
    return "Metadata-Version: 2.1\nName: " + name + "\nVersion: " + version + "\n";
  };
  std::vector<Entry> base = {dir_entry("var"), dir_entry("var/lib"), dir_entry("var/lib/dpkg"),
                             file_entry("var/lib/dpkg/status",
                                        "Package: libc6\nStatus: install ok installed\nVersion: 2.36-9\nArchitecture: amd64\n"),
                             dir_entry("site"), dir_entry("site/a-1.0.dist-info"),
                             file_entry("site/a-1.0.dist-info/METADATA", meta("a", "1.0"))};
  std::vector<Entry> upper_a = {dir_entry("site/b-1.0.dist-info"), file_entry("site/b-1.0.dist-info/METADATA", meta("b", "1.0"))};
  // B removes a (a whiteout) and has b 2.0.
  std::vector<Entry> upper_b = {file_entry("site/.wh.a-1.0.dist-info", ""), dir_entry("site/b-2.0.dist-info"),
                                file_entry("site/b-2.0.dist-info/METADATA", meta("b", "2.0"))};
  auto layer = [&](const std::vector<Entry>& entries, const std::string& compression) {
    return ImageLayer{store_layer(store, entries, compression), sha256_digest(raw_tar(entries)), 0};
  };
  Image a, b;
  a.layers = {layer(base, "gzip"), layer(upper_a, "zstd")};
  b.layers = {layer(base, "gzip"), layer(upper_b, "none")};
  auto both = inventory::take_inventories({{&a, nullptr}, {&b, nullptr}}, store, true, 2);
  REQUIRE(both.size() == 2);
  auto one_a = inventory::take_inventory(a, store, true);
  auto one_b = inventory::take_inventory(b, store, true);
  CHECK(inventory::diff(both[0], one_a)["identical"] == true);
  CHECK(inventory::diff(both[1], one_b)["identical"] == true);
  auto d = inventory::diff(both[0], both[1]);
  CHECK(d["layers"]["shared"].size() == 1);
  CHECK(d["packages"]["removed"].size() == 1);
  CHECK(d["packages"]["removed"][0]["name"] == "a");
  CHECK(d["packages"]["changed"].size() == 1);
  CHECK(d["packages"]["changed"][0]["old"] == "1.0");
  CHECK(d["packages"]["changed"][0]["new"] == "2.0");
  CHECK(d["files"]["removed"].size() == 4);  // a-1.0.dist-info and b-1.0.dist-info, with their METADATA
  CHECK(d["files"]["added"].size() == 2);    // b-2.0.dist-info and its METADATA
  CHECK(both[0].packages.size() == 3);       // libc6, a, b
  // A config that names the wrong diff_id for a layer fails, even for a layer the other image shares.
  Image c = b;
  c.layers[0].diff_id = sha256_digest("not this layer");
  CHECK_THROWS_AS(inventory::take_inventories({{&a, nullptr}, {&c, nullptr}}, store, false, 2), Error);
}
