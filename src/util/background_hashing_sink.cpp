#include "util/background_hashing_sink.hpp"

#include <algorithm>

namespace rp {

BackgroundHashingSink::BackgroundHashingSink(ByteSink* next, Forward forward)
    : next_(forward == Forward::kAtOnce ? next : nullptr), block_next_(forward == Forward::kBlocks ? next : nullptr) {}

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

void BackgroundHashingSink::write_shared(const std::shared_ptr<const std::string>& bytes) {
  if (bytes->size() < kKeepSharedFrom) return write(bytes->data(), bytes->size());
  if (next_) next_->write_shared(bytes);
  count_ += bytes->size();
  if (!current_.empty()) submit_current();  // the bytes before these are hashed first
  if (block_next_) block_next_->write_shared(bytes);
  submit(Piece{{}, bytes});
}

void BackgroundHashingSink::submit(Piece piece) {
  // The thread starts with the first full block or kept buffer: a small blob (a manifest, a record)
  // is hashed where it is written, with no thread at all.
  if (!hasher_.joinable()) hasher_ = std::thread([this] { hash_loop(); });
  size_t size = piece.size();
  {
    std::unique_lock<std::mutex> lock(mutex_);
    freed_.wait(lock, [&] { return queue_.empty() || queued_bytes_ + size <= kMaxQueuedBytes; });
    queue_.push_back(std::move(piece));
    queued_bytes_ += size;
  }
  queued_.notify_one();
}

void BackgroundHashingSink::submit_current() {
  if (block_next_) block_next_->write(current_.data(), current_.size());
  submit(Piece{std::move(current_), nullptr});
  std::string next_block;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!spare_.empty()) {
      next_block = std::move(spare_.back());
      spare_.pop_back();
    }
  }
  next_block.clear();
  next_block.reserve(kBlockSize);
  current_ = std::move(next_block);
}

void BackgroundHashingSink::hash_loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    queued_.wait(lock, [this] { return stop_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stopped, and everything queued is hashed
    Piece piece = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    size_t size = piece.size();
    if (piece.shared)
      sha256_.update(piece.shared->data(), size);
    else
      sha256_.update(piece.block.data(), size);
    piece.shared.reset();  // the buffer may be the last reference: freed here, outside the lock
    lock.lock();
    queued_bytes_ -= size;
    if (piece.block.capacity() >= kBlockSize) spare_.push_back(std::move(piece.block));
    freed_.notify_one();
  }
}

std::string BackgroundHashingSink::finish_digest() {
  if (!hasher_.joinable()) {  // under one block in all
    if (block_next_ && !current_.empty()) block_next_->write(current_.data(), current_.size());
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
