#pragma once
// One layer made by one build at a time, across processes sharing a store: variants of a family
// built side by side (a shell loop with `&`, CI jobs on one machine) reach their shared layers at
// about the same moment, and without this each would compress the same bytes. The lock is an
// flock on <store>/locks/layer-<key>.lock, taken only when the store's layer records had no hit;
// whoever waited looks the records up again and finds the layer the other build made.
#include <filesystem>
#include <string>

namespace rp {

class LayerBuildLock {
 public:
  // Blocks until no other build holds the lock for `key` (a cache key, "sha256:<hex>").
  LayerBuildLock(const std::filesystem::path& store_root, const std::string& key);
  ~LayerBuildLock();
  LayerBuildLock(const LayerBuildLock&) = delete;
  LayerBuildLock& operator=(const LayerBuildLock&) = delete;
  // Whether another build held it when this one asked (then its layer may be in the store now).
  bool waited() const { return waited_; }

 private:
  std::filesystem::path path_;
  int fd_ = -1;
  bool waited_ = false;
};

}  // namespace rp
