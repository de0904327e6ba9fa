// Issue 14: the oci-archive and docker-archive writers, layout garbage, the login-shell profile
// script, local bases relative to their recipe, and recipes from stdin.
#include <doctest/doctest.h>

#include <archive.h>
#include <archive_entry.h>

#include <map>

#include "image/media_types.hpp"
#include "output/docker_archive.hpp"
#include "output/image_reader.hpp"
#include "output/oci_archive.hpp"
#include "output/oci_layout.hpp"
#include "output/output_spec.hpp"
#include "plan/login_env.hpp"
#include "plan/plan.hpp"
#include "recipe/model.hpp"
#include "store/content_store.hpp"
#include "test_helpers.hpp"
#include "util/error.hpp"

using namespace rp;
using rp::test::TempDir;
namespace fs = std::filesystem;

namespace {

// A one-layer image whose layer blob (any bytes will do for the writers) is in `store`.
SealedImage small_image(ContentStore& store, const std::string& layer_bytes, const std::string& arch = "amd64") {
  Image img;
  img.config = {{"architecture", arch}, {"os", "linux"}, {"rootfs", {{"type", "layers"}, {"diff_ids", nlohmann::json::array()}}}};
  std::string digest = store.put(layer_bytes);
  ImageLayer layer;
  layer.blob = {media::kOciLayerGzip, digest, static_cast<int64_t>(layer_bytes.size()), {}, std::nullopt};
  layer.diff_id = sha256_digest("diff " + layer_bytes);
  img.add_layer(layer, {{"created_by", "test"}});
  return seal(img);
}

std::map<std::string, std::string> tar_members(const fs::path& file) {
  std::map<std::string, std::string> out;
  archive* a = archive_read_new();
  archive_read_support_format_tar(a);
  REQUIRE(archive_read_open_filename(a, file.c_str(), 1 << 16) == ARCHIVE_OK);
  archive_entry* e;
  while (archive_read_next_header(a, &e) == ARCHIVE_OK) {
    std::string data(static_cast<size_t>(archive_entry_size(e)), '\0');
    if (!data.empty()) archive_read_data(a, data.data(), data.size());
    out[archive_entry_pathname(e)] = data;
  }
  archive_read_free(a);
  return out;
}

size_t blob_count(const fs::path& layout) {
  size_t n = 0;
  for ([[maybe_unused]] const auto& f : fs::directory_iterator(layout / "blobs" / "sha256")) ++n;
  return n;
}

}  // namespace

TEST_CASE("docker archive: one index.json entry per tag, named by the normalized reference") {
  TempDir dir;
  ContentStore store(dir.path / "store");
  SealedImage img = small_image(store, "layer");
  write_docker_archive(img, store, dir.path / "a.tar",
                       {{"docex:1", "docker.io/library/docex:1"}, {"docex:2", "docker.io/library/docex:2"}}, 0);
  auto members = tar_members(dir.path / "a.tar");
  auto index = nlohmann::json::parse(members.at("index.json"));
  REQUIRE(index["manifests"].size() == 2);
  CHECK(index["manifests"][0]["annotations"]["io.containerd.image.name"] == "docker.io/library/docex:1");
  CHECK(index["manifests"][0]["annotations"]["org.opencontainers.image.ref.name"] == "1");
  CHECK(index["manifests"][1]["annotations"]["io.containerd.image.name"] == "docker.io/library/docex:2");
  CHECK(index["manifests"][1]["digest"] == img.manifest.digest);
  auto legacy = nlohmann::json::parse(members.at("manifest.json"));
  CHECK(legacy[0]["RepoTags"] == nlohmann::json::array({"docex:1", "docex:2"}));
}

