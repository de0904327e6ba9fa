#pragma once
// Reads images back from the local formats rockpack writes (and Docker/skopeo write): for
// `rockpack inspect`, and to take a base image from a file. Every blob imported into the store is
// checked against its digest.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "image/image.hpp"
#include "output/output_spec.hpp"
#include "store/content_store.hpp"

namespace rp {

struct LocalImage {
  std::string source;           // "oci:DIR:TAG" or "docker-archive:FILE"
  std::optional<Descriptor> manifest;  // absent for legacy docker archives
  nlohmann::json manifest_json;  // null when absent
  nlohmann::json config;
  std::string config_digest;
  std::vector<std::string> repo_tags;
  struct Layer {
    std::string media_type;
    std::string digest;  // may be empty for legacy archives
    std::string path;    // where it is inside the archive / layout
    uint64_t size = 0;
    std::string diff_id;
  };
  std::vector<Layer> layers;
};

// Picks the manifest tagged `tag` (or the only one when `tag` is empty).
LocalImage read_oci_layout(const fs::path& dir, const std::string& tag);
LocalImage read_docker_archive(const fs::path& file);
LocalImage read_local_image(const ImageLocation& where);

// Copies the image's blobs into `store` (verified) and returns it as an Image to build on.
Image import_local_image(const ImageLocation& where, ContentStore& store, std::string* manifest_digest = nullptr);

}  // namespace rp
