#include "output/layout_tar.hpp"

#include <set>

#include "assemble/store_content.hpp"
#include "assemble/tar_writer.hpp"
#include "util/fs.hpp"

namespace rp {


std::string blob_path(const std::string& digest) { return "blobs/sha256/" + digest_hex(digest); }

std::vector<Entry> layout_blob_entries(const SealedImage& image, const ContentStore& store) {
  std::vector<Entry> entries;
  std::set<std::string> seen;
  for (const auto& layer : image.layers) {
    if (!seen.insert(layer.blob.digest).second) continue;  // a layer used twice is stored once
    entries.push_back(file_entry(blob_path(layer.blob.digest),
                                 std::make_shared<StoreBlobContent>(store, layer.blob.digest, layer.blob.size)));
  }
  if (seen.insert(image.config.digest).second)
    entries.push_back(file_entry(blob_path(image.config.digest), std::make_shared<InlineContent>(image.config_bytes)));
  entries.push_back(
      file_entry(blob_path(image.manifest.digest), std::make_shared<InlineContent>(image.manifest_bytes)));
  return entries;
}

Entry file_entry(const std::string& path, std::shared_ptr<const ContentSource> content) {
  Entry e;
  e.path = path;
  e.type = EntryType::kFile;
  e.mode = 0644;
  e.content = std::move(content);
  e.origin = "image-archive";
  return e;
}

void write_layout_tar(std::vector<Entry>& entries, const fs::path& file, int64_t mtime) {
  finalize_entries(entries);
  AtomicFile out(file, 0644);
  TarWriter tar(out, mtime);
  for (const auto& e : entries) tar.add(e);
  tar.finish();
  out.commit();
}

}  // namespace rp
