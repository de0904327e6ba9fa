// Wheel file names, compatibility tags and choosing the wheel to install.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "net/url.hpp"
#include "python/wheel_filename.hpp"
#include "util/error.hpp"

using rp::python::TagPolicy;
using rp::python::WheelFilename;
using rp::python::WheelTag;

namespace {

std::string tag_at(const TagPolicy& p, size_t i) { return p.tags().at(i).to_string(); }

std::vector<std::string> platform_list(const TagPolicy& p) { return p.platforms(); }

}  // namespace

TEST_CASE("python/wheel: parse file names") {
  auto w = WheelFilename::parse("torch-2.10.0a0%2Brocm7.10.0a20251120-cp311-cp311-linux_x86_64.whl");
  CHECK(w.name == "torch");
  CHECK(w.version.to_string() == "2.10.0a0+rocm7.10.0a20251120");
  CHECK_FALSE(w.build);
  CHECK(w.tags().size() == 1);
  CHECK(w.tags()[0].to_string() == "cp311-cp311-linux_x86_64");

  auto multi = WheelFilename::parse("Six-1.16.0-1_fix-py2.py3-none-any.whl");
  CHECK(multi.normalized_name() == "six");
  REQUIRE(multi.build);
  CHECK(multi.build->number == "1");
  CHECK(multi.build->rest == "_fix");
  CHECK(multi.tags().size() == 2);
  CHECK(multi.tags()[1].to_string() == "py3-none-any");

  auto compressed = WheelFilename::parse(
      "numpy-2.1.0-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl");
  CHECK(compressed.platform_tags == std::vector<std::string>{"manylinux_2_17_x86_64", "manylinux2014_x86_64"});
  CHECK(WheelFilename::parse("rocm_sdk_core-7.10.0a20251120-py3-none-linux_x86_64.whl").normalized_name() ==
        "rocm-sdk-core");
}

TEST_CASE("python/wheel: reject malformed names") {
  for (const char* bad : {"", ".whl", "foo-1.0.whl", "foo-1.0-py3-none.whl", "foo-1.0-py3-none-any.zip",
                          "foo-notaversion-py3-none-any.whl", "foo-1.0-x1-py3-none-any.whl",
                          "foo-1.0-1-2-py3-none-any.whl", "foo-1.0-py3..py2-none-any.whl", "f o-1.0-py3-none-any.whl",
                          "foo-1.0-py3-none-any.tar.gz"}) {
    CAPTURE(bad);
    CHECK_FALSE(WheelFilename::try_parse(bad));
  }
  CHECK_THROWS_AS(WheelFilename::parse("nope.whl"), rp::InputError);
}

TEST_CASE("python/wheel: build tags sort as (number, rest)") {
  using rp::python::BuildTag;
  CHECK(BuildTag{"2", ""} < BuildTag{"10", ""});
  CHECK(BuildTag{"1", "a"} < BuildTag{"1", "b"});
  CHECK(BuildTag{"1", ""} < BuildTag{"1", "a"});
  CHECK(BuildTag{"007", "x"} == BuildTag{"7", "x"});
}

