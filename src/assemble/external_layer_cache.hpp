#pragma once
// A layer cache outside the content store, shared between machines (a registry's: see
// registry/layer_cache.hpp). The layer builder asks it by content key when the store has no layer
// for an entry list, and tells it every layer the build ends up with, so the cache can be exported.
// Content keys (LayerBuilder::cache_key) name the inputs only, never a machine's file identities, so
// a key computed on one machine finds the layer built on another.
#include <optional>
#include <string>

#include "image/image.hpp"

namespace rp {

class ExternalLayerCache {
 public:
  virtual ~ExternalLayerCache() = default;
  // The layer listed under `content_key`, ready for this build: its blob verified in the store, or
  // known to be where the image is going (a registry it can be mounted from). nullopt when it is not
  // listed or cannot be had; an unreachable or damaged cache is a miss with a warning, never an error.
  virtual std::optional<ImageLayer> find(const std::string& content_key) = 0;
  // find()'s layer for `content_key` turned out not to be what the key's entries make (the layer
  // builder checks): counted as skipped, not as a hit, and not offered again.
  virtual void rejected(const std::string& /*content_key*/) {}
  // A layer of this build (built, or found in the store or in this cache), under its content key.
  virtual void add(const std::string& content_key, const ImageLayer& layer) = 0;
};

}  // namespace rp
