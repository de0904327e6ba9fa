#pragma once
// SPDX license expressions (SPDX 2.3, Annex D): recognizing one in what a package's metadata declares,
// for the SBOM. Only identifiers of the SPDX license list count (src/util/spdx_license_ids.inc);
// LicenseRef-/DocumentRef- references are not accepted, since nothing defines their text here.
#include <optional>
#include <string>
#include <string_view>

namespace rp {

// A license as a package's metadata declares it.
struct DeclaredLicense {
  std::string expression;  // a valid SPDX license expression, normalized; empty when none
  std::string text;        // what the metadata says when it is no such expression (one line); else empty
};

// `text` as an SPDX license expression: identifiers in the license list's spelling (matched without
// regard to case), an optional '+' after one, WITH <exception>, AND / OR (upper or lower case),
// parentheses; single spaces between tokens. nullopt for anything else (unknown identifiers, free
// text, unbalanced parentheses, LicenseRef-...).
std::optional<std::string> spdx_expression(std::string_view text);

// The identifier in the license list's spelling ("mit" -> "MIT"), or nullopt when it is not on it.
std::optional<std::string> spdx_license_id(std::string_view id);

}  // namespace rp
