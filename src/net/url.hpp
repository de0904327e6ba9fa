#pragma once
// The one URL module: RFC 3986 parts and reference resolution (a Location header against the
// request URL, a link on an index page against the page or its <base href>), telling whether two
// URLs are on the same host (credentials never cross hosts), query parameters, percent-coding,
// and stripping userinfo before a URL is shown to anyone.
#include <optional>
#include <string>
#include <string_view>

namespace rp::net {

// The five components of RFC 3986 (appendix B); absent components are nullopt, so "x?" (empty
// query) and "x" (no query) stay different.
struct UrlParts {
  std::optional<std::string> scheme;
  std::optional<std::string> authority;
  std::string path;
  std::optional<std::string> query;
  std::optional<std::string> fragment;

  static UrlParts split(std::string_view url);
  std::string join() const;
};

// RFC 3986 section 5.2: the target URL of reference `ref` found in a document at `base`.
std::string resolve_url(std::string_view base, std::string_view ref);
// RFC 3986 section 5.2.4.
std::string remove_dot_segments(std::string_view path);

// "%2B" -> "+". Malformed escapes are kept as they are.
std::string percent_decode(std::string_view s);
// The URL without its "#fragment"; and the fragment alone (empty when none).
std::string_view strip_fragment(std::string_view url);
std::string_view url_fragment(std::string_view url);
// The last path segment, percent-decoded ("https://h/a/torch-2.1%2Brocm.whl?x" -> "torch-2.1+rocm.whl").
std::string url_filename(std::string_view url);

// The authority of `url` without userinfo ("host:port"); "" when the URL has none.
std::string host_port(std::string_view url);
// The scheme of `url` ("https"); "" when it has none.
std::string url_scheme(std::string_view url);
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
