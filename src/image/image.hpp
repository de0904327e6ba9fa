#pragma once
// The one image model every output is written from: a config (kept as JSON so fields of a base image
// that rockpack does not model survive), the layers in order (base first) and manifest annotations.
// Blobs themselves live in the content store; the model only refers to them by digest.
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "image/descriptor.hpp"

namespace rp {

struct ImageLayer {
  Descriptor blob;      // the compressed blob as stored and pushed
  std::string diff_id;  // sha256 of the uncompressed tar
  uint64_t uncompressed_size = 0;  // 0 when unknown (layers inherited from a base)
};

struct Image {
  nlohmann::json config;  // the full OCI config; rootfs.diff_ids is kept in step with `layers`
  std::vector<ImageLayer> layers;
  std::map<std::string, std::string> annotations;  // manifest annotations

  // Appends a layer and its history entry to the config.
  void add_layer(const ImageLayer& layer, const nlohmann::json& history_entry);
};

// The serialized form of an Image: exact bytes and digests, as written to every output.
struct SealedImage {
  std::string config_bytes;
  Descriptor config;
  std::string manifest_bytes;
  Descriptor manifest;
  std::vector<ImageLayer> layers;
  Platform platform;
};

// Serializes config and manifest canonically (sorted keys, no whitespace) so the same image always has
// the same digest.
SealedImage seal(const Image& image);

// Reads an OCI or Docker schema 2 manifest + config back into an Image (used for bases and inspect).
Image image_from_manifest(const nlohmann::json& manifest, const nlohmann::json& config, const std::string& where);

std::string canonical_json(const nlohmann::json& j);

}  // namespace rp
