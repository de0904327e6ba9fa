#pragma once
// Where packages come from: apt's source entries, as a recipe's `apt.sources` gives them or as a
// base image's own /etc/apt/sources.list, sources.list.d/*.list (one-line form) and *.sources
// (deb822 form) describe them, with the keys each one's Release must be signed with.
//
//   deb [arch=amd64 signed-by=/usr/share/keyrings/x.gpg] http://host/debian bookworm main contrib
//
//   Types: deb
//   URIs: http://host/debian
//   Suites: bookworm bookworm-updates
//   Components: main
//   Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg     (or an inline armored key)
//
// Only binary sources ("deb") are read; deb-src entries and disabled ones (Enabled: no) are skipped.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "apt/signature.hpp"
#include "entries/file_tree.hpp"

namespace rp::apt {

struct SourceEntry {
  std::string origin;  // for messages: "recipe.yaml:12:7" or "/etc/apt/sources.list.d/debian.sources:1"
  std::string url;     // without a trailing '/'
  std::string suite;   // a flat repository's suite ends in '/' ("./", "sub/")
  std::vector<std::string> components;     // empty exactly when the repository is flat
  std::vector<std::string> architectures;  // [arch=...] / Architectures:; empty = the build's
  std::vector<std::string> signed_by;      // key file paths (in the image for a base's entries)
  std::string signed_by_inline;            // an armored key block written in the entry itself
  bool trusted = false;                    // [trusted=yes] / Trusted: yes / the recipe's trusted: true
  std::optional<int> priority;  // the recipe's pin of the whole source; unset: the Release and preferences decide

  bool flat() const { return !suite.empty() && suite.back() == '/'; }
  // The URL of the directory that holds InRelease / Release: "<url>/dists/<suite>" or, flat,
  // "<url>/<suite>" without its trailing '/'.
  std::string release_directory() const;
  // "http://host/debian bookworm/main contrib" (no credentials: net::redact_credentials is applied).
  std::string describe() const;
};

// Parses one-line sources (sources.list, *.list). `origin` names the file; errors are rp::Error
// naming the file and line (the base image's configuration is not the recipe's fault).
std::vector<SourceEntry> parse_one_line_sources(std::string_view text, const std::string& origin);

// Parses deb822 sources (*.sources): one entry per URI and suite of each stanza.
std::vector<SourceEntry> parse_deb822_sources(std::string_view text, const std::string& origin);

// The source entries the image at `image` is configured with, in apt's order (sources.list first,
// then sources.list.d/ files by name). Empty when it has none.
std::vector<SourceEntry> image_sources(const FileTree& image);

// The keys `entry` trusts, read from `image` (a base image's entry names key files in the image):
// its Signed-By files and inline key; with neither, apt's global keyrings (/etc/apt/trusted.gpg and
// /etc/apt/trusted.gpg.d/*.gpg|*.asc). A named file that is missing is an rp::Error naming it.
Keyring image_keyring(const SourceEntry& entry, const FileTree& image);

}  // namespace rp::apt
