#pragma once
// Reads images back from the local formats rockpack writes (and Docker/skopeo write): for
// `rockpack inspect`, and to take a base image from a file. Every blob imported into the store is
// checked against its digest.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "image/image.hpp"
#include "output/output_spec.hpp"
#include "store/content_store.hpp"

namespace rp {

struct LocalImage {
  std::string source;           // "oci:DIR:TAG", "oci-archive:FILE:TAG" or "docker-archive:FILE"
  std::optional<Descriptor> manifest;  // absent for legacy docker archives
  std::string manifest_bytes;    // exactly as stored (empty when absent)
  nlohmann::json manifest_json;  // null when absent
  nlohmann::json config;
  std::string config_bytes;      // exactly as stored (OCI layouts and archives)
  std::string config_digest;
  std::string config_media_type;
  std::vector<std::string> repo_tags;  // docker archives: RepoTags; layouts: every tag of the image
  struct Layer {
    std::string media_type;
    std::string digest;  // may be empty for legacy archives
    std::string path;    // where it is inside the archive / layout
    uint64_t size = 0;
    std::string diff_id;
  };
  std::vector<Layer> layers;
};

// Picks the manifest tagged `tag` (or the only one when `tag` is empty; several tags of one manifest
// are one image). An oci-archive is an OCI layout in a tar, as skopeo and podman write it.
LocalImage read_oci_layout(const fs::path& dir, const std::string& tag);
LocalImage read_oci_archive(const fs::path& file, const std::string& tag);
LocalImage read_docker_archive(const fs::path& file);

// What read_docker_archive gathers in its one pass over the tar before it reads manifest.json.
struct DockerArchiveMembers {
  std::map<std::string, uint64_t> sizes;          // regular members -> size
  std::map<std::string, std::string> small_json;  // manifest.json, *.json, small blobs -> content
  std::map<std::string, std::string> links;       // symlink or hardlink member -> the member it names
};
// The image that the first entry of manifest.json describes (config, RepoTags, layers with links
// followed). Throws rp::Error naming `file` for a missing or malformed manifest.json or config, or
// a layer the archive lacks. Separate from the tar scan so that it can be fuzzed on its own.
LocalImage docker_image_from_members(const std::string& file, DockerArchiveMembers members);
LocalImage read_local_image(const ImageLocation& where);

// Copies the image's blobs into `store` (verified) and returns it as an Image to build on.
// `manifest_digest` (when given) gets the source's manifest digest, empty for a legacy docker archive.
Image import_local_image(const ImageLocation& where, ContentStore& store, std::string* manifest_digest = nullptr);

// An OCI layout's image with its blobs left where they are, for a reader that verifies each blob as
// it streams it (rockpack diff): nothing is copied into the store. `blob_paths` gets each layer's
// file, in order. Throws rp::Error naming the image and the layer when a blob file is missing
// (unless !check_blobs: a reader of the manifest and config only).
Image read_oci_layout_in_place(const ImageLocation& where, std::vector<fs::path>& blob_paths,
                               std::string* manifest_digest = nullptr, bool check_blobs = true);

// The image with its layers in `store` and, where the source has a manifest (an OCI layout or
// oci-archive), that manifest's exact bytes, so a copy keeps the digest. A legacy docker
// archive gets a new OCI manifest.
SealedImage seal_local_image(const ImageLocation& where, ContentStore& store);

}  // namespace rp
