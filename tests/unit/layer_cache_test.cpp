// The registry layer cache's document (untrusted JSON from a registry) and the layer builder's use
// of an external cache: a listed layer is taken without compressing, every layer is reported by
// its content key, and a cache that has nothing is a plain build.
#include <doctest/doctest.h>

#include <map>

#include "assemble/layer_builder.hpp"
#include "registry/layer_cache_document.hpp"
#include "test_helpers.hpp"
#include "util/digest.hpp"
#include "util/error.hpp"

using namespace rp;
using rp::test::TempDir;

namespace {

Entry text_file(const std::string& path, const std::string& content) {
  Entry e;
  e.path = path;
  e.type = EntryType::kFile;
  e.mode = 0644;
  e.content = std::make_shared<InlineContent>(content);
  e.origin = "test";
  return e;
}

registry::LayerCacheEntry sample_entry(char fill) {
  registry::LayerCacheEntry e;
  e.key = "sha256:" + std::string(64, fill);
  e.layer.blob.media_type = "application/vnd.oci.image.layer.v1.tar+gzip";
  e.layer.blob.digest = "sha256:" + std::string(64, 'b');
  e.layer.blob.size = 1234;
  e.layer.diff_id = "sha256:" + std::string(64, 'c');
  e.layer.uncompressed_size = 5678;
  return e;
}

// An external cache in memory: what it lists, and what the builder told it.
class FakeCache final : public ExternalLayerCache {
 public:
  std::map<std::string, ImageLayer> listed;
  std::map<std::string, ImageLayer> added;
  int asked = 0;
  std::optional<ImageLayer> find(const std::string& key) override {
    ++asked;
    auto it = listed.find(key);
    if (it == listed.end()) return std::nullopt;
    return it->second;
  }
  void add(const std::string& key, const ImageLayer& layer) override { added[key] = layer; }
};

}  // namespace

TEST_CASE("layer cache config: written, then read back the same") {
  std::vector<registry::LayerCacheEntry> entries{sample_entry('a'), sample_entry('d')};
  std::string bytes = registry::layer_cache_config(entries);
  auto back = registry::parse_layer_cache_config(bytes);
  REQUIRE(back.size() == 2);
  CHECK(back[0].key == entries[0].key);
  CHECK(back[1].key == entries[1].key);
  CHECK(back[0].layer.blob.digest == entries[0].layer.blob.digest);
  CHECK(back[0].layer.blob.size == 1234);
  CHECK(back[0].layer.diff_id == entries[0].layer.diff_id);
  CHECK(back[0].layer.uncompressed_size == 5678);
  CHECK(back[0].layer.blob.media_type == entries[0].layer.blob.media_type);
  // Same entries, same bytes (the config digest does not wander).
  CHECK(registry::layer_cache_config(back) == bytes);
}

TEST_CASE("layer cache config: damaged documents are errors that say what is wrong") {
  auto fails_with = [](const std::string& text, const std::string& words) {
    try {
      (void)registry::parse_layer_cache_config(text);
      FAIL("parsed: " << text);
    } catch (const Error& e) {
      CHECK_MESSAGE(std::string(e.what()).find(words) != std::string::npos, e.what());
    }
  };
  fails_with("not json", "not a JSON object");
  fails_with("[1,2]", "not a JSON object");
  fails_with(R"({"layers":[]})", "rockpack_layer_cache");
  fails_with(R"({"rockpack_layer_cache":2,"layers":[]})", "format version");
  fails_with(R"({"rockpack_layer_cache":1,"layers":{}})", "not a list");
  fails_with(R"({"rockpack_layer_cache":1,"layers":[7]})", "layers[0] is not a JSON object");
  std::string good = registry::layer_cache_config({sample_entry('a')});
  auto with = [&](const std::string& from, const std::string& to) {
    std::string s = good;
    auto at = s.find(from);
    REQUIRE(at != std::string::npos);
    return s.replace(at, from.size(), to);
  };
  fails_with(with("\"size\":1234", "\"size\":-1"), "\"size\" is not a size");
  fails_with(with("\"size\":1234", "\"size\":\"1234\""), "\"size\" is not a size");
  fails_with(with("\"size\":1234", "\"size\":18446744073709551615"), "\"size\" is not a size");
  fails_with(with("\"key\":\"sha256:", "\"key\":\"md5:"), "\"key\" is not a sha256 digest");
  fails_with(with("tar+gzip", "tar+lz4"), "not a layer media type");
  fails_with(with(",\"uncompressed_size\":5678", ""), "has no \"uncompressed_size\"");  // the last key, sorted
}

