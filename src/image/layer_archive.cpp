#include "image/layer_archive.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "image/media_types.hpp"
#include "util/archive_fd_reader.hpp"
#include "util/background_hashing_sink.hpp"
#include "util/digest.hpp"
#include "util/gzip_fd_reader.hpp"
#include "util/error.hpp"

namespace rp {

// Feeds libarchive from the blob while hashing it: a gzip blob decompressed here (GzipFdReader:
// libdeflate), the others as they are (libarchive decompresses zstd). When the diff_id is checked,
// the decompressed bytes are hashed on a thread of their own: a step that looks into the base
// waits for this read (the base check), and the hash would otherwise add a fifth to it.
struct LayerArchive::Reader {
  Sha256 sha;
  std::unique_ptr<BackgroundHashingSink> uncompressed;  // only while a diff_id is checked
  ArchiveFdReader fd_reader;
  std::unique_ptr<GzipFdReader> gzip;
  Reader() { fd_reader.sha = &sha; }

  // GzipFdReader::next, with the inflated bytes hashed when a diff_id is checked.
  int64_t next_plain(const void** out) {
    int64_t n = gzip->next(out);
    if (n > 0 && uncompressed) uncompressed->write(*out, static_cast<size_t>(n));
    return n;
  }
  // libarchive's read callback over the inflated stream; an error goes to libarchive, not thrown.
  static la_ssize_t read_plain(archive* a, void* self_ptr, const void** out) {
    auto* self = static_cast<Reader*>(self_ptr);
    int64_t n = self->next_plain(out);
    if (n < 0) {
      archive_set_error(a, EIO, "%s", self->gzip->error().c_str());
      return -1;
    }
    return static_cast<la_ssize_t>(n);
  }
  ~Reader() {
    if (fd_reader.fd >= 0) ::close(fd_reader.fd);
  }
};

namespace {

bool is_gzip(const Descriptor& layer) {
  const std::string& mt = layer.media_type;
  return mt == media::kOciLayerGzip || mt == media::kDockerLayerGzip || mt == media::kDockerForeignLayerGzip;
}

bool is_plain_tar(const Descriptor& layer) {
  return layer.media_type == media::kOciLayerTar || layer.media_type == "application/vnd.docker.image.rootfs.diff.tar";
}

void enable_filter_for(archive* a, const Descriptor& layer) {
  const std::string& mt = layer.media_type;
  if (is_gzip(layer)) {
    // decompressed by GzipFdReader
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

LayerArchive::LayerArchive(const ContentStore& store, const Descriptor& layer, const std::string& diff_id)
    : reader_(std::make_unique<Reader>()), where_("layer " + layer.digest), digest_(layer.digest), diff_id_(diff_id) {
  open(store.blob_path(layer.digest), layer);
}

LayerArchive::LayerArchive(const fs::path& file, const Descriptor& layer, const std::string& diff_id)
    : reader_(std::make_unique<Reader>()), where_("layer " + layer.digest), digest_(layer.digest), diff_id_(diff_id) {
  open(file, layer);
}

void LayerArchive::open(const fs::path& file, const Descriptor& layer) {
  reader_->fd_reader.fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (reader_->fd_reader.fd < 0) throw Error("cannot open " + where_ + " (" + file.string() + "): " + std::strerror(errno));
  archive_ = archive_read_new();
  archive_read_support_format_tar(archive_);
  archive_read_support_format_gnutar(archive_);
  try {
    enable_filter_for(archive_, layer);
  } catch (...) {
    archive_read_free(archive_);
    throw;
  }
  // The diff_id is checked here for a gzip layer (Reader hashes what GzipFdReader inflates) and a plain
  // tar (its digest); a zstd layer's is not (libarchive decompresses it).
  if (is_plain_tar(layer) && !diff_id_.empty() && diff_id_ != digest_) {
    archive_read_free(archive_);
    throw Error(where_ + " is an uncompressed tar, so its diff_id must be its digest, but the config says " + diff_id_,
                "the image's config does not describe its layers: rebuild or re-pull it");
  }
  if (is_gzip(layer)) {
    reader_->gzip = std::make_unique<GzipFdReader>(reader_->fd_reader.fd, &reader_->sha, nullptr);
    if (!diff_id_.empty()) reader_->uncompressed = std::make_unique<BackgroundHashingSink>();
  } else {
    diff_id_.clear();
  }
  int opened = reader_->gzip ? archive_read_open(archive_, reader_.get(), nullptr, &Reader::read_plain, nullptr)
                             : archive_read_open(archive_, &reader_->fd_reader, nullptr, &ArchiveFdReader::read, nullptr);
  if (opened != ARCHIVE_OK) {
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

bool LayerArchive::checks_diff_id(const Descriptor& layer) { return is_gzip(layer) || is_plain_tar(layer); }

std::string LayerArchive::sniff_compression(const fs::path& file) {
  int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw Error("cannot open " + file.string() + ": " + std::strerror(errno));
  unsigned char magic[4] = {};
  ssize_t n;
  do n = ::pread(fd, magic, sizeof magic, 0);
  while (n < 0 && errno == EINTR);
  int saved = errno;
  ::close(fd);
  if (n < 0) throw Error("cannot read " + file.string() + ": " + std::strerror(saved));
  if (n >= 2 && magic[0] == 0x1f && magic[1] == 0x8b) return "gzip";
  if (n >= 4 && magic[0] == 0x28 && magic[1] == 0xb5 && magic[2] == 0x2f && magic[3] == 0xfd) return "zstd";
  return "none";
}

std::string LayerArchive::compression_of(const std::string& media_type) {
  if (media_type == media::kOciLayerGzip || media_type == media::kDockerLayerGzip || media_type == media::kDockerForeignLayerGzip)
    return "gzip";
  if (media_type == media::kOciLayerZstd) return "zstd";
  if (media_type == media::kOciLayerTar) return "none";
  return "";
}

void LayerArchive::verify_digest() {
  if (reader_->gzip) {
    // The rest of the decompressed stream (the tar's padding): hashed for the diff_id, and the
    // compressed bytes behind it for the digest.
    const void* unused;
    int64_t n;
    while ((n = reader_->next_plain(&unused)) > 0) {
    }
    if (n < 0) throw Error("cannot read " + where_ + ": " + reader_->gzip->error(), "the blob may be corrupt");
    if (reader_->uncompressed) {
      std::string actual = reader_->uncompressed->finish_digest();
      if (actual != diff_id_)
        throw Error(where_ + "'s uncompressed content does not match its diff_id " + diff_id_ + " (read " + actual + ")",
                    "the image's config does not describe this layer: rebuild or re-pull the image");
    }
  }
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
