#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <memory>

#include "sandbox/materialize.hpp"
#include "test_helpers.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

using namespace rp;
using namespace rp::test;
namespace fs = std::filesystem;

namespace {
Entry make(const std::string& path, EntryType type, const std::string& content = {}, uint32_t mode = 0644) {
  Entry e;
  e.path = path;
  e.type = type;
  e.mode = type == EntryType::kDirectory ? 0755 : mode;
  e.origin = "test";
  if (type == EntryType::kFile) e.content = std::make_shared<InlineContent>(content);
  if (type == EntryType::kSymlink || type == EntryType::kHardlink) e.link_target = content;
  return e;
}
}  // namespace

TEST_CASE("materialize: layers stack -- whiteouts and opaque dirs remove lower paths -- links and modes kept") {
  TempDir dir;
  fs::path root = dir.path / "root";
  fs::create_directories(root);
  materialize_layer({make("etc", EntryType::kDirectory), make("etc/a", EntryType::kFile, "A"),
                     make("etc/gone", EntryType::kFile, "g"), make("opt", EntryType::kDirectory),
                     make("opt/old", EntryType::kFile, "o"), make("bin", EntryType::kDirectory),
                     make("bin/tool", EntryType::kFile, "t", 04755), make("bin/tool2", EntryType::kHardlink, "bin/tool"),
                     make("bin/alias", EntryType::kSymlink, "tool")},
                    root);
  materialize_layer({make("etc/.wh.gone", EntryType::kFile), make("opt/.wh..wh..opq", EntryType::kFile),
                     make("opt/new", EntryType::kFile, "n"), make("etc/a", EntryType::kFile, "A2")},
                    root);
  CHECK(read_file(root / "etc/a") == "A2");
  CHECK_FALSE(fs::exists(root / "etc/gone"));
  CHECK_FALSE(fs::exists(root / "opt/old"));
  CHECK(read_file(root / "opt/new") == "n");
  struct stat tool {}, tool2 {};
  ::stat((root / "bin/tool").c_str(), &tool);
  ::stat((root / "bin/tool2").c_str(), &tool2);
  CHECK(tool.st_ino == tool2.st_ino);
  CHECK((tool.st_mode & 07777) == 04755);
  CHECK(fs::read_symlink(root / "bin/alias") == "tool");
}

TEST_CASE("materialize: symlinks in a path resolve inside the root, never outside it") {
  TempDir dir;
  fs::path root = dir.path / "root";
  fs::create_directories(root);
  fs::create_directories(dir.path / "outside");
  // An absolute link to a host directory means that path inside the root; a ".." link stops at the root.
  materialize_layer({make("escape", EntryType::kSymlink, (dir.path / "outside").string()),
                     make("up", EntryType::kSymlink, "../../../.."), make("usr", EntryType::kDirectory),
                     make("usr/bin", EntryType::kDirectory), make("usr/lib", EntryType::kDirectory), make("bin", EntryType::kSymlink, "usr/bin"),
                     make("lib", EntryType::kSymlink, "/usr/lib")},
                    root);
  // A dangling link is given its directory inside the root, as runtimes extract `lib -> usr/lib`
  // ahead of usr/lib; the absolute host path it names means that path inside the root.
  materialize_layer({make("escape/file", EntryType::kFile, "x"), make("lib64", EntryType::kSymlink, "usr/lib64"),
                     make("lib64/ld.so", EntryType::kFile, "ld")},
                    root);
  CHECK(read_file(root / (dir.path / "outside/file").relative_path()) == "x");
  CHECK(read_file(root / "usr/lib64/ld.so") == "ld");
  CHECK(fs::is_symlink(root / "lib64"));
  materialize_layer({make("up/file", EntryType::kFile, "u"), make("bin/tool", EntryType::kFile, "t"),
                     make("lib/x/libx.so", EntryType::kFile, "l")},
                    root);
  CHECK_FALSE(fs::exists(dir.path / "outside/file"));
  CHECK(read_file(root / "file") == "u");              // up/ resolved to the root itself
  CHECK(read_file(root / "usr/bin/tool") == "t");      // merged /usr: bin -> usr/bin
  CHECK(read_file(root / "usr/lib/x/libx.so") == "l");  // absolute link, inside the root; x/ made
  CHECK(fs::is_symlink(root / "bin"));
}

