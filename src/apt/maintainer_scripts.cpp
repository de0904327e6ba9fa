#include "apt/maintainer_scripts.hpp"

#include <set>
#include <sstream>

#include "util/strings.hpp"

namespace rp::apt {

namespace {

// Single-quoted for sh: package stems and trigger names come from untrusted control files.
std::string sh_quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

// Calls `fn(directive, name)` for each two-word line of the package's info/*.triggers.
template <typename Fn>
void for_each_trigger(const UnpackedPackage& p, Fn fn) {
  auto it = p.control_files.find("triggers");
  if (it == p.control_files.end()) return;
  std::istringstream lines(it->second);
  for (std::string line; std::getline(lines, line);) {
    auto words = split_words(line);
    if (words.size() == 2 && !words[1].empty()) fn(words[0], words[1]);
  }
}

// Files postinsts fill with random bytes (machine ids, seeds, host keys). An image must not carry
// them: two builds would differ, and every container would share one "unique" id or key.
const char* kRandomBefore =
    "# what postinsts make random (machine ids, seeds, host keys): the state before them, to compare\n"
    "rp_state() { if [ -e \"$1\" ] || [ -L \"$1\" ]; then ls -ld --time-style=+ \"$1\"; cat \"$1\" 2>/dev/null | md5sum; else echo absent; fi; }\n"
    "rp_mid_before=$(rp_state /etc/machine-id)\n"
    "rp_dbus_before=$(rp_state /var/lib/dbus/machine-id)\n"
    "rp_random='/var/lib/systemd/random-seed /var/lib/urandom/random-seed /etc/ssl/private/ssl-cert-snakeoil.key "
    "/etc/ssl/certs/ssl-cert-snakeoil.pem'\n"
    "for t in rsa dsa ecdsa ed25519; do rp_random=\"$rp_random /etc/ssh/ssh_host_${t}_key /etc/ssh/ssh_host_${t}_key.pub\"; done\n"
    "rp_had=' '; for f in $rp_random; do if [ -e \"$f\" ]; then rp_had=\"$rp_had$f \"; fi; done\n";

const char* kRandomAfter =
    "# 5. what the scripts made random, normalised as Debian's official images and mmdebstrap leave it:\n"
    "# /etc/machine-id empty (systemd makes one at boot), dbus's id a link to it (systemd's tmpfiles\n"
    "# rule); random seeds, ssh host keys (ssh-keygen -A makes them) and the snakeoil key pair that the\n"
    "# scripts made are removed (the base's own are kept)\n"
    "if [ \"$(rp_state /etc/machine-id)\" != \"$rp_mid_before\" ] && [ -f /etc/machine-id ]; then : >/etc/machine-id; fi\n"
    "if [ \"$(rp_state /var/lib/dbus/machine-id)\" != \"$rp_dbus_before\" ] && [ -f /var/lib/dbus/machine-id ] && "
    "[ ! -L /var/lib/dbus/machine-id ]; then ln -sf /etc/machine-id /var/lib/dbus/machine-id; fi\n"
    "for f in $rp_random; do case \"$rp_had\" in *\" $f \"*) ;; *) rm -f \"$f\" ;; esac; done\n";

}  // namespace

std::string configure_script(const std::vector<UnpackedPackage>& added, const std::vector<ScriptBatch>& sequence) {
  std::string script = "set -e\n";
  script += kRandomBefore;
  script += "# 0. the new packages' trigger interests, as unpacking registers them\n";
  script += "mkdir -p /var/lib/dpkg/triggers\n";
  for (const auto& p : added)
    for_each_trigger(p, [&](const std::string& directive, const std::string& name) {
      if (directive != "interest" && directive != "interest-noawait" && directive != "interest-await") return;
      std::string who = p.info_stem() + (directive == "interest-noawait" ? "/noawait" : "");
      std::string file, entry;
      if (name[0] == '/') {  // a file trigger: one File line "path package"
        file = "/var/lib/dpkg/triggers/File";
        entry = name + " " + who;
      } else if (name.find('/') == std::string::npos && name != "." && name != "..") {
        file = "/var/lib/dpkg/triggers/" + name;  // an explicit trigger: its own file of packages
        entry = who;
      } else {
        return;
      }
      script += "grep -qxF " + sh_quoted(entry) + " " + sh_quoted(file) + " 2>/dev/null || echo " + sh_quoted(entry) +
                " >>" + sh_quoted(file) + "\n";
    });
  script += "# 1. apt's sequence: preinst install of each package as it is unpacked, with the environment dpkg\n";
  script += "# gives a maintainer script (dpkg-maintscript-helper refuses to run without DPKG_MAINTSCRIPT_NAME\n";
  script += "# and _PACKAGE), and the packages apt configures before the end, where it configures them\n";
  script += "DPKG_RUNNING_VERSION=$(dpkg-query --showformat='${Version}' --show dpkg 2>/dev/null || true)\n";
  script += "export DPKG_RUNNING_VERSION DPKG_ADMINDIR=/var/lib/dpkg DPKG_ROOT= DPKG_MAINTSCRIPT_DEBUG=0\n";
  std::vector<ScriptBatch> batches = sequence;
  if (batches.empty()) {
    batches.push_back({ScriptBatch::Action::kUnpack, {}});
    for (size_t i = 0; i < added.size(); ++i) batches.back().packages.push_back(i);
  }
  for (const auto& batch : batches) {
    if (batch.action == ScriptBatch::Action::kConfigure) {
      // apt's intermediate `dpkg --configure`. Should dpkg refuse (a dependency this order did not
      // foresee), the packages stay unpacked and the final --configure --pending takes them, and
      // fails the build if they still cannot be configured.
      std::string names;
      for (size_t i : batch.packages) names += " " + sh_quoted(added.at(i).info_stem());
      script += "dpkg --no-triggers --configure" + names + " || echo 'rockpack: dpkg --configure" + names +
                " failed; configuring them with the rest' >&2\n";
      continue;
    }
    for (size_t i : batch.packages) {
      const UnpackedPackage& p = added.at(i);
      if (!p.control_files.count("preinst")) continue;
      std::string file = sh_quoted("/var/lib/dpkg/info/" + p.info_stem() + ".preinst");
      script += "if [ -x " + file + " ]; then DPKG_MAINTSCRIPT_NAME=preinst DPKG_MAINTSCRIPT_PACKAGE=" + sh_quoted(p.name) +
                " DPKG_MAINTSCRIPT_ARCH=" + sh_quoted(p.architecture) + " DPKG_MAINTSCRIPT_PACKAGE_REFCOUNT=1 " + file +
                " install; fi\n";
    }
  }
  script += "# 2. explicit triggers the new packages activate\n";
  std::set<std::string> activations;
  for (const auto& p : added)
    for_each_trigger(p, [&](const std::string& directive, const std::string& name) {
      if (directive.rfind("activate", 0) != 0 || name[0] == '/') return;
      if (!activations.insert(p.info_stem() + " " + name).second) return;
      script += "dpkg-trigger --by-package=" + sh_quoted(p.info_stem()) + " --no-await " + sh_quoted(name) + " || true\n";
    });
  script += "# 3. configure, then the pending triggers\n";
  script += "dpkg --configure --pending\n";
  script += "dpkg --triggers-only --pending\n";
  script += "# 4. the library cache for what was installed\n";
  script += "if command -v ldconfig >/dev/null 2>&1; then ldconfig; fi\n";
  script += kRandomAfter;
  return script;
}

std::vector<std::string> configure_environment() {
  return {"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
          "DEBIAN_FRONTEND=noninteractive",
          "DEBCONF_NONINTERACTIVE_SEEN=true",
          "LC_ALL=C",
          "LANGUAGE=C",
          "LANG=C",
          "HOME=/root"};
}

std::string policy_rc_d() {
  return "#!/bin/sh\n# rockpack: no service starts while an image is built (invoke-rc.d asks this first).\nexit 101\n";
}

}  // namespace rp::apt
