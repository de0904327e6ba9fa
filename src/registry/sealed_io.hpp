#pragma once
// The exact-bytes image `rockpack pull` writes: the registry's own manifest, so that `pull` then
// `push` round-trips to the same digest (for Docker schema 2 images only the manifest's media types
// change, see below). What `push oci:DIR` sends is output/sealed_layout.hpp.

#include "image/image.hpp"
#include "registry/pull.hpp"
#include "store/content_store.hpp"

namespace rp::registry {

// A pulled image, with the manifest and config bytes the registry served (both are in the store).
// A Docker schema 2 manifest is rewritten with OCI media types (OCI layouts hold OCI manifests);
// its config and layers are unchanged.
SealedImage sealed_from_pull(const PullResult& pulled, const ContentStore& store);

}  // namespace rp::registry
