#include "output/output_spec.hpp"

#include <regex>

#include "net/url.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

namespace rp {

namespace {
const std::regex kTag("[A-Za-z0-9_][A-Za-z0-9._-]{0,127}");

[[noreturn]] void bad(const std::string& text, const std::string& why) {
  throw InputError("invalid image location '" + shorten(net::redact_credentials(text)) + "': " + shorten(why),
                   "use oci:DIR[:TAG], oci-archive:FILE[:TAG] or docker-archive:FILE[:NAME:TAG]");
}
}  // namespace

bool ImageLocation::is_local(const std::string& text) {
  return text.rfind("oci:", 0) == 0 || text.rfind("oci-archive:", 0) == 0 || text.rfind("docker-archive:", 0) == 0;
}

ImageLocation ImageLocation::parse(const std::string& text) {
  ImageLocation loc;
  bool archive = text.rfind("oci-archive:", 0) == 0;
  if (text.rfind("oci:", 0) == 0 || archive) {
    loc.kind = archive ? Kind::kOciArchive : Kind::kOciLayout;
    std::string rest = text.substr(archive ? 12 : 4);
    // A tag follows the last ':' when what follows is a valid tag (directories rarely end in ":x").
    auto colon = rest.rfind(':');
    if (colon != std::string::npos && std::regex_match(rest.substr(colon + 1), kTag)) {
      loc.tag = rest.substr(colon + 1);
      rest = rest.substr(0, colon);
    } else if (colon != std::string::npos && colon + 1 == rest.size()) {
      rest.pop_back();
    }
    loc.path = rest;
  } else if (text.rfind("docker-archive:", 0) == 0) {
    loc.kind = Kind::kDockerArchive;
    std::string rest = text.substr(15);
    auto colon = rest.find(':');
    loc.path = rest.substr(0, colon);
    if (colon != std::string::npos) {
      std::string ref = rest.substr(colon + 1);
      auto tag_colon = ref.rfind(':');
      if (tag_colon == std::string::npos || ref.find('/', tag_colon) != std::string::npos) {
        loc.name = ref;
        loc.tag = "latest";
      } else {
        loc.name = ref.substr(0, tag_colon);
        loc.tag = ref.substr(tag_colon + 1);
      }
      if (loc.name.empty()) bad(text, "the image name is empty");
      if (!std::regex_match(loc.tag, kTag)) bad(text, "'" + loc.tag + "' is not a valid tag");
    }
  } else {
    bad(text, "unknown transport");
  }
  if (loc.path.empty()) bad(text, "the path is empty");
  return loc;
}

std::string ImageLocation::str() const {
  if (kind == Kind::kOciLayout) return "oci:" + path + (tag.empty() ? "" : ":" + tag);
  if (kind == Kind::kOciArchive) return "oci-archive:" + path + (tag.empty() ? "" : ":" + tag);
  return "docker-archive:" + path + (name.empty() ? "" : ":" + name + ":" + tag);
}

}  // namespace rp
