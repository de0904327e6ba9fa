// apt's unpack/configure sequence for maintainer scripts (apt/script_order.hpp): the configure
// points apt-get's dpkg calls show (Debug::pkgDPkgPM) for systemd + dbus + an upgraded libssl3 on
// Debian 12 — a Pre-Depends configures what it names (and that package's dependencies, first)
// before the pre-depending package is unpacked — and apt's immediate configuration of what the
// Essential packages depend on. The script drives dpkg in that sequence.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "apt/maintainer_scripts.hpp"
#include "apt/script_order.hpp"

using namespace rp::apt;

namespace {

UnpackedPackage pkg(const std::string& name, const std::string& depends = "", const std::string& pre_depends = "",
                    bool essential = false) {
  UnpackedPackage p;
  p.name = name;
  p.architecture = "amd64";
  p.version = "1";
  p.control = {{"Package", name}, {"Version", "1"}, {"Architecture", "amd64"}};
  if (essential) p.control.push_back({"Essential", "yes"});
  if (!pre_depends.empty()) p.control.push_back({"Pre-Depends", pre_depends});
  if (!depends.empty()) p.control.push_back({"Depends", depends});
  p.control_files["preinst"] = "#!/bin/sh\n";
  return p;
}

Package base(const std::string& name, const std::string& depends = "", bool essential = false) {
  Package p;
  p.name = name;
  p.version = Version::parse("1");
  p.architecture = "amd64";
  p.depends = depends;
  p.essential = essential;
  return p;
}

}  // namespace

TEST_CASE("script_sequence: a Pre-Depends configures its target (and the target's dependencies) first, as apt does") {
  // In the resolution's order; libssl3 is an upgrade of the base's.
  std::vector<UnpackedPackage> added = {
      pkg("libargon2-1", "libc6"),
      pkg("libssl3", "libc6"),
      pkg("libsystemd-shared", "libargon2-1, libc6"),
      pkg("systemd", "libsystemd-shared (= 1)", "libc6, libssl3 (>= 3)"),
      pkg("systemd-sysv", "", "systemd"),
      pkg("libdbus-1-3", "libc6, libsystemd0"),
      pkg("dbus", "libdbus-1-3, default-dbus-system-bus | dbus-system-bus"),
      pkg("dbus-system-bus-common", "", "", false),
  };
  added.back().control.push_back({"Provides", "dbus-system-bus"});
  std::vector<Package> installed = {base("libc6"), base("libssl3", "libc6"), base("libsystemd0", "libc6")};
  auto sequence = script_sequence(added, installed);
  CHECK(describe(sequence, added) ==
        "unpack libargon2-1 libssl3 libsystemd-shared; configure libssl3; unpack systemd; "
        "configure libargon2-1 libsystemd-shared systemd; unpack systemd-sysv libdbus-1-3 dbus dbus-system-bus-common");

  // The script runs the preinsts and the configure calls in that order, then the rest.
  std::string script = configure_script(added, sequence);
  auto at = [&](const std::string& what) {
    auto p = script.find(what);
    REQUIRE_MESSAGE(p != std::string::npos, what);
    return p;
  };
  CHECK(at("info/libsystemd-shared.preinst") < at("dpkg --no-triggers --configure 'libssl3'"));
  CHECK(at("dpkg --no-triggers --configure 'libssl3'") < at("info/systemd.preinst"));
  CHECK(at("info/systemd.preinst") < at("dpkg --no-triggers --configure 'libargon2-1' 'libsystemd-shared' 'systemd'"));
  CHECK(at("dpkg --no-triggers --configure 'libargon2-1' 'libsystemd-shared' 'systemd'") < at("info/systemd-sysv.preinst"));
  CHECK(at("info/dbus-system-bus-common.preinst") < at("dpkg --configure --pending"));
}

TEST_CASE("script_sequence: what an Essential package depends on is configured as soon as it is unpacked") {
  // login (Essential, in the base) -> libpam-modules -> libpam0g: upgrades of both are immediate;
  // adduser, which nothing essential names, waits for the end.
  std::vector<UnpackedPackage> added = {pkg("libpam0g", "libc6"), pkg("adduser", "passwd"),
                                        pkg("libpam-modules", "libpam0g", "")};
  std::vector<Package> installed = {base("libc6"), base("login", "libpam-modules", true), base("libpam-modules", "libpam0g"),
                                    base("libpam0g", "libc6"), base("passwd", "libpam0g")};
  CHECK(describe(script_sequence(added, installed), added) ==
        "unpack libpam0g; configure libpam0g; unpack adduser libpam-modules; configure libpam-modules");
}

TEST_CASE("script_sequence: a dependency loop is cut, and every package is unpacked once") {
  std::vector<UnpackedPackage> added = {pkg("a", "b", "b"), pkg("b", "a", "a"), pkg("c", "", "a")};
  auto sequence = script_sequence(added, {});
  size_t unpacked = 0, configured = 0;
  for (const auto& b : sequence) (b.action == ScriptBatch::Action::kUnpack ? unpacked : configured) += b.packages.size();
  CHECK(unpacked == 3);
  CHECK(configured == 2);  // a (for c's Pre-Depends) and b (a's dependency)
  CHECK(describe(sequence, added).find("configure") < describe(sequence, added).find("unpack c"));
}

TEST_CASE("configure_script without a sequence runs every preinst in order and configures at the end") {
  std::vector<UnpackedPackage> added = {pkg("x"), pkg("y", "", "x")};
  std::string script = configure_script(added);
  CHECK(script.find("--no-triggers --configure") == std::string::npos);
  CHECK(script.find("info/x.preinst") < script.find("info/y.preinst"));
}
