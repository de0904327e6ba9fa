#include "python/index_credentials.hpp"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "net/url.hpp"
#include "python/index_client.hpp"
#include "python/text.hpp"
#include "net/url.hpp"
#include "util/base64.hpp"
#include "util/error.hpp"

namespace rp::python {

namespace {

// netrc tokens are separated by any whitespace; a `macdef` body runs to the next empty line.
std::vector<std::string> netrc_tokens(std::string_view text) {
  std::vector<std::string> tokens;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && is_space(text[i])) ++i;
    if (i >= text.size()) break;
    if (text[i] == '#') {  // comment to end of line (a common extension)
      while (i < text.size() && text[i] != '\n') ++i;
      continue;
    }
    size_t start = i;
    while (i < text.size() && !is_space(text[i])) ++i;
    tokens.emplace_back(text.substr(start, i - start));
    if (tokens.back() == "macdef") {
      size_t end = text.find("\n\n", i);
      i = end == std::string_view::npos ? text.size() : end + 2;
      tokens.pop_back();
    }
  }
  return tokens;
}

// The "user:password@" part of the URL's authority, or nullopt.
std::optional<std::string> userinfo(std::string_view url) {
  auto parts = net::UrlParts::split(url);
  if (!parts.authority) return std::nullopt;
  size_t at = parts.authority->rfind('@');
  if (at == std::string::npos) return std::nullopt;
  return parts.authority->substr(0, at);
}

std::string env_value(const std::string& name, const IndexSource& index, const char* what) {
  const char* v = std::getenv(name.c_str());
  if (!v)
    throw InputError("the " + std::string(what) + " for index " + net::redact_credentials(index.url) +
                         " comes from the environment variable " + name + ", which is not set",
                     "set " + name + " (or remove it from the index's settings)");
  return v;
}

}  // namespace

std::optional<BasicCredential> netrc_lookup(std::string_view netrc_text, std::string_view host) {
  auto tokens = netrc_tokens(netrc_text);
  std::string want = ascii_lower(host);
  std::optional<BasicCredential> found, fallback;
  std::optional<BasicCredential>* current = nullptr;
  for (size_t i = 0; i < tokens.size(); ++i) {
    const std::string& t = tokens[i];
    if (t == "machine" && i + 1 < tokens.size()) {
      ++i;
      current = nullptr;
      if (!found && ascii_lower(tokens[i]) == want) {
        found = BasicCredential{};
        current = &found;
      }
    } else if (t == "default") {
      current = nullptr;
      if (!fallback) {
        fallback = BasicCredential{};
        current = &fallback;
      }
    } else if ((t == "login" || t == "password" || t == "account") && i + 1 < tokens.size()) {
      ++i;
      if (current && t == "login") (*current)->username = tokens[i];
      if (current && t == "password") (*current)->password = tokens[i];
    }
  }
  return found ? found : fallback;
}

std::filesystem::path default_netrc_path() {
  if (const char* n = std::getenv("NETRC"); n && *n) return n;
  const char* home = std::getenv("HOME");
  return std::filesystem::path(home && *home ? home : "/root") / ".netrc";
}

std::optional<BasicCredential> resolve_index_credential(const IndexSource& index) {
  if (auto info = userinfo(index.url)) {
    size_t colon = info->find(':');
    BasicCredential c;
    c.username = net::percent_decode(info->substr(0, colon));
    if (colon != std::string::npos) c.password = net::percent_decode(info->substr(colon + 1));
    c.source = "the index URL";
    return c;
  }
  if (!index.username_env.empty() || !index.password_env.empty()) {
    BasicCredential c;
    if (!index.username_env.empty()) c.username = env_value(index.username_env, index, "user name");
    if (!index.password_env.empty()) c.password = env_value(index.password_env, index, "password");
    c.source = "$" + index.username_env + "/$" + index.password_env;
    return c;
  }
  if (index.netrc) {
    auto path = default_netrc_path();
    std::ifstream in(path);
    if (!in) return std::nullopt;
    std::stringstream text;
    text << in.rdbuf();
    auto c = netrc_lookup(text.str(), url_host(index.url));
    if (c) c->source = path.string();
    return c;
  }
  return std::nullopt;
}

std::string basic_authorization(const BasicCredential& credential) {
  return "Basic " + base64_encode(credential.username + ":" + credential.password);
}

std::string url_host(std::string_view url) {
  auto parts = net::UrlParts::split(url);
  if (!parts.authority) return {};
  std::string a = *parts.authority;
  if (size_t at = a.rfind('@'); at != std::string::npos) a = a.substr(at + 1);
  if (!a.empty() && a.front() == '[') {  // IPv6 literal
    size_t close = a.find(']');
    return ascii_lower(a.substr(0, close == std::string::npos ? a.size() : close + 1));
  }
  if (size_t colon = a.find(':'); colon != std::string::npos) a = a.substr(0, colon);
  return ascii_lower(a);
}

}  // namespace rp::python
