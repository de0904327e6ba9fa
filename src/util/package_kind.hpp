#pragma once
// What kind of software a resolved component, an image's installed package or a report line is.
// One type for the plan, the inventory, the SBOM and the report: every switch over it names every
// kind (no default), so a new kind added here is a compile warning in each place that has to place
// it (the SBOM's purl, the report's package comparison, `rockpack diff`), not a silent omission.
//
// Two spellings exist at the edges, for the formats that already carry them: the component name
// (the plan, `rockpack plan --json`, lock files, a report's package list) and the inventory name
// (`rockpack diff`, a report's comparison). Readers accept either.
#include <optional>
#include <string>
#include <string_view>

namespace rp {

enum class PackageKind {
  kDeb,                // a Debian package: .deb installed by the apt step, or in dpkg's status
  kPython,             // a Python distribution: a wheel installed, or a .dist-info in the image
  kPythonInterpreter,  // a standalone CPython archive unpacked by the python step
  kRocm,               // the ROCm release an image's labels name (its wheels are kPython)
  kBaseImage,          // the image a build starts from (SBOM only)
};

// "apt-package", "python-package", "python-interpreter", "rocm", "base-image".
std::string_view component_kind_name(PackageKind kind);
// "deb", "python", "python-interpreter", "rocm", "base-image".
std::string_view inventory_kind_name(PackageKind kind);
// Either spelling; nullopt for anything else.
std::optional<PackageKind> parse_package_kind(std::string_view text);

}  // namespace rp
