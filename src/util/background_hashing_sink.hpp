#pragma once
// A HashingSink whose SHA-256 runs on a thread of its own. A layer's diff_id is a SHA-256 of every
// uncompressed byte (2.3 GB for ROCm's layer), and the thread that writes the tar stream is already
// busy inflating wheel members and copying their deflate streams: hashing there would add about a
// second per GB to the longest chain of the build while the other cores wait. Here the writer copies
// each block once more, and the hash of a block overlaps with producing the next ones. Bytes that
// come in a shared buffer (write_shared: a whole inflated wheel member, read ahead) are not copied:
// the hasher keeps the buffer until it has hashed it (that copy was 2.4% of a cold ROCm build's CPU
// samples; docs/performance.md). The thread starts with the first full block (1 MiB) or large
// shared buffer: smaller streams are hashed in line.
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "util/byte_sink.hpp"
#include "util/digest.hpp"

namespace rp {

class BackgroundHashingSink final : public ByteSink {
 public:
  // How bytes go on to `next`: at once, as each write() brings them, on the caller's thread; or in
  // the blocks the hasher gathers (kBlocks: up to 1 MiB each), on a writer thread of their own
  // beside the hasher. kBlocks spares a file writer's own buffer its copy of every byte, and the
  // caller the write(2) calls: for a store blob (downloads, layers, rocm-sdk-devel's 1.5 GB tarball
  // as it is inflated) copying into the page cache costs about as much CPU as the inflating or
  // compressing that produces the bytes, and on the producer's thread it would lengthen the
  // build's longest chain. A write that fails is rethrown by a later write() or finish_digest().
  enum class Forward { kAtOnce, kBlocks };
  // Bytes go on to `next` (if any), in order.
  explicit BackgroundHashingSink(ByteSink* next = nullptr, Forward forward = Forward::kAtOnce);
  ~BackgroundHashingSink() override;  // stops the hasher; safe while unwinding from an exception
  BackgroundHashingSink(const BackgroundHashingSink&) = delete;
  BackgroundHashingSink& operator=(const BackgroundHashingSink&) = delete;

  void write(const void* data, size_t size) override;
  void write_shared(const std::shared_ptr<const std::string>& bytes) override;
  uint64_t count() const { return count_; }
  // Waits for every byte written so far to be hashed (and, with kBlocks, passed on); returns
  // "sha256:<hex>". Call once.
  std::string finish_digest();

 private:
  static constexpr size_t kBlockSize = 1 << 20;
  // Memory bound: at most this many bytes wait to be hashed or passed on (or one larger shared
  // buffer alone).
  static constexpr size_t kMaxQueuedBytes = 8u << 20;
  // A shared buffer from this size is kept rather than copied: much smaller ones cost more to hand
  // over than to copy.
  static constexpr size_t kKeepSharedFrom = 256u << 10;

  // One piece of the stream, hashed in order: a gathered block, or a kept shared buffer.
  struct Piece {
    std::string block;
    std::shared_ptr<const std::string> shared;
    size_t size() const { return shared ? shared->size() : block.size(); }
  };

  void submit(Piece piece);  // queues a piece (waits while the queue is full)
  void submit_current();     // queues current_
  void hash_loop();
  void write_loop();     // kBlocks: passes the queued pieces on to block_next_, in order
  void drop_finished();  // pops the pieces at the front that are hashed and passed on (mutex_ held)
  void stop_threads();   // lets the threads finish what is queued, and joins them

  ByteSink* next_;
  ByteSink* block_next_;  // next_ with Forward::kBlocks, else null
  uint64_t count_ = 0;
  std::string current_;  // the block being filled by write()

  std::mutex mutex_;
  std::condition_variable queued_;  // a piece was queued, or stop_ was set
  std::condition_variable freed_;   // a piece was hashed or passed on
  // Pieces in stream order; the first `hashed_` are hashed, the first `passed_` passed on (kBlocks).
  // A piece leaves the front when both are done with it, so each thread's piece stays in place
  // (a deque keeps its elements where they are when others are added at the back).
  std::deque<Piece> queue_;
  size_t hashed_ = 0;
  size_t passed_ = 0;
  size_t queued_bytes_ = 0;
  std::vector<std::string> spare_;  // hashed blocks, reused so that no block is allocated twice
  bool stop_ = false;
  bool abandon_ = false;            // destroyed unfinished: queued pieces are no longer passed on
  std::exception_ptr write_error_;  // what passing a piece on threw (kBlocks)
  Sha256 sha256_;  // only the hasher thread touches it until it has been joined
  std::thread hasher_;
  std::thread writer_;  // kBlocks only
};

}  // namespace rp
