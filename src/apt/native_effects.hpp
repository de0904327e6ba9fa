#pragma once
// What maintainer scripts would have done, produced natively for the common cases (as apko does),
// until the sandbox runs the scripts themselves. Each function reads the image with the packages
// installed (a FileTree) and returns the entries to add; none runs anything.
//
//  - merged /usr on an empty root: bin, sbin, lib, lib64 -> usr/... (what debootstrap and
//    mmdebstrap set up before the first package on Debian 12 and Ubuntu >= 20.04);
//  - base-passwd: /etc/passwd and /etc/group from its passwd.master and group.master when the
//    image has none (its postinst copies them);
//  - base-files: /etc/profile, /etc/motd, root's .profile and .bashrc, /usr/local/*; libc-bin:
//    /etc/nsswitch.conf; debianutils' update-shells: /etc/shells; tzdata: /etc/localtime (UTC);
//  - update-alternatives: the `update-alternatives --install LINK NAME PATH PRIORITY [--slave ...]`
//    calls written literally in postinst scripts, the highest priority winning per name as in auto
//    mode: LINK -> /etc/alternatives/NAME -> PATH, and the /var/lib/dpkg/alternatives/NAME record;
//  - ca-certificates: /etc/ca-certificates.conf (every certificate enabled, as its postinst does
//    on a new system), the bundle /etc/ssl/certs/ca-certificates.crt and one NAME.pem link per
//    certificate (update-ca-certificates).
#include <string>
#include <vector>

#include "apt/unpacked_package.hpp"
#include "entries/entry.hpp"
#include "entries/file_tree.hpp"

namespace rp::apt {

struct NativeEffects {
  std::vector<Entry> entries;
  std::vector<std::string> done;  // one line per effect produced ("alternative cc -> /usr/bin/gcc")
};

// The merged-/usr links and their targets for an image that has none of /bin, /sbin, /lib yet.
// Empty otherwise. `arch` adds lib64 (amd64) or nothing.
std::vector<Entry> merged_usr_entries(const FileTree& image, const std::string& arch);

// Every effect above that applies to `image` (the packages installed) for the packages `added`.
NativeEffects native_effects(const FileTree& image, const std::vector<UnpackedPackage>& added);

// "name: preinst, postinst" for every package of `added` with maintainer scripts that were not run.
std::vector<std::string> scripts_not_run(const std::vector<UnpackedPackage>& added);

// The update-alternatives --install calls of a maintainer script, as far as they are literal (no
// shell variables): for tests and for native_effects.
struct AlternativeCall {
  std::string link, name, path;
  int priority = 0;
  struct Slave {
    std::string link, name, path;
  };
  std::vector<Slave> slaves;
};
std::vector<AlternativeCall> alternative_calls(const std::string& script);

}  // namespace rp::apt
