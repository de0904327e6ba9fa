#include <doctest/doctest.h>
#include <zlib.h>

#include <map>
#include <set>
#include <thread>

#include "assemble/compression.hpp"
#include "assemble/layer_builder.hpp"
#include "assemble/tar_writer.hpp"
#include "plan/host_files.hpp"
#include "plan/layer_split.hpp"
#include "test_helpers.hpp"
#include "util/digest.hpp"
#include "util/error.hpp"

using namespace rp;
using rp::test::TempDir;

namespace {

Entry file(const std::string& path, const std::string& content, uint32_t mode = 0644) {
  Entry e;
  e.path = path;
  e.type = EntryType::kFile;
  e.mode = mode;
  e.content = std::make_shared<InlineContent>(content);
  e.origin = "test";
  return e;
}

Entry link_entry(const std::string& path, const std::string& target, EntryType type = EntryType::kSymlink) {
  Entry e;
  e.path = path;
  e.type = type;
  e.mode = 0777;
  e.link_target = target;
  e.origin = "test";
  return e;
}

std::string tar_of(std::vector<Entry> entries, int64_t mtime) {
  finalize_entries(entries);
  StringSink out;
  TarWriter tar(out, mtime);
  for (const auto& e : entries) tar.add(e);
  tar.finish();
  return out.take();
}

std::string compress(const std::string& data, const std::string& spec, unsigned threads) {
  StringSink out;
  auto c = make_compressor(Compression::parse(spec), out, threads);
  // Feed in odd-sized pieces to exercise block boundaries.
  for (size_t i = 0; i < data.size(); i += 77777) c->write(data.data() + i, std::min<size_t>(77777, data.size() - i));
  c->finish();
  return out.take();
}

// Pseudo-random but compressible data, a few MiB: crosses several gzip blocks.
std::string sample_data(size_t size) {
  std::string s;
  s.reserve(size);
  uint32_t x = 12345;
  while (s.size() < size) {
    x = x * 1103515245 + 12345;
    if ((x >> 16) % 3 == 0) s += "the quick brown fox jumps over the lazy dog ";
    else s.push_back(static_cast<char>(x >> 24));
  }
  s.resize(size);
  return s;
}

std::string gunzip_all(const std::string& gz) {
  // Decompresses every concatenated gzip member, the way Go and containerd read layers.
  std::string out;
  z_stream zs{};
  REQUIRE(inflateInit2(&zs, 16 + MAX_WBITS) == Z_OK);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
  zs.avail_in = static_cast<uInt>(gz.size());
  char buf[65536];
  for (;;) {
    zs.next_out = reinterpret_cast<Bytef*>(buf);
    zs.avail_out = sizeof buf;
    int r = inflate(&zs, Z_NO_FLUSH);
    out.append(buf, sizeof buf - zs.avail_out);
    if (r == Z_STREAM_END) {
      if (zs.avail_in == 0) break;
      inflateReset(&zs);
      continue;
    }
    REQUIRE(r == Z_OK);
  }
  inflateEnd(&zs);
  return out;
}

}  // namespace

TEST_CASE("tar: entries are sorted, parents added, metadata fixed") {
  std::string tar = tar_of({file("usr/bin/tool", "#!/bin/sh\n", 0755), file("etc/motd", "hi\n"),
                            link_entry("usr/bin/t", "tool")},
                           1700000000);
  auto members = test::read_tar(tar);
  std::vector<std::string> paths;
  for (const auto& m : members) paths.push_back(m.path);
  CHECK(paths == std::vector<std::string>{"etc/", "etc/motd", "usr/", "usr/bin/", "usr/bin/t", "usr/bin/tool"});
  for (const auto& m : members) {
    CHECK(m.mtime == 1700000000);
    CHECK(m.uname.empty());
    CHECK(m.gname.empty());
  }
  CHECK(members[0].type == AE_IFDIR);
  CHECK(members[0].mode == 0755);
  CHECK(members[4].type == AE_IFLNK);
  CHECK(members[4].symlink == "tool");
  CHECK(members[5].mode == 0755);
  CHECK(members[5].data == "#!/bin/sh\n");
  CHECK(tar.size() % 512 == 0);
}