TEST_CASE("oci-archive: written as a tar of a layout, read back with its exact manifest") {
  TempDir dir;
  ContentStore store(dir.path / "store");
  SealedImage img = small_image(store, "layer bytes");
  write_oci_archive(img, store, dir.path / "img.tar", {"v1", "latest"}, 0);
  auto members = tar_members(dir.path / "img.tar");
  CHECK(members.count("oci-layout"));
  CHECK(members.at("blobs/sha256/" + digest_hex(img.manifest.digest)) == img.manifest_bytes);

  // Both tags name one image: no tag needed; a tag picks it; an unknown tag lists the tags.
  LocalImage local = read_oci_archive(dir.path / "img.tar", "");
  CHECK(local.manifest->digest == img.manifest.digest);
  CHECK(local.repo_tags.size() == 2);
  CHECK(read_oci_archive(dir.path / "img.tar", "v1").config_bytes == img.config_bytes);
  try {
    read_oci_archive(dir.path / "img.tar", "nope");
    FAIL("an unknown tag must be an error");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("no image tagged 'nope'") != std::string::npos);
    CHECK(e.hint() == "tags in this layout: v1, latest");
  }

  // Sealing it again (as push and copies do) keeps the digest; its layer enters the store.
  ContentStore other(dir.path / "other");
  SealedImage again = seal_local_image(ImageLocation::parse("oci-archive:" + (dir.path / "img.tar").string() + ":v1"), other);
  CHECK(again.manifest.digest == img.manifest.digest);
  CHECK(other.contains(img.layers[0].blob.digest));
}

TEST_CASE("oci layout: a moved tag leaves no unreferenced blobs -- gc removes strays -- a damaged layout keeps all") {
  TempDir dir;
  ContentStore store(dir.path / "store");
  fs::path layout = dir.path / "layout";
  write_oci_layout(small_image(store, "first"), store, layout, {"v1"});
  CHECK(blob_count(layout) == 3);
  write_oci_layout(small_image(store, "second"), store, layout, {"v1"});
  CHECK(blob_count(layout) == 3);  // the first image's manifest, config and layer are gone
  write_oci_layout(small_image(store, "third"), store, layout, {"v2"});
  CHECK(blob_count(layout) == 6);  // a new tag moves nothing

  write_file_atomic(layout / "blobs" / "sha256" / std::string(64, 'a'), "stray");
  LayoutGarbage g = collect_layout_garbage(layout);
  CHECK(g.blobs == 1);
  CHECK(g.bytes == 5);

  // With a manifest missing, nothing is certain to be garbage.
  auto index = nlohmann::json::parse(read_file(layout / "index.json"));
  fs::remove(layout / "blobs" / "sha256" / digest_hex(index["manifests"][0]["digest"].get<std::string>()));
  write_file_atomic(layout / "blobs" / "sha256" / std::string(64, 'b'), "stray");
  CHECK(collect_layout_garbage(layout).blobs == 0);
}

TEST_CASE("image locations: oci-archive and is_local") {
  auto a = ImageLocation::parse("oci-archive:out/img.tar:v1");
  CHECK(a.kind == ImageLocation::Kind::kOciArchive);
  CHECK(a.path == "out/img.tar");
  CHECK(a.tag == "v1");
  CHECK(a.str() == "oci-archive:out/img.tar:v1");
  CHECK(ImageLocation::parse("oci-archive:/x.tar").tag.empty());
  CHECK(ImageLocation::is_local("oci-archive:x"));
  CHECK_FALSE(ImageLocation::is_local("docker://alpine"));
  CHECK_FALSE(ImageLocation::is_local("localhost:5000/a"));
}

