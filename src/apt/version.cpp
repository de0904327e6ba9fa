#include "apt/version.hpp"

#include <limits>

#include "util/error.hpp"
#include "util/strings.hpp"

namespace rp::apt {

namespace {

bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

// dpkg's order(): digits (and the end) 0, letters their code, '~' below everything, others above letters.
int order(int c) {
  if (c >= '0' && c <= '9') return 0;
  if (is_alpha(static_cast<char>(c))) return c;
  if (c == '~') return -1;
  if (c) return c + 256;
  return 0;
}

}  // namespace

int compare_version_part(std::string_view a_text, std::string_view b_text) {
  // Indexes with an implicit NUL at the end, as dpkg walks C strings.
  size_t a = 0, b = 0;
  auto at = [](std::string_view s, size_t i) -> int { return i < s.size() ? static_cast<unsigned char>(s[i]) : 0; };
  while (a < a_text.size() || b < b_text.size()) {
    int first_diff = 0;
    while ((at(a_text, a) && !is_digit(static_cast<char>(at(a_text, a)))) ||
           (at(b_text, b) && !is_digit(static_cast<char>(at(b_text, b))))) {
      int ac = order(at(a_text, a));
      int bc = order(at(b_text, b));
      if (ac != bc) return ac - bc;
      ++a;
      ++b;
    }
    while (at(a_text, a) == '0') ++a;
    while (at(b_text, b) == '0') ++b;
    while (is_digit(static_cast<char>(at(a_text, a))) && is_digit(static_cast<char>(at(b_text, b)))) {
      if (!first_diff) first_diff = at(a_text, a) - at(b_text, b);
      ++a;
      ++b;
    }
    if (is_digit(static_cast<char>(at(a_text, a)))) return 1;
    if (is_digit(static_cast<char>(at(b_text, b)))) return -1;
    if (first_diff) return first_diff;
  }
  return 0;
}

Version Version::parse(std::string_view text, std::string_view what) {
  auto fail = [&](const std::string& why) -> InputError {
    return InputError(std::string(what) + " '" + std::string(text.substr(0, 80)) + "' is not a valid Debian version: " + why,
                      "a Debian version is [epoch:]upstream[-revision], e.g. 1:2.36-9+deb12u4");
  };
  std::string_view s = text;
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  if (s.empty()) throw fail("it is empty");
  for (char c : s)
    if (is_space(c)) throw fail("it has embedded blanks");
    else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) throw fail("it has control characters");

  Version v;
  v.text_ = std::string(s);
  size_t colon = s.find(':');
  if (colon != std::string_view::npos) {
    std::string_view epoch = s.substr(0, colon);
    if (epoch.empty()) throw fail("the epoch is empty");
    uint64_t n = 0;
    for (char c : epoch) {
      if (!is_digit(c)) throw fail("the epoch is not a number");
      n = n * 10 + static_cast<uint64_t>(c - '0');
      if (n > static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) throw fail("the epoch is too big");
    }
    v.epoch_ = static_cast<uint32_t>(n);
    s.remove_prefix(colon + 1);
    if (s.empty()) throw fail("nothing follows the epoch");
  }
  size_t dash = s.rfind('-');
  if (dash != std::string_view::npos) {
    v.revision_ = std::string(s.substr(dash + 1));
    if (v.revision_.empty()) throw fail("the revision after '-' is empty");
    s = s.substr(0, dash);
  }
  if (s.empty()) throw fail("the upstream version is empty");
  v.upstream_ = std::string(s);
  return v;
}

std::optional<Version> Version::try_parse(std::string_view text) {
  try {
    return parse(text);
  } catch (const InputError&) {
    return std::nullopt;
  }
}

std::strong_ordering operator<=>(const Version& a, const Version& b) {
  if (a.epoch_ != b.epoch_) return a.epoch_ <=> b.epoch_;
  int c = compare_version_part(a.upstream_, b.upstream_);
  if (c == 0) c = compare_version_part(a.revision_, b.revision_);
  return c <=> 0;
}

}  // namespace rp::apt
