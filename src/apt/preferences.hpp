#pragma once
// apt's pin priorities (apt_preferences(5)): what makes one version of a package the candidate.
//
//  - Every Release gets a default: 500, or 1 when it says "NotAutomatic: yes" (experimental,
//    backports), or 100 when it also says "ButAutomaticUpgrades: yes". The installed version (dpkg's
//    status) has 100.
//  - /etc/apt/preferences and /etc/apt/preferences.d/* hold records
//        Package: <names, globs or /regexes/; "*" for all>
//        Pin: release a=<archive>, n=<codename>, o=<origin>, l=<label>, c=<component>, v=<version>
//           | version <glob>  | origin "<host>"
//        Pin-Priority: <number>
//    A record naming packages sets the priority of the versions it matches (the first matching
//    record wins); a "Package: *" record sets the priority of whole releases (the first matching one
//    wins). A version's priority is its package pin if any, else the highest of its releases'.
//  - The candidate is the version of highest priority, the newest among equals; below 1000, a
//    version older than the installed one is never the candidate (no downgrade).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "apt/release.hpp"
#include "apt/version.hpp"
#include "entries/file_tree.hpp"

namespace rp::apt {

// What a pin can match a package version's release by.
struct ReleaseFacts {
  std::string archive;    // Suite: "bookworm-backports", "stable"; "now" for dpkg's status
  std::string codename;   // Codename
  std::string origin;     // Origin: "Debian"
  std::string label;      // Label
  std::string component;  // "main"; empty for a flat repository
  std::string version;    // the Release's Version
  std::string site;       // the repository's host name; "" for dpkg's status
  int default_priority = 500;
};

// The Release facts of a repository's `component`, with apt's default priority for it.
ReleaseFacts release_facts(const Release& release, const std::string& component, const std::string& site);

struct PinRecord {
  std::string where;                   // "/etc/apt/preferences.d/backports:3" for messages
  std::vector<std::string> packages;   // names, globs or /regex/; empty = "*" (a release pin)
  enum Kind { kRelease, kVersion, kOrigin } kind = kRelease;
  std::vector<std::pair<char, std::string>> release;  // kRelease: a,n,o,l,c,v conditions (all must hold)
  std::string value;                                  // kVersion: a glob; kOrigin: a host
  int priority = 500;
};

// Parses a preferences file. Records without Package, Pin or Pin-Priority, or with an unknown pin
// kind, are skipped as apt skips them (with a warning returned in `warnings`); comments ("#",
// "Explanation:") are ignored.
std::vector<PinRecord> parse_preferences(std::string_view text, const std::string& origin,
                                         std::vector<std::string>* warnings = nullptr);

// The base image's /etc/apt/preferences and /etc/apt/preferences.d/* (files named as apt reads them:
// no extension or ".pref", letters, digits, '_', '-', '.'), in apt's order.
std::vector<PinRecord> image_preferences(const FileTree& image, std::vector<std::string>* warnings = nullptr);

class PinPolicy {
 public:
  PinPolicy() = default;
  explicit PinPolicy(std::vector<PinRecord> records) : records_(std::move(records)) {}

  // The priority of releases matched by no record: their default, or `source_override` when the
  // recipe pinned the whole source (it wins over the base's release pins).
  int release_priority(const ReleaseFacts& facts, std::optional<int> source_override = std::nullopt) const;
  // The priority of `name` `version` from a release: a package pin if one matches, else the release's.
  int priority(const std::string& name, const Version& version, const ReleaseFacts& facts,
               std::optional<int> source_override = std::nullopt) const;
  // The package pin that matches `name` `version` in any of `releases`, if any.
  std::optional<int> package_pin(const std::string& name, const Version& version,
                                 const std::vector<const ReleaseFacts*>& releases) const;
  // Text that changes when the records do (for cache keys).
  std::string fingerprint() const;
  bool empty() const { return records_.empty(); }

 private:
  std::vector<PinRecord> records_;
};

// The facts of dpkg's status file as a release ("now", priority 100).
ReleaseFacts installed_release();

}  // namespace rp::apt
