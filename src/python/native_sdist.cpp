#include "python/native_sdist.hpp"

#include "python/text.hpp"
#include "net/url.hpp"
#include "util/error.hpp"

namespace rp::python {

std::optional<Version> sdist_version(const std::string& filename, const std::string& normalized_name) {
  std::string name = net::percent_decode(filename);
  const std::string suffix = ".tar.gz";
  if (name.size() <= suffix.size() || !name.ends_with(suffix)) return std::nullopt;
  std::string stem = name.substr(0, name.size() - suffix.size());
  // The version follows the last '-': project names may contain '-', PEP 440 versions may not.
  size_t dash = stem.rfind('-');
  if (dash == std::string::npos || normalize_name(stem.substr(0, dash)) != normalized_name) return std::nullopt;
  try {
    return Version::parse(stem.substr(dash + 1));
  } catch (const InputError&) {
    return std::nullopt;
  }
}

}  // namespace rp::python
