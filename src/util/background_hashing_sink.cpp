#include "util/background_hashing_sink.hpp"

#include <algorithm>

namespace rp {

BackgroundHashingSink::BackgroundHashingSink(ByteSink* next, Forward forward)
    : next_(forward == Forward::kAtOnce ? next : nullptr), block_next_(forward == Forward::kBlocks ? next : nullptr) {}

BackgroundHashingSink::~BackgroundHashingSink() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    abandon_ = true;
  }
  stop_threads();
}

void BackgroundHashingSink::stop_threads() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  queued_.notify_all();
  if (hasher_.joinable()) hasher_.join();
  if (writer_.joinable()) writer_.join();
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
  submit(Piece{{}, bytes});
}

void BackgroundHashingSink::submit(Piece piece) {
  // The threads start with the first full block or kept buffer: a small blob (a manifest, a record)
  // is hashed (and passed on) where it is written, with no thread at all.
  if (!hasher_.joinable()) {
    hasher_ = std::thread([this] { hash_loop(); });
    if (block_next_) writer_ = std::thread([this] { write_loop(); });
  }
  size_t size = piece.size();
  // Passed on by a thread of its own, a piece waits for both threads, so the queue is full more
  // often: half the bound keeps a store blob's writer below what it held when the caller wrote the
  // file itself, and four 1 MiB blocks keep the hasher and the writer busy.
  const size_t max_queued = block_next_ ? kMaxQueuedBytes / 2 : kMaxQueuedBytes;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    freed_.wait(lock, [&] { return write_error_ || queue_.empty() || queued_bytes_ + size <= max_queued; });
    if (write_error_) std::rethrow_exception(write_error_);
    queue_.push_back(std::move(piece));
    queued_bytes_ += size;
  }
  queued_.notify_all();
}

void BackgroundHashingSink::submit_current() {
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

void BackgroundHashingSink::drop_finished() {
  bool freed = false;
  while (!queue_.empty() && hashed_ > 0 && (!block_next_ || passed_ > 0)) {
    Piece& piece = queue_.front();
    queued_bytes_ -= piece.size();
    if (piece.block.capacity() >= kBlockSize) spare_.push_back(std::move(piece.block));
    queue_.pop_front();  // a kept shared buffer may be freed here; its last holder is usually the caller
    --hashed_;
    if (block_next_) --passed_;
    freed = true;
  }
  if (freed) freed_.notify_all();
}

void BackgroundHashingSink::hash_loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    queued_.wait(lock, [this] { return stop_ || hashed_ < queue_.size(); });
    if (hashed_ == queue_.size()) return;  // stopped, and everything queued is hashed
    const Piece& piece = queue_[hashed_];
    lock.unlock();
    if (piece.shared)
      sha256_.update(piece.shared->data(), piece.shared->size());
    else
      sha256_.update(piece.block.data(), piece.block.size());
    lock.lock();
    ++hashed_;
    drop_finished();
  }
}

void BackgroundHashingSink::write_loop() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    queued_.wait(lock, [this] { return stop_ || passed_ < queue_.size(); });
    if (passed_ == queue_.size()) return;  // stopped, and everything queued is passed on
    const Piece& piece = queue_[passed_];
    const bool skip = abandon_ || write_error_;
    lock.unlock();
    std::exception_ptr error;
    if (!skip) {
      try {
        if (piece.shared)
          block_next_->write_shared(piece.shared);
        else
          block_next_->write(piece.block.data(), piece.block.size());
      } catch (...) {
        error = std::current_exception();
      }
    }
    lock.lock();
    if (error && !write_error_) write_error_ = error;
    ++passed_;
    drop_finished();
    if (error) freed_.notify_all();  // a writer waiting for room learns of it
  }
}

std::string BackgroundHashingSink::finish_digest() {
  if (!hasher_.joinable()) {  // under one block in all
    if (block_next_ && !current_.empty()) block_next_->write(current_.data(), current_.size());
    sha256_.update(current_.data(), current_.size());
    return sha256_.finish_digest();
  }
  if (!current_.empty()) submit_current();
  stop_threads();
  if (write_error_) std::rethrow_exception(write_error_);
  return sha256_.finish_digest();
}

}  // namespace rp
