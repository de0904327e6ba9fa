// SBOM documents: purls per kind, SPDX 2.3 and CycloneDX 1.5 shape, determinism (sorted packages,
// the same bytes for the same input).
#include <doctest/doctest.h>

#include <map>

#include <nlohmann/json.hpp>

#include "sbom/sbom.hpp"

using namespace rp::sbom;

namespace {
// A component from its first fields (kind, name, version, url, sha256, size, origin, arch, license).
Component C(std::string kind, std::string name, std::string version, std::string url, std::string sha256, uint64_t size,
            std::string origin, std::string arch, std::string license) {
  Component c;
  c.kind = rp::parse_package_kind(kind).value();
  c.name = std::move(name);
  c.version = std::move(version);
  c.url = std::move(url);
  c.sha256 = std::move(sha256);
  c.size = size;
  c.origin = std::move(origin);
  c.arch = std::move(arch);
  c.license = std::move(license);
  return c;
}
}  // namespace

TEST_CASE("purls: pypi names normalized, deb with arch, oci base by digest") {
  CHECK(purl(C("python-package", "Foo_Bar.baz", "1.0+local", "", "", 0, "", "", "")) == "pkg:pypi/foo-bar-baz@1.0+local");
  CHECK(purl(C("apt-package", "libc6", "2.36-9", "", "", 0, "", "amd64", "")) == "pkg:deb/debian/libc6@2.36-9?arch=amd64");
  Component ubuntu = C("apt-package", "libc6", "2.35-0ubuntu3.8", "", "", 0, "", "amd64", "");
  ubuntu.distro_id = "ubuntu";
  ubuntu.distro = "ubuntu-22.04";
  CHECK(purl(ubuntu) == "pkg:deb/ubuntu/libc6@2.35-0ubuntu3.8?arch=amd64&distro=ubuntu-22.04");
  Component debian = C("apt-package", "perl-base", "1:5.36.0-7+deb12u1", "", "", 0, "", "", "");
  debian.distro_id = "debian";
  debian.distro = "debian-12.5";
  CHECK(purl(debian) == "pkg:deb/debian/perl-base@5.36.0-7+deb12u1?distro=debian-12.5&epoch=1");
  debian.name = "libstdc++6";
  CHECK(purl(debian) == "pkg:deb/debian/libstdc%2B%2B6@5.36.0-7+deb12u1?distro=debian-12.5&epoch=1");
  debian.version = "2.36-9:1";  // not an epoch: a colon after something other than digits
  CHECK(purl(debian) == "pkg:deb/debian/libstdc%2B%2B6@2.36-9%3A1?distro=debian-12.5");
  CHECK(purl(C("base-image", "registry.example/lib/debian", "sha256:ab", "", "", 0, "", "", "")) ==
        "pkg:oci/debian@sha256%3Aab?repository_url=registry.example%2Flib%2Fdebian");
  CHECK(purl(C("python-interpreter", "cpython", "3.12.1", "http://h/p.tar.gz", "", 0, "", "", "")) ==
        "pkg:generic/cpython@3.12.1?download_url=http%3A%2F%2Fh%2Fp.tar.gz");
}

TEST_CASE("purls: a .deb's distribution from its repository's Release when the image names none") {
  DebDistro ubuntu = deb_distro_from_release("Ubuntu", "22.04", "jammy");
  CHECK(ubuntu.id == "ubuntu");
  CHECK(ubuntu.distro == "ubuntu-22.04");
  Component c = C("apt-package", "libc6", "2.35-0ubuntu3.8", "", "", 0, "", "amd64", "");
  c.distro_id = ubuntu.id;
  c.distro = ubuntu.distro;
  CHECK(purl(c) == "pkg:deb/ubuntu/libc6@2.35-0ubuntu3.8?arch=amd64&distro=ubuntu-22.04");
  // Debian's point release is its Version; unstable has none, and its Suite names it.
  CHECK(deb_distro_from_release("Debian", "12.5", "stable").distro == "debian-12.5");
  CHECK(deb_distro_from_release("Debian", "", "unstable").distro == "debian-unstable");
  CHECK(deb_distro_from_release(" Debian ", " ", "sid").distro == "debian-sid");
  // A vendor's own repository: its Origin, lowercased, one word.
  DebDistro vendor = deb_distro_from_release("Example Vendor", "", "");
  CHECK(vendor.id == "example-vendor");
  CHECK(vendor.distro.empty());
  // No Origin: nothing to name (the purl keeps pkg:deb/debian without distro=).
  DebDistro none = deb_distro_from_release("", "22.04", "jammy");
  CHECK(none.id.empty());
  CHECK(none.distro.empty());
}

