#include "build/variant_files.hpp"

#include "util/error.hpp"

namespace rp::build {

std::string per_variant_path(const std::string& pattern, const std::string& variant) {
  const std::string placeholder = kVariantPlaceholder;
  std::string out;
  size_t from = 0;
  for (size_t at = pattern.find(placeholder); at != std::string::npos; at = pattern.find(placeholder, from)) {
    out += pattern.substr(from, at - from) + variant;
    from = at + placeholder.size();
  }
  return out + pattern.substr(from);
}

void require_variant_placeholder(const std::string& flag, const std::string& value, const std::string& example) {
  if (value.find(kVariantPlaceholder) != std::string::npos) return;
  throw InputError(flag + " " + value + " with --all-variants: every variant would use that one " +
                       (flag == "--compare-to" ? "image" : "file"),
                   "put {variant} where the variant's name goes, e.g. " + flag + " " + example);
}

}  // namespace rp::build