TEST_CASE("login env: the image PATH comes first in login shells -- nothing when nothing is lost") {
  CHECK_FALSE(login_env_script(nlohmann::json::array({"PATH=/usr/local/bin:/usr/bin:/bin"})));
  CHECK_FALSE(login_env_script(nlohmann::json::array({"FOO=1"})));
  auto script = login_env_script(nlohmann::json::array(
      {"PATH=/opt/rocm/bin:/opt/venv/bin:/usr/bin:/bin", "ROCM_PATH=/opt/rocm", "QUOTE=it's", "HOME=/root"}));
  REQUIRE(script);
  CHECK(script->find("_rockpack_path='/opt/rocm/bin:/opt/venv/bin:/usr/bin:/bin'") != std::string::npos);
  CHECK(script->find("export ROCM_PATH='/opt/rocm'") != std::string::npos);
  CHECK(script->find("export QUOTE='it'\\''s'") != std::string::npos);
  CHECK(script->find("HOME") == std::string::npos);  // the shell's own

  // In a plan: a small last layer of its own, only when something would be lost.
  BuildPlan plan;
  recipe::Recipe recipe;
  auto add_login_env = [&recipe](BuildPlan& p) {
    apply_step_output(p, recipe, "login-env", LoginEnvStep().plan({recipe, p, StepMode::kBuild, nullptr, {}, "login-env", {}}));
  };
  plan.config = {{"config", {{"Env", {"PATH=/usr/bin:/bin"}}}}};
  add_login_env(plan);
  CHECK(plan.layers.empty());
  plan.config["config"]["Env"] = {"PATH=/opt/venv/bin:/usr/bin"};
  add_login_env(plan);
  REQUIRE(plan.layers.size() == 1);
  CHECK(plan.layers[0].step == "login-env");
  CHECK(plan.layers[0].name == "login-env");
  REQUIRE(plan.layers[0].entries.size() == 3);  // etc/, etc/profile.d/, the script
  CHECK(plan.layers[0].entries[2].path == kLoginEnvPath);
}

TEST_CASE("recipe: a local base is relative to the declaring file and must exist") {
  TempDir dir;
  fs::create_directories(dir.path / "bases" / "deb");
  auto path = dir.write("sub/recipe.yaml", "name: x\nbase: oci:../bases/deb:base\n");
  recipe::Recipe r = recipe::load_recipe(path, {});
  CHECK(r.base == "oci:" + (dir.path / "bases" / "deb").string() + ":base");
  auto missing = dir.write("sub/missing.yaml", "name: x\nbase: docker-archive:nope.tar\n");
  CHECK_THROWS_WITH_AS(recipe::load_recipe(missing, {}), doctest::Contains("does not exist"), recipe::RecipeError);
}

TEST_CASE("recipe: text from stdin resolves paths against the working directory") {
  TempDir dir;
  dir.write("motd", "hi\n");
  fs::path cwd = fs::current_path();
  fs::current_path(dir.path);
  recipe::LoadOptions options;
  options.recipe_text = "name: x\nfiles:\n  - src: motd\n    dest: /etc/motd\n";
  recipe::Recipe r = recipe::load_recipe("-", options);
  fs::current_path(cwd);
  REQUIRE(r.files.size() == 1);
  CHECK(*r.files[0].src == dir.path / "motd");
}

TEST_CASE("image archives: truncated or corrupted archives fail with rp::Error only") {
  TempDir dir;
  ContentStore store(dir.path / "store");
  SealedImage img = small_image(store, std::string(3000, 'x'));
  write_oci_archive(img, store, dir.path / "oci.tar", {"v1"}, 0);
  write_docker_archive(img, store, dir.path / "docker.tar", {{"a:1", "docker.io/library/a:1"}}, 0);
  for (const char* name : {"oci.tar", "docker.tar"}) {
    std::string good = read_file(dir.path / name);
    std::string transport = std::string(name) == "oci.tar" ? "oci-archive:" : "docker-archive:";
    int errors = 0;
    for (size_t step = 0; step < good.size(); step += 97) {
      for (int variant = 0; variant < 2; ++variant) {
        std::string bad = variant == 0 ? good.substr(0, step) : good;
        if (variant == 1) bad[step] = static_cast<char>(bad[step] ^ 0x5a);
        write_file_atomic(dir.path / "bad.tar", bad);
        ContentStore scratch(dir.path / "scratch");
        try {
          ImageLocation where = ImageLocation::parse(transport + (dir.path / "bad.tar").string());
          (void)read_local_image(where);
          (void)seal_local_image(where, scratch);
        } catch (const Error&) {
          ++errors;
        }  // anything else (json or std exceptions, crashes) fails the test
      }
    }
    CHECK(errors > 0);
  }
}
