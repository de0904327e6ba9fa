#pragma once
// Packages indexes: every binary package a repository offers, with what the resolver and the
// download need (relations kept as text and parsed when a package is considered: Debian's main
// index has ~64000 stanzas and the resolver looks at a few hundred). Also reads dpkg's status file,
// whose stanzas describe what an image already has installed.
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "apt/relation.hpp"
#include "apt/version.hpp"

namespace rp::apt {

enum class MultiArch { kNo, kSame, kForeign, kAllowed };
MultiArch parse_multi_arch(std::string_view text);
const char* multi_arch_text(MultiArch m);

struct Package {
  std::string name;
  Version version;
  std::string architecture;  // "amd64", "all", ...
  MultiArch multi_arch = MultiArch::kNo;
  bool essential = false;
  std::string priority;  // required, important, standard, optional, extra
  std::string section;
  std::string source;          // source package name (Source: without its version, else the package name)
  std::string source_version;  // from "Source: name (version)", else the package's version
  // Relationship fields, verbatim (continuation lines folded).
  std::string depends, pre_depends, recommends, provides, conflicts, breaks, replaces;
  // Download: Filename relative to the repository root, Size and SHA256 of the .deb. Empty for
  // installed packages (status file).
  std::string filename;
  uint64_t size = 0;
  std::string sha256;
  // Which repository (index into the caller's source list) it came from; -1 for installed ones.
  int origin = -1;
  // Which release and component of that repository (index into ResolverOptions::releases), for pins.
  int release = -1;
  // For installed packages: the status stanza as written (kept verbatim when the status is rewritten).
  std::string status_stanza;

  // "name:arch" as dpkg names a package in messages and info files.
  std::string id() const { return name + ":" + architecture; }
  // "name version (arch)"
  std::string display() const { return name + " " + version.str() + " (" + architecture + ")"; }
};

// The text of a fetched index file: `path` ("main/binary-amd64/Packages.xz") says how it is
// compressed (.xz, .gz, .bz2, .zst or none). At most 1 GiB uncompressed. Throws rp::Error naming `what`.
std::string decompress_index(std::string_view bytes, const std::string& path, const std::string& what);

// Parses a relationship field of `pkg` (e.g. pkg.depends) naming it in errors.
std::vector<AlternativeGroup> relations_of(const Package& pkg, std::string_view field_name, const std::string& text);

// Reads a Packages index. Stanzas missing Package, Version, Architecture, Filename, Size or SHA256
// are an rp::Error naming `what` and the line: an index that cannot be verified package by package
// is refused. `origin` is stored in each package.
std::vector<Package> parse_packages_index(std::string_view text, const std::string& what, int origin);

// Reads /var/lib/dpkg/status: the packages whose Status ends in "installed" (others, such as removed
// packages with config files left, only keep their stanza). Throws rp::Error for a damaged file.
struct InstalledDatabase {
  std::vector<Package> installed;
  // Every stanza of the file as written, in file order (a rewrite keeps them all).
  std::vector<std::string> stanzas;
  std::vector<std::string> stanza_names;  // "name:arch" of each stanza (arch empty when absent)
};
InstalledDatabase parse_status_file(std::string_view text, const std::string& what);

}  // namespace rp::apt
