#pragma once
// A repository's Release file (the content of InRelease once its signature is verified): which
// suite it describes, until when it may be trusted, and the size and sha256 of every index, the
// second link of apt's chain of trust (signature -> index hash -> package hash).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rp::apt {

struct IndexFile {
  std::string path;  // relative to the Release file's directory: "main/binary-amd64/Packages.xz"
  uint64_t size = 0;
  std::string sha256;  // 64 lowercase hex digits
};

struct Release {
  std::string origin, label, suite, codename, version;
  std::optional<int64_t> date;         // seconds since the epoch
  std::optional<int64_t> valid_until;  // seconds since the epoch
  std::vector<std::string> architectures;
  std::vector<std::string> components;
  bool acquire_by_hash = false;
  // "NotAutomatic: yes" (experimental, backports): apt gives its packages priority 1, or 100 with
  // "ButAutomaticUpgrades: yes" as well (apt_preferences(5)), instead of 500.
  bool not_automatic = false;
  bool but_automatic_upgrades = false;
  // "No-Support-for-Architecture-all: Packages": the binary-<arch> indexes already hold the
  // Architecture: all packages, and binary-all is only there for old clients (Debian's archive).
  bool all_in_arch_indexes = false;
  std::map<std::string, IndexFile> files;  // by path, from the SHA256 field

  const IndexFile* find(const std::string& path) const;
};

// Parses the verified text of a Release file. A Release without a SHA256 list, or with a malformed
// entry, is an rp::Error naming `what` (a repository that cannot be verified is refused, not skipped).
Release parse_release(std::string_view text, const std::string& what);

// Checks the dates apt checks: Valid-Until in the past means the file may be a replayed old one.
// `now` in seconds since the epoch. Throws rp::Error naming `what`.
void check_release_dates(const Release& release, int64_t now, const std::string& what);

// The Packages index of `component`/binary-`arch` to fetch: the first of .xz, .gz, uncompressed
// that the Release lists (flat repositories: `component` empty, "Packages.xz" at the top).
// nullopt when the Release lists none.
std::optional<IndexFile> packages_index(const Release& release, const std::string& component, const std::string& arch);

// The URL path of an index relative to the Release's directory: its by-hash name when the
// repository offers Acquire-By-Hash ("main/binary-amd64/by-hash/SHA256/<hex>"), else its path.
std::string index_fetch_path(const Release& release, const IndexFile& file);

// RFC 2822 dates as Release files write them: "Sat, 10 Aug 2024 09:15:48 UTC" (also "+0000",
// "GMT", "Z", with or without the weekday). nullopt when malformed.
std::optional<int64_t> parse_release_date(std::string_view text);
std::string format_release_date(int64_t epoch_seconds);  // "Sat, 10 Aug 2024 09:15:48 UTC"

}  // namespace rp::apt
