// The tar index's cached form (TarIndex::serialize / parse): what is written reads back the same,
// and a damaged record is an rp::Error (a cache miss for the caller), never a crash or a wrong index.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>

#include "entries/tar_index.hpp"
#include "util/error.hpp"

namespace {

rp::TarIndex sample_tar_index() {
  rp::TarIndex index;
  index.tar_digest = "sha256:" + std::string(64, 'c');
  rp::TarIndexMember dir;
  dir.path = "_rocm_sdk_devel";
  dir.type = rp::EntryType::kDirectory;
  dir.mode = 0755;
  dir.uname = dir.gname = "root";
  rp::TarIndexMember file;
  file.path = "_rocm_sdk_devel/lib/" + std::string(300, 'x') + "/libamdhip64.so.7";
  file.mode = 04755;
  file.size = 5'000'000'000ULL;  // past 32 bits
  file.offset = 1536;
  file.uid = 4294967295U;
  file.gid = 1000;
  rp::TarIndexMember link;
  link.path = "_rocm_sdk_devel/bin/ünïcode";
  link.type = rp::EntryType::kSymlink;
  link.mode = 0777;
  link.link_target = "../lib/libamdhip64.so.7";
  rp::TarIndexMember hard = link;
  hard.path = "_rocm_sdk_devel/bin/hard";
  hard.type = rp::EntryType::kHardlink;
  index.members = {dir, file, link, hard};
  return index;
}

}  // namespace

TEST_CASE("tar index record: serialize and parse give back the same index") {
  rp::TarIndex index = sample_tar_index();
  std::string bytes = index.serialize();
  rp::TarIndex again = rp::TarIndex::parse(bytes);
  CHECK(again.tar_digest == index.tar_digest);
  REQUIRE(again.members.size() == index.members.size());
  for (size_t i = 0; i < index.members.size(); ++i) {
    const auto& a = again.members[i];
    const auto& b = index.members[i];
    CHECK(a.path == b.path);
    CHECK(a.type == b.type);
    CHECK(a.mode == b.mode);
    CHECK(a.size == b.size);
    CHECK(a.offset == b.offset);
    CHECK(a.link_target == b.link_target);
    CHECK(a.uid == b.uid);
    CHECK(a.gid == b.gid);
    CHECK(a.uname == b.uname);
    CHECK(a.gname == b.gname);
  }
  CHECK(again.serialize() == bytes);
  // An empty index too.
  rp::TarIndex empty;
  empty.tar_digest = index.tar_digest;
  CHECK(rp::TarIndex::parse(empty.serialize()).members.empty());
}

TEST_CASE("tar index record: damaged or foreign bytes are refused") {
  std::string bytes = sample_tar_index().serialize();
  // Every truncation.
  for (size_t n = 0; n < bytes.size(); ++n) CHECK_THROWS_AS(rp::TarIndex::parse(bytes.substr(0, n)), rp::Error);
  // Trailing bytes, another version, JSON (the previous form of the record).
  CHECK_THROWS_AS(rp::TarIndex::parse(bytes + "x"), rp::Error);
  std::string other = bytes;
  other[other.find('3')] = '2';
  CHECK_THROWS_AS(rp::TarIndex::parse(other), rp::Error);
  CHECK_THROWS_AS(rp::TarIndex::parse(R"({"version":2,"tar":"sha256:00","members":[]})"), rp::Error);

  const std::string magic = "rockpack tar index 3\n";
  REQUIRE(bytes.rfind(magic, 0) == 0);
  auto record = [&](const std::string& body) { return magic + body; };
  const std::string digest = std::string(1, '\x02') + "d1";
  // A member count far beyond what the bytes could hold: refused before anything is reserved.
  CHECK_THROWS_AS(rp::TarIndex::parse(record(digest + "\xff\xff\xff\xff\xff\xff\xff\xff\x7f")), rp::Error);
  // A string longer than the bytes left.
  CHECK_THROWS_AS(rp::TarIndex::parse(record("\x7f" "abc")), rp::Error);
  // A number in more than ten bytes, and one not in its shortest form.
  CHECK_THROWS_AS(rp::TarIndex::parse(record(digest + std::string(11, '\x80') + "\x01")), rp::Error);
  CHECK_THROWS_AS(rp::TarIndex::parse(record(digest + "\x80\x00")), rp::Error);
  // An unknown member type (4), and a mode beyond 07777.
  // (After the mode: size, offset, link length, uid, gid, uname and gname lengths, all zero.)
  const std::string member_tail(7, '\0');
  const std::string file_type(1, '\0');
  std::string one_file = record(digest + "\x01" + "\x01p" + file_type + "\xa4\x03" + member_tail);
  CHECK(rp::TarIndex::parse(one_file).members.at(0).mode == 0644);
  CHECK_THROWS_AS(rp::TarIndex::parse(record(digest + "\x01" + "\x01p" + "\x04" + "\xa4\x03" + member_tail)), rp::Error);
  CHECK_THROWS_AS(rp::TarIndex::parse(record(digest + "\x01" + "\x01p" + file_type + "\x80\x40" + member_tail)),
                  rp::Error);
  // A size in ten bytes whose last one carries more than the 64th bit (found by fuzz_tar_index):
  // with 2^64 - 1 it is the largest number there is; one more bit is refused, not cut off.
  const std::string after_size(6, '\0');
  std::string largest = std::string(9, '\xff') + "\x01";
  CHECK(rp::TarIndex::parse(record(digest + "\x01" + "\x01p" + file_type + "\xa4\x03" + largest + after_size))
            .members.at(0)
            .size == UINT64_MAX);
  std::string too_large = std::string(9, '\xff') + "\x13";
  CHECK_THROWS_AS(rp::TarIndex::parse(record(digest + "\x01" + "\x01p" + file_type + "\xa4\x03" + too_large + after_size)),
                  rp::Error);
}
