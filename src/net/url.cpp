#include "net/url.hpp"

#include <cctype>

namespace rp::net {

UrlParts split_url(std::string_view url) {
  UrlParts p;
  auto scheme_end = url.find("://");
  if (scheme_end == std::string_view::npos) {
    p.path_and_query = std::string(url);
    return p;
  }
  p.scheme = std::string(url.substr(0, scheme_end));
  std::string_view rest = url.substr(scheme_end + 3);
  auto path_start = rest.find_first_of("/?#");
  std::string_view authority = rest.substr(0, path_start);
  if (auto at = authority.rfind('@'); at != std::string_view::npos) authority = authority.substr(at + 1);
  p.authority = std::string(authority);
  p.path_and_query = path_start == std::string_view::npos ? "/" : std::string(rest.substr(path_start));
  return p;
}

std::string resolve_url(std::string_view base, std::string_view location) {
  if (location.find("://") != std::string_view::npos) return std::string(location);
  UrlParts b = split_url(base);
  std::string origin = b.scheme + "://" + b.authority;
  if (location.starts_with("//")) return b.scheme + ":" + std::string(location);
  if (location.starts_with("/")) return origin + std::string(location);
  // Relative to the directory of the base path.
  std::string path = b.path_and_query.substr(0, b.path_and_query.find('?'));
  path = path.substr(0, path.rfind('/') + 1);
  return origin + path + std::string(location);
}

bool same_origin(std::string_view a, std::string_view b) {
  UrlParts pa = split_url(a), pb = split_url(b);
  return pa.scheme == pb.scheme && pa.authority == pb.authority;
}

std::string url_encode(std::string_view s, std::string_view also_keep) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || also_keep.find(static_cast<char>(c)) != std::string_view::npos) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

std::string add_query(std::string_view url, std::string_view key, std::string_view value) {
  std::string out(url);
  out += (out.find('?') == std::string::npos) ? '?' : '&';
  out += std::string(key) + "=" + url_encode(value);
  return out;
}

std::string redact_credentials(std::string_view text) {
  if (auto scheme_end = text.find("://"); scheme_end != std::string_view::npos) {
    size_t start = scheme_end + 3;
    size_t end = text.find_first_of("/?#", start);
    std::string_view authority = text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    auto at = authority.rfind('@');
    if (at == std::string_view::npos) return std::string(text);
    return std::string(text.substr(0, start)) + std::string(text.substr(start + at + 1));
  }
  // No scheme: "user:password@" before the first '/' (and a '/' after it) is userinfo ("u:pw@host/x");
  // an '@' after a '/' is a digest ("host/x@sha256:..."), a bare user name is no secret ("git@host:p").
  auto slash = text.find('/');
  auto at = text.substr(0, slash).rfind('@');
  if (slash == std::string_view::npos || at == std::string_view::npos) return std::string(text);
  if (text.substr(0, at).find(':') == std::string_view::npos) return std::string(text);
  return "***@" + std::string(text.substr(at + 1));
}

std::string redact_url(std::string_view url) {
  UrlParts p = split_url(url);
  std::string path = p.path_and_query.substr(0, p.path_and_query.find('?'));
  if (p.scheme.empty()) return path;
  return p.scheme + "://" + p.authority + path;
}

}  // namespace rp::net
