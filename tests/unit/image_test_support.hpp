#pragma once
// Builders for small layer tars and planned entries, shared by the RootfsView and interpreter tests.
#include <memory>
#include <string>
#include <vector>

#include "assemble/compression.hpp"
#include "entries/entry.hpp"
#include "assemble/tar_writer.hpp"
#include "image/descriptor.hpp"
#include "image/media_types.hpp"
#include "store/content_store.hpp"

namespace rp::test {

inline Entry file_entry(const std::string& path, const std::string& content, uint32_t mode = 0644) {
  Entry e;
  e.path = path;
  e.type = EntryType::kFile;
  e.mode = mode;
  e.content = std::make_shared<InlineContent>(content);
  e.origin = "test";
  return e;
}

inline Entry dir_entry(const std::string& path, uint32_t mode = 0755) {
  Entry e;
  e.path = path;
  e.type = EntryType::kDirectory;
  e.mode = mode;
  e.origin = "test";
  return e;
}

inline Entry symlink_entry(const std::string& path, const std::string& target) {
  Entry e;
  e.path = path;
  e.type = EntryType::kSymlink;
  e.mode = 0777;
  e.link_target = target;
  e.origin = "test";
  return e;
}

inline Entry hardlink_entry(const std::string& path, const std::string& target) {
  Entry e = symlink_entry(path, target);
  e.type = EntryType::kHardlink;
  e.mode = 0644;
  return e;
}

// The entries as a tar, in the order given (whiteouts may come anywhere, as in real layers).
inline std::string raw_tar(const std::vector<Entry>& entries) {
  StringSink out;
  TarWriter tar(out, 0);
  for (const auto& e : entries) tar.add(e);
  tar.finish();
  return out.take();
}

// Stores the entries as a layer blob: "gzip", "zstd" or "none".
inline Descriptor store_layer(ContentStore& store, const std::vector<Entry>& entries, const std::string& compression = "gzip") {
  std::string tar = raw_tar(entries);
  Descriptor d;
  if (compression == "none") {
    d.media_type = media::kOciLayerTar;
    d.digest = store.put(tar);
    d.size = static_cast<int64_t>(tar.size());
    return d;
  }
  StringSink out;
  auto c = make_compressor(Compression::parse(compression), out, 1);
  c->write(tar.data(), tar.size());
  c->finish();
  d.media_type = compression == "zstd" ? media::kOciLayerZstd : media::kOciLayerGzip;
  d.digest = store.put(out.str());
  d.size = static_cast<int64_t>(out.str().size());
  return d;
}

}  // namespace rp::test
