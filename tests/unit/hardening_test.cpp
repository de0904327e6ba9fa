// Issue 15: defects found by probing rockpack as an attacker and a careless user would.
#include <doctest/doctest.h>

#include <archive.h>
#include <archive_entry.h>
#include <zlib.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <thread>

#include "assemble/layer_builder.hpp"
#include "image/media_types.hpp"
#include "net/url.hpp"
#include "output/output_spec.hpp"
#include "recipe/diagnostics.hpp"
#include "recipe/model.hpp"
#include "reference/reference.hpp"
#include "image/base_layer_check.hpp"
#include "python/install_scheme.hpp"
#include "python/wheel_installer.hpp"
#include "output/image_reader.hpp"
#include "output/oci_layout.hpp"
#include "store/cache_admin.hpp"
#include "store/content_store.hpp"
#include "image_test_support.hpp"
#include "test_helpers.hpp"
#include "wheel_test_support.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"
#include "util/temp_files.hpp"

using namespace rp;
using rp::test::TempDir;
namespace fs = std::filesystem;

namespace {

SealedImage one_layer_image(ContentStore& store, const std::string& layer_bytes) {
  Image img;
  img.config = {{"architecture", "amd64"}, {"os", "linux"}, {"rootfs", {{"type", "layers"}, {"diff_ids", nlohmann::json::array()}}}};
  std::string digest = store.put(layer_bytes);
  ImageLayer layer;
  layer.blob = {media::kOciLayerGzip, digest, static_cast<int64_t>(layer_bytes.size()), {}, std::nullopt};
  layer.diff_id = sha256_digest("diff " + layer_bytes);
  img.add_layer(layer, {{"created_by", "test"}});
  return seal(img);
}

std::set<std::string> layout_tags(const fs::path& layout) {
  std::set<std::string> tags;
  auto index = nlohmann::json::parse(read_file(layout / "index.json"));
  for (const auto& m : index["manifests"]) tags.insert(m["annotations"]["org.opencontainers.image.ref.name"].get<std::string>());
  return tags;
}

// A pid that belonged to a process that has exited (and been reaped).
int dead_pid() {
  pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  int status = 0;
  ::waitpid(child, &status, 0);
  return static_cast<int>(child);
}

std::string temp_name(const std::string& base, int pid) { return base + ".tmp-" + std::to_string(pid) + "-0123456789abcdef"; }

}  // namespace

TEST_CASE("defect 1: concurrent builds into a layout that does not exist yet all land in it") {
  for (int round = 0; round < 10; ++round) {
    TempDir dir;
    ContentStore store(dir.path / "store");
    fs::path layout = dir.path / "new-layout";
    std::vector<SealedImage> images;
    for (int i = 0; i < 3; ++i) images.push_back(one_layer_image(store, "layer " + std::to_string(i)));
    std::atomic<int> failures{0};
    std::mutex mu;
    std::string first_failure;
    std::vector<std::thread> threads;
    for (int i = 0; i < 3; ++i)
      threads.emplace_back([&, i] {
        try {
          write_oci_layout(images[i], store, layout, {"t" + std::to_string(i)});
        } catch (const std::exception& e) {
          std::lock_guard lock(mu);
          if (!failures++) first_failure = e.what();
        }
      });
    for (auto& t : threads) t.join();
    CHECK_MESSAGE(failures == 0, first_failure);
    CHECK(layout_tags(layout) == std::set<std::string>{"t0", "t1", "t2"});
    for (const auto& f : fs::directory_iterator(dir.path)) CHECK(f.path().filename().string().find(".tmp-") == std::string::npos);
  }
}

