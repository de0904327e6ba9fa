#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "image/media_types.hpp"
#include "output/oci_layout.hpp"
#include "store/content_store.hpp"
#include "test_helpers.hpp"
#include "transports/load.hpp"
#include "transports/location.hpp"
#include "util/digest.hpp"
#include "util/error.hpp"

using namespace rp;
using rp::test::TempDir;
using transports::Layers;
using transports::parse_location;
namespace fs = std::filesystem;

TEST_CASE("transports: each spelling of a location goes to its transport") {
  auto layout = parse_location("oci:out/img:v1");
  REQUIRE(layout.is_local());
  CHECK(layout.local->kind == ImageLocation::Kind::kOciLayout);
  CHECK(layout.local->path == "out/img");
  CHECK(layout.local->tag == "v1");

  auto archive = parse_location("oci-archive:img.tar");
  REQUIRE(archive.is_local());
  CHECK(archive.local->kind == ImageLocation::Kind::kOciArchive);

  auto docker = parse_location("docker-archive:img.tar:localhost:5000/app:v2");
  REQUIRE(docker.is_local());
  CHECK(docker.local->kind == ImageLocation::Kind::kDockerArchive);
  CHECK(docker.local->path == "img.tar");

  // A registry reference, with or without skopeo's docker:// in front: the same image.
  auto plain = parse_location("localhost:5000/team/app:v1");
  auto prefixed = parse_location("docker://localhost:5000/team/app:v1");
  CHECK_FALSE(plain.is_local());
  CHECK_FALSE(prefixed.is_local());
  CHECK(plain.remote.registry == "localhost:5000");
  CHECK(plain.remote.repository == "team/app");
  CHECK(plain.str() == prefixed.str());
  CHECK(parse_location("alpine").str() == "docker.io/library/alpine:latest");
}

TEST_CASE("transports: a malformed location is an InputError from the transport it names") {
  CHECK_THROWS_AS(parse_location("oci:"), InputError);
  CHECK_THROWS_AS(parse_location("docker://Alpine"), InputError);
  CHECK_THROWS_AS(parse_location("docker://"), InputError);
  CHECK_THROWS_AS(parse_location("http://localhost:5000/app"), InputError);
}

TEST_CASE("transports: pinned names a registry image by digest alone, a file as it is") {
  const std::string d = "sha256:" + std::string(64, 'a');
  auto remote = parse_location("localhost:5000/app:v1").pinned(d);
  CHECK(remote.str() == "localhost:5000/app@" + d);
  CHECK(remote.remote.identifier() == d);
  auto local = parse_location("oci:out/img:v1").pinned(d);
  CHECK(local.str() == parse_location("oci:out/img:v1").str());
}

namespace {

SealedImage small_image(ContentStore& store) {
  Image img;
  img.config = {{"architecture", "amd64"}, {"os", "linux"}, {"rootfs", {{"type", "layers"}, {"diff_ids", nlohmann::json::array()}}}};
  const std::string bytes = "layer of the transports test";
  ImageLayer layer;
  layer.blob = {media::kOciLayerGzip, store.put(bytes), static_cast<int64_t>(bytes.size()), {}, std::nullopt};
  layer.diff_id = sha256_digest("diff " + bytes);
  img.add_layer(layer, {{"created_by", "test"}});
  return seal(img);
}

}  // namespace

TEST_CASE("transports: load_image reads an oci: layout into the store, in place, or its manifest only") {
  TempDir dir;
  ContentStore built(dir.path / "built");
  SealedImage image = small_image(built);
  write_oci_layout(image, built, dir.path / "layout", {"v1"});
  const std::string layer = image.layers.at(0).blob.digest;
  registry::Session session(registry::RegistryOptions{});
  const auto where = parse_location("oci:" + (dir.path / "layout").string() + ":v1");

  ContentStore in_place_store(dir.path / "in-place");
  auto in_place = transports::load_image(where, Platform::parse("linux/amd64"), in_place_store, session, Layers::kInPlace);
  CHECK(in_place.manifest_digest == image.manifest.digest);
  REQUIRE(in_place.blob_paths.size() == 1);
  CHECK(in_place.blob_paths[0] == dir.path / "layout/blobs/sha256" / layer.substr(7));
  CHECK_FALSE(in_place_store.contains(layer));

  ContentStore none_store(dir.path / "none");
  fs::remove(dir.path / "layout/blobs/sha256" / layer.substr(7));  // the manifest alone never looks at it
  auto head = transports::load_image(where, Platform::parse("linux/amd64"), none_store, session, Layers::kNone);
  CHECK(head.manifest_digest == image.manifest.digest);
  CHECK_FALSE(head.has_layers);
  CHECK(head.blob_paths.empty());
  CHECK_THROWS_AS(transports::load_image(where, Platform::parse("linux/amd64"), none_store, session, Layers::kStore), Error);

  write_oci_layout(image, built, dir.path / "layout", {"v1"});
  ContentStore store(dir.path / "store");
  auto imported = transports::load_image(where, Platform::parse("linux/amd64"), store, session);
  CHECK(imported.manifest_digest == image.manifest.digest);
  CHECK(imported.has_layers);
  CHECK(imported.blob_paths.empty());
  CHECK(store.contains(layer));
}

TEST_CASE("transports: load_image sends a registry reference to the registry") {
  TempDir dir;
  ContentStore store(dir.path);
  registry::RegistryOptions options;
  options.retry.max_attempts = 1;
  registry::Session session(options);
  // Port 1 on loopback: nothing listens, so the pull fails, and says it was a registry it tried.
  CHECK_THROWS_WITH_AS(transports::load_image(parse_location("docker://127.0.0.1:1/app:v1"), Platform::parse("linux/amd64"),
                                              store, session),
                       doctest::Contains("127.0.0.1:1"), Error);
}
