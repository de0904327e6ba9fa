#pragma once
// URL helpers for index pages: RFC 3986 reference resolution (relative links on a simple index page
// are resolved against the page URL or its <base href>), fragments and percent-decoding.
#include <optional>
#include <string>
#include <string_view>

namespace rp::python {

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

}  // namespace rp::python