TEST_CASE("layer cache manifest: names its config and layers, and refuses an image manifest") {
  Descriptor config{registry::kLayerCacheConfigType, sha256_digest("{}"), 2, {}, {}};
  std::vector<registry::LayerCacheEntry> entries{sample_entry('a'), sample_entry('d')};  // one blob, twice
  auto m = registry::parse_layer_cache_manifest(registry::layer_cache_manifest(config, entries));
  CHECK(m.config.digest == config.digest);
  REQUIRE(m.layers.size() == 1);
  CHECK(m.layers[0].digest == entries[0].layer.blob.digest);

  std::string image = R"({"schemaVersion":2,"config":{"mediaType":"application/vnd.oci.image.config.v1+json",)"
                      R"("digest":"sha256:)" + std::string(64, 'a') + R"(","size":10},"layers":[]})";
  CHECK_THROWS_WITH_AS(registry::parse_layer_cache_manifest(image),
                       doctest::Contains("not a rockpack layer cache"), Error);
  CHECK_THROWS_AS(registry::parse_layer_cache_manifest("{\"config\":5}"), Error);
  CHECK_THROWS_AS(registry::parse_layer_cache_manifest("nope"), Error);
}

TEST_CASE("layer builder: a layer the external cache lists is taken, not compressed") {
  TempDir dir;
  ContentStore store(dir.path / "store");
  std::vector<Entry> entries{text_file("etc/hello", "hello\n")};
  finalize_entries(entries);

  // Built once in another store: the layer and its content key, as --cache-to would list them.
  ImageLayer elsewhere;
  std::string key;
  {
    ContentStore other(dir.path / "other");
    FakeCache recorder;
    LayerBuilder builder(other, LayerOptions{Compression::parse("gzip"), 0, 1, true, &recorder});
    BuiltLayer built = builder.build("hello", entries, "recipe/hello");
    CHECK_FALSE(built.from_cache);
    REQUIRE(recorder.added.size() == 1);
    key = recorder.added.begin()->first;
    CHECK(key == builder.cache_key(entries));
    elsewhere = built.layer;
    // The "download": the blob arrives in the empty store.
    store.put(other.read_all(elsewhere.blob.digest));
  }

  FakeCache cache;
  cache.listed[key] = elsewhere;
  LayerBuilder builder(store, LayerOptions{Compression::parse("gzip"), 0, 1, true, &cache});
  BuiltLayer got = builder.build("hello", entries, "recipe/hello");
  CHECK(got.from_cache);
  CHECK(got.from_external_cache);
  CHECK(got.layer.blob.digest == elsewhere.blob.digest);
  CHECK(got.layer.diff_id == elsewhere.diff_id);
  CHECK(cache.added.count(key) == 1);  // --cache-to lists it again
  // Recorded in the store: a second build finds it there without asking the cache.
  int asked = cache.asked;
  BuiltLayer again = builder.build("hello", entries, "recipe/hello");
  CHECK(again.from_cache);
  CHECK_FALSE(again.from_external_cache);
  CHECK(cache.asked == asked);
}

TEST_CASE("layer builder: an external cache without the key is a plain build, and --no-cache still reports keys") {
  TempDir dir;
  ContentStore store(dir.path / "store");
  std::vector<Entry> entries{text_file("a.txt", "a\n")};
  finalize_entries(entries);
  FakeCache cache;
  LayerBuilder builder(store, LayerOptions{Compression::parse("gzip"), 0, 1, true, &cache});
  BuiltLayer built = builder.build("a", entries, "recipe/a");
  CHECK_FALSE(built.from_cache);
  CHECK(cache.asked == 1);
  CHECK(cache.added.count(builder.cache_key(entries)) == 1);

  FakeCache only_to;
  LayerBuilder no_cache(store, LayerOptions{Compression::parse("gzip"), 0, 1, false, &only_to});
  BuiltLayer rebuilt = no_cache.build("a", entries, "recipe/a");
  CHECK_FALSE(rebuilt.from_cache);
  CHECK(only_to.asked == 0);
  CHECK(only_to.added.count(no_cache.cache_key(entries)) == 1);
  CHECK(rebuilt.layer.blob.digest == built.layer.blob.digest);
}
