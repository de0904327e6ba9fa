#pragma once
// Per-variant file names and references: what `build --all-variants` and `lock --all-variants` write
// or read once per variant of the recipe's matrix: (its SBOM, its resolution, its lock, the previous
// image it is compared with) is named by a pattern with `{variant}` in it, replaced by the variant's
// name (matrix names are [a-z0-9][a-z0-9._-]*, so the result is a plain file name or tag).
#include <string>

namespace rp::build {

inline constexpr const char* kVariantPlaceholder = "{variant}";

// `pattern` with every `{variant}` replaced by `variant`; a pattern without one is returned as is
// (`--variant NAME --sbom FILE` names the one file).
std::string per_variant_path(const std::string& pattern, const std::string& variant);

// For a flag given with --all-variants: throws InputError unless `value` has `{variant}` (every
// variant would otherwise write, or read, the same file). `example` shows a good value in the hint.
void require_variant_placeholder(const std::string& flag, const std::string& value, const std::string& example);

}  // namespace rp::build
