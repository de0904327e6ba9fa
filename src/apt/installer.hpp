#pragma once
// Installing .deb packages as layer entries, the way dpkg unpacks them, without unpacking anything:
// each data.tar member becomes an entry whose content streams from where the caller keeps it.
//
//  - Paths go where dpkg would put them on the image: symlinks of the lower layers (and of packages
//    installed before) are followed in parent directories, so a package's /bin/x lands in usr/bin/x
//    on a merged-/usr image, while info/<pkg>.list still records /bin/x, as dpkg does. A directory
//    never replaces a symlink, and directories the image has already are not written again.
//  - Modes (setuid bits included) and hardlinks are kept; owners are taken by name from the image's
//    /etc/passwd and /etc/group, as dpkg does, else by number.
//  - Two packages shipping one file is an error unless the later one Replaces the earlier (the
//    file then leaves the earlier package's file list); the same holds against the base image's
//    packages (their info files are rewritten when a file changes hands).
//  - The base's dpkg path filters (path-exclude / path-include in /etc/dpkg/dpkg.cfg(.d)) leave
//    members out as dpkg does; info/<pkg>.list still lists them (apt/path_filter.hpp).
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "apt/deb_file.hpp"
#include "apt/package_index.hpp"
#include "apt/path_filter.hpp"
#include "apt/unpacked_package.hpp"
#include "entries/entry.hpp"
#include "entries/file_tree.hpp"

namespace rp::apt {

// One data.tar member as the caller indexed it.
struct DataMember {
  std::string path;  // as in the archive ("./usr/bin/x")
  EntryType type = EntryType::kFile;
  uint32_t mode = 0644;
  uint32_t uid = 0, gid = 0;
  std::string uname, gname;
  std::string link_target;  // symlink target as written; hardlink target as an archive path
  std::shared_ptr<const ContentSource> content;  // regular files
};

struct DebContents {
  Package package;  // from the index: name, version, architecture, Replaces, ...
  ControlArchive control;
  std::vector<DataMember> members;  // in archive order
};

struct InstalledDeb {
  UnpackedPackage record;
  std::vector<Entry> entries;  // paths relative to the root, origin = the .deb
  std::vector<std::string> warnings;
};

// Files of the base image's packages (from /var/lib/dpkg/info/*.list) that packages installed
// here replaced: the database writer drops them from those packages' lists and md5sums.
using Takeovers = std::map<std::string, std::set<std::string>>;  // info stem -> paths as listed

class Installer {
 public:
  // `lower` is the image below (base and earlier steps). Reads the base's dpkg file lists, passwd
  // and group from it.
  explicit Installer(const FileTree& lower);

  // Installs the next package (dependencies first). Throws rp::Error for a file conflict not allowed
  // by Replaces, rp::InputError for an unsafe member path or a damaged control file.
  void install(const DebContents& deb);

  // Every package installed, in order (entries of replaced files removed).
  std::vector<InstalledDeb>& packages() { return packages_; }
  const Takeovers& takeovers() const { return takeovers_; }
  // The base's dpkg path filters, as the installer applies them.
  const PathFilter& filter() const { return filter_; }
  // The image as it looks with every package installed so far (for the native effects).
  const FileTree& tree() const;

 private:
  struct Owner {
    std::string package;  // name
    std::string version;
    int installed = -1;   // index into packages_, -1 for a base package
    std::string info_stem;
    std::string listed;   // the path as that package lists it
  };
  class Overlay;

  std::string resolve(const std::string& path) const;  // parents through symlinks
  // Records that this package now owns `dest`; false when a package installed before Replaces it
  // (the file is then not installed). Throws for a conflict Replaces does not allow.
  bool take_ownership(const std::string& dest, const std::string& listed, const DebContents& deb, size_t index);
  uint32_t user_id(const DataMember& m) const;
  uint32_t group_id(const DataMember& m) const;
  void ensure_parents(const std::string& dest, std::map<std::string, Entry>& entries, const std::string& origin);
  // An upgrade of a base package: the old version's files and info files that the new version
  // does not have become whiteouts, as dpkg removes them.
  void remove_upgrade_leftovers(const UnpackedPackage& rec, std::map<std::string, Entry>& entries,
                                const std::string& origin);

  const FileTree& lower_;
  PathFilter filter_;
  std::shared_ptr<Overlay> overlay_;
  std::vector<InstalledDeb> packages_;
  std::map<std::string, Owner> owners_;  // resolved path (relative) -> owner, non-directories only
  Takeovers takeovers_;
  std::map<std::string, uint32_t> users_, groups_;
};

// The owner of a base-image file list entry: parses "/var/lib/dpkg/info/<stem>.list" names.
std::string package_of_list_file(const std::string& file_name);

}  // namespace rp::apt
