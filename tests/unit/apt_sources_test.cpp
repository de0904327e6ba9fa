// apt source entries: the one-line form (sources.list, *.list) and the deb822 form (*.sources), the
// directory of a suite's Release, messages without credentials, and what a base image is configured
// with (its sources and the keys each one trusts), read from an in-memory image.
#include <doctest/doctest.h>

#include <functional>
#include <string>
#include <vector>

#include "apt/sources.hpp"
#include "image/rootfs_view.hpp"
#include "image_test_support.hpp"
#include "util/error.hpp"

using namespace rp::apt;
using rp::test::dir_entry;
using rp::test::file_entry;

namespace {

std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const rp::Error& e) {
    return e.what();
  }
  return "";
}

std::vector<std::string> described(const std::vector<SourceEntry>& entries) {
  std::vector<std::string> out;
  for (const auto& e : entries) out.push_back(e.describe());
  return out;
}

constexpr const char* kInlineKey =
    "Types: deb\n"
    "URIs: https://repo.example.org/apt\n"
    "Suites: stable\n"
    "Components: main\n"
    "Signed-By:\n"
    " -----BEGIN PGP PUBLIC KEY BLOCK-----\n"
    " .\n"
    " mDMEZkFakeKeyBytes\n"
    " =AbCd\n"
    " -----END PGP PUBLIC KEY BLOCK-----\n";

}  // namespace

TEST_CASE("apt/sources: one-line entries with options, comments and deb-src") {
  auto entries = parse_one_line_sources(
      "# the main archive\n"
      "deb [arch=amd64,arm64 signed-by=/usr/share/keyrings/a.gpg,/etc/apt/keyrings/b.asc trusted=yes] "
      "http://mirror.example/debian/ bookworm main contrib  # a comment\n"
      "\n"
      "deb-src http://mirror.example/debian bookworm main\n"
      "   # deb http://commented.example/debian bookworm main\n"
      "deb\thttps://security.debian.org/debian-security bookworm-security main\n",
      "/etc/apt/sources.list");
  REQUIRE(entries.size() == 2);
  const SourceEntry& e = entries[0];
  CHECK(e.origin == "/etc/apt/sources.list:2");
  CHECK(e.url == "http://mirror.example/debian");
  CHECK(e.suite == "bookworm");
  CHECK(e.components == std::vector<std::string>{"main", "contrib"});
  CHECK(e.architectures == std::vector<std::string>{"amd64", "arm64"});
  CHECK(e.signed_by == std::vector<std::string>{"/usr/share/keyrings/a.gpg", "/etc/apt/keyrings/b.asc"});
  CHECK(e.trusted);
  CHECK_FALSE(e.flat());
  CHECK(entries[1].origin == "/etc/apt/sources.list:6");
  CHECK(entries[1].url == "https://security.debian.org/debian-security");
  CHECK(entries[1].architectures.empty());
  CHECK(entries[1].signed_by.empty());
  CHECK_FALSE(entries[1].trusted);
  CHECK(described(entries) == std::vector<std::string>{"http://mirror.example/debian bookworm/main contrib",
                                                       "https://security.debian.org/debian-security bookworm-security/main"});
}

TEST_CASE("apt/sources: one-line errors name the file and line") {
  auto error = [](const std::string& text) { return error_of([&] { (void)parse_one_line_sources(text, "x.list"); }); };
  CHECK(error("deb http://h/debian bookworm main\ndeb http://h/debian\n") ==
        "x.list:2: a source line needs a URI and a suite");
  CHECK(error("\n\nrpm http://h/x stable main\n") == "x.list:3: unknown source type 'rpm'");
  CHECK(error("deb [arch=amd64 http://h/debian bookworm main\n") == "x.list:1: an option list '[' is not closed");
  CHECK(error("deb [arch] http://h/debian bookworm main\n") == "x.list:1: malformed option 'arch'");
  CHECK(error("deb ftp://h/debian bookworm main\n") ==
        "x.list:1: the source ftp://h/debian uses a transport rockpack does not fetch from");
  CHECK(error("deb cdrom:[Debian]/ bookworm main\n") == "x.list:1: 'cdrom:[Debian]' is not a URL apt can fetch from");
  CHECK(error("deb http://h/debian bookworm\n") == "x.list:1: the source http://h/debian bookworm lists no components");
  CHECK(error("deb http://h/flat ./ main\n") == "x.list:1: the flat source http://h/flat ./ must not list components");
}

