#pragma once
// The registry layer cache as it is stored: an OCI image manifest (artifactType
// application/vnd.rockpack.layer-cache.v1+json) whose config blob lists, per layer cache key (the
// content key of LayerBuilder::cache_key), the layer's digest, diff_id, sizes and media type, and
// whose layers are those layer blobs (so the registry keeps them and they can be mounted):
//
//   {"rockpack_layer_cache": 1,
//    "layers": [{"key": "sha256:…", "mediaType": "application/vnd.oci.image.layer.v1.tar+gzip",
//                "digest": "sha256:…", "size": 123, "diff_id": "sha256:…", "uncompressed_size": 456}]}
//
// Both come from a registry: untrusted. The parsers check every field and throw rp::Error saying
// what is wrong, never crash (fuzz/fuzz_layer_cache.cpp).
#include <string>
#include <string_view>
#include <vector>

#include "image/descriptor.hpp"
#include "image/image.hpp"

namespace rp::registry {

inline constexpr const char* kLayerCacheArtifactType = "application/vnd.rockpack.layer-cache.v1+json";
inline constexpr const char* kLayerCacheConfigType = "application/vnd.rockpack.layer-cache.config.v1+json";
inline constexpr int kLayerCacheVersion = 1;
// A cache config bigger than this is not one (a few hundred bytes per layer).
inline constexpr int64_t kMaxLayerCacheConfig = 16 << 20;
inline constexpr size_t kMaxLayerCacheEntries = 100000;

struct LayerCacheEntry {
  std::string key;  // the layer's content key, "sha256:<hex>"
  ImageLayer layer;
};

// The config blob's canonical bytes; entries in the order given (a build's layer order).
std::string layer_cache_config(const std::vector<LayerCacheEntry>& entries);
// Throws rp::Error on anything but a well-formed config of this version: every key and digest a
// valid sha256 digest, sizes not negative, a layer media type rockpack writes.
std::vector<LayerCacheEntry> parse_layer_cache_config(std::string_view bytes);

// The artifact manifest's canonical bytes: the config descriptor and one layer per distinct blob.
std::string layer_cache_manifest(const Descriptor& config, const std::vector<LayerCacheEntry>& entries);
// What a fetched cache manifest points at. Throws rp::Error when it is not a rockpack layer cache.
struct LayerCacheManifest {
  Descriptor config;
  std::vector<Descriptor> layers;
};
LayerCacheManifest parse_layer_cache_manifest(std::string_view bytes);

}  // namespace rp::registry
