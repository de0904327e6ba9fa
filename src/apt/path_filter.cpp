#include "apt/path_filter.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <cctype>

namespace rp::apt {

std::vector<PathFilter::Rule> PathFilter::parse_config(std::string_view text) {
  std::vector<Rule> out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    size_t b = line.find_first_not_of(" \t");
    if (b == std::string_view::npos || line[b] == '#') continue;
    line = line.substr(b);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) line.remove_suffix(1);
    size_t sep = line.find_first_of("= \t");
    if (sep == std::string_view::npos) continue;
    std::string_view name = line.substr(0, sep);
    std::string_view value = line.substr(sep + 1);
    size_t v = value.find_first_not_of(" \t=");
    value = v == std::string_view::npos ? std::string_view() : value.substr(v);
    if (value.empty()) continue;
    if (name == "path-exclude") out.push_back({false, std::string(value)});
    else if (name == "path-include") out.push_back({true, std::string(value)});
  }
  return out;
}

PathFilter PathFilter::of_image(const FileTree& image) {
  std::vector<Rule> rules;
  std::vector<std::string> names = image.list("/etc/dpkg/dpkg.cfg.d");
  std::sort(names.begin(), names.end());
  for (const auto& name : names) {
    if (name.empty() || name[0] == '.' || !std::all_of(name.begin(), name.end(), [](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
        }))
      continue;
    if (auto text = image.read("/etc/dpkg/dpkg.cfg.d/" + name, 1u << 20)) {
      auto more = parse_config(*text);
      rules.insert(rules.end(), more.begin(), more.end());
    }
  }
  if (auto text = image.read("/etc/dpkg/dpkg.cfg", 1u << 20)) {
    auto more = parse_config(*text);
    rules.insert(rules.end(), more.begin(), more.end());
  }
  return PathFilter(std::move(rules));
}

bool PathFilter::skip(const std::string& path, bool directory) const {
  bool skipped = false;
  for (const auto& r : rules_)
    if (fnmatch(r.pattern.c_str(), path.c_str(), 0) == 0) skipped = !r.include;
  if (!skipped || !directory) return skipped;
  // An excluded directory stays when an include pattern can reach below it.
  for (const auto& r : rules_) {
    if (!r.include) continue;
    size_t len = r.pattern.find_first_of("*?[\\");
    if (len == std::string::npos) len = r.pattern.size();
    while (len > 0 && r.pattern[len - 1] == '/') --len;
    if (path.compare(0, len, r.pattern, 0, len) == 0) return false;
  }
  return true;
}

}  // namespace rp::apt
