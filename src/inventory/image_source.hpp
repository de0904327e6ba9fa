#pragma once
// Any image a user can name — a registry reference, oci:DIR[:TAG], oci-archive:FILE[:TAG],
// docker-archive:FILE — brought into the content store (every blob verified) as an Image, or, for an
// OCI layout read in place, left where it is (each blob verified when the inventory streams it).
#include <string>
#include <vector>

#include "image/image.hpp"
#include "util/platform.hpp"
#include "registry/options.hpp"
#include "store/content_store.hpp"

namespace rp::inventory {

struct SourcedImage {
  Image image;
  std::string manifest_digest;  // empty for a legacy docker archive
  // Non-empty when the layers were left in place: layer i's blob is blob_paths[i] (an OCI layout's
  // blobs/sha256/<hex>), not in the store.
  std::vector<fs::path> blob_paths;
};

// With `in_place`, an oci: layout's blobs are not imported into the store (one read of each blob
// instead of two: the inventory verifies the digest as it streams the layer); other sources are
// imported or pulled into the store as without it.
SourcedImage load_image(const std::string& location, const Platform& platform, ContentStore& store,
                        const registry::RegistryOptions& options, bool in_place = false);

}  // namespace rp::inventory
