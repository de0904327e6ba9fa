// The apt resolver on small in-memory Packages indexes: alternatives, virtual packages and
// versioned Provides, Multi-Arch, conflicts, pins, the base's installed packages, explanations.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "apt/package_index.hpp"
#include "apt/preferences.hpp"
#include "apt/resolver.hpp"
#include "util/error.hpp"

using namespace rp::apt;

namespace {

// A Packages index from short stanzas: Filename/Size/SHA256 are filled in.
std::vector<Package> index_of(const std::string& stanzas, int origin = 0) {
  std::string text;
  size_t start = 0;
  while (start < stanzas.size()) {
    size_t end = stanzas.find("\n\n", start);
    if (end == std::string::npos) end = stanzas.size();
    std::string s = stanzas.substr(start, end - start);
    while (!s.empty() && s.back() == '\n') s.pop_back();
    if (!s.empty()) {
      if (s.find("Architecture:") == std::string::npos) s += "\nArchitecture: amd64";
      text += s + "\nFilename: pool/x.deb\nSize: 1\nSHA256: " + std::string(64, 'a') + "\n\n";
    }
    start = end + 2;
  }
  return parse_packages_index(text, "test Packages", origin);
}

std::vector<std::string> names(const Resolution& r) {
  std::vector<std::string> out;
  for (const auto& p : r.install) out.push_back(p.package.name + "=" + p.package.version.str());
  std::sort(out.begin(), out.end());
  return out;
}

Resolution run(const std::vector<std::string>& requests, const std::vector<Package>& available,
               const std::vector<Package>& installed = {}, ResolverOptions options = {}) {
  std::vector<Request> reqs;
  for (const auto& r : requests) reqs.push_back(Request::parse(r));
  return resolve(reqs, available, installed, options);
}

std::string failure(const std::vector<std::string>& requests, const std::vector<Package>& available,
                    const std::vector<Package>& installed = {}) {
  try {
    (void)run(requests, available, installed);
  } catch (const rp::InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("apt/resolver: requests parse") {
  CHECK(Request::parse("cmake").name == "cmake");
  CHECK(Request::parse("cmake=3.22*").version_glob == "3.22*");
  CHECK(Request::parse("cmake=3.22*").version_ok(Version::parse("3.22.1-1ubuntu1")));
  CHECK_FALSE(Request::parse("cmake=3.22*").version_ok(Version::parse("3.25.1-1")));
  CHECK(Request::parse("cmake=3.25.1-1").version_ok(Version::parse("3.25.1-1")));
  CHECK(Request::parse("python3-dev (>= 3.10)").op == VersionOp::kGreaterEqual);
  CHECK(Request::parse("libc6:i386").arch == "i386");
  for (const char* bad : {"", "a, b", "a | b", "a=", "a=1 2", "a=1:", "a (>= 1)=2", "Bad"})
    CHECK_THROWS_AS(Request::parse(bad), rp::InputError);
}

TEST_CASE("apt/resolver: dependencies, alternatives, Pre-Depends first, newest candidate") {
  auto avail = index_of(
      "Package: app\nVersion: 1.0\nDepends: libx (>= 2) | liby, tool\nPre-Depends: base\n\n"
      "Package: libx\nVersion: 1.5\n\n"
      "Package: libx\nVersion: 2.1\n\n"
      "Package: libx\nVersion: 2.0\n\n"
      "Package: liby\nVersion: 1\n\n"
      "Package: tool\nVersion: 3\nArchitecture: all\n\n"
      "Package: base\nVersion: 1:0.1\n");
  Resolution r = run({"app"}, avail);
  CHECK(names(r) == std::vector<std::string>{"app=1.0", "base=1:0.1", "libx=2.1", "tool=3"});
  CHECK(r.install.back().package.name == "app");  // dependencies first
  auto libx = std::find_if(r.install.begin(), r.install.end(), [](const auto& p) { return p.package.name == "libx"; });
  CHECK(libx->required_by == std::vector<std::string>{"app"});
  CHECK_FALSE(libx->requested);
  CHECK(r.install.back().requested);
}

TEST_CASE("apt/resolver: virtual packages and versioned Provides") {
  auto avail = index_of(
      "Package: app\nVersion: 1\nDepends: mail-transport-agent, awk (>= 1:4)\n\n"
      "Package: postfix\nVersion: 3\nProvides: mail-transport-agent\nPriority: optional\n\n"
      "Package: exim4\nVersion: 4\nProvides: mail-transport-agent\nPriority: standard\n\n"
      "Package: mawk\nVersion: 1.3\nProvides: awk\n\n"
      "Package: gawk\nVersion: 1:5.2\nProvides: awk (= 1:5.2)\n");
  Resolution r = run({"app"}, avail);
  // exim4 has the higher Priority; only gawk's versioned Provides meets "awk (>= 1:4)".
  CHECK(names(r) == std::vector<std::string>{"app=1", "exim4=4", "gawk=1:5.2"});
  CHECK(names(run({"mail-transport-agent"}, avail)) == std::vector<std::string>{"exim4=4"});
}

TEST_CASE("apt/resolver: a conflict makes the next alternative win -- Breaks too") {
  auto avail = index_of(
      "Package: app\nVersion: 1\nDepends: a | b, c\n\n"
      "Package: a\nVersion: 1\nConflicts: c\n\n"
      "Package: b\nVersion: 1\n\n"
      "Package: c\nVersion: 1\n\n"
      "Package: d\nVersion: 1\nBreaks: c (<< 2)\n");
  CHECK(names(run({"app"}, avail)) == std::vector<std::string>{"app=1", "b=1", "c=1"});
  std::string e = failure({"app", "d"}, avail);
  CHECK(e.find("d 1 (amd64) breaks c (<< 2)") != std::string::npos);
}

TEST_CASE("apt/resolver: the base's installed packages are kept, or upgraded when needed") {
  auto installed = parse_status_file(
                       "Package: libz\nStatus: install ok installed\nVersion: 1.0\nArchitecture: amd64\n\n"
                       "Package: old\nStatus: deinstall ok config-files\nVersion: 1\nArchitecture: amd64\n\n"
                       "Package: user\nStatus: install ok installed\nVersion: 1\nArchitecture: amd64\nDepends: libz (<< 2)\n",
                       "status")
                       .installed;
  REQUIRE(installed.size() == 2);
  auto avail = index_of(
      "Package: app\nVersion: 1\nDepends: libz\n\n"
      "Package: app2\nVersion: 1\nDepends: libz (>= 2)\n\n"
      "Package: libz\nVersion: 2.0\n\n"
      "Package: user\nVersion: 2\nDepends: libz (>= 2)\n\n"
      "Package: old\nVersion: 1\n");
  Resolution r = run({"app", "libz=1.0"}, avail, installed);
  CHECK(names(r) == std::vector<std::string>{"app=1"});
  REQUIRE(r.already_installed.size() == 1);
  CHECK(r.already_installed[0].find("libz 1.0") != std::string::npos);
  // Named without a version, an installed package goes to its candidate, as `apt-get install libz`
  // does: libz 2.0, which breaks `user`, which is upgraded too. Unnamed, libz stays (app).
  CHECK(names(run({"app", "libz"}, avail, installed)) == std::vector<std::string>{"app=1", "libz=2.0", "user=2"});
  // app2 needs libz 2, which breaks the installed `user`: user is upgraded as well.
  Resolution up = run({"app2"}, avail, installed);
  CHECK(names(up) == std::vector<std::string>{"app2=1", "libz=2.0", "user=2"});
  auto libz = std::find_if(up.install.begin(), up.install.end(), [](const auto& p) { return p.package.name == "libz"; });
  CHECK(libz->replaces_installed == "1.0");
  CHECK(names(run({"old"}, avail, installed)) == std::vector<std::string>{"old=1"});  // config-files only: not installed
}

TEST_CASE("apt/resolver: Multi-Arch") {
  auto avail = index_of(
      "Package: app\nVersion: 1\nDepends: perl:any, make, libfoo\n\n"
      "Package: perl\nVersion: 5\nMulti-Arch: allowed\n\n"
      "Package: make\nVersion: 4\nArchitecture: i386\nMulti-Arch: foreign\n\n"
      "Package: libfoo\nVersion: 1\nArchitecture: i386\nMulti-Arch: same\n\n"
      "Package: libfoo\nVersion: 1\nMulti-Arch: same\n\n"
      "Package: tool\nVersion: 1\nDepends: python3:any\n\n"
      "Package: python3\nVersion: 3\n");
  ResolverOptions o;
  o.foreign_archs = {"i386"};
  Resolution r = run({"app"}, avail, {}, o);
  std::vector<std::string> ids;
  for (const auto& p : r.install) ids.push_back(p.package.id());
  std::sort(ids.begin(), ids.end());
  // make:i386 is foreign (any architecture will do); libfoo must be amd64 like app.
  CHECK(ids == std::vector<std::string>{"app:amd64", "libfoo:amd64", "make:i386", "perl:amd64"});
  // Without i386 enabled, make:i386 is no candidate.
  CHECK(failure({"app"}, avail).find("nothing satisfies make") != std::string::npos);
  // python3 is not Multi-Arch: allowed, so python3:any is not met (dpkg's rule).
  CHECK(failure({"tool"}, avail, {}).find("nothing satisfies python3:any") != std::string::npos);
  // Co-installable libfoo for both architectures on request.
  Resolution both = run({"libfoo:i386", "libfoo"}, avail, {}, o);
  CHECK(both.install.size() == 2);
}

TEST_CASE("apt/resolver: pins, version requests, recommends") {
  auto main = index_of("Package: cmake\nVersion: 3.25.1-1\nRecommends: gcc\n\nPackage: gcc\nVersion: 12\n", 0);
  auto extra = index_of("Package: cmake\nVersion: 3.22.1-1ubuntu1\n\nPackage: cmake\nVersion: 3.28.0-1\n", 1);
  std::vector<Package> avail = main;
  avail.insert(avail.end(), extra.begin(), extra.end());
  ResolverOptions o;
  o.origin_priority = {500, 500};
  CHECK(names(run({"cmake"}, avail, {}, o)) == std::vector<std::string>{"cmake=3.28.0-1"});
  o.origin_priority = {600, 500};
  CHECK(names(run({"cmake"}, avail, {}, o)) == std::vector<std::string>{"cmake=3.25.1-1"});
  CHECK(names(run({"cmake=3.22*"}, avail, {}, o)) == std::vector<std::string>{"cmake=3.22.1-1ubuntu1"});
  CHECK(names(run({"cmake (<< 3.25)"}, avail, {}, o)) == std::vector<std::string>{"cmake=3.22.1-1ubuntu1"});
  o.origin_priority = {500, -1};  // a source that never provides candidates
  CHECK(names(run({"cmake"}, avail, {}, o)) == std::vector<std::string>{"cmake=3.25.1-1"});
  o.recommends = true;
  CHECK(names(run({"cmake"}, avail, {}, o)) == std::vector<std::string>{"cmake=3.25.1-1", "gcc=12"});
  // An unmet Recommends is skipped, as apt skips it.
  auto lonely = index_of("Package: a\nVersion: 1\nRecommends: missing\n");
  CHECK(names(run({"a"}, lonely, {}, o)) == std::vector<std::string>{"a=1"});
}

TEST_CASE("apt/resolver: impossible requests are explained as a chain") {
  auto avail = index_of(
      "Package: build-essential\nVersion: 12.9\nDepends: gcc (>= 4:12.2)\n\n"
      "Package: gcc\nVersion: 4:12.2.0-3\nDepends: cpp (= 4:12.2.0-3)\n\n"
      "Package: cpp\nVersion: 4:10.2.1-1\n");
  std::string e = failure({"build-essential"}, avail);
  CHECK(e.find("the recipe asks for build-essential") != std::string::npos);
  CHECK(e.find("build-essential 12.9 (amd64) depends on gcc (>= 4:12.2)") != std::string::npos);
  CHECK(e.find("gcc 4:12.2.0-3 (amd64) depends on cpp (= 4:12.2.0-3)") != std::string::npos);
  CHECK(e.find("the sources have cpp 4:10.2.1-1 (amd64)") != std::string::npos);
  CHECK(failure({"buidl-essential"}, avail).find("did you mean 'build-essential'") != std::string::npos);
  CHECK(failure({"gcc=9*"}, avail).find("nothing satisfies gcc=9*") != std::string::npos);
}

TEST_CASE("apt/resolver: NotAutomatic releases, the base's preferences, no downgrade") {
  // Releases: 0 bookworm main (500), 1 bookworm-backports (NotAutomatic + ButAutomaticUpgrades:
  // 100), 2 experimental (NotAutomatic: 1).
  Release bookworm, backports, experimental;
  bookworm.suite = "oldstable";
  bookworm.codename = "bookworm";
  bookworm.origin = "Debian";
  backports.suite = "oldstable-backports";
  backports.codename = "bookworm-backports";
  backports.origin = "Debian Backports";
  backports.not_automatic = backports.but_automatic_upgrades = true;
  experimental.codename = experimental.suite = "experimental";
  experimental.not_automatic = true;
  ResolverOptions o;
  o.releases = {release_facts(bookworm, "main", "deb.example"), release_facts(backports, "main", "deb.example"),
                release_facts(experimental, "main", "exp.example")};
  CHECK(o.releases[0].default_priority == 500);
  CHECK(o.releases[1].default_priority == 100);
  CHECK(o.releases[2].default_priority == 1);
  auto from = [](std::vector<Package> v, int release) {
    for (auto& p : v) {
      p.release = release;
      p.origin = release;
    }
    return v;
  };
  std::vector<Package> avail = from(index_of("Package: elfutils\nVersion: 0.188-2.1\n\nPackage: tool\nVersion: 1\n"), 0);
  for (auto& p : from(index_of("Package: elfutils\nVersion: 0.191-1~bpo12+1\n\nPackage: tool\nVersion: 2~bpo12+1\n"), 1))
    avail.push_back(p);
  for (auto& p : from(index_of("Package: elfutils\nVersion: 0.192-1\n\nPackage: app\nVersion: 1\nDepends: tool (>= 2~)\n"), 2))
    avail.push_back(p);
  // bookworm's version wins over newer backports and experimental ones.
  CHECK(names(run({"elfutils"}, avail, {}, o)) == std::vector<std::string>{"elfutils=0.188-2.1"});
  // A versioned dependency only a lower-priority release meets still takes it (apt -t would; apt
  // itself fails here: see docs/apt.md).
  CHECK(names(run({"app"}, avail, {}, o)) == std::vector<std::string>{"app=1", "tool=2~bpo12+1"});
  // ButAutomaticUpgrades: an installed backport is upgraded to a newer backport when named.
  auto installed = parse_status_file("Package: tool\nStatus: install ok installed\nVersion: 1.5~bpo12+1\nArchitecture: amd64\n", "status").installed;
  CHECK(names(run({"tool"}, avail, installed, o)) == std::vector<std::string>{"tool=2~bpo12+1"});
  // No downgrade: an installed version newer than bookworm's stays (priority 100 against 500)...
  auto newer = parse_status_file("Package: elfutils\nStatus: install ok installed\nVersion: 0.193-1\nArchitecture: amd64\n", "status").installed;
  Resolution kept = run({"elfutils"}, avail, newer, o);
  CHECK(kept.install.empty());
  CHECK(kept.already_installed.size() == 1);
  // ... and one between bookworm's and the backport goes to the backport (ButAutomaticUpgrades).
  auto between = parse_status_file("Package: elfutils\nStatus: install ok installed\nVersion: 0.190-1\nArchitecture: amd64\n", "status").installed;
  CHECK(names(run({"elfutils"}, avail, between, o)) == std::vector<std::string>{"elfutils=0.191-1~bpo12+1"});

  // The base's preferences: a package pin to backports, a release pin down for experimental's host.
  std::vector<std::string> warnings;
  auto records = parse_preferences(
      "Explanation: backports for elfutils\nPackage: elfutils libelf*\nPin: release n=bookworm-backports\nPin-Priority: 990\n\n"
      "Package: *\nPin: origin \"exp.example\"\nPin-Priority: -1\n\n"
      "Package: tool\nPin: version 1\nPin-Priority: 1001\n\n"
      "Package: broken\nPin-Priority: 5\n",
      "prefs", &warnings);
  CHECK(records.size() == 3);
  CHECK(warnings.size() == 1);
  o.policy = PinPolicy(records);
  CHECK(names(run({"elfutils"}, avail, {}, o)) == std::vector<std::string>{"elfutils=0.191-1~bpo12+1"});
  // experimental is never a candidate now: app has no installable version.
  CHECK_THROWS_AS(run({"app"}, avail, {}, o), rp::InputError);
  // Pin-Priority >= 1000 allows a downgrade: tool 1 over the installed 1.5~bpo12+1.
  CHECK(names(run({"tool"}, avail, installed, o)) == std::vector<std::string>{"tool=1"});
  // A recipe pin of a whole source wins over the release's default and the base's release pins.
  o.policy = PinPolicy();
  o.origin_priority = {std::nullopt, 600};
  CHECK(names(run({"elfutils"}, avail, {}, o)) == std::vector<std::string>{"elfutils=0.191-1~bpo12+1"});
}
