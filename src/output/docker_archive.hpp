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

// `repo_tags` are "name:tag" strings; may be empty (the image loads untagged).
void write_docker_archive(const SealedImage& image, const ContentStore& store, const fs::path& file,
                          const std::vector<std::string>& repo_tags, int64_t mtime);

}  // namespace rp
