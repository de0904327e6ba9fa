#include <doctest/doctest.h>

#include "image/rootfs_view.hpp"
#include "image_test_support.hpp"
#include "test_helpers.hpp"
#include "util/error.hpp"

using namespace rp;
using namespace rp::test;

namespace {
RootfsView::KeepContent keep_all() {
  return [](std::string_view) { return true; };
}
}  // namespace

TEST_CASE("rootfs view: layers stack, whiteouts hide lower files, opaque dirs hide lower children") {
  TempDir dir;
  ContentStore store(dir.path / "store");
  auto lower = store_layer(store, {dir_entry("etc"), file_entry("etc/a", "A"), file_entry("etc/b", "B"),
                                   dir_entry("opt"), dir_entry("opt/app"), file_entry("opt/app/old", "old"),
                                   file_entry("opt/app/keep-not", "x"), file_entry("gone", "g")},
                           "gzip");
  // The opaque marker comes after a file of the same layer in the same directory: that file stays.
  auto upper = store_layer(store, {file_entry(".wh.gone", ""), file_entry("etc/.wh.a", ""),
                                   file_entry("opt/app/new", "new"), file_entry("opt/app/.wh..wh..opq", ""),
                                   file_entry("etc/b", "B2")},
                           "zstd");
  RootfsView view;
  view.add_layer(store, lower, keep_all());
  CHECK(view.read("/etc/a") == "A");
  view.add_layer(store, upper, keep_all());
  CHECK_FALSE(view.lstat("/etc/a"));
  CHECK_FALSE(view.lstat("gone"));
  CHECK(view.read("etc/b") == "B2");
  CHECK(view.list("/opt/app") == std::vector<std::string>{"new"});
  CHECK(view.list("/") == std::vector<std::string>{"etc", "opt"});
  CHECK(view.list("/etc") == std::vector<std::string>{"b"});
}

TEST_CASE("rootfs view: symlink chains, relative and absolute targets, loops") {
  TempDir dir;
  ContentStore store(dir.path / "store");
  auto layer = store_layer(store,
                           {dir_entry("usr"), dir_entry("usr/lib"), dir_entry("usr/bin"),
                            file_entry("usr/bin/python3.11", "ELF", 0755), symlink_entry("usr/bin/python3", "python3.11"),
                            symlink_entry("usr/bin/python", "/usr/bin/python3"), symlink_entry("bin", "usr/bin"),
                            symlink_entry("lib", "usr/lib"), dir_entry("usr/lib/x"), file_entry("usr/lib/x/f", "F"),
                            symlink_entry("usr/lib/up", "../bin/./python"), symlink_entry("loop1", "loop2"),
                            symlink_entry("loop2", "loop1"), symlink_entry("dangling", "/nowhere")},
                           "none");
  RootfsView view;
  view.add_layer(store, layer, keep_all());
  CHECK(view.realpath("/bin/python") == "/usr/bin/python3.11");
  CHECK(view.realpath("usr/lib/up") == "/usr/bin/python3.11");
  CHECK(view.realpath("/lib/x/f") == "/usr/lib/x/f");
  CHECK(view.lstat("/bin/python3")->type == EntryType::kSymlink);  // the last component is not followed
  CHECK(view.lstat("/bin/python3")->link_target == "python3.11");
  CHECK(view.lstat("/bin")->type == EntryType::kSymlink);
  CHECK(view.lstat("/bin/python3.11")->mode == 0755);
  CHECK(view.read("/bin/python") == "ELF");
  CHECK(view.list("/lib") == std::vector<std::string>{"up", "x"});
  CHECK_FALSE(view.realpath("/loop1"));
  CHECK_FALSE(view.read("/loop1"));
  CHECK_FALSE(view.realpath("/dangling"));
  CHECK(view.lstat("/dangling"));
  CHECK_FALSE(view.lstat("/usr/bin/python3.11/child"));  // a file is no directory
  CHECK(view.realpath("/") == "/");
}