TEST_CASE("defect 6: a corrupted layout blob of the right size is replaced, not trusted") {
  TempDir dir;
  fs::path layout = dir.path / "layout";
  SealedImage img;
  std::string layer_digest;
  {
    ContentStore store(dir.path / "store");
    img = one_layer_image(store, "the real layer bytes");
    layer_digest = img.layers[0].blob.digest;
    write_oci_layout(img, store, layout, {"v1"});
  }
  // Another store (so the layout's blob is a copy, not the store's inode), and a same-size corruption.
  fs::path blob = layout / "blobs" / "sha256" / digest_hex(layer_digest);
  fs::remove(blob);
  write_file_atomic(blob, "the fake layer bytes");
  REQUIRE(fs::file_size(blob) == img.layers[0].blob.size);
  ContentStore other(dir.path / "other-store");
  other.put("the real layer bytes");
  write_oci_layout(img, other, layout, {"v2"});
  CHECK(sha256_digest(read_file(blob)) == layer_digest);

  // A damaged config (small blob) is replaced too.
  fs::path config = layout / "blobs" / "sha256" / digest_hex(img.config.digest);
  std::string bad(img.config_bytes.size(), 'x');
  fs::remove(config);
  write_file_atomic(config, bad);
  write_oci_layout(img, other, layout, {"v3"});
  CHECK(read_file(config) == img.config_bytes);
}

TEST_CASE("defect 3: temporaries of dead processes are swept at the next start, live ones kept") {
  TempDir dir;
  int gone = dead_pid();
  CHECK(temp_owner_pid(temp_name("blob", gone)) == gone);
  CHECK(temp_owner_pid("blob") == 0);
  CHECK(temp_owner_pid("blob.tmp-12-xyz") == 0);
  CHECK(process_is_gone(gone));
  CHECK_FALSE(process_is_gone(static_cast<int>(::getpid())));
  CHECK_FALSE(process_is_gone(1));

  // The store: a dead build's blob temporary goes; a live process's (pid 1 here) stays.
  dir.write("store/tmp/" + temp_name("blob", gone), std::string(1000, 'x'));
  dir.write("store/tmp/" + temp_name("blob", 1), "live");
  {
    ContentStore store(dir.path / "store");
    CHECK_FALSE(fs::exists(dir.path / "store/tmp" / temp_name("blob", gone)));
    CHECK(fs::exists(dir.path / "store/tmp" / temp_name("blob", 1)));
  }

  // A layout: partial blobs, an index temporary and a never-renamed new layout of a killed writer.
  ContentStore store(dir.path / "store2");
  fs::path layout = dir.path / "layout";
  write_oci_layout(one_layer_image(store, "a"), store, layout, {"v1"});
  dir.write("layout/blobs/sha256/" + temp_name(std::string(64, 'c'), gone), "partial");
  dir.write("layout/" + temp_name("index.json", gone), "{}");
  dir.write(temp_name("layout", gone) + "/oci-layout", "{}");
  dir.write(temp_name("unrelated", gone), "not ours");
  write_oci_layout(one_layer_image(store, "b"), store, layout, {"v2"});
  CHECK_FALSE(fs::exists(layout / "blobs/sha256" / temp_name(std::string(64, 'c'), gone)));
  CHECK_FALSE(fs::exists(layout / temp_name("index.json", gone)));
  CHECK_FALSE(fs::exists(dir.path / temp_name("layout", gone)));
  CHECK(fs::exists(dir.path / temp_name("unrelated", gone)));
}

TEST_CASE("defect 3: SIGTERM removes the temporaries of the files being written") {
  TempDir dir;
  int pipefd[2];
  REQUIRE(::pipe(pipefd) == 0);
  pid_t child = ::fork();
  if (child == 0) {
    remove_temporaries_on_signal();
    AtomicFile f(dir.path / "big.blob");
    f.write(std::string(1 << 21, 'x'));
    char c = 'r';
    (void)!::write(pipefd[1], &c, 1);
    for (;;) ::pause();
  }
  char c;
  REQUIRE(::read(pipefd[0], &c, 1) == 1);
  size_t before = 0;
  for ([[maybe_unused]] const auto& f : fs::directory_iterator(dir.path)) ++before;
  CHECK(before == 1);
  ::kill(child, SIGTERM);
  int status = 0;
  ::waitpid(child, &status, 0);
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGTERM);
  CHECK(fs::is_empty(dir.path));
  ::close(pipefd[0]);
  ::close(pipefd[1]);
}

