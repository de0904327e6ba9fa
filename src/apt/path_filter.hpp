#pragma once
// dpkg's path filters (dpkg(1) --path-exclude / --path-include): which members of a package dpkg
// leaves out of the file system, as a base image configures it in /etc/dpkg/dpkg.cfg.d/* and
// /etc/dpkg/dpkg.cfg (minimized images drop man pages, documentation and translations this way):
//
//   path-exclude=/usr/share/doc/*
//   path-include=/usr/share/doc/*/copyright
//
//  - Patterns are fnmatch(3) globs without flags ('*' also matches '/') on the member's absolute
//    path as the package ships it; the last filter that matches decides.
//  - A directory that is excluded is still made when an include pattern may match below it (its
//    path starts with the include pattern's part before the first wildcard, trailing '/' dropped).
//  - Filtered members are still listed in info/<pkg>.list and md5sums, as dpkg lists them.
#include <string>
#include <string_view>
#include <vector>

#include "entries/file_tree.hpp"

namespace rp::apt {

class PathFilter {
 public:
  struct Rule {
    bool include = false;
    std::string pattern;
  };

  PathFilter() = default;
  explicit PathFilter(std::vector<Rule> rules) : rules_(std::move(rules)) {}

  // Reads dpkg's configuration (one option a line, "name=value" or "name value", '#' comments):
  // the path-exclude and path-include options, in dpkg's order.
  static std::vector<Rule> parse_config(std::string_view text);
  // The filters of the image: /etc/dpkg/dpkg.cfg.d/* (names of letters, digits, '_' and '-', in
  // name order), then /etc/dpkg/dpkg.cfg, as dpkg reads them.
  static PathFilter of_image(const FileTree& image);

  // Whether dpkg leaves `path` ("/usr/share/doc/x/README", absolute, no trailing '/') out.
  bool skip(const std::string& path, bool directory) const;
  bool empty() const { return rules_.empty(); }
  const std::vector<Rule>& rules() const { return rules_; }

 private:
  std::vector<Rule> rules_;
};

}  // namespace rp::apt
