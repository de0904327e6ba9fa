#pragma once
// OCI image layout output: creates DIR, or extends an existing layout. Blobs are shared between
// images; a tag moves to the new manifest (the index entry that had it is replaced). A new layout is
// assembled in a temporary sibling directory and renamed into place; an existing one gets its blobs
// first and its index.json replaced atomically last, so an interrupted build leaves it as it was.
// When a tag moves, the blobs no entry of the index reaches any more are removed (under the same
// lock that serializes writers), so re-tagging does not accumulate garbage.
#include <string>
#include <vector>

#include "image/image.hpp"
#include "store/content_store.hpp"

namespace rp {

void write_oci_layout(const SealedImage& image, const ContentStore& store, const fs::path& dir,
                      const std::vector<std::string>& tags);

struct LayoutGarbage {
  size_t blobs = 0;
  uint64_t bytes = 0;
};
// `rockpack gc oci:DIR`: removes every blob of the layout no index entry reaches (nothing when a
// reachable manifest is missing: then the layout is damaged and nothing is certain to be garbage).
LayoutGarbage collect_layout_garbage(const fs::path& dir);

// The index.json content for `dir` after adding `manifest` under `tags` (exposed for tests).
nlohmann::json updated_index(const nlohmann::json& existing, const Descriptor& manifest,
                             const std::vector<std::string>& tags);

}  // namespace rp
