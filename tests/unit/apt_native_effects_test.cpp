// What maintainer scripts would have done, produced natively: update-alternatives calls read from
// real postinst scripts (gcc, debianutils), the alternatives chosen on an in-memory image, the
// ca-certificates bundle, base-passwd's /etc/passwd, merged /usr, and the scripts not run.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "apt/native_effects.hpp"
#include "image/rootfs_view.hpp"
#include "image_test_support.hpp"
#include "util/byte_sink.hpp"

using namespace rp::apt;
using rp::Entry;
using rp::EntryType;
using rp::test::dir_entry;
using rp::test::file_entry;
using rp::test::symlink_entry;

namespace {

// gcc 4:12.2.0-3's postinst (Debian 12), verbatim: --quiet, continuation lines, and a --slave
// commented out in the middle of a continued command.
constexpr const char* kGccPostinst = R"(#! /bin/sh

set -e

update-alternatives --quiet \
    --install /usr/bin/cc cc /usr/bin/gcc 20 \
    #--slave /usr/share/man/man1/cc.1.gz cc.1.gz /usr/share/man/man1/gcc.1.gz

update-alternatives --quiet \
    --install /usr/bin/c89 c89 /usr/bin/c89-gcc 20 \
    --slave /usr/share/man/man1/c89.1.gz c89.1.gz /usr/share/man/man1/c89-gcc.1.gz

update-alternatives --quiet \
    --install /usr/bin/c99 c99 /usr/bin/c99-gcc 20 \
    --slave /usr/share/man/man1/c99.1.gz c99.1.gz /usr/share/man/man1/c99-gcc.1.gz

# remove f77 alternative left over from an old egcs version ...
if [ -h /etc/alternatives/f77 -a ! -e /etc/alternatives/f77 ]; then
    rm -f /etc/alternatives/f77
fi



exit 0
)";

// debianutils 5.7-0.5~deb12u1's postinst (Debian 12), verbatim: the call in a shell function, with
// eight --slave man pages.
constexpr const char* kDebianutilsPostinst = R"(#! /bin/sh -e

ua() {
	update-alternatives --install /usr/bin/which which /usr/bin/which.debianutils 0 \
		--slave /usr/share/man/man1/which.1.gz which.1.gz /usr/share/man/man1/which.debianutils.1.gz \
		--slave /usr/share/man/de/man1/which.1.gz which.de1.gz /usr/share/man/de/man1/which.debianutils.1.gz \
		--slave /usr/share/man/es/man1/which.1.gz which.es1.gz /usr/share/man/es/man1/which.debianutils.1.gz \
		--slave /usr/share/man/fr/man1/which.1.gz which.fr1.gz /usr/share/man/fr/man1/which.debianutils.1.gz \
		--slave /usr/share/man/it/man1/which.1.gz which.it1.gz /usr/share/man/it/man1/which.debianutils.1.gz \
		--slave /usr/share/man/ja/man1/which.1.gz which.ja1.gz /usr/share/man/ja/man1/which.debianutils.1.gz \
		--slave /usr/share/man/pl/man1/which.1.gz which.pl1.gz /usr/share/man/pl/man1/which.debianutils.1.gz \
		--slave /usr/share/man/sl/man1/which.1.gz which.sl1.gz /usr/share/man/sl/man1/which.debianutils.1.gz
}

if test -z "$2" && test ! -f "$DPKG_ROOT/etc/shells"
then
	cp -pZ "$DPKG_ROOT/usr/share/debianutils/shells" "$DPKG_ROOT/etc/shells" || cp -p "$DPKG_ROOT/usr/share/debianutils/shells" "$DPKG_ROOT/etc/shells"
fi

case "$1" in
    (configure)
	update-shells
	ua
    ;;
    (triggered)
	update-shells
    ;;

    (abort-upgrade|abort-remove|abort-deconfigure)
	ua
    ;;

    (*)
        echo "postinst called with unknown argument \`$1'" >&2
        exit 1
    ;;
esac
)";

UnpackedPackage package(const std::string& name, const std::string& postinst) {
  UnpackedPackage p;
  p.name = name;
  p.architecture = "amd64";
  p.version = "1.0";
  if (!postinst.empty()) p.control_files["postinst"] = postinst;
  return p;
}

std::string ua(const std::string& link, const std::string& name, const std::string& path, int priority) {
  return "update-alternatives --install " + link + " " + name + " " + path + " " + std::to_string(priority) + "\n";
}

const Entry* find(const NativeEffects& effects, const std::string& path) {
  for (const auto& e : effects.entries)
    if (e.path == path) return &e;
  return nullptr;
}

std::string link_of(const NativeEffects& effects, const std::string& path) {
  const Entry* e = find(effects, path);
  if (!e || e->type != EntryType::kSymlink) return "(no symlink)";
  return e->link_target;
}

