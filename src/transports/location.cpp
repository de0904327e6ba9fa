#include "transports/location.hpp"

namespace rp::transports {

AnyLocation parse_location(const std::string& text) {
  AnyLocation out;
  if (ImageLocation::is_local(text)) {
    out.local = ImageLocation::parse(text);
    return out;
  }
  // docker:// is skopeo's and podman's spelling of the registry transport: the reference follows.
  out.remote = parse_reference(text.starts_with("docker://") ? std::string_view(text).substr(9) : std::string_view(text));
  return out;
}

std::string AnyLocation::str() const { return local ? local->str() : remote.str(); }

AnyLocation AnyLocation::pinned(const std::string& digest) const {
  if (local || digest.empty()) return *this;
  AnyLocation out = *this;
  out.remote.tag.clear();  // name@digest: the tag said which image, the digest now says it exactly
  out.remote.digest = digest;
  return out;
}

}  // namespace rp::transports
