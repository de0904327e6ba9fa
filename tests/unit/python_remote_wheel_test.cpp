// Remote zip reading on in-memory archives: the range logic, zip64, large files read partially,
// and damaged archives that must fail cleanly.
#include <doctest/doctest.h>

#include <cstring>
#include <random>

#include "python/remote_wheel.hpp"
#include "util/error.hpp"
#include "wheel_test_support.hpp"

using namespace rp::python;
using rp::test::build_zip;
using rp::test::ZipSpec;

namespace {

// A RangeSource over bytes in memory that counts what it hands out, like HttpRangeSource's stats.
class MemorySource final : public RangeSource {
 public:
  explicit MemorySource(std::string bytes) : bytes_(std::move(bytes)) {}
  std::string read_tail(uint64_t length, uint64_t* file_size) override {
    ++requests;
    *file_size = bytes_.size();
    uint64_t n = std::min<uint64_t>(length, bytes_.size());
    transferred += n;
    return bytes_.substr(bytes_.size() - n);
  }
  std::string read_range(uint64_t offset, uint64_t length) override {
    ++requests;
    REQUIRE(offset + length <= bytes_.size());
    transferred += length;
    return bytes_.substr(offset, length);
  }
  uint64_t requests = 0;
  uint64_t transferred = 0;

 private:
  std::string bytes_;
};

std::string random_bytes(size_t n, uint32_t seed) {
  std::mt19937_64 rng(seed);
  std::string out(n, '\0');
  for (size_t i = 0; i + 8 <= n; i += 8) {
    uint64_t v = rng();
    std::memcpy(out.data() + i, &v, 8);
  }
  return out;
}

const std::string kMetadata = "Metadata-Version: 2.1\nName: demo\nVersion: 1.0\nRequires-Dist: six\n";

}  // namespace

TEST_CASE("python/remote_wheel: METADATA from a small wheel, plain and zip64") {
  for (bool zip64 : {false, true}) {
    CAPTURE(zip64);
    std::string zip = build_zip({{"demo/__init__.py", "x = 1\n"},
                                 {"demo-1.0.dist-info/METADATA", kMetadata},
                                 {"demo-1.0.dist-info/RECORD", "", false}},
                                zip64);
    MemorySource source(zip);
    CHECK(read_remote_metadata(source, "demo.whl", "demo") == kMetadata);
    // The whole file fits the first tail request: one request, nothing more.
    CHECK(source.requests == 1);
  }
}

TEST_CASE("python/remote_wheel: a large wheel is read in a few small ranges") {
  // 8 MiB of incompressible payload before the dist-info, as in a real binary wheel.
  std::string zip = build_zip({{"demo/lib.so", random_bytes(8 << 20, 1), false},
                               {"demo-1.0.dist-info/METADATA", kMetadata},
                               {"demo-1.0.dist-info/WHEEL", "Wheel-Version: 1.0\n"}},
                              true);
  MemorySource source(zip);
  CHECK(read_remote_metadata(source, "demo.whl", "demo") == kMetadata);
  CHECK(source.transferred < 70 * 1024);
  CHECK(source.requests <= 2);
}

TEST_CASE("python/remote_wheel: METADATA far from the end and a directory larger than the first tail") {
  std::vector<ZipSpec> members{{"demo-1.0.dist-info/METADATA", kMetadata}};
  members.push_back({"demo/big.bin", random_bytes(2 << 20, 2), false});
  for (int i = 0; i < 2000; ++i) members.push_back({"demo/pkg/module_with_a_long_name_" + std::to_string(i) + ".py", "", false});
  std::string zip = build_zip(members);
  MemorySource source(zip);
  RemoteReadOptions options;
  options.tail_size = 4096;
  CHECK(read_remote_metadata(source, "demo.whl", "demo", options) == kMetadata);
  CHECK(source.requests == 3);  // tail, rest of the directory, the member
  CHECK(source.transferred < 200 * 1024);
}

TEST_CASE("python/remote_wheel: damaged archives fail with InputError") {
  std::string good = build_zip({{"demo-1.0.dist-info/METADATA", kMetadata}});
  SUBCASE("not a zip") {
    MemorySource source(std::string(1000, 'x'));
    CHECK_THROWS_AS(read_remote_metadata(source, "demo.whl", "demo"), rp::InputError);
  }
  SUBCASE("too small") {
    MemorySource source("PK");
    CHECK_THROWS_AS(read_remote_metadata(source, "demo.whl", "demo"), rp::InputError);
  }
  SUBCASE("CRC mismatch") {
    ZipSpec spec{"demo-1.0.dist-info/METADATA", kMetadata};
    spec.corrupt_crc = true;
    MemorySource source(build_zip({spec}));
    CHECK_THROWS_WITH_AS(read_remote_metadata(source, "demo.whl", "demo"), doctest::Contains("CRC-32"), rp::InputError);
  }
  SUBCASE("no METADATA") {
    MemorySource source(build_zip({{"demo/__init__.py", ""}}));
    CHECK_THROWS_WITH_AS(read_remote_metadata(source, "demo.whl", "demo"), doctest::Contains("METADATA"),
                         rp::InputError);
  }
  SUBCASE("lying sizes") {
    ZipSpec spec{"demo-1.0.dist-info/METADATA", kMetadata};
    spec.central_size_bump = 1u << 30;
    MemorySource source(build_zip({spec}));
    CHECK_THROWS_AS(read_remote_metadata(source, "demo.whl", "demo"), rp::InputError);
  }
  SUBCASE("every truncation and byte flip fails cleanly or reads the right text") {
    for (size_t cut = 0; cut < good.size(); ++cut) {
      MemorySource source(good.substr(0, cut));
      CHECK_THROWS_AS(read_remote_metadata(source, "demo.whl", "demo"), rp::Error);
    }
    std::mt19937 rng(7);
    for (int i = 0; i < 3000; ++i) {
      std::string bad = good;
      bad[rng() % bad.size()] = static_cast<char>(rng());
      MemorySource source(bad);
      try {
        std::string text = read_remote_metadata(source, "demo.whl", "demo");
        CHECK(text.size() == kMetadata.size());  // the CRC passed: the member is intact
      } catch (const rp::Error&) {
      }
    }
  }
}

TEST_CASE("python/remote_wheel: the dist-info of the wheel's own project is chosen") {
  std::vector<ZipMember> members(3);
  members[0].name = "other-1.0.dist-info/METADATA";
  members[1].name = "Demo_Pkg-1.0.dist-info/METADATA";
  members[2].name = "nested/x-1.0.dist-info/METADATA";
  CHECK(find_metadata_member(members, "demo-pkg") == &members[1]);
  CHECK(find_metadata_member(members, "unknown") == nullptr);  // two candidates, neither matches
  members.erase(members.begin());
  CHECK(find_metadata_member(members, "unknown") == &members[0]);  // the only top-level one
}

TEST_CASE("python/remote_wheel: zip64 end record before the first tail asks for more") {
  std::string zip = build_zip({{"demo-1.0.dist-info/METADATA", kMetadata}}, true);
  // Only the EOCD itself: the locator lies before it.
  std::string tail = zip.substr(zip.size() - 22);
  ZipEndInfo info = locate_central_directory(tail, zip.size(), "demo.whl");
  CHECK(!info.location);
  CHECK(info.need_tail > 22);
  info = locate_central_directory(std::string_view(zip).substr(zip.size() - info.need_tail), zip.size(), "demo.whl");
  REQUIRE(info.location);
  CHECK(info.location->count == 1);
}