std::string content_of(const NativeEffects& effects, const std::string& path) {
  const Entry* e = find(effects, path);
  if (!e || e->type != EntryType::kFile || !e->content) return "(no file)";
  rp::StringSink sink;
  e->content->write_to(sink);
  return sink.take();
}

std::vector<std::string> paths_of(const std::vector<Entry>& entries) {
  std::vector<std::string> out;
  for (const auto& e : entries) out.push_back(e.path + (e.type == EntryType::kSymlink ? " -> " + e.link_target : ""));
  return out;
}

}  // namespace

TEST_CASE("apt/native_effects: alternative_calls reads gcc's postinst") {
  auto calls = alternative_calls(kGccPostinst);
  REQUIRE(calls.size() == 3);
  CHECK(calls[0].link == "/usr/bin/cc");
  CHECK(calls[0].name == "cc");
  CHECK(calls[0].path == "/usr/bin/gcc");
  CHECK(calls[0].priority == 20);
  CHECK(calls[0].slaves.empty());  // the commented-out --slave is a comment to the shell too
  CHECK(calls[1].name == "c89");
  CHECK(calls[1].path == "/usr/bin/c89-gcc");
  REQUIRE(calls[1].slaves.size() == 1);
  CHECK(calls[1].slaves[0].link == "/usr/share/man/man1/c89.1.gz");
  CHECK(calls[1].slaves[0].name == "c89.1.gz");
  CHECK(calls[1].slaves[0].path == "/usr/share/man/man1/c89-gcc.1.gz");
  CHECK(calls[2].name == "c99");
  REQUIRE(calls[2].slaves.size() == 1);
  CHECK(calls[2].slaves[0].name == "c99.1.gz");
}

TEST_CASE("apt/native_effects: alternative_calls reads debianutils' which with eight slaves") {
  auto calls = alternative_calls(kDebianutilsPostinst);
  REQUIRE(calls.size() == 1);
  CHECK(calls[0].link == "/usr/bin/which");
  CHECK(calls[0].name == "which");
  CHECK(calls[0].path == "/usr/bin/which.debianutils");
  CHECK(calls[0].priority == 0);
  REQUIRE(calls[0].slaves.size() == 8);
  CHECK(calls[0].slaves[0].name == "which.1.gz");
  CHECK(calls[0].slaves[1].link == "/usr/share/man/de/man1/which.1.gz");
  CHECK(calls[0].slaves[7].name == "which.sl1.gz");
  CHECK(calls[0].slaves[7].path == "/usr/share/man/sl/man1/which.debianutils.1.gz");
}

TEST_CASE("apt/native_effects: calls with shell variables or a bad priority are skipped") {
  auto calls = alternative_calls(
      "update-alternatives --install /usr/bin/x x /usr/lib/$triplet/x 10\n"
      "update-alternatives --install \"$LINK\" y /usr/bin/y 10\n"
      "update-alternatives --install /usr/bin/z z /usr/bin/z1 `prio`\n"
      "update-alternatives --install /usr/bin/ok ok /usr/bin/ok1 5 --slave /usr/share/man/$lang/ok.1 ok.1 /x.1 "
      "--slave /usr/share/man/man1/ok.1.gz ok.1.gz /usr/share/man/man1/ok1.1.gz\n"
      "update-alternatives --remove x /usr/bin/x1\n");
  REQUIRE(calls.size() == 1);
  CHECK(calls[0].name == "ok");
  REQUIRE(calls[0].slaves.size() == 1);
  CHECK(calls[0].slaves[0].name == "ok.1.gz");
}

TEST_CASE("apt/native_effects: a priority that is no int skips the call instead of throwing") {
  // Found by fuzz_apt_sources: std::stoi threw std::invalid_argument for "-" and "--" and
  // std::out_of_range past INT_MAX, which nothing caught.
  for (const char* prio : {"-", "--", "99999999999", "1-2", "-99999999999"})
    CHECK(alternative_calls(std::string("update-alternatives --install /usr/bin/x x /usr/bin/x1 ") + prio + "\n").empty());
  auto calls = alternative_calls(ua("/usr/bin/x", "x", "/usr/bin/x1", -5) + ua("/usr/bin/y", "y", "/usr/bin/y1", 2147483647));
  REQUIRE(calls.size() == 2);
  CHECK(calls[0].priority == -5);
  CHECK(calls[1].priority == 2147483647);
}

