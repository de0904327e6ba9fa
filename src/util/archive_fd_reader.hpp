#pragma once
// libarchive's read callback over a file descriptor, for every reader of archives in the store
// (layer blobs, .deb data archives). With `sha` set it hashes what it reads, so a corrupt blob is
// noticed although libarchive pulls the bytes itself. A C callback: nothing may throw through it.
#include <archive.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "util/digest.hpp"

namespace rp {

struct ArchiveFdReader {
  int fd = -1;
  Sha256* sha = nullptr;
  std::vector<char> buffer = std::vector<char>(1 << 20);

  static la_ssize_t read(archive* a, void* self_ptr, const void** out) {
    auto* self = static_cast<ArchiveFdReader*>(self_ptr);
    ssize_t n;
    do n = ::read(self->fd, self->buffer.data(), self->buffer.size());
    while (n < 0 && errno == EINTR);
    if (n < 0) {
      archive_set_error(a, errno, "%s", std::strerror(errno));
      return -1;
    }
    if (self->sha) self->sha->update(self->buffer.data(), static_cast<size_t>(n));
    *out = self->buffer.data();
    return n;
  }
};

}  // namespace rp
