#include <doctest/doctest.h>

#include <fstream>
#include <thread>

#include "fetch/downloader.hpp"
#include "image/media_types.hpp"
#include "output/oci_layout.hpp"
#include "output/output_spec.hpp"
#include "store/content_store.hpp"
#include "test_helpers.hpp"
#include "util/error.hpp"

using namespace rp;
using rp::test::TempDir;

TEST_CASE("store: put, read verified, corruption is detected and healed") {
  TempDir dir;
  ContentStore store(dir.path);
  std::string d = store.put("hello");
  CHECK(d == sha256_digest("hello"));
  CHECK(store.read_all(d) == "hello");
  // Corrupt the blob behind the store's back.
  auto p = store.blob_path(d);
  std::filesystem::permissions(p, std::filesystem::perms::owner_write, std::filesystem::perm_options::add);
  write_file_atomic(p, "jello");
  CHECK_THROWS_WITH_AS(store.read_all(d), doctest::Contains("corrupt"), Error);
  CHECK_FALSE(store.contains(d));
}

TEST_CASE("store: export trusts a blob whose stat identity is unchanged since it was verified, and no other") {
  TempDir dir;
  namespace fs = std::filesystem;
  std::string digest = ContentStore(dir.path / "store").put("layer bytes");
  ContentStore(dir.path / "store").export_to(digest, dir.path / "out1");  // hashed, then recorded
  ContentStore(dir.path / "store").export_to(digest, dir.path / "out1");  // already there: nothing to do
  ContentStore(dir.path / "store").export_to(digest, dir.path / "out2");  // identity unchanged: linked
  CHECK(rp::read_file(dir.path / "out2") == "layer bytes");
  // Changed in place behind the store's back: same size, but ctime moved, so it is hashed again.
  // (After a pause: ctime has the kernel's coarse clock, a few milliseconds.)
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  fs::path blob = ContentStore(dir.path / "store").blob_path(digest);
  fs::permissions(blob, fs::perms::owner_write, fs::perm_options::add);
  { std::ofstream(blob, std::ios::binary | std::ios::in | std::ios::out) << "LAYER BYTES"; }
  CHECK_THROWS_AS(ContentStore(dir.path / "store").export_to(digest, dir.path / "out3"), rp::Error);
  CHECK_FALSE(fs::exists(dir.path / "out3"));
}

TEST_CASE("store: an expected digest that does not match stores nothing") {
  TempDir dir;
  ContentStore store(dir.path);
  auto w = store.begin_blob();
  w->write(std::string_view("abc"));
  CHECK_THROWS_AS(w->commit(sha256_digest("abd")), Error);
  CHECK_FALSE(store.contains(sha256_digest("abc")));
  CHECK(std::filesystem::is_empty(dir.path / "tmp"));
}

TEST_CASE("store: concurrent writers of the same blob are safe") {
  TempDir dir;
  ContentStore store(dir.path);
  std::string data(1 << 20, 'x');
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) threads.emplace_back([&] { store.put(data); });
  for (auto& t : threads) t.join();
  CHECK(store.read_all(sha256_digest(data)) == data);
  CHECK(std::filesystem::is_empty(dir.path / "tmp"));
}

TEST_CASE("store: records round-trip and a damaged record is a miss") {
  TempDir dir;
  ContentStore store(dir.path);
  store.put_record("layers", "k1", {{"digest", "x"}});
  CHECK(store.get_record("layers", "k1")->at("digest") == "x");
  CHECK_FALSE(store.get_record("layers", "k2"));
}

TEST_CASE("oci index: a tag moves to the new manifest, other entries stay") {
  Descriptor m1{media::kOciManifest, sha256_digest("m1"), 10, {}, std::nullopt};
  Descriptor m2{media::kOciManifest, sha256_digest("m2"), 20, {}, std::nullopt};
  auto idx = updated_index({}, m1, {"latest", "v1"});
  idx = updated_index(idx, m2, {"latest"});
  REQUIRE(idx["manifests"].size() == 2);
  for (const auto& m : idx["manifests"]) {
    std::string ref = m["annotations"]["org.opencontainers.image.ref.name"];
    CHECK(m["digest"] == (ref == "latest" ? m2.digest : m1.digest));
  }
}

TEST_CASE("image locations parse like skopeo's transports") {
  auto a = ImageLocation::parse("oci:out/img:nightly-20261121");
  CHECK(a.path == "out/img");
  CHECK(a.tag == "nightly-20261121");
  CHECK(ImageLocation::parse("oci:/tmp/x").tag.empty());
  auto d = ImageLocation::parse("docker-archive:img.tar:localhost:5000/team/img:v1");
  CHECK(d.path == "img.tar");
  CHECK(d.name == "localhost:5000/team/img");
  CHECK(d.tag == "v1");
  CHECK(ImageLocation::parse("docker-archive:img.tar:name").tag == "latest");
  CHECK_THROWS_AS(ImageLocation::parse("docker://x"), InputError);
  CHECK_THROWS_AS(ImageLocation::parse("oci:"), InputError);
}

TEST_CASE("download_all: each file is handed on as soon as it is in the store, and what that throws fails the call") {
  TempDir dir;
  ContentStore store(dir.path / "store");
  std::vector<DownloadJob> jobs;
  for (const char* name : {"a.whl", "b.whl", "c.whl"}) {
    std::string bytes = std::string("bytes of ") + name;
    auto file = dir.write(std::string("files/") + name, bytes);
    jobs.push_back({"file://" + file.string(), digest_hex(sha256_digest(bytes)), {}, name, std::nullopt});
  }
  std::mutex mu;
  std::vector<size_t> ready;
  DownloadOptions options;
  auto results = download_all(store, jobs, options, nullptr, [&](size_t i, const DownloadResult& r) {
    CHECK(store.contains(r.digest));  // there, and verified, when handed on
    std::lock_guard lock(mu);
    ready.push_back(i);
  });
  std::sort(ready.begin(), ready.end());
  CHECK(ready == std::vector<size_t>{0, 1, 2});
  CHECK(results[1].digest == sha256_digest("bytes of b.whl"));

  // Cached files are handed on too; an error from the hand-on is the call's error.
  CHECK_THROWS_WITH_AS(download_all(store, jobs, options, nullptr,
                                    [](size_t i, const DownloadResult&) {
                                      if (i == 2) throw InputError("the third wheel is no good");
                                    }),
                       "the third wheel is no good", InputError);
}
