#pragma once
// docker-archive output, loadable with `docker load` and readable by skopeo. It is written the way
// Docker 25+ saves images: an OCI layout (oci-layout, index.json, blobs/sha256/...) plus the legacy
// manifest.json and repositories files, all in one tar, so old and new readers both find their way.
// Layer blobs are stored compressed as they are; loaders decompress and check the diff_id.
#include <string>
#include <vector>

#include "image/image.hpp"
#include "store/content_store.hpp"

namespace rp {

// One name the archive gives the image. manifest.json lists `repo_tag` as written ("app:v1", what
// docker load shows); index.json names the image by `full_name`, the normalized reference
// ("docker.io/library/app:v1"), which containerd and podman import it as, exactly as `docker save`
// writes it. Every tag gets its own index.json entry, or readers of index.json load one tag only.
struct ArchiveTag {
  std::string repo_tag;
  std::string full_name;
};

// `tags` may be empty (the image loads untagged).
void write_docker_archive(const SealedImage& image, const ContentStore& store, const fs::path& file,
                          const std::vector<ArchiveTag>& tags, int64_t mtime);

}  // namespace rp
