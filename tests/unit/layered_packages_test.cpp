// The packages of a build's image with the layer each comes from (what `build --sbom` lists): the
// base's read from its layer blobs, then from the store's record; the build's layers from their
// entries, whiteouts included; the distribution as scanners name it.
#include <doctest/doctest.h>

#include "image_test_support.hpp"
#include "inventory/layered_packages.hpp"
#include "test_helpers.hpp"

using namespace rp;
using namespace rp::test;
using namespace rp::inventory;

namespace {

std::string stanza(const std::string& name, const std::string& version, const std::string& status = "install ok installed") {
  return "Package: " + name + "\nStatus: " + status + "\nArchitecture: amd64\nVersion: " + version +
         "\nDescription: long\n text\n\n";
}

std::string metadata(const std::string& name, const std::string& version) {
  return "Metadata-Version: 2.1\nName: " + name + "\nVersion: " + version + "\nLicense: MIT\n\nThe description.\n";
}

// name@version -> layer, for the packages of one kind.
std::map<std::string, int> layers_of(const LayeredPackages& found, PackageKind kind) {
  std::map<std::string, int> out;
  for (const auto& p : found.packages)
    if (p.kind == kind) out[p.name + "@" + p.version + (p.location.empty() ? "" : " " + p.location)] = p.layer;
  return out;
}

}  // namespace

TEST_CASE("layered packages: each package's first layer with its version, base from the store's record") {
  TempDir dir;
  ContentStore store(dir.path / "store");
  const std::string site = "usr/lib/python3/dist-packages/";
  Image base;
  auto add = [&](const std::vector<Entry>& entries) {
    base.layers.push_back({store_layer(store, entries), "", 0});
  };
  add({file_entry("var/lib/dpkg/status", stanza("libc6", "2.35-0ubuntu3") + stanza("bash", "5.1-6") +
                                             stanza("gone", "1", "deinstall ok config-files")),
       file_entry("usr/lib/os-release", "NAME=\"Ubuntu\"\nID=ubuntu\nVERSION_ID=\"22.04\"\n"),
       symlink_entry("etc/os-release", "../usr/lib/os-release"), file_entry("etc/debian_version", "bookworm/sid\n"),
       file_entry(site + "six-1.16.0.egg-info/PKG-INFO", metadata("six", "1.16.0")),
       file_entry(site + "PyYAML-6.0.egg-info", metadata("PyYAML", "6.0")),
       file_entry(site + "doomed-1.0.dist-info/METADATA", metadata("doomed", "1.0"))});
  add({file_entry("var/lib/dpkg/status", stanza("libc6", "2.35-0ubuntu3") + stanza("bash", "5.1-6ubuntu1"))});

  // The build: an apt layer rewrites the whole status; a venv; a run: step removes a base package.
  std::vector<Entry> apt = {file_entry("var/lib/dpkg/status", stanza("libc6", "2.35-0ubuntu3") +
                                                                  stanza("bash", "5.1-6ubuntu1") + stanza("jq", "1.6-2"))};
  std::vector<Entry> venv = {file_entry("opt/venv/lib/python3.10/site-packages/six-1.16.0.dist-info/METADATA",
                                        metadata("six", "1.16.0")),
                             file_entry("opt/venv/lib/python3.10/site-packages/numpy-2.0.dist-info/METADATA",
                                        metadata("numpy", "2.0"))};
  std::vector<Entry> run = {file_entry(site + ".wh.doomed-1.0.dist-info", "")};
  std::vector<const std::vector<Entry>*> layers = {&apt, &venv, &run};

  for (int pass = 0; pass < 2; ++pass) {  // cold (reads the base), then warm (the record)
    CAPTURE(pass);
    LayeredPackages found = layered_packages(base, store, layers);
    CHECK(layers_of(found, PackageKind::kDeb) ==
          std::map<std::string, int>{{"libc6@2.35-0ubuntu3", 0}, {"bash@5.1-6ubuntu1", 1}, {"jq@1.6-2", 2}});
    CHECK(layers_of(found, PackageKind::kPython) ==
          std::map<std::string, int>{{"six@1.16.0 /" + site + "six-1.16.0.egg-info", 0},
                                     {"PyYAML@6.0 /" + site + "PyYAML-6.0.egg-info", 0},
                                     {"six@1.16.0 /opt/venv/lib/python3.10/site-packages/six-1.16.0.dist-info", 3},
                                     {"numpy@2.0 /opt/venv/lib/python3.10/site-packages/numpy-2.0.dist-info", 3}});
    CHECK(found.distro.id == "ubuntu");
    CHECK(found.distro.version == "22.04");
  }
  // A cached record is what a warm build reads: a corrupt base blob is not touched again.
  fs::remove(store.blob_path(base.layers[0].blob.digest));
  CHECK_NOTHROW(layered_packages(base, store, layers));
}

