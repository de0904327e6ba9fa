// Wheel file name parsing.
#include "python/wheel_filename.hpp"

#include "python/text.hpp"
#include "net/url.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

namespace rp::python {

namespace {


bool valid_chars(std::string_view s, bool allow_dot) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!is_alnum(c) && c != '_' && !(allow_dot && c == '.')) return false;
  }
  return true;
}

// A '.'-joined tag set, lowercased ("py2.py3" -> {"py2", "py3"}); empty on malformed input.
std::vector<std::string> tag_set(std::string_view field) {
  std::vector<std::string> out;
  for (std::string_view t : split(field, '.')) {
    if (!valid_chars(t, false)) return {};
    out.push_back(ascii_lower(t));
  }
  return out;
}

}  // namespace

std::strong_ordering BuildTag::operator<=>(const BuildTag& other) const {
  if (auto c = compare_numeric_strings(number, other.number); c != 0) return c;
  return rest.compare(other.rest) <=> 0;
}

std::optional<WheelFilename> WheelFilename::try_parse(std::string_view filename) {
  std::string decoded = net::percent_decode(filename);
  std::string_view s = decoded;
  if (s.size() > 4096 || !s.ends_with(".whl")) return std::nullopt;
  s.remove_suffix(4);
  std::vector<std::string_view> parts = split(s, '-');
  if (parts.size() != 5 && parts.size() != 6) return std::nullopt;

  WheelFilename w;
  if (!valid_chars(parts[0], true)) return std::nullopt;
  w.name = std::string(parts[0]);
  auto version = Version::try_parse(parts[1]);
  if (!version) return std::nullopt;
  w.version = *version;
  size_t next = 2;
  if (parts.size() == 6) {
    std::string_view b = parts[2];
    if (b.empty() || !is_digit(b.front()) || !valid_chars(b, true)) return std::nullopt;
    size_t digits = 0;
    while (digits < b.size() && is_digit(b[digits])) ++digits;
    w.build = BuildTag{std::string(b.substr(0, digits)), std::string(b.substr(digits))};
    next = 3;
  }
  w.python_tags = tag_set(parts[next]);
  w.abi_tags = tag_set(parts[next + 1]);
  w.platform_tags = tag_set(parts[next + 2]);
  if (w.python_tags.empty() || w.abi_tags.empty() || w.platform_tags.empty()) return std::nullopt;
  return w;
}

WheelFilename WheelFilename::parse(std::string_view filename) {
  if (auto w = try_parse(filename)) return *w;
  throw InputError("invalid wheel file name '" + printable(filename) + "'",
                   "wheel names look like {name}-{version}(-{build})?-{python}-{abi}-{platform}.whl");
}

std::string WheelFilename::normalized_name() const { return normalize_name(name); }

std::vector<WheelTag> WheelFilename::tags() const {
  std::vector<WheelTag> out;
  for (const auto& py : python_tags) {
    for (const auto& abi : abi_tags) {
      for (const auto& plat : platform_tags) out.push_back({py, abi, plat});
    }
  }
  return out;
}

}  // namespace rp::python