TEST_CASE("rootfs view: hardlinks share their target's node -- keep decides which contents stay") {
  TempDir dir;
  ContentStore store(dir.path / "store");
  auto layer = store_layer(store, {dir_entry("a"), file_entry("a/kept", "kept bytes", 0755),
                                   hardlink_entry("a/link", "a/kept"), file_entry("a/big", std::string(1000, 'x'))});
  RootfsView view;
  view.add_layer(store, layer, [](std::string_view p) { return p == "a/kept"; });
  auto node = view.lstat("/a/link");
  REQUIRE(node);
  CHECK(node->type == EntryType::kFile);
  CHECK(node->size == 10);
  CHECK(node->mode == 0755);
  CHECK(view.read("/a/link") == "kept bytes");
  CHECK(view.lstat("/a/big")->size == 1000);
  CHECK_FALSE(view.read("/a/big"));  // not kept
  CHECK_FALSE(view.read("/a/kept", 5));  // larger than max
  CHECK_FALSE(view.read("/a"));          // a directory
}

TEST_CASE("rootfs view: a file replacing a directory drops its subtree -- entries read on demand") {
  TempDir dir;
  ContentStore store(dir.path / "store");
  auto layer = store_layer(store, {dir_entry("d"), file_entry("d/x", "x"), file_entry("deep/er/f", "f")});
  RootfsView view;
  view.add_layer(store, layer, keep_all());
  CHECK(view.lstat("/deep/er")->type == EntryType::kDirectory);  // implicit parents
  view.add_entries({file_entry("d", "now a file"), symlink_entry("s", "d"), hardlink_entry("h", "d")});
  CHECK_FALSE(view.lstat("/d/x"));
  CHECK(view.read("/s") == "now a file");
  CHECK(view.read("/h") == "now a file");
  CHECK(view.lstat("/d")->size == 10);
  CHECK(view.list("/d").empty());
}

TEST_CASE("rootfs view: members below a symlinked directory land in its target (usrmerge)") {
  TempDir dir;
  ContentStore store(dir.path / "store");
  auto lower = store_layer(store, {dir_entry("usr"), dir_entry("usr/lib"), symlink_entry("lib", "usr/lib")});
  auto upper = store_layer(store, {dir_entry("lib"), dir_entry("lib/x86_64-linux-gnu"),
                                   file_entry("lib/x86_64-linux-gnu/libc.so.6", "libc")});
  RootfsView view;
  view.add_layer(store, lower, keep_all());
  view.add_layer(store, upper, keep_all());
  CHECK(view.lstat("/lib")->type == EntryType::kDirectory);  // a directory entry replaces the link
  RootfsView merged;
  merged.add_layer(store, lower, keep_all());
  merged.add_entries({file_entry("lib/x86_64-linux-gnu/libc.so.6", "libc")});
  CHECK(merged.lstat("/lib")->type == EntryType::kSymlink);
  CHECK(merged.read("/usr/lib/x86_64-linux-gnu/libc.so.6") == "libc");
  // One layer whose `lib -> usr/lib` sorts before usr/lib exists: lib/cpp makes usr/lib, the link stays.
  auto ahead = store_layer(store, {symlink_entry("lib", "usr/lib"), symlink_entry("lib/cpp", "/etc/alternatives/cpp"),
                                   dir_entry("usr"), dir_entry("usr/lib")});
  RootfsView one;
  one.add_layer(store, ahead, keep_all());
  CHECK(one.lstat("/lib")->type == EntryType::kSymlink);
  CHECK(one.lstat("/usr/lib/cpp")->type == EntryType::kSymlink);
}

TEST_CASE("rootfs view: a corrupt or unsupported layer blob is an error") {
  TempDir dir;
  ContentStore store(dir.path / "store");
  auto layer = store_layer(store, {file_entry("f", "content")}, "none");
  RootfsView view;
  Descriptor wrong = layer;
  wrong.media_type = "application/vnd.oci.image.layer.v1.tar+lz4";
  CHECK_THROWS_AS(view.add_layer(store, wrong, keep_all()), Error);
  // Change the blob's bytes behind the store's back: the digest check notices.
  auto path = store.blob_path(layer.digest);
  std::string bytes = read_file(path);
  bytes[600] ^= 1;
  fs::permissions(path, fs::perms::owner_write, fs::perm_options::add);
  write_file_atomic(path, bytes);
  CHECK_THROWS_AS(view.add_layer(store, layer, keep_all()), Error);
}
