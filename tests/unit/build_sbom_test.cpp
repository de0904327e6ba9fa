// build --sbom's join of the image's packages with what the plan resolved: a .deb's purl names the
// image's distribution, or, when the image names none (no /etc/os-release), the Release of the apt
// repository the build installed it from.
#include <doctest/doctest.h>

#include <map>

#include <nlohmann/json.hpp>

#include "build/sbom.hpp"
#include "image_test_support.hpp"
#include "test_helpers.hpp"
#include "util/digest.hpp"

using namespace rp;
using namespace rp::test;

namespace {

std::string status_stanza(const std::string& name, const std::string& version) {
  return "Package: " + name + "\nStatus: install ok installed\nArchitecture: amd64\nVersion: " + version + "\n\n";
}

// A scratch-based plan whose one layer holds dpkg's status (libc6 and jq) and `extra` files; the
// plan says it installed jq from a repository whose Release has `origin` and `version`.
BuildPlan plan_with_apt_layer(const std::vector<Entry>& extra, const std::string& origin, const std::string& version) {
  BuildPlan plan;
  plan.name = "test";
  plan.created = "2023-11-14T22:13:20Z";
  LayerPlan layer;
  layer.name = "apt";
  layer.step = "apt";
  layer.entries = {file_entry("var/lib/dpkg/status", status_stanza("libc6", "2.35-0ubuntu3.8") + status_stanza("jq", "1.6-2.1ubuntu3"))};
  layer.entries.insert(layer.entries.end(), extra.begin(), extra.end());
  plan.layers.push_back(std::move(layer));
  PlannedComponent jq;
  jq.step = "apt";
  jq.component.kind = PackageKind::kDeb;
  jq.component.name = "jq";
  jq.component.version = "1.6-2.1ubuntu3";
  jq.component.arch = "amd64";
  jq.component.layer = "apt";
  jq.component.release_origin = origin;
  jq.component.release_version = version;
  jq.component.release_suite = "jammy";
  plan.components.push_back(jq);
  return plan;
}

// name -> purl, from the CycloneDX document.
std::map<std::string, std::string> purls(const std::string& cyclonedx) {
  std::map<std::string, std::string> out;
  const nlohmann::json doc = nlohmann::json::parse(cyclonedx);
  for (const auto& c : doc.at("components")) out[c.at("name").get<std::string>()] = c.value("purl", "");
  return out;
}

}  // namespace

TEST_CASE("build --sbom: without os-release, a .deb the build installed takes its distribution from its repository's Release") {
  TempDir dir;
  ContentStore store(dir.path);
  const BuildPlan plan = plan_with_apt_layer({}, "Ubuntu", "22.04");
  Image img;
  img.config = {{"architecture", "amd64"}, {"os", "linux"}, {"rootfs", {{"type", "layers"}, {"diff_ids", nlohmann::json::array()}}}};
  img.add_layer({store_layer(store, plan.layers[0].entries), sha256_digest("diff"), 0}, {{"created_by", "apt"}});
  const SealedImage image = seal(img);

  auto found = purls(build::sbom_text(plan, image, store, "cyclonedx"));
  CHECK(found["jq"] == "pkg:deb/ubuntu/jq@1.6-2.1ubuntu3?arch=amd64&distro=ubuntu-22.04");
  // Not the build's (no Release to go by): the default namespace, no distro qualifier.
  CHECK(found["libc6"] == "pkg:deb/debian/libc6@2.35-0ubuntu3.8?arch=amd64");

  // The image's own os-release wins over the repository's Release.
  const BuildPlan named = plan_with_apt_layer({file_entry("etc/os-release", "ID=ubuntu\nVERSION_ID=\"24.04\"\n")}, "Ubuntu", "22.04");
  Image img2;
  img2.config = img.config;
  img2.add_layer({store_layer(store, named.layers[0].entries), sha256_digest("diff2"), 0}, {{"created_by", "apt"}});
  found = purls(build::sbom_text(named, seal(img2), store, "cyclonedx"));
  CHECK(found["jq"] == "pkg:deb/ubuntu/jq@1.6-2.1ubuntu3?arch=amd64&distro=ubuntu-24.04");
  CHECK(found["libc6"] == "pkg:deb/ubuntu/libc6@2.35-0ubuntu3.8?arch=amd64&distro=ubuntu-24.04");
}
