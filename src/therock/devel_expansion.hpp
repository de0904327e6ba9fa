#pragma once
// `rocm-sdk init` at image build time: TheRock's rocm-sdk-devel wheel ships its development tree as
// one tarball (`rocm_sdk_devel/_devel.tar`) that the `rocm-sdk` command unpacks on first use. An
// image should carry the tree already expanded, so this turns the tarball's members into layer
// entries, streamed from the tarball where the caller keeps it (no unpacked copy on disk). Files the
// tarball shares with the runtime wheels are symlinks in the tar; like `rocm-sdk init` they become
// hardlinks, so the image stores each such file once.
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "python/wheel_installer.hpp"
#include "entries/member_archive.hpp"

namespace rp::therock {

struct DevelExpansion {
  size_t files = 0;         // regular files taken from the tarball
  size_t hardlinks = 0;     // file symlinks turned into hardlinks (incl. .devel_links)
  size_t symlinks = 0;      // kept as symlinks (launchers, directory links, dangling)
  size_t device_links = 0;  // from multi-arch .devel_links/*.json
  bool expanded = false;    // false when there was no rocm-sdk-devel wheel or no tarball in it
};

// Expands rocm-sdk-devel's `rocm_sdk_devel/_devel.tar` (or `_devel.tar.xz`) found among `wheels`
// (all installed into the one site-packages `site_packages`, an image path without leading '/'),
// in place, as `rocm-sdk init` does:
//  - the tarball is removed from the devel wheel (entries, files, RECORD);
//  - every member (all under `_rocm_sdk_devel/`, no "..", else rp::InputError) becomes an entry
//    under the site; a symlink whose final target is a regular file becomes a hardlink, except the
//    compiler launchers (amdclang, amdclang++, amdclang-cl, amdclang-cpp, amdflang, amdlld,
//    amdllvm); links to directories and dangling links stay symlinks;
//  - multi-arch `_rocm_sdk_libraries/.devel_links/<target>.json` files add hardlinks
//    `_rocm_sdk_devel/<relpath>` -> `<target>`, recorded in the wheel that shipped the json;
//  - a hardlink's content always sits at the smallest path of its group (the tar writer needs the
//    target first), so a file of another wheel may become a hardlink to a `_rocm_sdk_devel/` path.
//    All of `wheels` must therefore go into ONE layer.
// Added paths are appended to the RECORD (as `path,,`) and `files` of the wheel they belong to.
// The tarball is opened through `archives`, which keeps it where its members can stream from (the
// plan's opener copies it into the store once, keyed by the tarball's content key, so a warm build
// reads nothing again: give the wheels a digest so that key is free, InstallOptions::wheel_digest).
DevelExpansion expand_devel(const ArchiveOpener& archives, std::vector<python::InstalledWheel>& wheels,
                            const std::string& site_packages);

// `_rocm_sdk_libraries/__init__.py` is shipped by rocm-sdk-libraries and by every device wheel;
// in the image it has one owner: rocm-sdk-libraries when installed, else the first device wheel.
// The other wheels keep their RECORD rows (as pip leaves them) but not the entry, so the file sits
// in one layer. Returns how many copies were dropped.
size_t own_shared_files(std::vector<python::InstalledWheel>& wheels, const std::string& site_packages);

// Opens rocm-sdk-devel's tarball through `archives` as expand_devel will, when `wheel` is that wheel
// (else nothing): called as soon as the wheel is there, so that the copy the plan's opener keeps is
// made while the larger wheels still download, and expand_devel finds it made.
void prepare_devel(const ArchiveOpener& archives, const python::InstalledWheel& wheel, const std::string& site_packages);

// prepare_devel from the downloaded wheel file alone, before the image's interpreter (and so the
// install scheme) is known: the copy is keyed by the wheel's digest and the member's name, not by
// where the wheel is installed, so prepare_devel and expand_devel find it made. `wheel_file` is
// the verified file, `filename` its name on the index, `wheel_digest` its "sha256:<hex>". Members
// are checked against RECORD strictly here: a mismatch throws and keeps nothing, and the install
// makes the copy again and reports the mismatch its own way (a warning, or an error with --strict).
// Returns false when the wheel is not rocm-sdk-devel or has no tarball.
bool prepare_devel_file(const ArchiveOpener& archives, const std::filesystem::path& wheel_file, const std::string& filename,
                        const std::string& wheel_digest);

}  // namespace rp::therock
