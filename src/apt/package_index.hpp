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

// Decompresses an index as it is read, so that neither the compressed nor the decompressed file is
// ever held whole: `read` fills up to `size` bytes of `buffer` and returns how many (0 at the end);
// `sink` gets the text piece by piece. Same compressions, limits and errors as decompress_index.
void decompress_index_stream(const std::function<size_t(char* buffer, size_t size)>& read, const std::string& path,
                             const std::string& what, const std::function<void(std::string_view text)>& sink);

// Reads a Packages index fed piece by piece (a decompressor's output as it comes): it keeps only the
// unfinished stanza between two pieces, and hands each package to `sink` as soon as its stanza is
// complete. Checks and errors (with the line in the whole file) are those of parse_packages_index;
// a stanza longer than 64 MiB is an error.
class PackagesIndexParser {
 public:
  PackagesIndexParser(std::string what, int origin, std::function<void(Package&&)> sink);
  void feed(std::string_view text);
  // The end of the index: the last stanza may lack its final newline.
  void finish();

 private:
  void parse_stanzas(std::string_view text);

  std::string what_;
  int origin_;
  std::function<void(Package&&)> sink_;
  std::string pending_;     // text after the last complete stanza
  size_t lines_done_ = 0;   // lines of the file before pending_
  size_t stanzas_ = 0;
};

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
