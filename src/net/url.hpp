#pragma once
// The few URL operations the registry and index clients need: resolving a Location header against the
// request URL, telling whether two URLs are on the same host (credentials never cross hosts),
// appending query parameters, and stripping userinfo before a URL is shown to anyone.
#include <string>
#include <string_view>

namespace rp::net {

struct UrlParts {
  std::string scheme;     // "https"
  std::string authority;  // "host:port" (userinfo removed)
  std::string path_and_query;
};

UrlParts split_url(std::string_view url);
// `location` may be absolute, host-relative ("/v2/...") or path-relative.
std::string resolve_url(std::string_view base, std::string_view location);
bool same_origin(std::string_view a, std::string_view b);
// Appends key=value (value percent-encoded), with '?' or '&' as the URL needs.
std::string add_query(std::string_view url, std::string_view key, std::string_view value);
// Percent-encodes every byte but RFC 3986's unreserved ones (A-Z a-z 0-9 - . _ ~) and `also_keep`
// (a purl keeps '+', for instance).
std::string url_encode(std::string_view s, std::string_view also_keep = {});
// The URL without userinfo and without its query (upload Locations carry state tokens).
std::string redact_url(std::string_view url);
// The one redaction for text that may carry credentials, used in every message and log line that
// can show a URL or an image reference: "scheme://user:pw@host/p?q" -> "scheme://host/p?q" (the
// query is kept: it may be needed to tell URLs apart) and "user:pw@host/name" (a reference or a
// scp-like location) -> "***@host/name" (a bare user name, as in "git@host:path", is kept). Text without userinfo comes back unchanged.
std::string redact_credentials(std::string_view text);

}  // namespace rp::net
