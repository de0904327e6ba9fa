#pragma once
// What the two tar formats of an image (docker-archive and oci-archive) share: an OCI layout's
// files as tar entries (each blob once, layers streamed from the store) and writing them as one
// deterministic tar, atomically.
#include <memory>
#include <string>
#include <vector>

#include "entries/entry.hpp"
#include "image/image.hpp"
#include "store/content_store.hpp"

namespace rp {

// "blobs/sha256/<hex>"
std::string blob_path(const std::string& digest);
// A regular file of the archive (mode 0644, root-owned).
Entry file_entry(const std::string& path, std::shared_ptr<const ContentSource> content);
// The image's blobs: its layers (read from `store` while the tar is written), config and manifest.
std::vector<Entry> layout_blob_entries(const SealedImage& image, const ContentStore& store);
// Sorts `entries` and writes them as a tar with every mtime `mtime`, replacing `file` atomically.
void write_layout_tar(std::vector<Entry>& entries, const fs::path& file, int64_t mtime);

}  // namespace rp
