#pragma once
// A Debian package as the installer unpacked it (src/apt/installer.hpp): what the dpkg database and
// the native maintainer-script effects (alternatives, CA bundle, system users) need to know of it,
// with no reference to where its bytes are kept.
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace rp::apt {

struct UnpackedPackage {
  std::string name;          // Package:
  std::string architecture;  // Architecture: (amd64, all, ...)
  std::string version;       // Version:, as written (epoch included)
  std::string multi_arch;    // Multi-Arch: ("same" gives the info files a ":<arch>" suffix)
  // The control file's fields in their original order, values as written (continuation lines kept,
  // without the leading field name): the status stanza is made from these.
  std::vector<std::pair<std::string, std::string>> control;
  // Every member of data.tar as dpkg's info/<pkg>.list records it: absolute, no trailing '/', "/."
  // for the root, in archive order. Paths are as the package ships them (dpkg records /bin/ls even
  // where /bin is a symlink to usr/bin).
  std::vector<std::string> paths;
  std::string md5sums;  // control.tar's md5sums, verbatim ("" when the package has none)
  // control.tar's conffiles: absolute paths, with the md5 of each as installed (the status file's
  // Conffiles field records them).
  std::vector<std::pair<std::string, std::string>> conffiles;
  // The other control.tar members, by name: preinst, postinst, prerm, postrm, config, templates,
  // triggers, shlibs, symbols, ... (contents verbatim), and their permission bits.
  std::map<std::string, std::string> control_files;
  std::map<std::string, uint32_t> control_modes;

  // "name" or, for Multi-Arch: same, "name:arch": the stem of its files in /var/lib/dpkg/info.
  std::string info_stem() const { return multi_arch == "same" ? name + ":" + architecture : name; }
};

}  // namespace rp::apt