TEST_CASE("python/wheel: tag order for CPython 3.11 on glibc 2.17 x86_64") {
  auto p = TagPolicy::for_target("3.11", "2.17", "x86_64");
  auto plats = platform_list(p);
  REQUIRE(plats.size() == 17);
  CHECK(plats[0] == "manylinux_2_17_x86_64");
  CHECK(plats[1] == "manylinux2014_x86_64");
  CHECK(plats[2] == "manylinux_2_16_x86_64");
  CHECK(plats[6] == "manylinux_2_12_x86_64");
  CHECK(plats[7] == "manylinux2010_x86_64");
  CHECK(plats[14] == "manylinux_2_5_x86_64");
  CHECK(plats[15] == "manylinux1_x86_64");
  CHECK(plats[16] == "linux_x86_64");

  // 25 tags per platform: cp311-cp311, cp311-abi3, cp311-none, cp310..cp32-abi3, py311, py3, py310..py30.
  REQUIRE(p.tags().size() == 17 * 25 + 14);
  CHECK(tag_at(p, 0) == "cp311-cp311-manylinux_2_17_x86_64");
  CHECK(tag_at(p, 1) == "cp311-abi3-manylinux_2_17_x86_64");
  CHECK(tag_at(p, 2) == "cp311-none-manylinux_2_17_x86_64");
  CHECK(tag_at(p, 3) == "cp310-abi3-manylinux_2_17_x86_64");
  CHECK(tag_at(p, 11) == "cp32-abi3-manylinux_2_17_x86_64");
  CHECK(tag_at(p, 12) == "py311-none-manylinux_2_17_x86_64");
  CHECK(tag_at(p, 13) == "py3-none-manylinux_2_17_x86_64");
  CHECK(tag_at(p, 14) == "py310-none-manylinux_2_17_x86_64");
  CHECK(tag_at(p, 24) == "py30-none-manylinux_2_17_x86_64");
  CHECK(tag_at(p, 25) == "cp311-cp311-manylinux2014_x86_64");
  CHECK(tag_at(p, 400) == "cp311-cp311-linux_x86_64");
  CHECK(tag_at(p, 425) == "cp311-none-any");
  CHECK(tag_at(p, 426) == "py311-none-any");
  CHECK(tag_at(p, 427) == "py3-none-any");
  CHECK(tag_at(p, 428) == "py310-none-any");
  CHECK(p.tags().back().to_string() == "py30-none-any");
  // No duplicates.
  std::vector<std::string> all;
  for (const auto& t : p.tags()) all.push_back(t.to_string());
  std::sort(all.begin(), all.end());
  CHECK(std::adjacent_find(all.begin(), all.end()) == all.end());
}

TEST_CASE("python/wheel: aarch64 floor and aliases, newer glibc") {
  auto p = TagPolicy::for_target("3.12", "2.35", "aarch64");
  auto plats = platform_list(p);
  REQUIRE(plats.size() == 19 + 1 + 1);  // 2_35 .. 2_17, manylinux2014, linux
  CHECK(plats.front() == "manylinux_2_35_aarch64");
  CHECK(plats[18] == "manylinux_2_17_aarch64");
  CHECK(plats[19] == "manylinux2014_aarch64");
  CHECK(plats.back() == "linux_aarch64");
  CHECK(std::find(plats.begin(), plats.end(), "manylinux2010_aarch64") == plats.end());
  CHECK(tag_at(p, 0) == "cp312-cp312-manylinux_2_35_aarch64");
  CHECK_FALSE(p.priority({"cp312", "cp312", "manylinux_2_36_aarch64"}));
  CHECK_FALSE(p.priority({"cp312", "cp312", "manylinux_2_17_x86_64"}));
  CHECK_FALSE(p.priority({"cp313", "abi3", "manylinux_2_17_aarch64"}));
  CHECK(p.priority({"cp39", "abi3", "manylinux_2_17_aarch64"}));
  CHECK_THROWS_AS(TagPolicy::for_target("3", "2.35", "x86_64"), rp::InputError);
  CHECK_THROWS_AS(TagPolicy::for_target("3.11", "glibc", "x86_64"), rp::InputError);
  CHECK_THROWS_AS(TagPolicy::for_target("3.11", "2.35", "x86 64"), rp::InputError);
}

TEST_CASE("python/wheel: priorities and choosing a wheel") {
  auto p = TagPolicy::for_target("3.11", "2.35", "x86_64");
  auto pr = [&](const char* f) { return p.best_priority(WheelFilename::parse(f)); };
  auto manylinux = pr("numpy-2.1.0-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl");
  auto linux_only = pr("torch-2.9.1+rocm6.4-cp311-cp311-linux_x86_64.whl");
  auto pure = pr("six-1.16.0-py2.py3-none-any.whl");
  auto abi3 = pr("cryptography-43.0.0-cp39-abi3-manylinux_2_28_x86_64.whl");
  REQUIRE(manylinux);
  REQUIRE(linux_only);
  REQUIRE(pure);
  REQUIRE(abi3);
  CHECK(*manylinux < *linux_only);
  CHECK(*linux_only < *pure);
  CHECK(*abi3 < *manylinux);  // a newer platform comes first (platform-major order)
  CHECK_FALSE(pr("torch-2.9.1-cp312-cp312-manylinux_2_28_x86_64.whl"));
  CHECK_FALSE(pr("foo-1.0-cp311-cp311-win_amd64.whl"));
  CHECK_FALSE(pr("foo-1.0-py2-none-any.whl"));

  std::vector<WheelFilename> wheels = {
      WheelFilename::parse("foo-1.0-py3-none-any.whl"),
      WheelFilename::parse("foo-1.0-cp311-cp311-manylinux_2_17_x86_64.whl"),
      WheelFilename::parse("foo-1.0-2-cp311-cp311-manylinux_2_17_x86_64.whl"),
      WheelFilename::parse("foo-1.0-10-cp311-cp311-manylinux_2_17_x86_64.whl"),
      WheelFilename::parse("foo-1.0-99-cp311-cp311-win_amd64.whl"),
  };
  CHECK(rp::python::choose_wheel(wheels, p) == 3u);
  CHECK_FALSE(rp::python::choose_wheel({WheelFilename::parse("foo-1.0-cp27-cp27m-win32.whl")}, p));
}

