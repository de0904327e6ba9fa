#pragma once
// The metadata files inside a wheel's .dist-info: METADATA (core metadata) and WHEEL.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "python/email_headers.hpp"
#include "python/pep440.hpp"
#include "python/pep508.hpp"

namespace rp::python {

struct CoreMetadata {
  std::string metadata_version;  // "2.1"
  std::string name;              // as written
  Version version;
  std::vector<Requirement> requires_dist;
  std::optional<SpecifierSet> requires_python;
  std::vector<std::string> provides_extra;  // normalized (PEP 685), duplicates removed
  EmailHeaders headers;                     // every field, for anything not modelled above

  // Throws rp::InputError when a required field (Metadata-Version, Name, Version) is missing, when
  // Metadata-Version's major is above 2, or when a Requires-Dist / Requires-Python is malformed.
  // `source` names the file in messages ("torch-2.9.1.dist-info/METADATA").
  static CoreMetadata parse(std::string_view text, std::string_view source = "METADATA");

  std::string normalized_name() const;
};

// The WHEEL file: format version, purelib/platlib root and tags.
struct WheelInfo {
  int version_major = 1;
  int version_minor = 0;  // > 0: newer than this installer knows; the caller should warn
  bool root_is_purelib = false;
  std::vector<std::string> tags;  // "cp311-cp311-linux_x86_64"
  std::string generator;          // may be empty
  std::string build;              // may be empty

  // Throws rp::InputError when Wheel-Version is missing, malformed, or its major is not 1.
  static WheelInfo parse(std::string_view text, std::string_view source = "WHEEL");
};

}  // namespace rp::python
