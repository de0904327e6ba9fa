#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "sandbox/tree_diff.hpp"
#include "test_helpers.hpp"

using namespace rp;
using namespace rp::test;
namespace fs = std::filesystem;

namespace {
const Entry* find(const std::vector<Entry>& entries, const std::string& path) {
  for (const auto& e : entries)
    if (e.path == path) return &e;
  return nullptr;
}
}  // namespace

TEST_CASE("tree diff: created, changed and deleted files -- whiteouts -- untouched files stay out") {
  TempDir dir;
  dir.write("etc/keep", "same");
  dir.write("etc/change", "old");
  dir.write("etc/gone", "x");
  dir.write("opt/tree/a", "a");
  dir.write("opt/tree/b", "b");
  dir.write("var/lib/x", "x");
  auto before = snapshot_tree(dir.path);

  dir.write("etc/new", "new");
  dir.write("etc/change", "changed!");
  fs::remove(dir.path / "etc/gone");
  fs::remove_all(dir.path / "opt/tree");
  auto after = snapshot_tree(dir.path);
  auto entries = diff_trees(dir.path, before, after, {});

  REQUIRE(find(entries, "etc/new"));
  CHECK(find(entries, "etc/new")->content->size() == 3);
  REQUIRE(find(entries, "etc/change"));
  CHECK(find(entries, "etc/change")->content->size() == 8);
  CHECK(find(entries, "etc/.wh.gone"));
  CHECK(find(entries, "opt/.wh.tree"));
  CHECK_FALSE(find(entries, "opt/tree/.wh.a"));  // one whiteout for the deleted directory
  CHECK_FALSE(find(entries, "etc/keep"));
  CHECK_FALSE(find(entries, "var/lib/x"));
  CHECK_FALSE(find(entries, "var"));
}

TEST_CASE("tree diff: a directory removed and made again is opaque -- parents keep their modes") {
  TempDir dir;
  dir.write("srv/data/old1", "1");
  dir.write("srv/data/old2", "2");
  fs::create_directories(dir.path / "scratch");
  ::chmod((dir.path / "scratch").c_str(), 01777);
  auto before = snapshot_tree(dir.path);

  fs::remove_all(dir.path / "srv/data");
  dir.write("srv/data/fresh", "f");
  dir.write("scratch/file", "s");
  auto entries = diff_trees(dir.path, before, snapshot_tree(dir.path), {});

  CHECK(find(entries, "srv/data/.wh..wh..opq"));
  CHECK(find(entries, "srv/data/fresh"));
  CHECK_FALSE(find(entries, "srv/data/.wh.old1"));
  REQUIRE(find(entries, "scratch"));
  CHECK(find(entries, "scratch")->mode == 01777);
}

TEST_CASE("tree diff: litter and new __pycache__ are dropped unless asked for -- hard links -- symlinks") {
  TempDir dir;
  fs::create_directories(dir.path / "tmp");
  fs::create_directories(dir.path / "var/cache/apt");
  fs::create_directories(dir.path / "usr/lib/py/__pycache__");
  auto before = snapshot_tree(dir.path);

  dir.write("tmp/build.o", "o");
  dir.write("var/cache/apt/pkgcache.bin", "c");
  dir.write("var/log/dpkg.log", "l");
  dir.write("usr/lib/py/mod/__pycache__/m.pyc", "p");
  dir.write("usr/lib/py/__pycache__/kept.pyc", "k");  // the directory was there before the step
  dir.write("usr/bin/tool", "t");
  ::link((dir.path / "usr/bin/tool").c_str(), (dir.path / "usr/bin/tool2").c_str());
  fs::create_symlink("tool", dir.path / "usr/bin/alias");
  auto after = snapshot_tree(dir.path);

  auto entries = diff_trees(dir.path, before, after, {});
  CHECK_FALSE(find(entries, "tmp/build.o"));
  CHECK_FALSE(find(entries, "var/cache/apt/pkgcache.bin"));
  CHECK_FALSE(find(entries, "var/log/dpkg.log"));
  CHECK_FALSE(find(entries, "usr/lib/py/mod/__pycache__"));
  CHECK_FALSE(find(entries, "usr/lib/py/mod/__pycache__/m.pyc"));
  CHECK(find(entries, "usr/lib/py/__pycache__/kept.pyc"));
  REQUIRE(find(entries, "usr/bin/tool2"));
  CHECK(find(entries, "usr/bin/tool")->type == EntryType::kFile);
  CHECK(find(entries, "usr/bin/tool2")->type == EntryType::kHardlink);
  CHECK(find(entries, "usr/bin/tool2")->link_target == "usr/bin/tool");
  REQUIRE(find(entries, "usr/bin/alias"));
  CHECK(find(entries, "usr/bin/alias")->link_target == "tool");

  DiffOptions keep;
  keep.keep_pycache = true;
  keep.keep_litter = true;
  auto all = diff_trees(dir.path, before, after, keep);
  CHECK(find(all, "tmp/build.o"));
  CHECK(find(all, "usr/lib/py/mod/__pycache__/m.pyc"));
}

TEST_CASE("tree diff: nothing changed gives no entries") {
  TempDir dir;
  dir.write("a/b", "b");
  auto before = snapshot_tree(dir.path);
  CHECK(diff_trees(dir.path, before, snapshot_tree(dir.path), {}).empty());
}

TEST_CASE("tree diff: build litter -- dpkg and debconf backups, not their databases") {
  CHECK(is_build_litter("tmp/x"));
  CHECK(is_build_litter("var/log/dpkg.log"));
  CHECK(is_build_litter("var/cache/ldconfig/aux-cache"));
  CHECK(is_build_litter("var/lib/dpkg/status-old"));
  CHECK(is_build_litter("var/cache/debconf/config.dat-old"));
  CHECK_FALSE(is_build_litter("var/lib/dpkg/status"));
  CHECK_FALSE(is_build_litter("var/cache/debconf/config.dat"));
  CHECK_FALSE(is_build_litter("var/lib/dpkg/info/foo-old"));  // a package may be named *-old
  CHECK_FALSE(is_build_litter("var/lib/dpkg/-old"));
  CHECK_FALSE(is_build_litter("etc/tmp"));
}
