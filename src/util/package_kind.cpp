#include "util/package_kind.hpp"

namespace rp {

std::string_view component_kind_name(PackageKind kind) {
  switch (kind) {
    case PackageKind::kDeb: return "apt-package";
    case PackageKind::kPython: return "python-package";
    case PackageKind::kPythonInterpreter: return "python-interpreter";
    case PackageKind::kRocm: return "rocm";
    case PackageKind::kBaseImage: return "base-image";
  }
  return "unknown";
}

std::string_view inventory_kind_name(PackageKind kind) {
  switch (kind) {
    case PackageKind::kDeb: return "deb";
    case PackageKind::kPython: return "python";
    case PackageKind::kPythonInterpreter: return "python-interpreter";
    case PackageKind::kRocm: return "rocm";
    case PackageKind::kBaseImage: return "base-image";
  }
  return "unknown";
}

std::optional<PackageKind> parse_package_kind(std::string_view text) {
  for (PackageKind k : {PackageKind::kDeb, PackageKind::kPython, PackageKind::kPythonInterpreter, PackageKind::kRocm,
                        PackageKind::kBaseImage})
    if (text == component_kind_name(k) || text == inventory_kind_name(k)) return k;
  return std::nullopt;
}

}  // namespace rp