TEST_CASE("defect 8: one redaction removes credentials from URLs and references in every message") {
  CHECK(net::redact_credentials("https://u:p%40x@host:8080/simple/?q=1") == "https://host:8080/simple/?q=1");
  CHECK(net::redact_credentials("https://token@host/x") == "https://host/x");
  CHECK(net::redact_credentials("u:SECRET@host:5000/x:1") == "***@host:5000/x:1");
  CHECK(net::redact_credentials("host:5000/x@sha256:" + std::string(64, 'a')) == "host:5000/x@sha256:" + std::string(64, 'a'));
  CHECK(net::redact_credentials("git@github.com:org/repo.git") == "git@github.com:org/repo.git");
  CHECK(net::redact_credentials("plain text") == "plain text");

  auto message_of = [](auto&& f) {
    try {
      f();
    } catch (const Error& e) {
      return std::string(e.what()) + " " + e.hint();
    }
    return std::string("no error");
  };
  for (std::string ref : {"u:SECRET@host:5000/x:1", "https://u:SECRET@host:5000/x:1", "SECRET@host/x"}) {
    std::string m = message_of([&] { parse_reference(ref); });
    CHECK(m != "no error");
    CHECK(m.find("SECRET") == std::string::npos);
  }
  std::string m = message_of([] { ImageLocation::parse("oci-weird:u:SECRET@host/x"); });
  CHECK(m.find("SECRET") == std::string::npos);
}

TEST_CASE("defect 2: untrusted values are shortened when quoted in messages") {
  std::string huge(50u << 20, 'a');
  std::string m;
  try {
    parse_reference("host/x:" + huge);
  } catch (const Error& e) {
    m = e.what();
  }
  CHECK(!m.empty());
  CHECK(m.size() < 2000);
  CHECK(rp::shorten(huge, 10) == "aaaaaaaaaa... (52428800 bytes)");
}

namespace {
// The diagnostics of loading `text` as a recipe, joined ("" when it loads).
std::string recipe_problems(const TempDir& dir, const std::string& text) {
  auto path = dir.write("recipe.yaml", text);
  try {
    recipe::load_recipe(path, {});
    return "";
  } catch (const recipe::RecipeError& e) {
    std::string out;
    for (const auto& d : e.diagnostics()) out += d.message + " | ";
    return out;
  }
}
}  // namespace

TEST_CASE("defect 2: YAML aliases cannot amplify a small recipe into gigabytes") {
  TempDir dir;
  std::string text = "name: bomb\nargs:\n  A: &big \"" + std::string(1 << 20, 'x') + "\"\nlabels:\n";
  for (int i = 0; i < 3000; ++i) text += "  l" + std::to_string(i) + ": *big\n";
  std::string problems = recipe_problems(dir, text);
  CHECK(problems.find("once its aliases (*name) are expanded") != std::string::npos);

  // Billion laughs: each level names the previous one ten times.
  std::string laughs = "name: laughs\nx0: &l0 [\"lol\"]\n";
  for (int i = 1; i <= 9; ++i) {
    laughs += "x" + std::to_string(i) + ": &l" + std::to_string(i) + " [";
    for (int j = 0; j < 10; ++j) laughs += std::string(j ? ", " : "") + "*l" + std::to_string(i - 1);
    laughs += "]\n";
  }
  CHECK(recipe_problems(dir, laughs).find("once its aliases (*name) are expanded") != std::string::npos);
}

TEST_CASE("defect 11: a small recipe of many tiny values is refused before it is loaded") {
  // 2 Mi one-letter items in 4 MB: yaml-cpp spent 1 GB loading them (hostile-inputs drill).
  TempDir dir;
  std::string text = "name: many\ntags: [t";
  for (int i = 1; i < (1 << 19); ++i) text += ",t";
  text += "]\n";
  std::string problems = recipe_problems(dir, text);
  CHECK(problems.find("more than 262144 values (line 2)") != std::string::npos);
  // Under the bound, the same shape loads (and fails later only for what it is).
  std::string fine = "name: many\nlabels: {a: b, c: d}\n";
  CHECK(recipe_problems(dir, fine).empty());
}

