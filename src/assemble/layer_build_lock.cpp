#include "assemble/layer_build_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>

#include <spdlog/spdlog.h>

namespace rp {

LayerBuildLock::LayerBuildLock(const std::filesystem::path& store_root, const std::string& key) {
  std::string hex = key.substr(key.find(':') + 1);
  std::error_code ec;
  std::filesystem::create_directories(store_root / "locks", ec);
  path_ = store_root / "locks" / ("layer-" + hex + ".lock");
  fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  // Without a lock file (a read-only store directory) the build goes on unlocked: at worst it
  // compresses a layer another build is making too, as it would have before.
  if (fd_ < 0) return;
  if (::flock(fd_, LOCK_EX | LOCK_NB) == 0) return;
  if (errno != EWOULDBLOCK) {
    ::close(fd_);
    fd_ = -1;
    return;
  }
  waited_ = true;
  spdlog::debug("layer {}: another build is making it; waiting", hex.substr(0, 12));
  while (::flock(fd_, LOCK_EX) != 0 && errno == EINTR) {
  }
}

LayerBuildLock::~LayerBuildLock() {
  if (fd_ < 0) return;
  // The file stays: removing it could let a third build lock a fresh file while a second still
  // holds this one. One small empty file per layer key; `cache prune` removes old ones.
  ::close(fd_);
}

}  // namespace rp
