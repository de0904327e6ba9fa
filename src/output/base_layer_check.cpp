#include "output/base_layer_check.hpp"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string_view>

#include "util/strings.hpp"
#include "util/digest.hpp"
#include "util/error.hpp"

namespace rp {

namespace {

// Reads the compressed blob, hashing it on the way (the digest check).
struct BlobReader {
  int fd = -1;
  Sha256 sha;
  uint64_t count = 0;
  std::string buf = std::string(1 << 20, '\0');
};

la_ssize_t read_blob(archive* a, void* data, const void** out) {
  auto* r = static_cast<BlobReader*>(data);
  for (;;) {
    ssize_t n = ::read(r->fd, r->buf.data(), r->buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      archive_set_error(a, errno, "%s", std::strerror(errno));
      return -1;
    }
    r->sha.update(r->buf.data(), static_cast<size_t>(n));
    r->count += static_cast<uint64_t>(n);
    *out = r->buf.data();
    return n;
  }
}

// Feeds the decompressed stream to the tar reader, hashing it on the way (the diff_id check).
struct PlainReader {
  archive* outer = nullptr;
  Sha256 sha;
  std::string buf = std::string(1 << 20, '\0');
  bool failed = false;
};

la_ssize_t read_plain(archive*, void* data, const void** out) {
  auto* r = static_cast<PlainReader*>(data);
  la_ssize_t n = archive_read_data(r->outer, r->buf.data(), r->buf.size());
  if (n < 0) {
    r->failed = true;
    return -1;
  }
  r->sha.update(r->buf.data(), static_cast<size_t>(n));
  *out = r->buf.data();
  return n;
}

bool climbs_out(const char* path) { return path && has_dot_dot_component(path); }

struct ArchiveFree {
  void operator()(archive* a) const { archive_read_free(a); }
};
using ArchivePtr = std::unique_ptr<archive, ArchiveFree>;

}  // namespace

void verify_base_layer(const ContentStore& store, const std::string& digest, int64_t size, const std::string& diff_id,
                       const std::string& what) {
  std::string record_key = digest + " " + diff_id;
  if (auto rec = store.get_record("base-layer-verified", record_key); rec && rec->is_boolean() && rec->get<bool>()) {
    // Its bytes were checked; the size is still compared (it costs a stat).
    if (store.contains(digest) && static_cast<int64_t>(store.blob_size(digest)) == size) return;
  }
  if (!store.contains(digest)) throw Error(what + ": layer " + digest + " is not in the store");
  uint64_t actual_size = store.blob_size(digest);
  if (static_cast<int64_t>(actual_size) != size)
    throw Error(what + ": layer " + digest + " is " + std::to_string(actual_size) + " bytes, but its descriptor says " +
                    std::to_string(size),
                "the base image is damaged or was altered; nothing was built on it");

  BlobReader blob;
  blob.fd = ::open(store.blob_path(digest).c_str(), O_RDONLY | O_CLOEXEC);
  if (blob.fd < 0) throw Error(what + ": cannot open layer " + digest + ": " + std::strerror(errno));
  UniqueFd blob_fd(blob.fd);
  ArchivePtr outer(archive_read_new());
  archive_read_support_filter_all(outer.get());
  archive_read_support_format_raw(outer.get());
  if (archive_read_open(outer.get(), &blob, nullptr, read_blob, nullptr) != ARCHIVE_OK)
    throw Error(what + ": layer " + digest + " cannot be read: " + shorten(archive_error_string(outer.get()) ? archive_error_string(outer.get()) : "?"));
  archive_entry* e;
  if (archive_read_next_header(outer.get(), &e) != ARCHIVE_OK)
    throw Error(what + ": layer " + digest + " is not a (compressed) tar");

  PlainReader plain;
  plain.outer = outer.get();
  ArchivePtr tar(archive_read_new());
  archive_read_support_format_tar(tar.get());
  if (archive_read_open(tar.get(), &plain, nullptr, read_plain, nullptr) != ARCHIVE_OK)
    throw Error(what + ": layer " + digest + " is not a tar");
  int r;
  while ((r = archive_read_next_header(tar.get(), &e)) == ARCHIVE_OK || r == ARCHIVE_WARN) {
    const char* name = archive_entry_pathname(e);
    const char* hardlink = archive_entry_hardlink(e);
    if (climbs_out(name) || climbs_out(hardlink))
      throw InputError(what + ": layer " + digest + " has a member that climbs out of the image root: '" +
                           shorten(climbs_out(name) ? name : std::string(name ? name : "") + " -> " + hardlink) + "'",
                       "extractors disagree on such members (some write outside the root); use another base image");
    archive_read_data_skip(tar.get());
  }
  if (r != ARCHIVE_EOF || plain.failed)
    throw Error(what + ": layer " + digest + " is not a readable tar: " +
                shorten(archive_error_string(tar.get()) ? archive_error_string(tar.get()) : "truncated"));
  // The tar reader stops at the end-of-archive blocks; the rest (padding) is part of the diff_id,
  // and the rest of the blob part of its digest.
  const void* ignored = nullptr;
  while (read_plain(nullptr, &plain, &ignored) > 0) {
  }
  if (plain.failed) throw Error(what + ": layer " + digest + " does not decompress");
  while (read_blob(outer.get(), &blob, &ignored) > 0) {
  }
  std::string actual_digest = blob.sha.finish_digest();
  if (actual_digest != digest)
    throw Error(what + ": layer " + digest + " in the store hashes to " + actual_digest,
                "the store copy is damaged; remove it (rockpack cache verify --repair) and build again");
  std::string actual_diff_id = plain.sha.finish_digest();
  if (!diff_id.empty() && actual_diff_id != diff_id)
    throw Error(what + ": layer " + digest + " decompresses to " + actual_diff_id + ", but the config's diff_id is " + diff_id,
                "the base image is damaged or was altered; nothing was built on it");
  store.put_record("base-layer-verified", record_key, true);
}

void verify_base_layers(const Image& image, const ContentStore& store, const std::string& source) {
  auto diff_ids = image.config.contains("rootfs") && image.config["rootfs"].is_object()
                      ? image.config["rootfs"].value("diff_ids", nlohmann::json::array())
                      : nlohmann::json::array();
  if (!diff_ids.is_array() || diff_ids.size() != image.layers.size())
    throw Error(source + ": the config lists " + std::to_string(diff_ids.is_array() ? diff_ids.size() : 0) +
                    " diff_ids for " + std::to_string(image.layers.size()) + " layers",
                "the base image is damaged; use another");
  for (size_t i = 0; i < image.layers.size(); ++i) {
    const auto& l = image.layers[i];
    std::string diff_id = diff_ids[i].is_string() ? diff_ids[i].get<std::string>() : "";
    if (diff_id.empty()) throw Error(source + ": layer " + std::to_string(i + 1) + " has no diff_id in the config");
    verify_base_layer(store, l.blob.digest, l.blob.size, diff_id, source);
  }
}

}  // namespace rp
