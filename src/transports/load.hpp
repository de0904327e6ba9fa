#pragma once
// Any image a user can name brought to where rockpack reads it: the one function above the file
// transports (output/) and the registry (registry/), so that no command decides on its own whether
// an image is local or remote. Every blob that enters the store is verified against its digest.
#include <string>
#include <vector>

#include "image/image.hpp"
#include "registry/transport.hpp"
#include "store/content_store.hpp"
#include "transports/location.hpp"
#include "util/platform.hpp"

namespace rp::transports {

// What the caller needs of the layers.
enum class Layers {
  kStore,     // every layer blob in the store
  kInPlace,   // an oci: layout's blobs left where they are (blob_paths), verified by whoever streams
              // them; other transports as kStore
  kNone,      // the manifest and config only: a registry image's layers are not fetched, an oci:
              // layout's blobs are not even looked at; an archive is imported (one read gives both)
};

struct SourcedImage {
  Image image;
  std::string manifest_digest;  // empty for a legacy docker archive
  // Non-empty when the layers were left in place (Layers::kInPlace on an oci: layout): layer i's
  // blob is blob_paths[i] (the layout's blobs/sha256/<hex>), not in the store.
  std::vector<fs::path> blob_paths;
  // False when Layers::kNone left the layer blobs unread (neither in the store nor checked).
  bool has_layers = true;
};

// The image at `where`, for `platform` when a registry's tag names an index (a file location is
// taken as it is: the caller checks its platform when it matters). Throws rp::Error naming the
// location and what is wrong (unreachable registry, missing tag, blob that does not match...).
SourcedImage load_image(const AnyLocation& where, const Platform& platform, ContentStore& store,
                        registry::Session& session, Layers layers = Layers::kStore);

}  // namespace rp::transports
