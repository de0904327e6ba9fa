// The zip reader under wheels: listing, zip64, checked streaming, and the hostile archives it
// must refuse.
#include <doctest/doctest.h>

#include "python/wheel_archive.hpp"
#include "python/zip_member_content.hpp"
#include "util/digest.hpp"
#include "util/error.hpp"
#include "wheel_test_support.hpp"

using rp::python::WheelArchive;
using rp::python::ZipMember;
using rp::test::build_zip;
using rp::test::TempDir;
using rp::test::ZipSpec;

namespace {

std::shared_ptr<const WheelArchive> open_bytes(const TempDir& dir, const std::string& bytes) {
  return WheelArchive::open(dir.write("test.whl", bytes), "test.whl");
}

std::string open_error(const std::string& bytes) {
  TempDir dir;
  try {
    open_bytes(dir, bytes);
  } catch (const rp::InputError& e) {
    return e.what();
  }
  return "(no error)";
}

std::string big_text() {
  std::string s;
  for (int i = 0; i < 20000; ++i) s += "line " + std::to_string(i) + " of a file that compresses well\n";
  return s;
}

}  // namespace

TEST_CASE("wheel/archive lists members with sizes, methods, modes and offsets") {
  TempDir dir;
  std::string text = big_text();
  auto archive = open_bytes(dir, build_zip({{"pkg/", "", 040755, false},
                                            {"pkg/a.py", text},
                                            {"pkg/tool", "#!/bin/sh\n", 0100755, false}}));
  REQUIRE(archive->members().size() == 3);
  const ZipMember* a = archive->find("pkg/a.py");
  REQUIRE(a);
  CHECK(a->method == ZipMember::kDeflated);
  CHECK(a->uncompressed_size == text.size());
  CHECK(a->compressed_size < text.size());
  CHECK(a->unix_mode() == 0100644);
  CHECK(archive->members()[0].is_directory());
  const ZipMember* tool = archive->find("pkg/tool");
  REQUIRE(tool);
  CHECK(tool->method == ZipMember::kStored);
  CHECK((tool->unix_mode() & 0777) == 0755);
  CHECK(tool->local_header_offset > a->local_header_offset);
  CHECK(archive->find("missing") == nullptr);

  CHECK(archive->read_member(*a, 1 << 30) == text);
  CHECK(archive->read_prefix(*a, 7) == "line 0 ");
  CHECK(archive->read_member(*tool, 100) == "#!/bin/sh\n");
  CHECK_THROWS_AS(archive->read_member(*a, 10), rp::InputError);

  rp::python::ZipMemberContent content(archive, *a);
  CHECK(content.size() == text.size());
  rp::StringSink sink;
  content.write_to(sink);
  CHECK(sink.str() == text);
  CHECK(content.content_key() == rp::sha256_digest(text));
  CHECK(content.describe() == "test.whl:pkg/a.py");
}

TEST_CASE("wheel/archive reads zip64 central directories") {
  TempDir dir;
  std::string text = big_text();
  auto archive = open_bytes(dir, build_zip({{"a.txt", text}, {"b.bin", "stored", 0100644, false}}, /*zip64=*/true));
  REQUIRE(archive->members().size() == 2);
  CHECK(archive->read_member(*archive->find("a.txt"), 1 << 30) == text);
  CHECK(archive->read_member(*archive->find("b.bin"), 100) == "stored");
}

TEST_CASE("wheel/archive rejects unsafe member names") {
  CHECK(open_error(build_zip({{"../evil.py", "x"}})).find("'..'") != std::string::npos);
  CHECK(open_error(build_zip({{"pkg/../../evil.py", "x"}})).find("'..'") != std::string::npos);
  CHECK(open_error(build_zip({{"/etc/passwd", "x"}})).find("absolute") != std::string::npos);
  CHECK(open_error(build_zip({{"pkg\\evil.py", "x"}})).find("backslash") != std::string::npos);
  CHECK(open_error(build_zip({{"pkg//a.py", "x"}})).find("empty path component") != std::string::npos);
  CHECK(open_error(build_zip({{"./a.py", "x"}})).find("'.'") != std::string::npos);
  CHECK(open_error(build_zip({{"a.py", "x"}, {"a.py", "y"}})).find("appears twice") != std::string::npos);
}

TEST_CASE("wheel/archive rejects encryption, unknown methods and lying sizes") {
  ZipSpec encrypted{"a.py", "x"};
  encrypted.extra_flags = 1;
  CHECK(open_error(build_zip({encrypted})).find("encrypted") != std::string::npos);

  ZipSpec bzip2{"a.py", "x"};
  bzip2.method = 12;
  CHECK(open_error(build_zip({bzip2})).find("compression method 12") != std::string::npos);

  // A kilobyte claiming to inflate to 3 GiB: a zip bomb or a corrupt directory.
  ZipSpec bomb{"a.py", std::string(1000, 'a')};
  bomb.claimed_uncompressed_size = 3ull << 30;
  CHECK(open_error(build_zip({bomb})).find("impossible compression ratio") != std::string::npos);

  // A member whose recorded size reaches into the next member's bytes.
  ZipSpec overlapping{"a.txt", "first member", 0100644, false};
  overlapping.central_size_bump = 20;
  CHECK(open_error(build_zip({overlapping, {"b.txt", "second member", 0100644, false}})).find("overlap") !=
        std::string::npos);

  // A size that runs past the central directory.
  ZipSpec past_end{"a.txt", "x", 0100644, false};
  past_end.central_size_bump = 1 << 20;
  CHECK(open_error(build_zip({past_end})).find("outside the file") != std::string::npos);
}

