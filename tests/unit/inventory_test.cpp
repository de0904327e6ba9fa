// The inventory's parsers (dpkg status, .dist-info METADATA, ROCm labels) and the diff of two
// inventories: packages matched by kind and name, layers matched by diff_id.
#include <doctest/doctest.h>

#include "inventory/diff.hpp"
#include "inventory/inventory.hpp"

using namespace rp::inventory;

TEST_CASE("dpkg status: installed packages only, Source without its version") {
  std::string status =
      "Package: libc6\nStatus: install ok installed\nArchitecture: amd64\nSource: glibc (2.36-9)\nVersion: 2.36-9\n"
      "Description: GNU C Library\n multi-line\n\n"
      "Package: gone\nStatus: deinstall ok config-files\nArchitecture: amd64\nVersion: 1.0\n\n"
      "Package: bash\r\nStatus: install ok installed\r\nArchitecture: amd64\r\nVersion: 5.2.15-2+b2\r\n";
  auto p = parse_dpkg_status(status);
  REQUIRE(p.size() == 2);
  CHECK(p[0].name == "libc6");
  CHECK(p[0].version == "2.36-9");
  CHECK(p[0].arch == "amd64");
  CHECK(p[0].source == "glibc");
  CHECK(p[1].name == "bash");
  CHECK(p[1].version == "5.2.15-2+b2");
  CHECK(p[1].source.empty());
  CHECK(parse_dpkg_status("garbage\n\n:::\n").empty());
}

TEST_CASE("python METADATA: name, version, one-line license -- the body is ignored") {
  auto p = parse_python_metadata("Metadata-Version: 2.1\nName: Demo-Pkg\nVersion: 1.2\nLicense: MIT\n\nLicense: not a header\n");
  CHECK(p.kind == rp::PackageKind::kPython);
  CHECK(p.name == "Demo-Pkg");
  CHECK(p.version == "1.2");
  CHECK(p.license == "MIT");
  CHECK(parse_python_metadata("Name: x\nLicense: UNKNOWN\nLicense-Expression: Apache-2.0\n").license == "Apache-2.0");
}

TEST_CASE("rocm labels become rocm packages") {
  auto p = rocm_packages_from_labels(
      {{"org.rockpack.rocm.version", "7.0.0rc1"}, {"org.rockpack.rocm.family", "gfx94X-dcgpu"}, {"other", "x"}});
  REQUIRE(p.size() == 1);
  CHECK(p[0].kind == rp::PackageKind::kRocm);
  CHECK(p[0].name == "rocm");
  CHECK(p[0].version == "7.0.0rc1");
  CHECK(p[0].arch == "gfx94X-dcgpu");
  CHECK(rocm_packages_from_labels({{"other", "x"}}).empty());
}

TEST_CASE("diff: exactly the changed packages -- layers compared by diff_id") {
  Inventory a, b;
  a.config = {{"Env", {"A=1"}}, {"Labels", {{"k", "1"}}}};
  b.config = {{"Env", {"A=1"}}, {"Labels", {{"k", "2"}}}};
  a.layers = {{"sha256:gz1", "sha256:d1", 10}, {"sha256:gz2", "sha256:d2", 20}};
  b.layers = {{"sha256:tar1", "sha256:d1", 30}, {"sha256:tar3", "sha256:d3", 40}};
  a.packages = {{rp::PackageKind::kPython, "same", "1", "", "", "", "/s/same-1.dist-info", -1}, {rp::PackageKind::kPython, "up", "1", "", "", "", "/s/up-1.dist-info", -1},
                {rp::PackageKind::kDeb, "gone", "1", "amd64", "", "", "", -1}};
  b.packages = {{rp::PackageKind::kPython, "same", "1", "", "", "", "/s/same-1.dist-info", -1}, {rp::PackageKind::kPython, "Up", "2", "", "", "", "/s/Up-2.dist-info", -1},
                {rp::PackageKind::kDeb, "new", "3", "amd64", "", "", "", -1}};
  auto d = diff(a, b);
  CHECK_FALSE(d["identical"].get<bool>());
  REQUIRE(d["config"].size() == 1);
  CHECK(d["config"][0]["field"] == "Labels.k");
  CHECK(d["layers"]["shared"].size() == 1);
  CHECK(d["layers"]["only_a"].size() == 1);
  CHECK(d["layers"]["only_b"].size() == 1);
  REQUIRE(d["packages"]["changed"].size() == 1);
  CHECK(d["packages"]["changed"][0]["name"] == "Up");  // as B names it
  CHECK(d["packages"]["changed"][0]["old"] == "1");
  CHECK(d["packages"]["changed"][0]["new"] == "2");
  REQUIRE(d["packages"]["added"].size() == 1);
  CHECK(d["packages"]["added"][0]["name"] == "new");
  REQUIRE(d["packages"]["removed"].size() == 1);
  CHECK(d["packages"]["removed"][0]["name"] == "gone");
  CHECK(diff(a, a)["identical"].get<bool>());
}
