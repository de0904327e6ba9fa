#include "output/oci_archive.hpp"

#include "output/layout_tar.hpp"
#include "output/oci_layout.hpp"

namespace rp {

void write_oci_archive(const SealedImage& image, const ContentStore& store, const fs::path& file,
                       const std::vector<std::string>& tags, int64_t mtime) {
  std::vector<Entry> entries = layout_blob_entries(image, store);
  entries.push_back(file_entry("index.json", std::make_shared<InlineContent>(
                                                 canonical_json(updated_index({}, image.manifest, tags)))));
  entries.push_back(file_entry("oci-layout", std::make_shared<InlineContent>("{\"imageLayoutVersion\":\"1.0.0\"}")));
  write_layout_tar(entries, file, mtime);
}

}  // namespace rp
