// Fuzzes apt source entries as a base image's sources.list (one-line form) and *.sources (deb822
// form) give them (apt::parse_one_line_sources, apt::parse_deb822_sources), and the reading of
// update-alternatives calls from maintainer scripts (apt::alternative_calls), apt's preferences
// (apt::parse_preferences) and dpkg's path filters (apt::PathFilter). Only rp::Error may come
// out. Checked: every entry is an http(s) URL with a suite, flat exactly when it has no components,
// and neither describe() nor an error message shows the user:password@ of a URL.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "apt/native_effects.hpp"
#include "apt/path_filter.hpp"
#include "apt/preferences.hpp"
#include "apt/sources.hpp"
#include "net/url.hpp"
#include "util/error.hpp"

namespace {

// Whether the URL in `text` (a message names one source) shows userinfo ("scheme://user:pw@host...").
// Only the first "://" starts the URL: a later one is in its path.
bool shows_credentials(std::string_view text) {
  size_t p = text.find("://");
  if (p == std::string_view::npos) return false;
  size_t start = p + 3;
  size_t end = text.find_first_of("/?# \t\n'", start);
  std::string_view authority = text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
  return authority.find('@') != std::string_view::npos;
}

void check(const std::vector<rp::apt::SourceEntry>& entries) {
  for (const auto& e : entries) {
    if (e.url.rfind("http://", 0) != 0 && e.url.rfind("https://", 0) != 0) __builtin_trap();
    if (e.suite.empty() || e.flat() != e.components.empty()) __builtin_trap();
    (void)e.release_directory();
    std::string shown = e.describe();
    if (shown.rfind(rp::net::redact_credentials(e.url), 0) != 0) __builtin_trap();
  }
}

void check_error(const rp::Error& e) {
  std::string_view message = e.what();
  // These quote a malformed line, or what stands where the source type or an option is expected,
  // as written: not a URL the entry is about.
  for (const char* quoting : {"unknown source type", "malformed option", "expected 'Field: value'", "continuation line",
                              "appears twice"})
    if (message.find(quoting) != std::string_view::npos) return;
  if (shows_credentials(message)) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  try {
    check(rp::apt::parse_one_line_sources(input, "fuzz.list"));
  } catch (const rp::Error& e) {
    check_error(e);
  }
  try {
    check(rp::apt::parse_deb822_sources(input, "fuzz.sources"));
  } catch (const rp::Error& e) {
    check_error(e);
  }
  try {
    for (const auto& r : rp::apt::parse_preferences(input, "fuzz.pref"))
      if (r.priority == 0 || (r.kind != rp::apt::PinRecord::kRelease && !r.release.empty())) __builtin_trap();
  } catch (const rp::Error&) {
  }
  {
    rp::apt::PathFilter filter(rp::apt::PathFilter::parse_config(input));
    for (const auto& r : filter.rules())
      if (r.pattern.empty()) __builtin_trap();
    (void)filter.skip("/usr/share/doc/x/copyright", false);
    (void)filter.skip("/usr/share/doc/x", true);
  }
  try {
    for (const auto& call : rp::apt::alternative_calls(std::string(input))) {
      if (call.link.empty() || call.link[0] != '/' || call.path.empty() || call.path[0] != '/') __builtin_trap();
      for (const auto& s : {call.link, call.name, call.path})
        if (s.find('$') != std::string::npos) __builtin_trap();
    }
  } catch (const rp::Error&) {
  }
  return 0;
}