TEST_CASE("SPDX: required fields, image DESCRIBED, packages CONTAINED, sorted and stable") {
  Document doc{"app", "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", "2024-01-01T00:00:00Z",
               "0.1.0", {}};
  doc.components.push_back(C("python-package", "zeta", "2", "https://x/zeta.whl", std::string(64, 'a'), 1, "", "", ""));
  doc.components.push_back(C("python-package", "alpha", "1", "https://x/alpha.whl", std::string(64, 'b'), 1, "", "", "MIT"));
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

TEST_CASE("SPDX and CycloneDX: DEPENDS_ON from depends_on keys, sorted, unknown keys skipped") {
  Document doc{"app", "sha256:" + std::string(64, 'c'), "2024-01-01T00:00:00Z", "0.1.0", {}};
  Component app = C("python-package", "app", "1", "", "", 0, "", "", "");
  app.ref = "python/app";
  app.depends_on = {"python/zlib-py", "python/attrs", "python/not-there", "python/app"};
  Component attrs = C("python-package", "attrs", "23", "", "", 0, "", "", "MIT");
  attrs.ref = "python/attrs";
  Component z = C("python-package", "zlib-py", "1", "", "", 0, "", "", "");
  z.ref = "python/zlib-py";
  z.license_text = "BSD-ish";
  doc.components = {z, app, attrs};
  auto j = nlohmann::json::parse(spdx_json(doc));
  std::vector<std::pair<std::string, std::string>> deps;
  std::map<std::string, std::string> names;
  for (const auto& p : j["packages"]) names[p["SPDXID"]] = p["name"];
  for (const auto& r : j["relationships"])
    if (r["relationshipType"] == "DEPENDS_ON") deps.emplace_back(names[r["spdxElementId"]], names[r["relatedSpdxElement"]]);
  CHECK(deps == std::vector<std::pair<std::string, std::string>>{{"app", "attrs"}, {"app", "zlib-py"}});
  for (const auto& p : j["packages"])
    if (p["name"] == "zlib-py") {
      CHECK(p["licenseDeclared"] == "NOASSERTION");
      CHECK(p["licenseComments"].get<std::string>().find("BSD-ish") != std::string::npos);
    }
  auto c = nlohmann::json::parse(cyclonedx_json(doc));
  REQUIRE(c["dependencies"].size() == 4);
  CHECK(c["dependencies"][0]["ref"] == "image");
  CHECK(c["dependencies"][1]["ref"] == "pkg:pypi/app@1");
  CHECK(c["dependencies"][1]["dependsOn"] == nlohmann::json({"pkg:pypi/attrs@23", "pkg:pypi/zlib-py@1"}));
  CHECK(c["dependencies"][2]["dependsOn"].empty());
  CHECK(c["components"][1]["licenses"][0]["expression"] == "MIT");
  CHECK(c["components"][2]["licenses"][0]["license"]["name"] == "BSD-ish");
  CHECK(spdx_json(doc) == spdx_json(Document{doc.image_name, doc.image_digest, doc.created, doc.tool_version, {attrs, z, app}}));
}

TEST_CASE("SPDX and CycloneDX: the layer a package comes from, and where its metadata is") {
  Document doc{"app", "sha256:" + std::string(64, 'd'), "2024-01-01T00:00:00Z", "0.1.0", {}};
  Component p = C("python-package", "six", "1.16.0", "", "", 0, "", "", "");
  p.location = "/usr/lib/python3/dist-packages/six-1.16.0.dist-info";
  p.layer = {"sha256:" + std::string(64, '1'), "sha256:" + std::string(64, '2'), "base"};
  doc.components = {p};
  auto j = nlohmann::json::parse(spdx_json(doc));
  std::vector<std::string> comments;
  for (const auto& a : j["packages"][1]["annotations"]) {
    CHECK(a["annotationType"] == "OTHER");
    CHECK(a["annotator"] == "Tool: rockpack-0.1.0");
    CHECK(a["annotationDate"] == "2024-01-01T00:00:00Z");
    comments.push_back(a["comment"]);
  }
  CHECK(comments == std::vector<std::string>{"Layer: base", "LayerDigest: sha256:" + std::string(64, '1'),
                                             "LayerDiffID: sha256:" + std::string(64, '2'), "FilePath: " + p.location});
  auto c = nlohmann::json::parse(cyclonedx_json(doc));
  CHECK(c["components"][0]["properties"] ==
        nlohmann::json::parse(R"([{"name": "rockpack:Layer", "value": "base"},
          {"name": "rockpack:LayerDigest", "value": "sha256:)" + std::string(64, '1') + R"("},
          {"name": "rockpack:LayerDiffID", "value": "sha256:)" + std::string(64, '2') + R"("},
          {"name": "rockpack:FilePath", "value": "/usr/lib/python3/dist-packages/six-1.16.0.dist-info"}])"));
}
