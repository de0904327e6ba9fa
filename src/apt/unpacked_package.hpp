#pragma once
// A Debian package as the installer unpacked it (src/apt): what the dpkg database and the native
// maintainer-script effects (alternatives, ldconfig, CA bundle, system users) need to know of it,
// with no reference to where its bytes are kept.
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
  // for the root, in archive order. Paths are as installed (after merged-/usr redirection).
  std::vector<std::string> paths;
  std::string md5sums;                 // control.tar's md5sums, verbatim ("" when the package has none)
  std::vector<std::string> conffiles;  // control.tar's conffiles: absolute paths
  // The other control.tar members, by name: preinst, postinst, prerm, postrm, config, templates,
  // triggers, shlibs, symbols, ... (contents verbatim; scripts keep their executable bit in the db).
  std::map<std::string, std::string> control_files;
};

}  // namespace rp::apt