TEST_CASE("apt/sources: deb822 entries, one per URI and suite") {
  auto entries = parse_deb822_sources(
      "# Debian\n"
      "Types: deb deb-src\n"
      "URIs: http://mirror.example/debian/ http://mirror.example/debian\n"
      "Suites: bookworm bookworm-updates\n"
      "Components: main non-free-firmware\n"
      "Architectures: amd64\n"
      "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg\n"
      "\n"
      "Types: deb\n"
      "Enabled: no\n"
      "URIs: http://disabled.example/debian\n"
      "Suites: bookworm\n"
      "Components: main\n"
      "\n"
      "Types: deb-src\n"
      "URIs: http://sources-only.example/debian\n"
      "Suites: bookworm\n"
      "Components: main\n"
      "\n"
      "Types: deb\n"
      "URIs: http://flat.example/repo\n"
      "Suites: ./\n"
      "Trusted: yes\n",
      "debian.sources");
  CHECK(described(entries) == std::vector<std::string>{
                                  "http://mirror.example/debian bookworm/main non-free-firmware",
                                  "http://mirror.example/debian bookworm-updates/main non-free-firmware",
                                  "http://mirror.example/debian bookworm/main non-free-firmware",
                                  "http://mirror.example/debian bookworm-updates/main non-free-firmware",
                                  "http://flat.example/repo ./",
                              });
  REQUIRE(entries.size() == 5);
  CHECK(entries[0].origin == "debian.sources:2");
  CHECK(entries[0].architectures == std::vector<std::string>{"amd64"});
  CHECK(entries[0].signed_by == std::vector<std::string>{"/usr/share/keyrings/debian-archive-keyring.gpg"});
  CHECK(entries[0].signed_by_inline.empty());
  CHECK_FALSE(entries[0].trusted);
  CHECK(entries[4].origin == "debian.sources:20");
  CHECK(entries[4].flat());
  CHECK(entries[4].components.empty());
  CHECK(entries[4].trusted);
}

TEST_CASE("apt/sources: deb822 inline Signed-By key block") {
  auto entries = parse_deb822_sources(kInlineKey, "repo.sources");
  REQUIRE(entries.size() == 1);
  CHECK(entries[0].signed_by.empty());
  CHECK(entries[0].signed_by_inline ==
        "-----BEGIN PGP PUBLIC KEY BLOCK-----\n"
        "\n"
        "mDMEZkFakeKeyBytes\n"
        "=AbCd\n"
        "-----END PGP PUBLIC KEY BLOCK-----\n");
}

TEST_CASE("apt/sources: deb822 errors") {
  auto error = [](const std::string& text) { return error_of([&] { (void)parse_deb822_sources(text, "x.sources"); }); };
  CHECK(error("Types: deb\nURIs: http://h/flat\nSuites: ./\nComponents: main\n") ==
        "x.sources:1: the flat source http://h/flat ./ must not list components");
  CHECK(error("Types: deb\nURIs: http://h/debian\nComponents: main\n") == "x.sources:1: a deb822 source needs URIs: and Suites:");
  CHECK(error("Types: deb\nURIs: http://h/debian\nSuites: bookworm\n") ==
        "x.sources:1: the source http://h/debian bookworm lists no components");
}

TEST_CASE("apt/sources: release_directory for normal and flat repositories") {
  SourceEntry e;
  e.url = "http://mirror.example/debian";
  e.suite = "bookworm";
  e.components = {"main"};
  CHECK(e.release_directory() == "http://mirror.example/debian/dists/bookworm");
  e.components.clear();
  e.suite = "./";
  CHECK(e.flat());
  CHECK(e.release_directory() == "http://mirror.example/debian");
  e.suite = "sub/dir/";
  CHECK(e.release_directory() == "http://mirror.example/debian/sub/dir");
  CHECK(e.describe() == "http://mirror.example/debian sub/dir/");
}

TEST_CASE("apt/sources: credentials in a URL never reach describe() or an error") {
  auto entries = parse_one_line_sources("deb http://user:secret@repo.example/debian bookworm main\n", "x.list");
  REQUIRE(entries.size() == 1);
  CHECK(entries[0].url == "http://user:secret@repo.example/debian");  // kept: the fetch needs it
  CHECK(entries[0].describe() == "http://repo.example/debian bookworm/main");
  // A password with an unescaped '@' (curl takes the last '@' as the end of the userinfo): none of it
  // is shown (describe() cut at the first '@' and showed "ss@repo.example").
  SourceEntry odd = entries[0];
  odd.url = "https://user:p@ss@repo.example/debian";
  CHECK(odd.describe() == "https://repo.example/debian bookworm/main");

  // Errors about the URL show it without the userinfo (they showed it whole).
  for (const char* text : {"deb ftp://user:secret@repo.example/debian bookworm main\n",
                           "deb http://user:secret@repo.example/debian bookworm\n",
                           "deb http://user:secret@repo.example/flat ./ main\n"}) {
    std::string message = error_of([&] { (void)parse_one_line_sources(text, "x.list"); });
    CHECK(message.find("repo.example") != std::string::npos);
    CHECK(message.find("secret") == std::string::npos);
    CHECK(message.find("user") == std::string::npos);
  }
  std::string message = error_of([] {
    (void)parse_deb822_sources("Types: deb\nURIs: http://user:secret@repo.example/debian\nSuites: bookworm\n", "x.sources");
  });
  CHECK(message == "x.sources:1: the source http://repo.example/debian bookworm lists no components");
}

