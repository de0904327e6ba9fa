#pragma once
// The registry layer cache (`build --cache-from REF`, `--cache-to REF`), BuildKit's registry cache
// for rockpack: layers built on one machine are found by their content key on another, with an
// empty store, instead of being built and compressed again.
//
// --cache-from: the artifact at REF (layer_cache_document.hpp) is fetched once. A layer the build
// needs and the cache lists is
//   - downloaded into the store (digest checked on arrival, diff_id checked by decompressing, as a
//     base layer is) when the image goes to a local output or another registry; or
//   - left where it is when the image only goes to REF's registry: the blob is checked to be there
//     (HEAD) and remembered as held by REF's repository, so the push mounts it (or finds it) and
//     nothing is downloaded. Its digest, size and diff_id are then the cache's word (rockpack wrote
//     them with --cache-to; whoever can change the cache can change the pushed image anyway). A
//     push that cannot mount it downloads it after all (fetch_into_store).
// An unreachable, missing or damaged cache is a warning and an empty cache; an entry whose blob is
// missing or wrong is skipped with a warning (the layer is built). Never a failed build.
//
// --cache-to: after the build (and its push), the artifact listing every layer of this build is
// pushed to REF: config blob, the layer blobs (mounted or already there when they can be), the
// manifest by tag. A failure there is an error: the image was written, the cache was not.
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "assemble/external_layer_cache.hpp"
#include "registry/layer_cache_document.hpp"
#include "reference/reference.hpp"
#include "registry/transport.hpp"
#include "store/content_store.hpp"

namespace rp::registry {

struct LayerCacheOptions {
  std::optional<Reference> from;  // --cache-from
  std::optional<Reference> to;    // --cache-to
  // Whether found layers are downloaded into the store. False only when every place the image goes
  // is a repository of `from`'s registry (mountable).
  bool download = true;
};

struct LayerCacheCounts {
  size_t listed = 0;              // entries of the cache read from --cache-from
  size_t hits = 0;                // layers taken from it
  size_t skipped = 0;             // listed, but their blob was missing or wrong
  size_t downloaded = 0;          // hits whose blob was downloaded
  uint64_t bytes_downloaded = 0;
};

class RegistryLayerCache final : public ExternalLayerCache {
 public:
  RegistryLayerCache(LayerCacheOptions options, ContentStore& store, Session& session);

  // Reads --cache-from's artifact (a warning, and an empty cache, when it cannot).
  void load();

  std::optional<ImageLayer> find(const std::string& content_key) override;
  void add(const std::string& content_key, const ImageLayer& layer) override;
  void rejected(const std::string& content_key) override;

  // --cache-to: pushes the artifact of every added layer. Returns its manifest digest.
  std::string export_cache();

  // A hit left in the registry, downloaded into the store after all (its digest checked); for a
  // push that could not mount it. Throws rp::Error when it cannot be had.
  void fetch_into_store(const std::string& digest);

  LayerCacheCounts counts() const;

 private:
  // The blob of `entry`, downloaded and checked, or checked to be in `from` (see above).
  bool make_available(const LayerCacheEntry& entry);

  LayerCacheOptions options_;
  ContentStore& store_;
  Session& session_;
  std::map<std::string, LayerCacheEntry> listed_;  // by content key
  std::vector<LayerCacheEntry> added_;              // this build's layers, in order
  mutable std::mutex mu_;
  LayerCacheCounts counts_;
};

}  // namespace rp::registry
