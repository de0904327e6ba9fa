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
