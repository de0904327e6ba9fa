#pragma once
// A software bill of materials for a built image: SPDX 2.3 JSON or CycloneDX 1.5 JSON, from the
// image's packages (the base's Debian and Python packages, those the build installed: wheels,
// interpreter archives, .debs, ROCm wheels), each with the layer it comes from, and the base image.
// Deterministic: the creation time is the build's SOURCE_DATE_EPOCH, packages are sorted,
// identifiers and the document namespace derive from names, versions and the image digest.
// Knows nothing of plans, images or registries: the caller maps its records to Component.
#include <cstdint>
#include <string>
#include <vector>

#include "util/package_kind.hpp"

namespace rp::sbom {

// The image layer a component's files are in.
struct LayerRef {
  std::string digest;   // the blob; empty when unknown
  std::string diff_id;  // the uncompressed tar
  std::string name;     // the recipe's layer name, or "base" for a base layer
};

struct Component {
  PackageKind kind = PackageKind::kPython;
  std::string name;
  std::string version;
  std::string url;      // download location; empty when unknown
  std::string sha256;   // hex; empty when unknown
  uint64_t size = 0;
  std::string origin;   // the index, repository or registry it was found on
  std::string arch;     // .debs: the architecture
  std::string license;  // a valid SPDX license expression when the metadata declares one; empty otherwise
  // What the metadata declares when it is no SPDX expression (a free-text License field, a Debian
  // license name without SPDX counterpart): SPDX licenseComments, CycloneDX license name.
  std::string license_text;
  // This component's key for depends_on (unique within the document; empty: no edges), and the keys
  // of the components it depends on (SPDX DEPENDS_ON, CycloneDX dependencies). Unknown keys are skipped.
  std::string ref;
  std::vector<std::string> depends_on;
  // .debs: the distribution, as the purl names it: its namespace ("debian", "ubuntu"; empty: debian)
  // and its distro qualifier ("ubuntu-22.04"; empty: none).
  std::string distro_id;
  std::string distro;
  std::string location;  // the package's metadata in the image (a .dist-info directory); empty when none
  LayerRef layer;        // empty when unknown (the base image itself)
};

struct Document {
  std::string image_name;    // the recipe's name
  std::string image_digest;  // "sha256:<hex>" of the image manifest
  std::string created;       // RFC 3339, from SOURCE_DATE_EPOCH
  std::string tool_version;  // rockpack's version
  std::vector<Component> components;
};

// The distribution a .deb's purl names (Component::distro_id, distro) when the image does not say
// (no /etc/os-release): the Release file of the apt repository the package came from. Its Origin is
// the vendor, lowercased as purl namespaces are ("Ubuntu" -> "ubuntu"); the release is its Version
// ("22.04", "12.5"), else its Suite ("sid"). Both empty when the Release has no Origin; no distro
// when it has neither Version nor Suite.
struct DebDistro {
  std::string id;      // "ubuntu"
  std::string distro;  // "ubuntu-22.04"
};
DebDistro deb_distro_from_release(const std::string& origin, const std::string& version, const std::string& suite);

// The package URL of a component (https://github.com/package-url/purl-spec).
std::string purl(const Component& c);

std::string spdx_json(const Document& doc);
std::string cyclonedx_json(const Document& doc);

}  // namespace rp::sbom
