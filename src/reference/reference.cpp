#include "reference/reference.hpp"

#include <algorithm>
#include <cctype>
#include <regex>

#include "net/url.hpp"
#include "util/digest.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

namespace rp {

namespace {

// The distribution spec's grammar for path components and tags.
const std::regex& component_re() {
  static const std::regex re("[a-z0-9]+((\\.|_|__|-+)[a-z0-9]+)*");
  return re;
}
const std::regex& tag_re() {
  static const std::regex re("[A-Za-z0-9_][A-Za-z0-9._-]{0,127}");
  return re;
}
// A registry host: DNS name or IPv4 with an optional port, or a bracketed IPv6 address.
const std::regex& host_re() {
  static const std::regex re(
      "(([A-Za-z0-9]|[A-Za-z0-9][A-Za-z0-9-]*[A-Za-z0-9])(\\.([A-Za-z0-9]|[A-Za-z0-9][A-Za-z0-9-]*[A-Za-z0-9]))*"
      "|\\[[0-9A-Fa-f:.]+\\])(:[0-9]+)?");
  return re;
}

bool looks_like_registry(std::string_view first) {
  return first.find('.') != std::string_view::npos || first.find(':') != std::string_view::npos ||
         first == "localhost";
}

const char* kFormatHint = "write it as [registry/]name[:tag][@sha256:digest], e.g. alpine:3.19 or localhost:5000/app:v1";

}  // namespace

bool is_valid_tag(std::string_view tag) { return std::regex_match(tag.begin(), tag.end(), tag_re()); }

bool is_valid_repository(std::string_view repository) {
  if (repository.empty() || repository.size() > 255) return false;
  size_t start = 0;
  while (true) {
    size_t slash = repository.find('/', start);
    std::string_view part = repository.substr(start, slash == std::string_view::npos ? slash : slash - start);
    if (!std::regex_match(part.begin(), part.end(), component_re())) return false;
    if (slash == std::string_view::npos) return true;
    start = slash + 1;
  }
}

bool is_loopback_host(std::string_view host_and_port) {
  std::string_view host = host_and_port;
  if (!host.empty() && host.front() == '[') {
    host = host.substr(1, host.find(']') - 1);
    return host == "::1";
  }
  if (auto colon = host.rfind(':'); colon != std::string_view::npos) host = host.substr(0, colon);
  return host == "localhost" || host.starts_with("127.") || host == "::1";
}

std::string Reference::name() const { return registry + "/" + repository; }

std::string Reference::identifier() const {
  if (has_digest()) return digest;
  return has_tag() ? tag : kDefaultTag;
}

std::string Reference::str() const {
  std::string s = name();
  if (has_tag() || !has_digest()) s += ":" + (has_tag() ? tag : std::string(kDefaultTag));
  if (has_digest()) s += "@" + digest;
  return s;
}

std::string Reference::api_host() const { return registry == kDockerHub ? kDockerHubApiHost : registry; }

Reference Reference::with_tag(std::string t) const {
  Reference r = *this;
  r.tag = std::move(t);
  r.digest.clear();
  return r;
}

Reference Reference::with_digest(std::string d) const {
  Reference r = *this;
  r.digest = std::move(d);
  return r;
}

Reference parse_reference(std::string_view text_view) {
  std::string text(text_view);
  if (text.empty()) throw InputError("empty image reference", kFormatHint);
  // How the reference is quoted in messages: without credentials, and bounded.
  const std::string shown = shorten(net::redact_credentials(text_view));
  if (text.find("://") != std::string::npos)
    throw InputError("invalid image reference '" + shown + "': a reference has no URL scheme",
                     "drop the scheme, e.g. localhost:5000/app:v1 instead of http://localhost:5000/app:v1");
  if (auto at = text.find('@'); at != std::string::npos && text.find('/') != std::string::npos && at < text.find('/'))
    throw InputError("invalid image reference '***" + shorten(text.substr(at)) + "': credentials (user:password@) do not belong in a reference",
                     "log in with `rockpack login HOST` (or pass --creds) and give the reference without them");
  Reference ref;

  // The digest comes last and can contain ':' of its own: split it off first.
  if (auto at = text.find('@'); at != std::string::npos) {
    ref.digest = text.substr(at + 1);
    text.resize(at);
    if (!is_valid_digest(ref.digest))
      throw InputError("invalid digest in image reference '" + shown + "'",
                       "a digest is written sha256: followed by 64 lowercase hex digits");
  }

  // The registry, if any, is the first component when it looks like a host.
  std::string rest = text;
  if (auto slash = text.find('/'); slash != std::string::npos && looks_like_registry(text.substr(0, slash))) {
    ref.registry = text.substr(0, slash);
    rest = text.substr(slash + 1);
    if (!std::regex_match(ref.registry, host_re()))
      throw InputError("invalid registry host '" + shorten(ref.registry) + "' in image reference '" + shown + "'",
                       kFormatHint);
  } else {
    ref.registry = kDockerHub;
  }

  // A tag follows the last ':' that comes after the last '/' (a ':' before it would be a port).
  auto last_slash = rest.rfind('/');
  auto colon = rest.rfind(':');
  if (colon != std::string::npos && (last_slash == std::string::npos || colon > last_slash)) {
    ref.tag = rest.substr(colon + 1);
    rest.resize(colon);
    if (!is_valid_tag(ref.tag))
      throw InputError("invalid tag '" + shorten(ref.tag) + "' in image reference '" + shown + "'",
                       "tags are up to 128 characters of letters, digits, '_', '.' and '-', not starting with '.' or '-'");
  }

  // Docker's aliases for its own registry.
  if (ref.registry == "index.docker.io" || ref.registry == "registry-1.docker.io") ref.registry = kDockerHub;
  if (ref.registry == kDockerHub && rest.find('/') == std::string::npos) rest = "library/" + rest;
  ref.repository = rest;

  if (ref.repository.empty()) throw InputError("image reference '" + shown + "' has no name", kFormatHint);
  if (!is_valid_repository(ref.repository)) {
    bool upper = std::any_of(ref.repository.begin(), ref.repository.end(), [](unsigned char c) { return std::isupper(c); });
    throw InputError("invalid repository name '" + shorten(ref.repository) + "' in image reference '" + shown + "'",
                     upper ? "repository names must be lowercase" : kFormatHint);
  }
  return ref;
}

}  // namespace rp
