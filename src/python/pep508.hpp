#pragma once
// PEP 508 dependency specifiers: `name[extra1,extra2] (>=1.0,<2) ; python_version >= "3.8"` or
// `name[extras] @ https://host/file.whl ; marker`. Used for the recipe's package list and for
// Requires-Dist in package metadata (which may use the old parenthesized `name (>=1.0)` form).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "python/marker.hpp"
#include "python/pep440.hpp"

namespace rp::python {

struct Requirement {
  std::string name;                 // as written
  std::vector<std::string> extras;  // normalized, duplicates removed, in order of appearance
  SpecifierSet specifier;           // empty when there is none (or for a URL requirement)
  std::string url;                  // direct reference after '@'; empty when none
  std::optional<Marker> marker;

  // Throws rp::InputError with the text and the column of the problem.
  static Requirement parse(std::string_view text);

  std::string normalized_name() const;
  // "name[a,b]>=1.0" / "name[a] @ url", followed by "; marker" when asked and present.
  std::string to_string(bool with_marker = true) const;
  // True when there is no marker or it holds for `env` with the given extras requested.
  bool applies(const MarkerEnvironment& env, const std::set<std::string>& extras = {}) const;
};

}  // namespace rp::python