TEST_CASE("defect 11: untrusted values in recipe messages are shortened") {
  TempDir dir;
  std::string huge(1 << 20, 'A');
  std::string problems = recipe_problems(dir, "name: " + huge + "\n");
  CHECK(problems.find("is not a valid image name") != std::string::npos);
  CHECK(problems.size() < 2000);
  problems = recipe_problems(dir, "name: x\ninclude: [" + std::string(5000, 'x') + "/y.yaml]\n");
  CHECK(problems.find("not found") != std::string::npos);
  CHECK(problems.size() < 2000);
  problems = recipe_problems(dir, "name: x\n? " + huge + "\n: 1\n");
  CHECK(problems.find("unknown key") != std::string::npos);
  CHECK(problems.size() < 2000);
}

TEST_CASE("defect 10: deep YAML nesting gets a real message") {
  TempDir dir;
  std::string deep = "name: deep\nlabels: " + std::string(100, '[') + std::string(100, ']') + "\n";
  CHECK(recipe_problems(dir, deep).find("nests deeper than 64 levels") != std::string::npos);
  std::string deeper = "name: deep\nlabels: " + std::string(5000, '[') + std::string(5000, ']') + "\n";
  std::string problems = recipe_problems(dir, deeper);
  CHECK(problems.find("levels deep") != std::string::npos);
  CHECK(problems.find("bad file") == std::string::npos);
}

TEST_CASE("defect 7: files: src stays within the recipe's directory unless --allow-path says otherwise") {
  TempDir dir;
  dir.write("outside/secret", "host secret");
  dir.write("proj/inside.txt", "fine");
  fs::create_directories(dir.path / "proj/sub");
  fs::create_directory_symlink(dir.path / "outside", dir.path / "proj/sub/escape");
  auto recipe_with = [](const std::string& src) { return "name: t\nfiles:\n  - src: " + src + "\n    dest: /x\n"; };
  auto problems = [&](const std::string& src, recipe::LoadOptions opts = {}) {
    auto path = dir.write("proj/recipe.yaml", recipe_with(src));
    try {
      recipe::load_recipe(path, opts);
      return std::string();
    } catch (const recipe::RecipeError& e) {
      std::string out;
      for (const auto& d : e.diagnostics()) out += d.message + " " + d.hint + " | ";
      return out;
    }
  };
  CHECK(problems("inside.txt").empty());
  CHECK(problems(".").empty());
  for (std::string bad : std::vector<std::string>{"../outside/secret", (dir.path / "outside/secret").string(), "sub/escape/secret",
                          "../../../../../../../../" + (dir.path / "outside/secret").relative_path().string()}) {
    std::string p = problems(bad);
    CHECK_MESSAGE(p.find("is outside the directory of recipe.yaml") != std::string::npos, bad);
    CHECK(p.find("--allow-path") != std::string::npos);
  }
  // A symlink inside the directory is copied as a symlink (never followed): allowed.
  CHECK(problems("sub/escape").empty());

  recipe::LoadOptions allowed;
  allowed.allow_paths = {dir.path / "outside"};
  CHECK(problems("../outside/secret", allowed).empty());

  // A value the user gave on the command line (--set) names the host file explicitly.
  recipe::LoadOptions set;
  set.set_args = {{"FILE", (dir.path / "outside/secret").string()}};
  auto path = dir.write("proj/recipe.yaml", "name: t\nargs:\n  FILE: ../outside/secret\nfiles:\n  - src: ${FILE}\n    dest: /x\n");
  CHECK_NOTHROW(recipe::load_recipe(path, set));
  CHECK_THROWS_AS(recipe::load_recipe(path, {}), recipe::RecipeError);
}

