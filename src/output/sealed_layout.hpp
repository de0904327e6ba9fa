#pragma once
// An OCI layout's image (or multi-platform index) with its manifest and config bytes exactly as
// stored: what `rockpack push oci:DIR` sends, so that the digest in the registry is the layout's.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "image/image.hpp"

namespace rp {

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

}  // namespace rp
