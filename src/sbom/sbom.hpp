#pragma once
// A software bill of materials for a built image: SPDX 2.3 JSON or CycloneDX 1.5 JSON, from the
// components the build resolved (wheels, interpreter archives, .debs, ROCm wheels) and the base
// image. Deterministic: the creation time is the build's SOURCE_DATE_EPOCH, packages are sorted,
// identifiers and the document namespace derive from names, versions and the image digest.
// Knows nothing of plans or registries: the caller maps its records to Component.
#include <cstdint>
#include <string>
#include <vector>

namespace rp::sbom {

struct Component {
  std::string kind;     // "python-package", "python-interpreter", "rocm", "apt-package", "base-image", ...
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
};

struct Document {
  std::string image_name;    // the recipe's name
  std::string image_digest;  // "sha256:<hex>" of the image manifest
  std::string created;       // RFC 3339, from SOURCE_DATE_EPOCH
  std::string tool_version;  // rockpack's version
  std::vector<Component> components;
};

// The package URL of a component (https://github.com/package-url/purl-spec).
std::string purl(const Component& c);

std::string spdx_json(const Document& doc);
std::string cyclonedx_json(const Document& doc);

}  // namespace rp::sbom
