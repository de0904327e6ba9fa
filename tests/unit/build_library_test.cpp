// The library build (src/build/build.hpp) called directly, with no CLI: a tiny recipe built into a
// temporary OCI layout, the layout read back (index, manifest, config, layer blobs and their digests),
// a second image built on the first as a local base, and the request checks that come before any work.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "build/base.hpp"
#include "build/build.hpp"
#include "registry/transport.hpp"
#include "store/content_store.hpp"
#include "test_helpers.hpp"
#include "util/digest.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

using namespace rp;
using rp::test::TempDir;
namespace fs = std::filesystem;

namespace {

// A blob of an OCI layout, checked against the digest that names it.
std::string layout_blob(const fs::path& layout, const std::string& digest) {
  std::string bytes = read_file(layout / "blobs" / "sha256" / digest.substr(7));
  CHECK(sha256_digest(bytes) == digest);
  return bytes;
}

// The manifest the layout's index tags `tag`.
nlohmann::json tagged_manifest(const fs::path& layout, const std::string& tag, std::string& digest) {
  nlohmann::json index = nlohmann::json::parse(read_file(layout / "index.json"));
  for (const auto& m : index["manifests"])
    if (m["annotations"].value("org.opencontainers.image.ref.name", "") == tag) {
      digest = m["digest"].get<std::string>();
      std::string bytes = layout_blob(layout, digest);
      CHECK(m["size"].get<size_t>() == bytes.size());
      return nlohmann::json::parse(bytes);
    }
  FAIL("no manifest tagged " << tag << " in " << layout);
  return {};
}

struct Fixture {
  TempDir dir;
  ContentStore store{dir.path / "store"};
  registry::Session session{registry::RegistryOptions{}};
  build::BuildContext context{store, session};
};

build::BuildRequest request_for(const fs::path& recipe, const fs::path& layout) {
  build::BuildRequest r;
  r.recipe = recipe.string();
  r.outputs = {"oci:" + layout.string()};
  r.revision = "0123456789abcdef";  // not the git repository the test runs in
  r.source = "https://example.invalid/recipes";
  r.metadata_file = (layout.parent_path() / (layout.filename().string() + ".json")).string();
  return r;
}

}  // namespace

TEST_CASE("build library: a scratch recipe into an OCI layout, digests as the layout holds them") {
  Fixture f;
  fs::path recipe = f.dir.write("app/recipe.yaml", R"(name: tiny
files:
  - src: hello.txt
    dest: /srv/hello.txt
    layer: app
  - content: "second\n"
    dest: /etc/second
    mode: "0600"
    layer: app
tags: [v1]
)");
  f.dir.write("app/hello.txt", "hello from the library\n");
  const fs::path layout = f.dir.path / "out";
  build::BuildResult result = build::build(request_for(recipe, layout), f.context);

  // The result is what the layout holds.
  std::string manifest_digest;
  nlohmann::json manifest = tagged_manifest(layout, "v1", manifest_digest);
  CHECK(manifest_digest == result.sealed.manifest.digest);
  CHECK(sha256_digest(result.sealed.manifest_bytes) == manifest_digest);
  CHECK(manifest["config"]["digest"] == result.sealed.config.digest);
  nlohmann::json config = nlohmann::json::parse(layout_blob(layout, result.sealed.config.digest));
  REQUIRE(manifest["layers"].size() == 1);
  REQUIRE(result.sealed.layers.size() == 1);
  const std::string layer_digest = manifest["layers"][0]["digest"];
  CHECK(layer_digest == result.sealed.layers[0].blob.digest);
  // The layer's members, read by libarchive, and its diff_id (the uncompressed tar's digest).
  std::string layer = layout_blob(layout, layer_digest);
  std::map<std::string, rp::test::TarMember> members;
  for (auto& m : rp::test::read_tar(layer)) members[m.path] = m;
  REQUIRE(members.count("srv/hello.txt"));
  CHECK(members["srv/hello.txt"].data == "hello from the library\n");
  REQUIRE(members.count("etc/second"));
  CHECK(members["etc/second"].mode == 0600);
  CHECK(config["rootfs"]["diff_ids"][0] == result.sealed.layers[0].diff_id);
  CHECK(config["architecture"].is_string());
  CHECK(result.outputs == std::vector<std::string>{"oci:" + layout.string()});
  CHECK(result.pushed.empty());
  CHECK(result.plan.name == "tiny");
  CHECK(!result.report);  // none asked for

  // The metadata record names the same digests.
  nlohmann::json meta = nlohmann::json::parse(read_file(f.dir.path / "out.json"));
  CHECK(meta["manifest_digest"] == manifest_digest);
  CHECK(meta["layers"][0]["digest"] == layer_digest);

  // Same inputs, same digest: a second build (layers from the store now) into another layout.
  build::BuildResult again = build::build(request_for(recipe, f.dir.path / "out2"), f.context);
  CHECK(again.sealed.manifest.digest == manifest_digest);
  CHECK(again.assembled.new_layers.at(0).from_cache);
}

