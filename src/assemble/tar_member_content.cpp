#include "assemble/tar_member_content.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "util/error.hpp"

namespace rp {

void TarMemberContent::write_to(ByteSink& sink) const {
  fs::path file = store_.blob_path(archive_->tar_digest);
  UniqueFd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0)
    throw Error("cannot open the unpacked " + archive_->archive_name + " (" + archive_->tar_digest + ") in the store: " + std::strerror(errno),
                "the store was cleaned during the build; build again");
  std::vector<char> buffer(static_cast<size_t>(std::min<uint64_t>(size_, 1 << 20)) + 1);
  uint64_t done = 0;
  while (done < size_) {
    size_t want = static_cast<size_t>(std::min<uint64_t>(size_ - done, buffer.size()));
    ssize_t n = ::pread(fd.get(), buffer.data(), want, static_cast<off_t>(offset_ + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      throw Error("cannot read " + describe() + " from the store: " + (n < 0 ? std::strerror(errno) : "the blob is too short"),
                  "remove the store's tar-index record for " + archive_->archive_digest + " and build again");
    sink.write(buffer.data(), static_cast<size_t>(n));
    done += static_cast<uint64_t>(n);
  }
}

std::string TarMemberContent::content_key() const { return "tar-member:" + archive_->archive_digest + ":" + member_; }

}  // namespace rp
