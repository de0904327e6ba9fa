// Gzip layers copy the deflate streams of large wheel members instead of compressing them again:
// the layer must still decompress to exactly the tar that an ordinary compression gives (same
// diff_id), the member's stored bytes must appear in the blob as they are, and a damaged member must
// still fail the build.
#include <doctest/doctest.h>
#include <zlib.h>

#include "assemble/layer_builder.hpp"
#include "python/wheel_archive.hpp"
#include "python/zip_member_content.hpp"
#include "store/content_store.hpp"
#include "util/digest.hpp"
#include "util/error.hpp"
#include "wheel_test_support.hpp"

using namespace rp;
using rp::python::WheelArchive;
using rp::python::ZipMemberContent;
using rp::test::build_zip;
using rp::test::TempDir;
using rp::test::ZipSpec;

namespace {

// 3 MiB that deflates to about half: above the 1 MiB the copy needs.
std::string half_compressible(size_t size) {
  std::string s;
  uint32_t x = 7;
  while (s.size() < size) {
    x = x * 1103515245 + 12345;
    if ((x >> 16) % 2 == 0) s += "lib symbol table entry ";
    else s.push_back(static_cast<char>(x >> 24));
  }
  s.resize(size);
  return s;
}

std::string gunzip_members(const std::string& gz) {
  std::string out;
  z_stream zs{};
  REQUIRE(inflateInit2(&zs, 16 + MAX_WBITS) == Z_OK);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
  zs.avail_in = static_cast<uInt>(gz.size());
  char buf[65536];
  for (;;) {
    zs.next_out = reinterpret_cast<Bytef*>(buf);
    zs.avail_out = sizeof buf;
    int r = inflate(&zs, Z_NO_FLUSH);  // checks every member's CRC-32 and size trailer
    out.append(buf, sizeof buf - zs.avail_out);
    if (r == Z_STREAM_END) {
      if (zs.avail_in == 0) break;
      inflateReset(&zs);
      continue;
    }
    REQUIRE(r == Z_OK);
  }
  inflateEnd(&zs);
  return out;
}

std::vector<Entry> entries_of(const std::shared_ptr<const WheelArchive>& archive) {
  std::vector<Entry> entries;
  for (const auto& m : archive->members()) {
    Entry e;
    e.path = "site-packages/" + m.name;
    e.content = std::make_shared<ZipMemberContent>(archive, m);
    e.origin = "test";
    entries.push_back(e);
  }
  finalize_entries(entries);
  return entries;
}

}  // namespace

TEST_CASE("layer/deflate copy: large wheel members are copied, the tar is unchanged") {
  TempDir dir;
  std::string big = half_compressible(3 << 20);
  auto archive = WheelArchive::open(
      dir.write("w.whl", build_zip({{"pkg/small.py", "print('hi')\n"}, {"pkg/big.so", big}, {"pkg/z.py", "z = 1\n"}})),
      "w.whl");
  const python::ZipMember* member = archive->find("pkg/big.so");
  REQUIRE(member);
  REQUIRE(member->method == python::ZipMember::kDeflated);
  CHECK(ZipMemberContent(archive, *member).has_deflate_stream());
  CHECK_FALSE(ZipMemberContent(archive, *archive->find("pkg/small.py")).has_deflate_stream());
  std::string stored(member->compressed_size, '\0');
  archive->read_at(member->data_offset, stored.data(), stored.size());

  std::vector<Entry> entries = entries_of(archive);
  ContentStore store(dir.path / "store");
  BuiltLayer copied = LayerBuilder(store, {Compression::parse("gzip:6"), 0, 2, false}).build("l", entries);
  BuiltLayer recompressed = LayerBuilder(store, {Compression::parse("gzip:9"), 0, 2, false}).build("l", entries);
  CHECK(copied.layer.diff_id == recompressed.layer.diff_id);  // the same tar either way

  std::string blob = store.read_all(copied.layer.blob.digest);
  CHECK(sha256_digest(gunzip_members(blob)) == copied.layer.diff_id);
  CHECK(blob.find(stored) != std::string::npos);  // copied byte for byte
  std::string other = store.read_all(recompressed.layer.blob.digest);
  CHECK(sha256_digest(gunzip_members(other)) == copied.layer.diff_id);
  CHECK(other.find(stored) == std::string::npos);  // gzip:9 compresses again

  // Deterministic: another thread count gives the same blob.
  BuiltLayer one_thread = LayerBuilder(store, {Compression::parse("gzip:6"), 0, 1, false}).build("l", entries);
  CHECK(one_thread.layer.blob.digest == copied.layer.blob.digest);
}

TEST_CASE("layer/deflate copy: a member failing its CRC fails the layer") {
  TempDir dir;
  ZipSpec bad{"pkg/big.so", half_compressible(2 << 20)};
  bad.corrupt_crc = true;
  auto archive = WheelArchive::open(dir.write("bad.whl", build_zip({bad})), "bad.whl");
  ContentStore store(dir.path / "store");
  CHECK_THROWS_AS(LayerBuilder(store, {Compression::parse("gzip"), 0, 2, false}).build("l", entries_of(archive)),
                  rp::Error);
}
