// SBOM documents: purls per kind, SPDX 2.3 and CycloneDX 1.5 shape, determinism (sorted packages,
// the same bytes for the same input).
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "sbom/sbom.hpp"

using namespace rp::sbom;

TEST_CASE("purls: pypi names normalized, deb with arch, oci base by digest") {
  CHECK(purl({"python-package", "Foo_Bar.baz", "1.0+local", "", "", 0, "", "", ""}) == "pkg:pypi/foo-bar-baz@1.0+local");
  CHECK(purl({"apt-package", "libc6", "2.36-9", "", "", 0, "", "amd64", ""}) == "pkg:deb/debian/libc6@2.36-9?arch=amd64");
  CHECK(purl({"base-image", "registry.example/lib/debian", "sha256:ab", "", "", 0, "", "", ""}) ==
        "pkg:oci/debian@sha256%3Aab?repository_url=registry.example%2Flib%2Fdebian");
  CHECK(purl({"python-interpreter", "cpython", "3.12.1", "http://h/p.tar.gz", "", 0, "", "", ""}) ==
        "pkg:generic/cpython@3.12.1?download_url=http%3A%2F%2Fh%2Fp.tar.gz");
}

TEST_CASE("SPDX: required fields, image DESCRIBED, packages CONTAINED, sorted and stable") {
  Document doc{"app", "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", "2024-01-01T00:00:00Z",
               "0.1.0", {}};
  doc.components.push_back({"python-package", "zeta", "2", "https://x/zeta.whl", std::string(64, 'a'), 1, "", "", ""});
  doc.components.push_back({"python-package", "alpha", "1", "https://x/alpha.whl", std::string(64, 'b'), 1, "", "", "MIT"});
  auto j = nlohmann::json::parse(spdx_json(doc));
  CHECK(j["spdxVersion"] == "SPDX-2.3");
  CHECK(j["creationInfo"]["created"] == "2024-01-01T00:00:00Z");
  CHECK(j["documentNamespace"].get<std::string>().find("0123456789abcdef") != std::string::npos);
  REQUIRE(j["packages"].size() == 3);
  CHECK(j["packages"][1]["name"] == "alpha");
  CHECK(j["packages"][1]["licenseDeclared"] == "MIT");
  CHECK(j["packages"][2]["name"] == "zeta");
  CHECK(j["relationships"].size() == 3);
  CHECK(j["relationships"][0]["relationshipType"] == "DESCRIBES");
  Document reversed = doc;
  std::swap(reversed.components[0], reversed.components[1]);
  CHECK(spdx_json(reversed) == spdx_json(doc));
  auto c = nlohmann::json::parse(cyclonedx_json(doc));
  CHECK(c["specVersion"] == "1.5");
  REQUIRE(c["components"].size() == 2);
  CHECK(c["components"][0]["purl"] == "pkg:pypi/alpha@1");
  CHECK(c["dependencies"][0]["dependsOn"].size() == 2);
}
