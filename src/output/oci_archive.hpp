#pragma once
// oci-archive output: an OCI image layout (oci-layout, index.json, blobs/sha256/...) in one tar, the
// format `skopeo copy ... oci-archive:` and `podman save --format oci-archive` write and `podman load`
// and `ctr images import` read. The file is replaced as a whole (atomically), never extended.
#include <string>
#include <vector>

#include "image/image.hpp"
#include "store/content_store.hpp"

namespace rp {

// Every tag becomes an index.json entry with org.opencontainers.image.ref.name; none: one untagged entry.
void write_oci_archive(const SealedImage& image, const ContentStore& store, const fs::path& file,
                       const std::vector<std::string>& tags, int64_t mtime);

}  // namespace rp
