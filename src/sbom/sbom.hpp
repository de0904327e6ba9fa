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
  std::string license;  // an SPDX expression when known; empty otherwise
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
