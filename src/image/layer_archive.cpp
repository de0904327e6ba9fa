#include "image/layer_archive.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "image/media_types.hpp"
#include "util/archive_fd_reader.hpp"
#include "util/digest.hpp"
#include "util/error.hpp"

namespace rp {

// Feeds libarchive from the blob while hashing it.
struct LayerArchive::Reader {
  Sha256 sha;
  ArchiveFdReader fd_reader;
  Reader() { fd_reader.sha = &sha; }
  ~Reader() {
    if (fd_reader.fd >= 0) ::close(fd_reader.fd);
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
  reader_->fd_reader.fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (reader_->fd_reader.fd < 0) throw Error("cannot open " + where_ + " in the store: " + std::strerror(errno));
  archive_ = archive_read_new();
  archive_read_support_format_tar(archive_);
  archive_read_support_format_gnutar(archive_);
  try {
    enable_filter_for(archive_, layer);
  } catch (...) {
    archive_read_free(archive_);
    throw;
  }
  if (archive_read_open(archive_, &reader_->fd_reader, nullptr, &ArchiveFdReader::read, nullptr) != ARCHIVE_OK) {
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
    ssize_t n = ::read(reader_->fd_reader.fd, reader_->fd_reader.buffer.data(), reader_->fd_reader.buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error("cannot read " + where_ + ": " + std::strerror(errno));
    if (n == 0) break;
    reader_->sha.update(reader_->fd_reader.buffer.data(), static_cast<size_t>(n));
  }
  std::string actual = reader_->sha.finish_digest();
  if (actual != digest_)
    throw Error(where_ + " does not match its digest (read " + actual + ")",
                "the store copy is corrupt; remove it from the store and pull again");
}

}  // namespace rp