TEST_CASE("tar: long paths and link targets use PAX records") {
  std::string deep = "a/" + std::string(150, 'd') + "/file";
  std::string target = "../" + std::string(120, 't');
  auto members = test::read_tar(tar_of({file(deep, "x"), link_entry("l", target)}, 0));
  bool found_file = false, found_link = false;
  for (const auto& m : members) {
    if (m.path == deep) found_file = m.data == "x";
    if (m.path == "l") found_link = m.symlink == target;
  }
  CHECK(found_file);
  CHECK(found_link);
}

TEST_CASE("tar: hardlinks point to an earlier regular file") {
  auto members = test::read_tar(tar_of({file("a/data", "payload"), link_entry("b/alias", "a/data", EntryType::kHardlink)}, 0));
  REQUIRE(members.size() == 4);
  CHECK(members[3].path == "b/alias");
  CHECK(members[3].hardlink == "a/data");
  std::vector<Entry> bad = {file("z/data", "p"), link_entry("a/alias", "z/data", EntryType::kHardlink)};
  CHECK_THROWS_AS(finalize_entries(bad), InputError);
}

TEST_CASE("tar: same entries give the same bytes -- another mtime gives others") {
  auto entries = [] { return std::vector<Entry>{file("b", "2"), file("a", "1"), link_entry("c", "a")}; };
  CHECK(tar_of(entries(), 0) == tar_of(entries(), 0));
  CHECK(sha256_digest(tar_of(entries(), 0)) != sha256_digest(tar_of(entries(), 1)));
}

TEST_CASE("entries: unsafe and conflicting paths are rejected") {
  CHECK_THROWS_AS(normalize_image_path("/a/../../etc/passwd", "t"), InputError);
  CHECK_THROWS_AS(normalize_image_path("/", "t"), InputError);
  CHECK(normalize_image_path("//usr/./bin//x", "t") == "usr/bin/x");
  std::vector<Entry> dup = {file("a", "1"), file("a", "2")};
  CHECK_THROWS_WITH_AS(finalize_entries(dup), doctest::Contains("written twice"), InputError);
  std::vector<Entry> under_file = {file("a", "1"), file("a/b", "2")};
  CHECK_THROWS_WITH_AS(finalize_entries(under_file), doctest::Contains("lies under /a"), InputError);
}

TEST_CASE("compression: gzip members decompress to the input and do not depend on thread count") {
  std::string data = sample_data(5 << 20);
  std::string one = compress(data, "gzip", 1);
  std::string many = compress(data, "gzip", 4);
  CHECK(one == many);
  CHECK(gunzip_all(one) == data);
  CHECK(one.size() < data.size());
  CHECK(compress(data, "gzip:1", 2) != one);  // the level matters
  CHECK(gunzip_all(compress("", "gzip", 2)).empty());
}

TEST_CASE("compression: zstd output does not depend on thread count and round-trips") {
  std::string data = sample_data(3 << 20);
  std::string one = compress(data, "zstd", 1);
  CHECK(one == compress(data, "zstd", 3));
  // libarchive reads a zstd-compressed tar
  std::string tar = tar_of({file("big", data)}, 0);
  auto members = test::read_tar(compress(tar, "zstd:5", 2));
  REQUIRE(members.size() == 1);
  CHECK(members[0].data == data);
}

TEST_CASE("compression: spec parsing") {
  CHECK(Compression::parse("gzip").str() == "gzip:6");
  CHECK(Compression::parse("zstd:19").str() == "zstd:19");
  CHECK(Compression::parse("none").str() == "none");
  CHECK_THROWS_AS(Compression::parse("zstd:30"), InputError);
  CHECK_THROWS_AS(Compression::parse("brotli"), InputError);
  CHECK_THROWS_AS(Compression::parse("gzip:x"), InputError);
}

