#pragma once
// Exact-bytes images for the registry commands: what `rockpack push oci:DIR` sends must be the
// layout's own manifest and config (so the digest stays), and what `rockpack pull` writes must be
// the registry's own manifest (so `pull` then `push` round-trips to the same digest; for Docker
// schema 2 images only the manifest's media types change, see below).
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "image/image.hpp"
#include "registry/pull.hpp"
#include "store/content_store.hpp"

namespace rp::registry {

// The image tagged `tag` (or the only one) of an OCI layout, with its manifest and config bytes as stored.
SealedImage sealed_from_oci_layout(const std::filesystem::path& dir, const std::string& tag);

// A multi-platform image of an OCI layout: the index's bytes and its children (all in the layout).
struct LayoutIndex {
  std::string bytes;
  std::string media_type;
  std::vector<SealedImage> children;
};
// nullopt when the entry tagged `tag` (or the only entry) is a single image, not an index.
std::optional<LayoutIndex> index_from_oci_layout(const std::filesystem::path& dir, const std::string& tag);

// A pulled image, with the manifest and config bytes the registry served (both are in the store).
// A Docker schema 2 manifest is rewritten with OCI media types (OCI layouts hold OCI manifests);
// its config and layers are unchanged.
SealedImage sealed_from_pull(const PullResult& pulled, const ContentStore& store);

}  // namespace rp::registry