TEST_CASE("distro: Debian's point release from debian_version, lsb-release without os-release") {
  TempDir dir;
  ContentStore store(dir.path / "store");
  Image base;
  base.layers.push_back({store_layer(store, {file_entry("etc/os-release", "ID=debian\nVERSION_ID=\"12\"\n"),
                                             file_entry("etc/debian_version", "12.5\n")}),
                         "", 0});
  CHECK(layered_packages(base, store, {}).distro.id == "debian");
  CHECK(layered_packages(base, store, {}).distro.version == "12.5");
  std::vector<Entry> lsb = {file_entry("etc/lsb-release", "DISTRIB_ID=Ubuntu\nDISTRIB_RELEASE=24.04\n")};
  LayeredPackages scratch = layered_packages(Image{}, store, {&lsb});
  CHECK(scratch.distro.id == "ubuntu");
  CHECK(scratch.distro.version == "24.04");
  CHECK(layered_packages(Image{}, store, {}).distro.id.empty());

  // /etc/os-release is a symlink in the base: a later layer replacing its target is seen through it,
  // on the cold read and from the record.
  Image debian;
  debian.layers.push_back({store_layer(store, {file_entry("usr/lib/os-release", "ID=debian\nVERSION_ID=\"12\"\n"),
                                               symlink_entry("etc/os-release", "../usr/lib/os-release"),
                                               file_entry("etc/debian_version", "12.5\n")}),
                           "", 0});
  std::vector<Entry> dressed = {file_entry("usr/lib/os-release", "ID=ubuntu\nVERSION_ID=\"22.04\"\n")};
  for (int pass = 0; pass < 2; ++pass) {
    LayeredPackages found = layered_packages(debian, store, {&dressed});
    CHECK(found.distro.id == "ubuntu");
    CHECK(found.distro.version == "22.04");
  }
}

TEST_CASE("dpkg status.d (distroless): one stanza per file, no Status field, md5sums skipped") {
  TempDir dir;
  ContentStore store(dir.path / "store");
  std::vector<Entry> layer = {
      file_entry("var/lib/dpkg/status.d/base", "Package: base-files\nVersion: 12.4\nArchitecture: amd64\n"),
      file_entry("var/lib/dpkg/status.d/base.md5sums", "d41d8cd98f00b204e9800998ecf8427e  etc/x\n"),
      file_entry("var/lib/dpkg/status.d/tzdata", "Package: tzdata\nVersion: 2024a-0+deb12u1\nArchitecture: all\n")};
  LayeredPackages found = layered_packages(Image{}, store, {&layer});
  CHECK(layers_of(found, PackageKind::kDeb) ==
        std::map<std::string, int>{{"base-files@12.4", 0}, {"tzdata@2024a-0+deb12u1", 0}});
  CHECK(parse_dpkg_status("Package: x\nVersion: 1\n").empty());  // the status file needs its Status
  CHECK(parse_dpkg_status("Package: x\nVersion: 1\n", /*status_d=*/true).size() == 1);
}

TEST_CASE("package kinds: one type, two spellings at the edges, both read back") {
  for (PackageKind k : {PackageKind::kDeb, PackageKind::kPython, PackageKind::kPythonInterpreter, PackageKind::kRocm,
                        PackageKind::kBaseImage}) {
    CHECK(parse_package_kind(component_kind_name(k)) == k);
    CHECK(parse_package_kind(inventory_kind_name(k)) == k);
  }
  CHECK(component_kind_name(PackageKind::kDeb) == "apt-package");
  CHECK(inventory_kind_name(PackageKind::kDeb) == "deb");
  CHECK_FALSE(parse_package_kind("rpm"));
}