namespace {

struct TarItem {
  std::string name;
  std::string data;
  std::string symlink;  // non-empty: a symlink to this target
};

// A tar written with libarchive (a writer we did not write), optionally gzip-compressed.
std::string make_tar(const std::vector<TarItem>& items) {
  archive* a = archive_write_new();
  archive_write_set_format_pax_restricted(a);
  std::string out;
  archive_write_open(
      a, &out, nullptr,
      [](archive*, void* d, const void* buf, size_t n) -> la_ssize_t {
        static_cast<std::string*>(d)->append(static_cast<const char*>(buf), n);
        return static_cast<la_ssize_t>(n);
      },
      nullptr);
  for (const auto& it : items) {
    archive_entry* e = archive_entry_new();
    archive_entry_set_pathname(e, it.name.c_str());
    if (!it.symlink.empty()) {
      archive_entry_set_filetype(e, AE_IFLNK);
      archive_entry_set_symlink(e, it.symlink.c_str());
      archive_entry_set_perm(e, 0777);
    } else {
      archive_entry_set_filetype(e, AE_IFREG);
      archive_entry_set_perm(e, 0644);
      archive_entry_set_size(e, static_cast<la_int64_t>(it.data.size()));
    }
    archive_write_header(a, e);
    if (!it.data.empty()) archive_write_data(a, it.data.data(), it.data.size());
    archive_entry_free(e);
  }
  archive_write_close(a);
  archive_write_free(a);
  return out;
}

// `in` as one gzip member (zlib, a compressor we did not write).
std::string gzip(const std::string& in) {
  z_stream zs{};
  REQUIRE(deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK);
  std::string out(deflateBound(&zs, static_cast<uLong>(in.size())) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  REQUIRE(deflate(&zs, Z_FINISH) == Z_STREAM_END);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

}  // namespace

TEST_CASE("defect 4: a docker-archive layer.tar that is a symlink to an earlier layer is read as that layer") {
  TempDir dir;
  std::string layer = make_tar({{"etc/hello", "hello from layer one", ""}});
  std::string diff = sha256_digest(layer);
  nlohmann::json config = {{"architecture", "amd64"}, {"os", "linux"},
                           {"rootfs", {{"type", "layers"}, {"diff_ids", {diff, diff}}}}};
  std::string config_text = config.dump();
  nlohmann::json manifest = nlohmann::json::array(
      {{{"Config", "cfg.json"}, {"RepoTags", {"old:1"}}, {"Layers", {"aaa/layer.tar", "bbb/layer.tar"}}}});
  write_file_atomic(dir.path / "old.tar", make_tar({{"manifest.json", manifest.dump(), ""},
                                                   {"cfg.json", config_text, ""},
                                                   {"aaa/layer.tar", layer, ""},
                                                   {"bbb/layer.tar", "", "../aaa/layer.tar"}}));
  ContentStore store(dir.path / "store");
  auto where = ImageLocation::parse("docker-archive:" + (dir.path / "old.tar").string());
  Image img = import_local_image(where, store);
  REQUIRE(img.layers.size() == 2);
  CHECK(img.layers[0].blob.digest == sha256_digest(layer));
  CHECK(img.layers[1].blob.digest == sha256_digest(layer));
  CHECK(img.layers[1].blob.size == static_cast<int64_t>(layer.size()));
  CHECK_NOTHROW(verify_base_layers(img, store, "old.tar"));
}

TEST_CASE("defect 5: base layers are checked against their size, digest and diff_id -- traversal members refused") {
  TempDir dir;
  ContentStore store(dir.path / "store");
  std::string plain = make_tar({{"etc/ok", "fine", ""}});
  std::string gz = gzip(plain);
  std::string digest = store.put(gz);
  auto err = [&](int64_t size, const std::string& diff_id) {
    try {
      verify_base_layer(store, digest, size, diff_id, "base");
      return std::string();
    } catch (const Error& e) {
      return std::string(e.what());
    }
  };
  CHECK(err(static_cast<int64_t>(gz.size()), sha256_digest(plain)).empty());
  CHECK(err(static_cast<int64_t>(gz.size()) + 1, sha256_digest(plain)).find("its descriptor says") != std::string::npos);
  CHECK(err(static_cast<int64_t>(gz.size()), sha256_digest("other")).find("diff_id") != std::string::npos);

  std::string evil = make_tar({{"etc/ok", "fine", ""}, {"../../etc/evil", "x", ""}});
  std::string evil_digest = store.put(evil);
  try {
    verify_base_layer(store, evil_digest, static_cast<int64_t>(evil.size()), sha256_digest(evil), "base");
    FAIL("a traversal member was accepted");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("climbs out") != std::string::npos);
  }

  // A whole image: the diff_ids must match the layers in number.
  Image img;
  img.config = {{"rootfs", {{"type", "layers"}, {"diff_ids", nlohmann::json::array()}}}};
  ImageLayer l;
  l.blob = {media::kOciLayerGzip, digest, static_cast<int64_t>(gz.size()), {}, std::nullopt};
  img.layers.push_back(l);
  CHECK_THROWS_AS(verify_base_layers(img, store, "base"), Error);
}

TEST_CASE("the base check is also the steps' read of the base: kept contents, the same refusals") {
  TempDir dir;
  ContentStore store(dir.path / "store");
  std::string plain = make_tar({{"etc/passwd", "root:x:0:0::/root:/bin/sh\n", ""}, {"etc/other", "not kept", ""}});
  std::string gz = gzip(plain);
  Descriptor layer{media::kOciLayerGzip, store.put(gz), static_cast<int64_t>(gz.size()), {}, std::nullopt};
  auto keep = [](std::string_view p) { return p == "etc/passwd"; };

  Image img;
  img.config = {{"rootfs", {{"type", "layers"}, {"diff_ids", {sha256_digest(plain)}}}}};
  ImageLayer l;
  l.blob = layer;
  img.layers.push_back(l);
  std::shared_ptr<const BaseLayerReads> reads = verify_base_layers(img, store, "base", keep);
  REQUIRE(reads);
  REQUIRE(reads->size() == 1);
  RootfsView view;
  view.apply_layer(*reads->front());
  CHECK(view.read("/etc/passwd") == std::optional<std::string>("root:x:0:0::/root:/bin/sh\n"));
  CHECK(view.lstat("/etc/other").has_value());
  CHECK_FALSE(view.read("/etc/other").has_value());  // not asked for: metadata only

  // Checked once: the store's record answers the next time, and the steps read the base themselves.
  CHECK(verify_base_layers(img, store, "base", keep) == nullptr);

  // The read refuses what the check refuses, with the check's words.
  ContentStore fresh(dir.path / "fresh");
  fresh.put(gz);
  try {
    verify_base_layer(fresh, layer, sha256_digest("other"), "base", keep);
    FAIL("a wrong diff_id was accepted");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("base: ") == 0);
    CHECK(std::string(e.what()).find("diff_id") != std::string::npos);
  }
  std::string evil = gzip(make_tar({{"etc/ok", "fine", ""}, {"../../etc/evil", "x", ""}}));
  Descriptor evil_layer{media::kOciLayerGzip, fresh.put(evil), static_cast<int64_t>(evil.size()), {}, std::nullopt};
  try {
    verify_base_layer(fresh, evil_layer, "", "base", keep);
    FAIL("a traversal member was accepted");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("climbs out of the image root: '../../etc/evil'") != std::string::npos);
  }
}