TEST_CASE("wheel/archive rejects files that are not zips") {
  CHECK(open_error("").find("too small") != std::string::npos);
  CHECK(open_error(std::string(100, 'x')).find("end-of-central-directory") != std::string::npos);
  std::string zip = build_zip({{"a.py", "print(1)\n"}});
  // Truncated: the end record is gone.
  CHECK(open_error(zip.substr(0, zip.size() - 10)).find("not a valid wheel") != std::string::npos);
  // Central directory offset pointing past the file.
  std::string broken = zip;
  broken[broken.size() - 3] = '\x7f';  // high byte of the directory offset
  CHECK(open_error(broken).find("outside the file") != std::string::npos);
}

TEST_CASE("wheel/archive checks the CRC-32 while streaming") {
  TempDir dir;
  ZipSpec bad{"pkg/data.bin", big_text()};
  bad.corrupt_crc = true;
  auto archive = open_bytes(dir, build_zip({bad}));  // the directory itself is fine
  rp::python::ZipMemberContent content(archive, archive->members()[0]);
  rp::CountingSink sink;
  try {
    content.write_to(sink);
    FAIL("no error");
  } catch (const rp::Error& e) {
    std::string msg = e.what();
    CHECK(msg.find("test.whl") != std::string::npos);
    CHECK(msg.find("pkg/data.bin") != std::string::npos);
    CHECK(msg.find("CRC-32") != std::string::npos);
  }
  // The prefix sniffing used for scripts does not need the end of the member.
  CHECK(archive->read_prefix(archive->members()[0], 4) == "line");
}

TEST_CASE("wheel/archive requires stored members to have equal sizes") {
  ZipSpec lying{"a.txt", "0123456789", 0100644, false};
  lying.claimed_uncompressed_size = 11;
  CHECK(open_error(build_zip({lying})).find("different compressed and uncompressed sizes") != std::string::npos);
}

TEST_CASE("wheel/archive inflates members up to 8 MiB in one call and streams larger ones, checked alike") {
  TempDir dir;
  std::string small = big_text();  // about 1 MB: libdeflate, whole
  std::string large;                // over 8 MiB: zlib, streamed
  while (large.size() <= (8u << 20)) large += big_text();
  auto archive = open_bytes(dir, build_zip({{"pkg/small.txt", small}, {"pkg/large.txt", large}}));
  for (const auto& m : archive->members()) {
    CAPTURE(m.name);
    rp::StringSink out;
    rp::CountingSink deflated;
    archive->stream_member_with_deflate(m, out, deflated);
    CHECK(out.str() == (m.name == "pkg/small.txt" ? small : large));
    CHECK(deflated.count() == m.compressed_size);
  }
  // The same refusals on both paths: a member longer than its directory entry, a wrong CRC-32.
  for (const std::string& data : {small, large}) {
    CAPTURE(data.size());
    ZipSpec longer{"pkg/data.txt", data};
    longer.claimed_uncompressed_size = data.size() - 10;
    ZipSpec bad_crc{"pkg/data.txt", data};
    bad_crc.corrupt_crc = true;
    // (no structured bindings: clang 14 cannot capture them in doctest's checks)
    for (const auto& c : {std::pair{longer, "larger than its recorded size"}, std::pair{bad_crc, "CRC-32"}}) {
      const ZipSpec& spec = c.first;
      std::string expected = c.second;
      TempDir d;
      auto a = open_bytes(d, build_zip({spec}));
      rp::CountingSink sink;
      std::string msg = "(no error)";
      try {
        a->stream_member(a->members()[0], sink);
      } catch (const rp::Error& e) {
        msg = e.what();
      }
      CHECK_MESSAGE(msg.find(expected) != std::string::npos, msg);
      CHECK_MESSAGE(msg.find("pkg/data.txt") != std::string::npos, msg);
    }
  }
}

TEST_CASE("wheel/archive inflates a large member with ISA-L and refuses a damaged stream") {
  TempDir dir;
  std::string large;  // over 8 MiB: streamed (ISA-L without a raw-deflate copy, zlib with one)
  while (large.size() <= (8u << 20)) large += big_text();
  std::string zip = build_zip({{"pkg/large.txt", large}});
  auto archive = open_bytes(dir, zip);
  const auto& m = archive->members()[0];
  rp::StringSink out;
  archive->stream_member(m, out);
  CHECK(out.str() == large);
  CHECK(archive->read_prefix(m, 5) == large.substr(0, 5));

  // Damage inside the deflate stream, and a stream whose end is overwritten: each an rp::Error naming
  // the member (a corrupt stream, a CRC-32 or size mismatch, whichever the decoder meets first).
  const uint64_t start = m.data_offset, length = m.compressed_size;
  std::string damaged = zip;
  for (uint64_t i = start + length / 2; i < start + length / 2 + 64; ++i) damaged[i] = static_cast<char>(0xff);
  std::string zeroed_end = zip;
  for (uint64_t i = start + length * 3 / 4; i < start + length; ++i) zeroed_end[i] = '\0';
  for (const std::string& bytes : {damaged, zeroed_end}) {
    TempDir d;
    auto a = open_bytes(d, bytes);
    rp::CountingSink sink;
    std::string msg = "(no error)";
    try {
      a->stream_member(a->members()[0], sink);
    } catch (const rp::Error& e) {
      msg = e.what();
    }
    CHECK_MESSAGE(msg.find("pkg/large.txt") != std::string::npos, msg);
    CHECK(sink.count() <= large.size());
  }
}