TEST_CASE("resolve_user: names from the image's passwd and group, numbers as given") {
  TempDir dir;
  dir.write("etc/passwd", "root:x:0:0:root:/root:/bin/sh\njenkins:x:1000:1001::/var/lib/jenkins:/bin/bash\n");
  dir.write("etc/group", "root:x:0:\nvideo:x:44:\n");
  CHECK(resolve_user(dir.path, "jenkins", "t").uid == 1000);
  CHECK(resolve_user(dir.path, "jenkins", "t").gid == 1001);
  CHECK(resolve_user(dir.path, "jenkins:video", "t").gid == 44);
  CHECK(resolve_user(dir.path, "123:45", "t").uid == 123);
  CHECK(resolve_user(dir.path, "123:45", "t").gid == 45);
  CHECK_THROWS_AS(resolve_user(dir.path, "nobody", "t"), InputError);
}

TEST_CASE("resolve_user: /etc/passwd is read inside the root -- links to host files, devices and FIFOs are refused or stay inside") {
  TempDir dir;
  fs::path root = dir.path / "root";
  fs::create_directories(root / "etc");
  // A host file the image points at: its ids must never be used.
  dir.write("host-secret", "evil:x:4242:4242::/:/bin/sh\n");
  fs::create_symlink(dir.path / "host-secret", root / "etc/passwd");
  CHECK_THROWS_AS(resolve_user(root, "evil", "t"), InputError);  // the link means <root>/<dir>/host-secret: absent
  fs::remove(root / "etc/passwd");
  fs::create_symlink("../../../../../../../../" + (dir.path / "host-secret").relative_path().string(), root / "etc/passwd");
  CHECK_THROWS_AS(resolve_user(root, "evil", "t"), InputError);  // ".." stops at the root
  fs::remove(root / "etc/passwd");
  fs::create_symlink("/dev/zero", root / "etc/passwd");
  CHECK_THROWS_AS(resolve_user(root, "evil", "t"), InputError);
  fs::remove(root / "etc/passwd");
  REQUIRE(::mkfifo((root / "etc/passwd").c_str(), 0644) == 0);
  CHECK_THROWS_AS(resolve_user(root, "evil", "t"), InputError);  // not a regular file; and no hang
  fs::remove(root / "etc/passwd");
  dir.write("root/etc/passwd", std::string(5u << 20, '#'));
  CHECK_THROWS_AS(resolve_user(root, "evil", "t"), InputError);  // larger than the cap
  // A link inside the image is followed inside it.
  dir.write("root/etc/real-passwd", "app:x:1234:99::/:/bin/sh\n");
  fs::remove(root / "etc/passwd");
  fs::create_symlink("/etc/real-passwd", root / "etc/passwd");
  CHECK(resolve_user(root, "app", "t").uid == 1234);
  CHECK(resolve_user(root, "app", "t").gid == 99);
}

TEST_CASE("materialize: owners are written through the sandbox's id mapping") {
  if (::geteuid() != 0) {
    MESSAGE("skipped: needs root to chown");
    return;
  }
  TempDir dir;
  fs::path root = dir.path / "root";
  fs::create_directories(root);
  IdMapping ids{{100000, 65536}, {200000, 65536}};
  Entry file = make("a/b/file", EntryType::kFile, "x");
  file.uid = 5;
  file.gid = 6;
  Entry far = make("far", EntryType::kFile, "y");
  far.uid = 70000;  // beyond the mapping: the container's nobody
  materialize_layer({file, far}, root, ids);
  struct stat st {};
  REQUIRE(::lstat((root / "a/b/file").c_str(), &st) == 0);
  CHECK(st.st_uid == 100005);
  CHECK(st.st_gid == 200006);
  REQUIRE(::lstat((root / "a").c_str(), &st) == 0);  // a parent made on the way: container root's
  CHECK(st.st_uid == 100000);
  REQUIRE(::lstat((root / "far").c_str(), &st) == 0);
  CHECK(st.st_uid == 100000 + 65534);
  CHECK(ids.uids.to_container(100005) == 5u);
  CHECK_FALSE(ids.uids.to_container(0).has_value());
}