TEST_CASE("layer builder: digests match the blob, the cache reuses layers, inputs change digests") {
  TempDir dir;
  ContentStore store(dir.path / "store");
  std::vector<Entry> entries = {file("etc/a", sample_data(3 << 20)), file("etc/b", "b")};
  finalize_entries(entries);
  LayerBuilder builder(store, {Compression::parse("gzip"), 0, 2, true});
  BuiltLayer first = builder.build("l", entries);
  CHECK_FALSE(first.from_cache);
  std::string blob = store.read_all(first.layer.blob.digest);
  CHECK(sha256_digest(blob) == first.layer.blob.digest);
  CHECK(static_cast<int64_t>(blob.size()) == first.layer.blob.size);
  CHECK(sha256_digest(gunzip_all(blob)) == first.layer.diff_id);

  BuiltLayer second = builder.build("l", entries);
  CHECK(second.from_cache);
  CHECK(second.layer.blob.digest == first.layer.blob.digest);

  LayerBuilder other_epoch(store, {Compression::parse("gzip"), 42, 2, true});
  CHECK(other_epoch.build("l", entries).layer.diff_id != first.layer.diff_id);

  LayerBuilder zstd(store, {Compression::parse("zstd"), 0, 2, true});
  BuiltLayer z = zstd.build("l", entries);
  CHECK(z.layer.diff_id == first.layer.diff_id);  // same tar, other compression
  CHECK(z.layer.blob.digest != first.layer.blob.digest);
  CHECK(z.layer.blob.media_type == std::string("application/vnd.oci.image.layer.v1.tar+zstd"));
}

TEST_CASE("host files: a directory keeps symlinks, hardlinks and modes") {
  TempDir dir;
  auto src = dir.path / "tree";
  dir.write("tree/bin/tool", "tool");
  std::filesystem::permissions(src / "bin/tool", std::filesystem::perms(0750));
  dir.write("tree/share/doc.txt", "doc");
  std::filesystem::create_hard_link(src / "share/doc.txt", src / "bin/doc-link");
  std::filesystem::create_symlink("tool", src / "bin/alias");
  std::filesystem::create_directory_symlink("../share", src / "bin/share-dir");
  std::vector<Entry> entries;
  add_host_entries({src, "opt/app", std::nullopt, 7, 8, "test"}, entries);
  finalize_entries(entries);
  std::map<std::string, const Entry*> by;
  for (const auto& e : entries) by[e.path] = &e;
  REQUIRE(by.count("opt/app/bin/tool"));
  CHECK(by["opt/app/bin/tool"]->mode == 0750);
  CHECK(by["opt/app/bin/tool"]->uid == 7);
  CHECK(by["opt/app/bin/alias"]->type == EntryType::kSymlink);
  CHECK(by["opt/app/bin/share-dir"]->type == EntryType::kSymlink);
  CHECK(by["opt/app/bin/share-dir"]->link_target == "../share");
  // bin/doc-link sorts before share/doc.txt: it carries the content, the other links to it.
  CHECK(by["opt/app/bin/doc-link"]->type == EntryType::kFile);
  CHECK(by["opt/app/share/doc.txt"]->type == EntryType::kHardlink);
  CHECK(by["opt/app/share/doc.txt"]->link_target == "opt/app/bin/doc-link");
  CHECK(by["opt"]->type == EntryType::kDirectory);
}

TEST_CASE("layer builder: the quick key never serves a stale layer") {
  TempDir dir;
  ContentStore store(dir.path / "store");
  auto src = dir.write("tree/a.txt", "version one");
  auto plan_entries = [&] {
    std::vector<Entry> entries;
    add_host_entries({dir.path / "tree", "app", std::nullopt, 0, 0, "test"}, entries);
    finalize_entries(entries);
    return entries;
  };
  LayerBuilder builder(store, {Compression::parse("gzip"), 0, 1, true});
  BuiltLayer first = builder.build("l", plan_entries(), "recipe/l");
  CHECK(builder.build("l", plan_entries(), "recipe/l").from_cache);

  // Same size, new content: the file's ctime moves, the quick key misses, the content differs.
  write_file_atomic(src, "version two");
  BuiltLayer changed = builder.build("l", plan_entries(), "recipe/l");
  CHECK_FALSE(changed.from_cache);
  CHECK(changed.layer.diff_id != first.layer.diff_id);

  // Rewritten with identical bytes: the quick key misses, the content key finds the layer.
  write_file_atomic(src, "version two");
  BuiltLayer same = builder.build("l", plan_entries(), "recipe/l");
  CHECK(same.from_cache);
  CHECK(same.layer.blob.digest == changed.layer.blob.digest);
}

