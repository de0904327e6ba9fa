#include "util/background_hashing_sink.hpp"

#include <algorithm>

namespace rp {

BackgroundHashingSink::BackgroundHashingSink(ByteSink* next) : next_(next) {}

BackgroundHashingSink::~BackgroundHashingSink() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  queued_.notify_all();
  if (hasher_.joinable()) hasher_.join();
}

void BackgroundHashingSink::write(const void* data, size_t size) {
  if (next_) next_->write(data, size);
  count_ += size;
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    size_t take = std::min(size, kBlockSize - current_.size());
    current_.append(p, take);
    p += take;
    size -= take;
    if (current_.size() == kBlockSize) submit_current();
  }
}

void BackgroundHashingSink::submit_current() {
  // The thread starts with the first full block: a small blob (a manifest, a record) is hashed
  // where it is written, with no thread at all.
  if (!hasher_.joinable()) hasher_ = std::thread([this] { hash_loop(); });
  std::string next_block;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    freed_.wait(lock, [this] { return queue_.size() < kMaxQueued; });
    queue_.push_back(std::move(current_));
    if (!spare_.empty()) {
      next_block = std::move(spare_.back());
      spare_.pop_back();
    }
  }
  queued_.notify_one();
  next_block.clear();
  next_block.reserve(kBlockSize);
  current_ = std::move(next_block);
}

void BackgroundHashingSink::hash_loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    queued_.wait(lock, [this] { return stop_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopped, and everything queued is hashed
    std::string block = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    sha256_.update(block.data(), block.size());
    lock.lock();
    spare_.push_back(std::move(block));
    freed_.notify_one();
  }
}

std::string BackgroundHashingSink::finish_digest() {
  if (!hasher_.joinable()) {  // under one block in all
    sha256_.update(current_.data(), current_.size());
    return sha256_.finish_digest();
  }
  if (!current_.empty()) submit_current();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  queued_.notify_all();
  hasher_.join();
  return sha256_.finish_digest();
}

}  // namespace rp
