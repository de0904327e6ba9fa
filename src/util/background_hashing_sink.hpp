#pragma once
// A HashingSink whose SHA-256 runs on a thread of its own. A layer's diff_id is a SHA-256 of every
// uncompressed byte (2.3 GB for ROCm's layer), and the thread that writes the tar stream is already
// busy inflating wheel members and copying their deflate streams: hashing there would add about a
// second per GB to the longest chain of the build while the other cores wait. Here the writer only
// copies each block once more, and the hash of a block overlaps with producing the next ones. The
// thread starts with the first full block (1 MiB): smaller streams are hashed in line.
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "util/byte_sink.hpp"
#include "util/digest.hpp"

namespace rp {

class BackgroundHashingSink final : public ByteSink {
 public:
  // Bytes go on to `next` (if any) at once, on the caller's thread, in order.
  explicit BackgroundHashingSink(ByteSink* next = nullptr);
  ~BackgroundHashingSink() override;  // stops the hasher; safe while unwinding from an exception
  BackgroundHashingSink(const BackgroundHashingSink&) = delete;
  BackgroundHashingSink& operator=(const BackgroundHashingSink&) = delete;

  void write(const void* data, size_t size) override;
  uint64_t count() const { return count_; }
  // Waits for every byte written so far to be hashed; returns "sha256:<hex>". Call once.
  std::string finish_digest();

 private:
  static constexpr size_t kBlockSize = 1 << 20;
  static constexpr size_t kMaxQueued = 8;  // memory bound: at most this many blocks wait (8 MiB)

  void submit_current();  // queues current_ (waits while the queue is full)
  void hash_loop();

  ByteSink* next_;
  uint64_t count_ = 0;
  std::string current_;  // the block being filled by write()

  std::mutex mutex_;
  std::condition_variable queued_;  // a block was queued, or stop_ was set
  std::condition_variable freed_;   // a block was hashed
  std::deque<std::string> queue_;
  std::vector<std::string> spare_;  // hashed blocks, reused so that no block is allocated twice
  bool stop_ = false;
  Sha256 sha256_;  // only the hasher thread touches it until it has been joined
  std::thread hasher_;
};

}  // namespace rp