TEST_CASE("apt/native_effects: alternatives choose the highest priority among existing paths") {
  rp::RootfsView image;
  image.add_entries({file_entry("usr/bin/gcc", "gcc", 0755), file_entry("usr/bin/clang", "clang", 0755),
                     file_entry("usr/share/man/man1/clang.1.gz", "man")});
  std::vector<UnpackedPackage> added = {
      package("gcc", ua("/usr/bin/cc", "cc", "/usr/bin/gcc", 20)),
      package("clang", "update-alternatives --install /usr/bin/cc cc /usr/bin/clang 30 --slave /usr/share/man/man1/cc.1.gz "
                       "cc.1.gz /usr/share/man/man1/clang.1.gz\n"),
      package("tcc", ua("/usr/bin/cc", "cc", "/usr/bin/tcc", 50)),  // not in the image: ignored
  };
  NativeEffects effects = native_effects(image, added);
  CHECK(link_of(effects, "etc/alternatives/cc") == "/usr/bin/clang");
  CHECK(link_of(effects, "usr/bin/cc") == "/etc/alternatives/cc");
  CHECK(link_of(effects, "etc/alternatives/cc.1.gz") == "/usr/share/man/man1/clang.1.gz");
  CHECK(link_of(effects, "usr/share/man/man1/cc.1.gz") == "/etc/alternatives/cc.1.gz");
  CHECK(content_of(effects, "var/lib/dpkg/alternatives/cc") ==
        "auto\n/usr/bin/cc\ncc.1.gz\n/usr/share/man/man1/cc.1.gz\n\n"
        "/usr/bin/clang\n30\n/usr/share/man/man1/clang.1.gz\n"
        "/usr/bin/gcc\n20\n\n\n");
  CHECK(std::find(effects.done.begin(), effects.done.end(), "alternative cc: /usr/bin/cc -> /usr/bin/clang") !=
        effects.done.end());
}

TEST_CASE("apt/native_effects: a link under a merged-/usr directory goes where the directory link leads") {
  rp::RootfsView image;
  image.add_entries({dir_entry("usr/lib"), symlink_entry("lib", "usr/lib"), file_entry("usr/bin/cpp", "cpp", 0755)});
  std::vector<UnpackedPackage> added = {package("cpp", ua("/lib/cpp", "cpp", "/usr/bin/cpp", 10))};
  NativeEffects effects = native_effects(image, added);
  CHECK(link_of(effects, "usr/lib/cpp") == "/etc/alternatives/cpp");
  CHECK(std::none_of(effects.entries.begin(), effects.entries.end(), [](const Entry& e) { return e.path == "lib/cpp"; }));
}

TEST_CASE("apt/native_effects: a real file at the link is left alone") {
  rp::RootfsView image;
  image.add_entries({file_entry("usr/bin/gcc", "gcc", 0755), file_entry("usr/bin/cc", "a real cc", 0755)});
  NativeEffects effects = native_effects(image, {package("gcc", ua("/usr/bin/cc", "cc", "/usr/bin/gcc", 20))});
  CHECK(find(effects, "usr/bin/cc") == nullptr);
  CHECK(find(effects, "etc/alternatives/cc") == nullptr);
  CHECK(find(effects, "var/lib/dpkg/alternatives/cc") == nullptr);
  CHECK(std::find(effects.done.begin(), effects.done.end(),
                  "alternative cc not linked: /usr/bin/cc is a real file in the image") != effects.done.end());

  // A symlink there (an earlier alternative) is replaced.
  rp::RootfsView linked;
  linked.add_entries({file_entry("usr/bin/gcc", "gcc", 0755), symlink_entry("usr/bin/cc", "/etc/alternatives/cc")});
  effects = native_effects(linked, {package("gcc", ua("/usr/bin/cc", "cc", "/usr/bin/gcc", 20))});
  CHECK(link_of(effects, "etc/alternatives/cc") == "/usr/bin/gcc");
}

TEST_CASE("apt/native_effects: an existing alternatives record is merged") {
  rp::RootfsView image;
  image.add_entries({
      file_entry("usr/bin/gcc", "gcc", 0755),
      file_entry("usr/bin/old-cc", "old", 0755),
      file_entry("var/lib/dpkg/alternatives/cc", "auto\n/usr/bin/cc\n\n/usr/bin/old-cc\n100\n\n"),
  });
  NativeEffects effects = native_effects(image, {package("gcc", ua("/usr/bin/cc", "cc", "/usr/bin/gcc", 20))});
  CHECK(link_of(effects, "etc/alternatives/cc") == "/usr/bin/old-cc");  // priority 100 beats 20
  CHECK(content_of(effects, "var/lib/dpkg/alternatives/cc") == "auto\n/usr/bin/cc\n\n/usr/bin/gcc\n20\n/usr/bin/old-cc\n100\n\n");
}

