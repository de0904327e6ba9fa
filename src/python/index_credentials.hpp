#pragma once
// Credentials for a package index: userinfo in the index URL, environment variables named by the
// recipe, or a netrc file. They are sent as HTTP Basic auth to the index's own host only, and never
// appear in a message, a log line or a URL handed out (see redact_url in net/url.hpp).
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace rp::python {

struct IndexSource;

struct BasicCredential {
  std::string username;
  std::string password;
  std::string source;  // for messages: "the index URL", "$MY_USER/$MY_PASS", "/root/.netrc"
};

// The entry of a netrc file (`machine`/`login`/`password`/`default` tokens; `macdef` bodies are
// skipped) for `host` (compared case-insensitively, without port), else its `default` entry.
std::optional<BasicCredential> netrc_lookup(std::string_view netrc_text, std::string_view host);
// $NETRC, else ~/.netrc.
std::filesystem::path default_netrc_path();

// The credential for an index, in this order: userinfo in its URL; its username/password
// environment variables (an unset variable is an rp::InputError naming it); its netrc entry when
// `netrc` is set (a missing file or entry means no credential). nullopt: anonymous.
std::optional<BasicCredential> resolve_index_credential(const IndexSource& index);

// "Basic <base64(user:password)>".
std::string basic_authorization(const BasicCredential& credential);

// The host of a URL, lowercased, without port or userinfo ("" when there is none).
std::string url_host(std::string_view url);

}  // namespace rp::python