TEST_CASE("layer builder: two builds sharing a store make a layer once, the other waits and takes it") {
  TempDir dir;
  std::vector<Entry> entries = {file("opt/shared.bin", sample_data(8 << 20)), file("opt/x", "x")};
  finalize_entries(entries);
  // Two store objects on one directory, as two processes would have (variants built side by side).
  ContentStore store_a(dir.path / "store");
  ContentStore store_b(dir.path / "store");
  BuiltLayer a, b;
  std::thread ta([&] { a = LayerBuilder(store_a, {Compression::parse("gzip"), 0, 1, true}).build("shared", entries); });
  std::thread tb([&] { b = LayerBuilder(store_b, {Compression::parse("gzip"), 0, 1, true}).build("shared", entries); });
  ta.join();
  tb.join();
  CHECK(a.layer.blob.digest == b.layer.blob.digest);
  CHECK(static_cast<int>(a.from_cache) + static_cast<int>(b.from_cache) == 1);  // one compressed, one took it
  CHECK(std::filesystem::exists(dir.path / "store" / "locks"));
}

// --- plan/layer_split: a layer over max_layer_size split into layers that unpack to the same tree

namespace layer_split_test {

using namespace rp;

Entry make(const std::string& path, EntryType type, const std::string& content = {}, const std::string& link = {}) {
  Entry e;
  e.path = path;
  e.type = type;
  e.mode = type == EntryType::kDirectory ? 0700 : 0640;  // not finalize_entries' 0755: must survive a split
  e.uid = 7;
  if (type == EntryType::kFile) e.content = std::make_shared<InlineContent>(content);
  e.link_target = link;
  e.origin = "test";
  return e;
}

// A layer of ~20 KB: directories with their own modes, files, a hardlink group spread over the
// path order, a symlink, an opaque directory and a whiteout.
LayerPlan sample() {
  LayerPlan l;
  l.name = "torch";
  l.created_by = "rockpack python: torch==2";
  l.step = "python";
  const std::string kb(1024, 'x');
  std::vector<Entry> e = {
      make("a", EntryType::kDirectory),
      make("a/-first", EntryType::kFile, kb),  // '-' sorts before '.': the marker comes after it
      make("a/.wh..wh..opq", EntryType::kFile),
      make("a/b", EntryType::kDirectory),
      make("a/b/big", EntryType::kFile, std::string(6000, 'b')),
      make("a/b/one", EntryType::kFile, kb + kb),
      make("a/b/two", EntryType::kFile, kb + kb),
      make("a/c", EntryType::kDirectory),
      make("a/c/link-to-one", EntryType::kHardlink, {}, "a/b/one"),
      make("a/c/three", EntryType::kFile, kb + kb),
      make("a/d", EntryType::kDirectory),
      make("a/d/empty", EntryType::kDirectory),
      make("a/d/four", EntryType::kFile, kb + kb + kb),
      make("a/d/sym", EntryType::kSymlink, {}, "four"),
      make("z", EntryType::kDirectory),
      make("z/.wh.gone", EntryType::kFile),
      make("z/five", EntryType::kFile, kb + kb),
      make("z/link-to-five", EntryType::kHardlink, {}, "z/five"),
  };
  l.entries = e;
  return l;
}

std::string describe(const Entry& e) {
  return e.path + " " + std::to_string(static_cast<int>(e.type)) + " " + std::to_string(e.mode) + " " +
         std::to_string(e.uid) + " " + e.link_target + " " + std::to_string(e.size());
}

uint64_t tar_bytes(const std::vector<Entry>& entries) {
  uint64_t n = 0;
  for (const auto& e : entries) n += tar_size_of(e);
  return n;
}

std::vector<std::string> listing(const std::vector<LayerPlan>& parts) {
  std::vector<std::string> out;
  for (const auto& p : parts) {
    out.push_back("# " + p.name + " | " + p.created_by);
    for (const auto& e : p.entries) out.push_back(describe(e));
  }
  return out;
}


TEST_CASE("split_layer: a layer under the cap stays as it is") {
  auto parts = split_layer(sample(), 1'000'000);
  REQUIRE(parts.size() == 1);
  CHECK(parts[0].name == "torch");
  CHECK(parts[0].created_by == "rockpack python: torch==2");
  CHECK(parts[0].entries.size() == sample().entries.size());
}

TEST_CASE("split_layer: parts unpack to the same tree, keep hardlink groups and directory modes") {
  const LayerPlan original = sample();
  const uint64_t cap = 5000;
  auto parts = split_layer(original, cap);
  REQUIRE(parts.size() >= 3);

  // Applied in order (no path twice within a part, later parts overwrite identical copies), the
  // parts give exactly the original entries.
  std::map<std::string, std::string> tree;
  for (const auto& p : parts) {
    std::set<std::string> seen;
    for (size_t i = 0; i < p.entries.size(); ++i) {
      const Entry& e = p.entries[i];
      CHECK(seen.insert(e.path).second);
      if (i > 0) CHECK(p.entries[i - 1].path < e.path);  // sorted, as the tar writer wants
      auto [it, fresh] = tree.emplace(e.path, describe(e));
      if (!fresh) CHECK(it->second == describe(e));  // a repeated directory is the same directory
    }
  }
  std::map<std::string, std::string> want;
  for (const auto& e : original.entries) want.emplace(e.path, describe(e));
  CHECK(tree == want);

  std::map<std::string, size_t> part_of;  // the part each non-directory entry is in (once)
  for (size_t k = 0; k < parts.size(); ++k) {
    std::set<std::string> here;
    for (const auto& e : parts[k].entries) here.insert(e.path);
    for (const auto& e : parts[k].entries) {
      if (e.type != EntryType::kDirectory) {
        CHECK(part_of.count(e.path) == 0);
        part_of[e.path] = k;
      }
      // Every directory above an entry comes with it (mode 0700, not a default 0755).
      for (auto slash = e.path.rfind('/'); slash != std::string::npos; slash = e.path.rfind('/', slash - 1)) {
        CHECK(here.count(e.path.substr(0, slash)) == 1);
        if (slash == 0) break;
      }
    }
    // Within the cap, but for the directory copies and a part that is one file bigger than it.
    uint64_t files = 0;
    for (const auto& e : parts[k].entries)
      if (e.type != EntryType::kDirectory) files += tar_size_of(e);
    if (parts[k].entries.size() > 3) CHECK(files <= cap);
  }
  CHECK(part_of["a/c/link-to-one"] == part_of["a/b/one"]);
  CHECK(part_of["z/link-to-five"] == part_of["z/five"]);
  // Whiteouts in the first part: the opaque marker hides nothing this layer wrote.
  CHECK(part_of["a/.wh..wh..opq"] == 0);
  CHECK(part_of["z/.wh.gone"] == 0);
  CHECK(part_of["a/b/big"] != part_of["a/-first"]);

  CHECK(parts[0].name == "torch");
  CHECK(parts[1].name == "torch (part 2 of " + std::to_string(parts.size()) + ")");
  CHECK(parts[0].created_by == "rockpack python: torch==2 (part 1 of " + std::to_string(parts.size()) + ")");
  for (const auto& p : parts) CHECK(p.step == "python");

  // Deterministic.
  CHECK(listing(split_layer(original, cap)) == listing(parts));
  CHECK(tar_bytes(original.entries) > cap);
}

TEST_CASE("split_oversized_layers: only the layers over the cap are split, in place and in order") {
  LayerPlan small;
  small.name = "small";
  small.entries = {make("s", EntryType::kFile, "x")};
  std::vector<LayerPlan> layers = {small, sample(), small};
  layers[2].name = "last";
  split_oversized_layers(layers, 5000);
  REQUIRE(layers.size() >= 5);
  CHECK(layers.front().name == "small");
  CHECK(layers[1].name == "torch");
  CHECK(layers.back().name == "last");
}

}  // namespace layer_split_test
