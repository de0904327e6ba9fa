#pragma once
// dpkg's database for the packages installed here, written the way dpkg writes it, so that dpkg,
// apt and image scanners (trivy, grype, syft) inside the image see every package:
//
//  - /var/lib/dpkg/status: the base's stanzas, verbatim, plus one per new package (its control
//    fields in dpkg's order with "Status: install ok installed" and the Conffiles with their md5),
//    sorted by name and architecture as dpkg sorts them; a package upgraded here replaces its stanza;
//  - /var/lib/dpkg/info/<pkg>[:arch].list (every path, "/." first), .md5sums, .conffiles, the
//    maintainer scripts and the other control files, with their modes;
//  - the base's file lists and md5sums rewritten where a package here took a file over (Replaces);
//  - /var/lib/dpkg/available is left as it is (dpkg keeps no installed state there).
#include <string>
#include <vector>

#include "apt/installer.hpp"
#include "apt/package_index.hpp"
#include "apt/unpacked_package.hpp"
#include "entries/entry.hpp"
#include "entries/file_tree.hpp"

namespace rp::apt {

// The status stanza of a newly installed package (no trailing newline). With `unpacked`, the state
// dpkg leaves after unpacking a fresh install: "install ok unpacked", each conffile's hash
// "newconffile" (its file waits as <path>.dpkg-new), so `dpkg --configure` finishes the install.
std::string status_stanza(const UnpackedPackage& package, bool unpacked = false);

// The whole status file: `base` (the image's current one, empty for none) with `added` merged in.
std::string merged_status(const InstalledDatabase& base, const std::vector<UnpackedPackage>& added,
                          bool unpacked = false);

// info/<stem>.* files of one package (paths relative to the root, mode 0644, scripts 0755).
std::vector<Entry> info_entries(const UnpackedPackage& package);

// The base's info/<stem>.list and .md5sums rewritten without the files packages installed here took over.
std::vector<Entry> takeover_entries(const FileTree& image, const Takeovers& takeovers);

// What dpkg needs on an image that had no dpkg database at all (a scratch base): info/format,
// an empty available, diversions and statoverride. Only the files `image` lacks.
std::vector<Entry> new_database_entries(const FileTree& image);

}  // namespace rp::apt