TEST_CASE("defect 10: a corrupt cached layer blob is rebuilt instead of failing the build") {
  TempDir dir;
  std::vector<Entry> entries = {test::file_entry("etc/a", std::string(100000, 'a')), test::file_entry("etc/b", "b")};
  finalize_entries(entries);
  BuiltLayer first;
  {
    ContentStore store(dir.path / "store");
    first = LayerBuilder(store, {Compression::parse("gzip"), 0, 2, true}).build("l", entries);
  }
  fs::path blob = dir.path / "store/blobs/sha256" / digest_hex(first.layer.blob.digest);
  std::string bytes = read_file(blob);
  bytes[bytes.size() / 2] ^= 0x55;  // same size, different bytes
  fs::remove(blob);
  write_file_atomic(blob, bytes, 0444);

  ContentStore store(dir.path / "store");  // a later build: nothing of this store is "fresh"
  BuiltLayer again = LayerBuilder(store, {Compression::parse("gzip"), 0, 2, true}).build("l", entries);
  CHECK_FALSE(again.from_cache);
  CHECK(again.layer.blob.digest == first.layer.blob.digest);
  CHECK(sha256_digest(read_file(blob)) == first.layer.blob.digest);
  CHECK(LayerBuilder(store, {Compression::parse("gzip"), 0, 2, true}).build("l", entries).from_cache);
}

