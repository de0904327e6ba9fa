#include "net/url.hpp"

#include <cctype>

#include "util/strings.hpp"

namespace rp::net {

namespace {

// scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )
bool is_scheme(std::string_view s) {
  if (s.empty() || !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z'))) return false;
  for (char c : s) {
    if (!is_alnum(c) && c != '+' && c != '-' && c != '.') return false;
  }
  return true;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// merge() of section 5.2.3.
std::string merge_paths(const UrlParts& base, const std::string& ref_path) {
  if (base.authority && base.path.empty()) return "/" + ref_path;
  size_t slash = base.path.rfind('/');
  if (slash == std::string::npos) return ref_path;
  return base.path.substr(0, slash + 1) + ref_path;
}

}  // namespace

UrlParts UrlParts::split(std::string_view url) {
  UrlParts p;
  size_t fragment = url.find('#');
  if (fragment != std::string_view::npos) {
    p.fragment = std::string(url.substr(fragment + 1));
    url = url.substr(0, fragment);
  }
  size_t query = url.find('?');
  if (query != std::string_view::npos) {
    p.query = std::string(url.substr(query + 1));
    url = url.substr(0, query);
  }
  size_t colon = url.find(':');
  if (colon != std::string_view::npos && url.substr(0, colon).find('/') == std::string_view::npos &&
      is_scheme(url.substr(0, colon))) {
    p.scheme = std::string(url.substr(0, colon));
    url = url.substr(colon + 1);
  }
  if (url.starts_with("//")) {
    url.remove_prefix(2);
    size_t end = url.find('/');
    if (end == std::string_view::npos) end = url.size();
    p.authority = std::string(url.substr(0, end));
    url = url.substr(end);
  }
  p.path = std::string(url);
  return p;
}

std::string UrlParts::join() const {
  std::string out;
  if (scheme) out += *scheme + ":";
  if (authority) out += "//" + *authority;
  out += path;
  if (query) out += "?" + *query;
  if (fragment) out += "#" + *fragment;
  return out;
}

std::string remove_dot_segments(std::string_view in) {
  std::string out;
  while (!in.empty()) {
    if (in.starts_with("../")) {
      in.remove_prefix(3);
    } else if (in.starts_with("./")) {
      in.remove_prefix(2);
    } else if (in.starts_with("/./")) {
      in.remove_prefix(2);
    } else if (in == "/.") {
      in = "/";
    } else if (in.starts_with("/../") || in == "/..") {
      in = in.size() == 3 ? std::string_view("/") : in.substr(3);
      size_t slash = out.rfind('/');
      out.erase(slash == std::string::npos ? 0 : slash);
    } else if (in == "." || in == "..") {
      in = {};
    } else {
      // Move the first segment (with its leading '/', if any) to the output.
      size_t next = in.find('/', in.front() == '/' ? 1 : 0);
      if (next == std::string_view::npos) next = in.size();
      out.append(in.substr(0, next));
      in.remove_prefix(next);
    }
  }
  return out;
}

std::string resolve_url(std::string_view base_url, std::string_view ref_url) {
  UrlParts base = UrlParts::split(base_url);
  UrlParts ref = UrlParts::split(ref_url);
  UrlParts t;
  if (ref.scheme) {
    t.scheme = ref.scheme;
    t.authority = ref.authority;
    t.path = remove_dot_segments(ref.path);
    t.query = ref.query;
  } else {
    if (ref.authority) {
      t.authority = ref.authority;
      t.path = remove_dot_segments(ref.path);
      t.query = ref.query;
    } else {
      if (ref.path.empty()) {
        t.path = base.path;
        t.query = ref.query ? ref.query : base.query;
      } else {
        t.path = remove_dot_segments(ref.path.front() == '/' ? ref.path : merge_paths(base, ref.path));
        t.query = ref.query;
      }
      t.authority = base.authority;
    }
    t.scheme = base.scheme;
  }
  t.fragment = ref.fragment;
  return t.join();
}

std::string percent_decode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && hex_value(s[i + 1]) >= 0 && hex_value(s[i + 2]) >= 0) {
      out += static_cast<char>(hex_value(s[i + 1]) * 16 + hex_value(s[i + 2]));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

std::string_view strip_fragment(std::string_view url) { return url.substr(0, url.find('#')); }

std::string_view url_fragment(std::string_view url) {
  size_t hash = url.find('#');
  return hash == std::string_view::npos ? std::string_view() : url.substr(hash + 1);
}

std::string url_filename(std::string_view url) {
  UrlParts p = UrlParts::split(url);
  size_t slash = p.path.rfind('/');
  return percent_decode(slash == std::string::npos ? p.path : p.path.substr(slash + 1));
}

std::string host_port(std::string_view url) {
  std::string authority = UrlParts::split(url).authority.value_or("");
  if (auto at = authority.rfind('@'); at != std::string::npos) authority = authority.substr(at + 1);
  return authority;
}

std::string url_scheme(std::string_view url) { return UrlParts::split(url).scheme.value_or(""); }

bool same_origin(std::string_view a, std::string_view b) {
  return url_scheme(a) == url_scheme(b) && host_port(a) == host_port(b);
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
  UrlParts p = UrlParts::split(url);
  if (!p.scheme) return p.path;
  std::string out = *p.scheme + ":";
  if (p.authority) out += "//" + host_port(url);
  out += p.path.empty() && p.authority ? "/" : p.path;
  return out;
}

}  // namespace rp::net
