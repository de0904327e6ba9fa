#include "image/layer_archive.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "image/media_types.hpp"
#include "util/digest.hpp"
#include "util/error.hpp"

namespace rp {

// Feeds libarchive from the blob while hashing it. A C callback: nothing may throw through it.
struct LayerArchive::Reader {
  int fd = -1;
  Sha256 sha;
  std::vector<char> buffer = std::vector<char>(1 << 20);

  ~Reader() {
    if (fd >= 0) ::close(fd);
  }

  static la_ssize_t read(archive* a, void* self_ptr, const void** out) {
    auto* self = static_cast<Reader*>(self_ptr);
    ssize_t n;
    do n = ::read(self->fd, self->buffer.data(), self->buffer.size());
    while (n < 0 && errno == EINTR);
    if (n < 0) {
      archive_set_error(a, errno, "%s", std::strerror(errno));
      return -1;
    }
    self->sha.update(self->buffer.data(), static_cast<size_t>(n));
    *out = self->buffer.data();
    return n;
  }
};

namespace {

void enable_filter_for(archive* a, const Descriptor& layer) {
  const std::string& mt = layer.media_type;
  if (mt == media::kOciLayerGzip || mt == media::kDockerLayerGzip || mt == media::kDockerForeignLayerGzip) {
    archive_read_support_filter_gzip(a);
  } else if (mt == media::kOciLayerZstd) {
    archive_read_support_filter_zstd(a);
  } else if (mt == media::kOciLayerTar || mt == "application/vnd.docker.image.rootfs.diff.tar") {
    // uncompressed: no filter
  } else {
    throw Error("layer " + layer.digest + " has the unsupported media type '" + mt + "'",
                "only tar, tar+gzip and tar+zstd layers can be read");
  }
}

}  // namespace

LayerArchive::LayerArchive(const ContentStore& store, const Descriptor& layer)
    : reader_(std::make_unique<Reader>()), where_("layer " + layer.digest), digest_(layer.digest) {
  fs::path file = store.blob_path(layer.digest);
  reader_->fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (reader_->fd < 0) throw Error("cannot open " + where_ + " in the store: " + std::strerror(errno));
  archive_ = archive_read_new();
  archive_read_support_format_tar(archive_);
  archive_read_support_format_gnutar(archive_);
  try {
    enable_filter_for(archive_, layer);
  } catch (...) {
    archive_read_free(archive_);
    throw;
  }
  if (archive_read_open(archive_, reader_.get(), nullptr, &Reader::read, nullptr) != ARCHIVE_OK) {
    std::string message = "cannot read " + where_ + ": " + error();
    archive_read_free(archive_);
    throw Error(message);
  }
}

LayerArchive::~LayerArchive() { archive_read_free(archive_); }

std::string LayerArchive::error() const {
  const char* e = archive_error_string(archive_);
  return e ? e : "unknown error";
}

void LayerArchive::verify_digest() {
  for (;;) {
    ssize_t n = ::read(reader_->fd, reader_->buffer.data(), reader_->buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error("cannot read " + where_ + ": " + std::strerror(errno));
    if (n == 0) break;
    reader_->sha.update(reader_->buffer.data(), static_cast<size_t>(n));
  }
  std::string actual = reader_->sha.finish_digest();
  if (actual != digest_)
    throw Error(where_ + " does not match its digest (read " + actual + ")",
                "the store copy is corrupt; remove it from the store and pull again");
}

}  // namespace rp
