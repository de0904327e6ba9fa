#include "image/base_layer_check.hpp"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string_view>

#include "entries/path_parts.hpp"
#include "image/layer_archive.hpp"
#include "util/strings.hpp"
#include "util/digest.hpp"
#include "util/error.hpp"

namespace rp {

namespace {

// A layer checked once is not read again; the kind names what was checked (member names included),
// so a record from an older, weaker check is no pass.
constexpr const char* kVerifiedRecord = "base-layer-verified-2";

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

InputError climbs_out_error(const std::string& what, const std::string& digest, const std::string& member) {
  return InputError(what + ": layer " + digest + " has a member that climbs out of the image root: '" + shorten(member) + "'",
                    "extractors disagree on such members (some write outside the root); use another base image");
}

InputError unsafe_name_error(const std::string& what, const std::string& digest, const std::string& member) {
  return InputError(what + ": layer " + digest + " has a member whose name holds a newline: '" + printable(member) + "'",
                    "dpkg and the line-per-path lists of an image cannot hold such a name; use another base image");
}

// The check as the read the steps share: RootfsView::read_layer verifies the digest and the diff_id
// (a gzip or plain tar layer) while it collects the members.
std::shared_ptr<const RootfsView::LayerRead> read_and_verify(const ContentStore& store, const Descriptor& layer,
                                                             const std::string& diff_id, const std::string& what,
                                                             const RootfsView::KeepContent& keep) {
  std::shared_ptr<const RootfsView::LayerRead> read;
  try {
    read = RootfsView::read_layer(store, layer, keep, diff_id);
  } catch (const InputError&) {
    throw;
  } catch (const Error& e) {
    throw Error(what + ": " + e.what(), e.hint().empty() ? "the base image is damaged or was altered; nothing was built on it" : e.hint());
  }
  if (std::string member = RootfsView::climbing_member(*read); !member.empty())
    throw climbs_out_error(what, layer.digest, member);
  if (std::string member = RootfsView::unsafe_member(*read); !member.empty())
    throw unsafe_name_error(what, layer.digest, member);
  return read;
}

}  // namespace

std::shared_ptr<const RootfsView::LayerRead> verify_base_layer(const ContentStore& store, const Descriptor& layer,
                                                               const std::string& diff_id, const std::string& what,
                                                               const RootfsView::KeepContent& keep) {
  const std::string& digest = layer.digest;
  const int64_t size = layer.size;
  std::string record_key = digest + " " + diff_id;
  if (auto rec = store.get_record(kVerifiedRecord, record_key); rec && rec->is_boolean() && rec->get<bool>()) {
    // Its bytes were checked; the size is still compared (it costs a stat).
    if (store.contains(digest) && static_cast<int64_t>(store.blob_size(digest)) == size) return nullptr;
  }
  if (!store.contains(digest)) throw Error(what + ": layer " + digest + " is not in the store");
  uint64_t actual_size = store.blob_size(digest);
  if (static_cast<int64_t>(actual_size) != size)
    throw Error(what + ": layer " + digest + " is " + std::to_string(actual_size) + " bytes, but its descriptor says " +
                    std::to_string(size),
                "the base image is damaged or was altered; nothing was built on it");
  if (keep && LayerArchive::checks_diff_id(layer)) {
    auto read = read_and_verify(store, layer, diff_id, what, keep);
    store.put_record(kVerifiedRecord, record_key, true);
    return read;
  }

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
      throw climbs_out_error(what, digest, climbs_out(name) ? name : std::string(name ? name : "") + " -> " + hardlink);
    const char* symlink = archive_entry_symlink(e);
    for (const char* text : {name, hardlink, symlink})
      if (text && unsafe_member_name(text)) throw unsafe_name_error(what, digest, std::string(name ? name : "") + " -> " + text);
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
  store.put_record(kVerifiedRecord, record_key, true);
  return nullptr;
}

void verify_base_layer(const ContentStore& store, const std::string& digest, int64_t size, const std::string& diff_id,
                       const std::string& what) {
  Descriptor layer;
  layer.digest = digest;
  layer.size = size;
  verify_base_layer(store, layer, diff_id, what);
}

std::shared_ptr<const BaseLayerReads> verify_base_layers(const Image& image, const ContentStore& store,
                                                         const std::string& source, const RootfsView::KeepContent& keep) {
  auto diff_ids = image.config.contains("rootfs") && image.config["rootfs"].is_object()
                      ? image.config["rootfs"].value("diff_ids", nlohmann::json::array())
                      : nlohmann::json::array();
  if (!diff_ids.is_array() || diff_ids.size() != image.layers.size())
    throw Error(source + ": the config lists " + std::to_string(diff_ids.is_array() ? diff_ids.size() : 0) +
                    " diff_ids for " + std::to_string(image.layers.size()) + " layers",
                "the base image is damaged; use another");
  auto reads = std::make_shared<BaseLayerReads>();
  for (size_t i = 0; i < image.layers.size(); ++i) {
    const auto& l = image.layers[i];
    std::string diff_id = diff_ids[i].is_string() ? diff_ids[i].get<std::string>() : "";
    if (diff_id.empty()) throw Error(source + ": layer " + std::to_string(i + 1) + " has no diff_id in the config");
    auto read = verify_base_layer(store, l.blob, diff_id, source, keep);
    if (read) reads->push_back(std::move(read));
  }
  if (reads->size() != image.layers.size()) return nullptr;
  return reads;
}

}  // namespace rp
