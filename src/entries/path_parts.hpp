#pragma once
// Splitting image paths ("/usr/bin/x", "usr//bin/./x") into components, and the parent of a
// relative key: what every view of a root file system (RootfsView, the apt installer's overlay)
// walks symlinks with.
#include <string>
#include <string_view>
#include <vector>

namespace rp {

// The components of `path`, empty ones and "." dropped (".." kept: the caller decides).
inline std::vector<std::string> path_components(std::string_view path) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i <= path.size()) {
    size_t j = path.find('/', i);
    if (j == std::string_view::npos) j = path.size();
    std::string_view part = path.substr(i, j - i);
    if (!part.empty() && part != ".") out.emplace_back(part);
    i = j + 1;
  }
  return out;
}

// "a/b/c" -> "a/b"; "a" -> "".
inline std::string parent_key(const std::string& key) {
  size_t slash = key.rfind('/');
  return slash == std::string::npos ? std::string() : key.substr(0, slash);
}

}  // namespace rp