TEST_CASE("defect 10: a wheel's .data/data/bin/python3 does not replace the venv's python3") {
  TempDir dir;
  test::TestWheel w;
  w.files = {{"demo_pkg/__init__.py", "X = 1\n"}, {w.data_dir() + "/data/bin/python3", "#!/bin/sh\necho fake\n", 0100755}};
  python::InstallOptions options;
  options.protected_paths = {"opt/venv/bin/python3", "opt/venv/bin/python"};
  auto installed = python::install_wheel(w.write(dir), python::InstallScheme::venv("/opt/venv", 3, 11), options);
  CHECK(std::find(installed.files.begin(), installed.files.end(), "opt/venv/bin/python3") == installed.files.end());
  for (const auto& e : installed.entries) CHECK(e.path != "opt/venv/bin/python3");
  bool warned = false;
  for (const auto& warning : installed.warnings) warned = warned || warning.find("/opt/venv/bin/python3") != std::string::npos;
  CHECK(warned);
  // Without protection (a system scheme) it installs as before.
  auto plain = python::install_wheel(w.write(dir), python::InstallScheme::venv("/opt/venv", 3, 11));
  CHECK(std::find(plain.files.begin(), plain.files.end(), "opt/venv/bin/python3") != plain.files.end());
}

TEST_CASE("defect 2: a wheel's warnings are deduplicated and capped") {
  TempDir dir;
  test::TestWheel w;
  for (int i = 0; i < 500; ++i) {
    std::string name = "demo_pkg/m" + std::to_string(i) + ".py";
    w.files.push_back({name, "X = 1\n"});
    w.record_overrides[name] = ",";  // listed without a hash: one warning each
  }
  auto installed = python::install_wheel(w.write(dir), python::InstallScheme::venv("/opt/venv", 3, 11));
  REQUIRE(installed.warnings.size() == 21);
  CHECK(installed.warnings.back() == "... and 480 more warnings about this wheel");
}

TEST_CASE("cache: sizes, usage and least-recently-used pruning") {
  CHECK(parse_size("123") == 123);
  CHECK(parse_size("1K") == 1024);
  CHECK(parse_size("500M") == 500ull << 20);
  CHECK(parse_size("1.5GiB") == 3ull << 29);
  CHECK(parse_size("10G") == 10ull << 30);
  CHECK_THROWS_AS(parse_size("ten"), InputError);
  CHECK_THROWS_AS(parse_size("5X"), InputError);

  TempDir dir;
  std::string old_digest, new_digest;
  {
    ContentStore store(dir.path);
    old_digest = store.put(std::string(3000, 'o'));
    new_digest = store.put(std::string(3000, 'n'));
  }
  // The old blob was last used 10 days ago.
  struct timespec times[2];
  times[0].tv_sec = times[1].tv_sec = ::time(nullptr) - 10 * 86400;
  times[0].tv_nsec = times[1].tv_nsec = 0;
  REQUIRE(::utimensat(AT_FDCWD, (dir.path / "blobs/sha256" / digest_hex(old_digest)).c_str(), times, 0) == 0);
  CacheUsage u = cache_usage(dir.path);
  CHECK(u.kinds[0].name == "blobs");
  CHECK(u.kinds[0].files == 2);
  CHECK(u.by_age[0] == 3000);
  CHECK(u.by_age[2] == 3000);

  PruneOptions keep_week;
  keep_week.keep_days = 7;
  CHECK(prune_cache(dir.path, keep_week).files == 1);
  CHECK_FALSE(fs::exists(dir.path / "blobs/sha256" / digest_hex(old_digest)));
  CHECK(fs::exists(dir.path / "blobs/sha256" / digest_hex(new_digest)));
  CHECK_THROWS_AS(prune_cache(dir.path, {}), InputError);
  PruneOptions all;
  all.all = true;
  prune_cache(dir.path, all);
  CHECK(cache_usage(dir.path).total_bytes == 0);
}