TEST_CASE("apt/native_effects: ca-certificates bundle, configuration and .pem links") {
  const std::string a = "-----BEGIN CERTIFICATE-----\nAAA\n-----END CERTIFICATE-----\n";
  const std::string b = "-----BEGIN CERTIFICATE-----\nBBB\n-----END CERTIFICATE-----";  // no final newline
  std::vector<Entry> files = {
      file_entry("usr/sbin/update-ca-certificates", "#!/bin/sh\n", 0755),
      file_entry("usr/share/ca-certificates/mozilla/A_Root.crt", a),
      file_entry("usr/share/ca-certificates/mozilla/B_Root.crt", b),
      file_entry("usr/share/ca-certificates/mozilla/README", "not a certificate"),
  };
  SUBCASE("a new system enables every certificate") {
    rp::RootfsView image;
    image.add_entries(files);
    NativeEffects effects = native_effects(image, {});
    std::string conf = content_of(effects, "etc/ca-certificates.conf");
    CHECK(conf.find("\nmozilla/A_Root.crt\nmozilla/B_Root.crt\n") != std::string::npos);
    CHECK(conf.find("README") == std::string::npos);
    CHECK(content_of(effects, "etc/ssl/certs/ca-certificates.crt") == a + b + "\n");
    CHECK(link_of(effects, "etc/ssl/certs/A_Root.pem") == "/usr/share/ca-certificates/mozilla/A_Root.crt");
    CHECK(link_of(effects, "etc/ssl/certs/B_Root.pem") == "/usr/share/ca-certificates/mozilla/B_Root.crt");
    CHECK(std::find(effects.done.begin(), effects.done.end(),
                    "/etc/ssl/certs/ca-certificates.crt with 2 certificates (ca-certificates)") != effects.done.end());
  }
  SUBCASE("an existing configuration deselects with '!'") {
    files.push_back(file_entry("etc/ca-certificates.conf", "# comment\nmozilla/A_Root.crt\n!mozilla/B_Root.crt\n"));
    rp::RootfsView image;
    image.add_entries(files);
    NativeEffects effects = native_effects(image, {});
    CHECK(find(effects, "etc/ca-certificates.conf") == nullptr);
    CHECK(content_of(effects, "etc/ssl/certs/ca-certificates.crt") == a);
    CHECK(find(effects, "etc/ssl/certs/B_Root.pem") == nullptr);
  }
  SUBCASE("nothing without update-ca-certificates") {
    rp::RootfsView image;
    image.add_entries({files[1], files[2]});
    CHECK(find(native_effects(image, {}), "etc/ssl/certs/ca-certificates.crt") == nullptr);
  }
}

TEST_CASE("apt/native_effects: base-passwd copies the masters only when /etc/passwd is absent") {
  std::vector<Entry> masters = {file_entry("usr/share/base-passwd/passwd.master", "root:*:0:0:root:/root:/bin/sh\n"),
                                file_entry("usr/share/base-passwd/group.master", "root:*:0:\n")};
  rp::RootfsView fresh;
  fresh.add_entries(masters);
  NativeEffects effects = native_effects(fresh, {});
  CHECK(content_of(effects, "etc/passwd") == "root:*:0:0:root:/root:/bin/sh\n");
  CHECK(content_of(effects, "etc/group") == "root:*:0:\n");

  rp::RootfsView existing;
  existing.add_entries(masters);
  existing.add_entries({file_entry("etc/passwd", "root:x:0:0::/root:/bin/bash\n"), file_entry("etc/group", "root:x:0:\n")});
  effects = native_effects(existing, {});
  CHECK(find(effects, "etc/passwd") == nullptr);
  CHECK(find(effects, "etc/group") == nullptr);
}

TEST_CASE("apt/native_effects: merged /usr only on an empty root") {
  rp::RootfsView empty;
  CHECK(paths_of(merged_usr_entries(empty, "amd64")) ==
        std::vector<std::string>{"usr", "usr/bin", "bin -> usr/bin", "usr/sbin", "sbin -> usr/sbin", "usr/lib",
                                 "lib -> usr/lib", "usr/lib64", "lib64 -> usr/lib64"});
  CHECK(paths_of(merged_usr_entries(empty, "arm64")).size() == 7);  // no lib64

  for (const Entry& e : {dir_entry("bin"), dir_entry("sbin"), symlink_entry("lib", "usr/lib")}) {
    rp::RootfsView image;
    image.add_entries({e});
    CHECK(merged_usr_entries(image, "amd64").empty());
  }
}

TEST_CASE("apt/native_effects: scripts_not_run lists preinst and postinst") {
  UnpackedPackage both = package("both", "#!/bin/sh\n");
  both.control_files["preinst"] = "#!/bin/sh\n";
  UnpackedPackage post = package("post", "#!/bin/sh\n");
  UnpackedPackage removal_only = package("removal-only", "");
  removal_only.control_files["prerm"] = "#!/bin/sh\n";
  removal_only.control_files["postrm"] = "#!/bin/sh\n";
  CHECK(scripts_not_run({both, post, removal_only}) == std::vector<std::string>{"both: preinst, postinst", "post: postinst"});
  CHECK(scripts_not_run({}).empty());
}
