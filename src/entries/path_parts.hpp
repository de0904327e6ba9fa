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

// Why a member name or link target read from an archive (.deb, wheel, layer, tar input) cannot be a
// path in an image, or nullptr when it can. A NUL ends the name for every tar and dpkg reader, so
// "var/lib/dpkg/status\0x" would be checked as one path and unpacked as another; a newline splits
// the line-per-path lists dpkg keeps (info/*.list), which is why dpkg refuses it too.
inline const char* unsafe_member_name(std::string_view name) {
  if (name.find('\0') != std::string_view::npos) return "a NUL byte";
  if (name.find('\n') != std::string_view::npos) return "a newline";
  return nullptr;
}

}  // namespace rp