TEST_CASE("apt/sources: image_sources reads sources.list, then sources.list.d by name") {
  rp::RootfsView image;
  image.add_entries({
      dir_entry("etc/apt/sources.list.d"),
      file_entry("etc/apt/sources.list", "deb http://one.example/debian bookworm main\n"),
      file_entry("etc/apt/sources.list.d/b.sources", "Types: deb\nURIs: http://three.example/debian\nSuites: stable\nComponents: main\n"),
      file_entry("etc/apt/sources.list.d/a.list", "deb [trusted=yes] http://two.example/debian bookworm contrib\n"),
      file_entry("etc/apt/sources.list.d/c.list.disabled", "deb http://disabled.example/debian bookworm main\n"),
      file_entry("etc/apt/sources.list.d/d.sources.save", "Types: deb\nURIs: http://saved.example/\nSuites: x\nComponents: y\n"),
  });
  auto entries = image_sources(image);
  CHECK(described(entries) == std::vector<std::string>{"http://one.example/debian bookworm/main",
                                                       "http://two.example/debian bookworm/contrib",
                                                       "http://three.example/debian stable/main"});
  REQUIRE(entries.size() == 3);
  CHECK(entries[0].origin == "/etc/apt/sources.list of the base image:1");
  CHECK(entries[1].origin == "/etc/apt/sources.list.d/a.list of the base image:1");
  CHECK(entries[1].trusted);
  CHECK(entries[2].origin == "/etc/apt/sources.list.d/b.sources of the base image:1");

  rp::RootfsView empty;
  CHECK(image_sources(empty).empty());

  rp::RootfsView broken;
  broken.add_entries({file_entry("etc/apt/sources.list.d/x.list", "\ndeb http://h/debian\n")});
  CHECK(error_of([&] { (void)image_sources(broken); }) ==
        "/etc/apt/sources.list.d/x.list of the base image:2: a source line needs a URI and a suite");
}

TEST_CASE("apt/sources: image_keyring reads Signed-By files, the inline key, else the global keyrings") {
  rp::RootfsView image;
  image.add_entries({
      file_entry("usr/share/keyrings/debian-archive-keyring.gpg", "binary keyring bytes"),
      file_entry("etc/apt/trusted.gpg.d/one.gpg", "one"),
      file_entry("etc/apt/trusted.gpg.d/two.asc", "two"),
      file_entry("etc/apt/trusted.gpg.d/README", "not a key"),
      file_entry("etc/apt/trusted.gpg.d/three.gpg~", "a backup"),
  });
  SourceEntry entry;
  entry.origin = "debian.sources:1";
  entry.url = "http://mirror.example/debian";
  entry.suite = "bookworm";
  entry.components = {"main"};

  SUBCASE("Signed-By file") {
    entry.signed_by = {"/usr/share/keyrings/debian-archive-keyring.gpg"};
    Keyring keys = image_keyring(entry, image);
    REQUIRE(keys.files.size() == 1);
    CHECK(keys.files[0].name == "/usr/share/keyrings/debian-archive-keyring.gpg");
    CHECK(keys.files[0].bytes == "binary keyring bytes");
  }
  SUBCASE("a missing Signed-By file is an error naming it") {
    entry.signed_by = {"/usr/share/keyrings/missing.gpg"};
    std::string message = error_of([&] { (void)image_keyring(entry, image); });
    CHECK(message == "debian.sources:1: the key file /usr/share/keyrings/missing.gpg is not in the image");
  }
  SUBCASE("a fingerprint instead of a file is refused") {
    entry.signed_by = {"0123456789ABCDEF"};
    CHECK(error_of([&] { (void)image_keyring(entry, image); }).find("'0123456789ABCDEF' is not a key file") != std::string::npos);
  }
  SUBCASE("inline key") {
    auto inline_entries = parse_deb822_sources(kInlineKey, "repo.sources");
    REQUIRE(inline_entries.size() == 1);
    Keyring keys = image_keyring(inline_entries[0], image);
    REQUIRE(keys.files.size() == 1);
    CHECK(keys.files[0].name == "repo.sources:1 (inline Signed-By key)");
    CHECK(keys.files[0].bytes.rfind("-----BEGIN PGP PUBLIC KEY BLOCK-----\n", 0) == 0);
  }
  SUBCASE("neither: /etc/apt/trusted.gpg.d/*.gpg and *.asc") {
    Keyring keys = image_keyring(entry, image);
    REQUIRE(keys.files.size() == 2);
    CHECK(keys.files[0].name == "/etc/apt/trusted.gpg.d/one.gpg");
    CHECK(keys.files[0].bytes == "one");
    CHECK(keys.files[1].name == "/etc/apt/trusted.gpg.d/two.asc");
    CHECK(keys.describe() == "/etc/apt/trusted.gpg.d/one.gpg, /etc/apt/trusted.gpg.d/two.asc");
  }
  SUBCASE("neither, with the legacy /etc/apt/trusted.gpg first") {
    image.add_entries({file_entry("etc/apt/trusted.gpg", "legacy")});
    Keyring keys = image_keyring(entry, image);
    REQUIRE(keys.files.size() == 3);
    CHECK(keys.files[0].name == "/etc/apt/trusted.gpg");
  }
}