TEST_CASE("build library: a local OCI layout as the base, a report, and the base resolved by build::resolve_base") {
  Fixture f;
  fs::path base_recipe = f.dir.write("base/recipe.yaml", "name: base\nfiles:\n  - content: \"base\\n\"\n    dest: /etc/base\ntags: [b]\n");
  build::BuildResult base = build::build(request_for(base_recipe, f.dir.path / "base-out"), f.context);

  fs::path recipe = f.dir.write(
      "app/recipe.yaml", "name: app\nbase: oci:" + (f.dir.path / "base-out").string() +
                             ":b\nfiles:\n  - content: \"app\\n\"\n    dest: /etc/app\ntags: [a]\n");
  build::BuildRequest r = request_for(recipe, f.dir.path / "app-out");
  r.report_file = (f.dir.path / "report.json").string();
  build::BuildResult app = build::build(r, f.context);

  std::string digest;
  nlohmann::json manifest = tagged_manifest(f.dir.path / "app-out", "a", digest);
  CHECK(digest == app.sealed.manifest.digest);
  // The base's layer first, unchanged, then the recipe's.
  REQUIRE(manifest["layers"].size() == 2);
  CHECK(manifest["layers"][0]["digest"] == base.sealed.layers[0].blob.digest);
  CHECK(manifest["layers"][1]["digest"] == app.sealed.layers[1].blob.digest);
  CHECK(app.plan.base_digest == base.sealed.manifest.digest);
  // The report the library made is the one it wrote.
  REQUIRE(app.report);
  nlohmann::json report = nlohmann::json::parse(read_file(f.dir.path / "report.json"));
  CHECK(report.dump().find(digest) != std::string::npos);

  // The one base resolution build and lock share: a local base resolves to the same manifest, and a
  // locked digest does not apply to it (the plan checks a local base's digest itself).
  BaseImage resolved = build::resolve_base("oci:" + (f.dir.path / "base-out").string() + ":b", app.sealed.platform,
                                           f.store, f.session, {}, "sha256:" + std::string(64, '0'));
  CHECK(resolved.digest == base.sealed.manifest.digest);
}

TEST_CASE("build library: a bad request fails before any work") {
  Fixture f;
  build::BuildRequest r;
  r.recipe = (f.dir.path / "missing.yaml").string();
  r.compression = "brotli";
  CHECK_THROWS_AS(build::check_request(r), InputError);
  r.compression.clear();
  r.outputs = {"tarball:x"};
  CHECK_THROWS_AS(build::check_request(r), InputError);
  r.outputs.clear();
  r.compare_to = "oci:" + f.dir.path.string();
  CHECK_THROWS_WITH_AS(build::check_request(r), doctest::Contains("--compare-to needs --report"), InputError);
  r.compare_to.clear();
  r.dry_run = true;
  r.outputs = {"oci:" + (f.dir.path / "never").string()};
  CHECK_THROWS_AS(build::build(r, f.context), InputError);
  CHECK(!fs::exists(f.dir.path / "never"));
}
