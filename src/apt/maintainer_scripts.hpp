#pragma once
// Running maintainer scripts the way dpkg would after unpacking (apt: scripts: run). The packages'
// files are already in place and the dpkg database says "install ok unpacked" (dpkg_database's
// merged_status with `unpacked`), with every conffile waiting as <path>.dpkg-new; then one shell
// script in the image's sandbox, as mmdebstrap does it after extracting:
//
//   0. the new packages' trigger interests (info/*.triggers `interest*` lines) registered in
//      /var/lib/dpkg/triggers/, as unpacking does;
//   1. apt's sequence (apt/script_order.hpp): each new package's `preinst install` as it is
//      unpacked, and `dpkg --no-triggers --configure` of the packages apt configures before the
//      end (what a new package Pre-Depends on, immediate configuration), where apt does;
//   2. the explicit triggers the new packages activate (their info/*.triggers `activate*` lines),
//      through dpkg-trigger, so a package already installed that is interested (libc-bin's
//      ldconfig) runs;
//   3. `dpkg --configure --pending`: postinst configure in dependency order, conffiles moved into
//      place, then the pending triggers (`dpkg --triggers-only --pending`);
//   4. `ldconfig`, when the image has it: /etc/ld.so.cache for the libraries just installed (a file
//      trigger of libc-bin that unpacking would have activated).
//
// Services never start: /usr/sbin/policy-rc.d answers 101 while the script runs. The image's own
// dpkg runs the scripts; an image without dpkg cannot (the caller says so).
#include <string>
#include <vector>

#include "apt/script_order.hpp"
#include "apt/unpacked_package.hpp"

namespace rp::apt {

// The script (for /bin/sh -c). `sequence` is script_sequence(added, ...); empty: every preinst in
// the order of `added`, nothing configured before the end.
std::string configure_script(const std::vector<UnpackedPackage>& added, const std::vector<ScriptBatch>& sequence = {});

// The environment the scripts run with: PATH, DEBIAN_FRONTEND=noninteractive,
// DEBCONF_NONINTERACTIVE_SEEN=true, LC_ALL=C, ...
std::vector<std::string> configure_environment();

// /usr/sbin/policy-rc.d's text: no service may start while the image is being built.
std::string policy_rc_d();

}  // namespace rp::apt