TEST_CASE("net/url: RFC 3986 reference resolution examples") {
  using rp::net::resolve_url;
  const char* base = "http://a/b/c/d;p?q";
  // Section 5.4.1 (normal) and 5.4.2 (abnormal).
  std::vector<std::pair<const char*, const char*>> cases = {
      {"g:h", "g:h"}, {"g", "http://a/b/c/g"}, {"./g", "http://a/b/c/g"}, {"g/", "http://a/b/c/g/"},
      {"/g", "http://a/g"}, {"//g", "http://g"}, {"?y", "http://a/b/c/d;p?y"}, {"g?y", "http://a/b/c/g?y"},
      {"#s", "http://a/b/c/d;p?q#s"}, {"g#s", "http://a/b/c/g#s"}, {"g?y#s", "http://a/b/c/g?y#s"},
      {";x", "http://a/b/c/;x"}, {"g;x", "http://a/b/c/g;x"}, {"", "http://a/b/c/d;p?q"}, {".", "http://a/b/c/"},
      {"./", "http://a/b/c/"}, {"..", "http://a/b/"}, {"../", "http://a/b/"}, {"../g", "http://a/b/g"},
      {"../..", "http://a/"}, {"../../", "http://a/"}, {"../../g", "http://a/g"}, {"../../../g", "http://a/g"},
      {"../../../../g", "http://a/g"}, {"/./g", "http://a/g"}, {"/../g", "http://a/g"}, {"g.", "http://a/b/c/g."},
      {".g", "http://a/b/c/.g"}, {"g..", "http://a/b/c/g.."}, {"..g", "http://a/b/c/..g"},
      {"./../g", "http://a/b/g"}, {"./g/.", "http://a/b/c/g/"}, {"g/./h", "http://a/b/c/g/h"},
      {"g/../h", "http://a/b/c/h"}, {"g;x=1/./y", "http://a/b/c/g;x=1/y"}, {"g;x=1/../y", "http://a/b/c/y"},
      {"g?y/./x", "http://a/b/c/g?y/./x"}, {"g#s/../x", "http://a/b/c/g#s/../x"}, {"http:g", "http:g"},
  };
  for (const auto& c : cases) {  // no structured binding: clang 14 cannot capture one in CAPTURE
    const auto& ref = c.first;
    CAPTURE(ref);
    CHECK(rp::net::resolve_url(base, ref) == c.second);
  }
  CHECK(rp::net::resolve_url("https://download.pytorch.org/whl/nightly/torch/",
                    "../../../whl/nightly/torch-2.10.0a0%2Brocm7.0-cp311-cp311-linux_x86_64.whl#sha256=ab") ==
        "https://download.pytorch.org/whl/nightly/torch-2.10.0a0%2Brocm7.0-cp311-cp311-linux_x86_64.whl#sha256=ab");
  CHECK(rp::net::resolve_url("https://h", "x.whl") == "https://h/x.whl");
}

TEST_CASE("net/url: helpers") {
  using namespace rp::python;
  CHECK(rp::net::percent_decode("a%2Bb%2bc%zz%4") == "a+b+c%zz%4");
  CHECK(rp::net::strip_fragment("https://h/x.whl#sha256=00") == "https://h/x.whl");
  CHECK(rp::net::url_fragment("https://h/x.whl#sha256=00") == "sha256=00");
  CHECK(rp::net::url_fragment("https://h/x.whl").empty());
  CHECK(rp::net::url_filename("https://h/a/torch-2.1%2Brocm-cp311-cp311-linux_x86_64.whl?x=1#f") ==
        "torch-2.1+rocm-cp311-cp311-linux_x86_64.whl");
  CHECK(rp::net::UrlParts::split("http://a/b?").query == std::string());
  CHECK_FALSE(rp::net::UrlParts::split("http://a/b").query);
}
