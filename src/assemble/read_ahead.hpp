#pragma once
// Reads a layer's file contents ahead of the tar writer, on worker threads.
//
// A layer is one tar stream, written in order by one thread. For a ROCm layer that thread did
// everything per file: read the wheel member, inflate it, check its CRC-32 and RECORD hash, and only
// then write it, so one core was busy and the rest of the machine waited (8.3 of the 10.7 s of a cold
// ROCm build were that thread, measured with perf). Here a pool of workers (util/cpus.hpp) produces the
// contents of the next files (ContentSource::write_to or write_with_deflate, into memory) while the
// writer writes the current one; the writer takes them in order, so the stream is byte for byte what
// it was.
//
// Bounded: a file up to kMaxFileSize is produced whole into memory, and what the read-ahead holds
// never passes the layer's share of memory::kReadAheadShare (assemble/memory_budget.hpp), whatever
// the number of workers. A file is counted at kProducingFactor times its size while a worker produces
// it (a wheel member's compressed input, its inflated bytes and the copy kept for the writer are
// in memory together), then at what it keeps (its bytes, and its deflate stream for a gzip layer).
// A larger file is produced by a worker too, but piece by piece into a pipe of kPipeBytes that the
// writer drains when it reaches the file (it counts the pipe and the pieces being filled against
// the same share): inflating a 40 MB binary is then no longer the writer's work, and memory stays
// bounded by the pipe, not by the file. A content that fails (a corrupt member, a RECORD mismatch
// under --strict) fails when the writer reaches it, as it would have without read-ahead.
//
// Peak memory of one layer's read-ahead: its share (24 MiB), as the largest whole file counts at
// most that much (kProducingFactor x kMaxFileSize).
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "assemble/memory_budget.hpp"
#include "assemble/tar_writer.hpp"
#include "entries/entry.hpp"

namespace rp {

class ReadAhead {
 public:
  // The wheel reader's limit for inflating a member in one call too (python/wheel_archive.cpp,
  // kWholeInflateMax): a streamed member goes through ISA-L or zlib with small buffers, so its
  // memory is its pipe.
  static constexpr uint64_t kMaxFileSize = 8u << 20;
  static constexpr uint64_t kProducingFactor = 3;
  static constexpr uint64_t kMaxAheadBytes = memory::per_layer(memory::kReadAheadShare);
  static constexpr uint64_t kPipeBytes = 4u << 20;   // a streamed file's pieces waiting in its pipe
  static constexpr size_t kPieceBytes = 1u << 20;    // one piece of a streamed file
  // A streamed file's cost: its pipe, and the two pieces its worker fills (bytes and deflate stream).
  static constexpr uint64_t kStreamedCost = kPipeBytes + 2 * kPieceBytes;
  static_assert(kProducingFactor * kMaxFileSize <= kMaxAheadBytes, "the largest whole file must fit the share");
  static_assert(kStreamedCost <= kMaxAheadBytes, "a streamed file must fit the share");
  class Pipe;  // (read_ahead.cpp)

  // `writer` says which entries it copies deflate streams of. `entries` and `writer` must outlive
  // this object. threads = 0: util/cpus.hpp's worker count.
  ReadAhead(const std::vector<Entry>& entries, const TarWriter& writer, unsigned threads);
  ~ReadAhead();  // stops the workers (waiting for the files they are reading)
  ReadAhead(const ReadAhead&) = delete;
  ReadAhead& operator=(const ReadAhead&) = delete;

  // The content of entries[index], once produced, or nullptr for an entry the writer must write
  // itself. Rethrows what producing it threw. Call with increasing indexes, each once.
  const RenderedContent* take(size_t index);
  // Frees what take(index) returned; call once the writer is done with it.
  void release(size_t index);

 private:
  enum class State { kPending, kRunning, kReady, kFailed, kInline };
  struct Slot {
    State state = State::kPending;
    RenderedContent content;
    std::exception_ptr error;
    uint64_t cost = 0;
  };
  bool eligible(size_t index) const;
  bool streamed(size_t index) const { return entries_[index].size() > kMaxFileSize; }
  // What entries[index] is counted at when a worker takes it.
  uint64_t cost_of(size_t index) const {
    return streamed(index) ? kStreamedCost : kProducingFactor * entries_[index].size();
  }
  void work();
  void produce_whole(const Entry& entry, RenderedContent& content);

  const std::vector<Entry>& entries_;
  const TarWriter& writer_;
  std::vector<Slot> slots_;
  std::mutex mutex_;
  std::condition_variable progress_;  // a slot changed state, budget was freed, or stop_
  size_t next_ = 0;                   // the next entry a worker takes
  uint64_t ahead_bytes_ = 0;          // produced or being produced, not yet released
  bool stop_ = false;
  std::vector<std::shared_ptr<Pipe>> pipes_;  // of streamed files, cancelled when this object goes
  std::vector<std::thread> workers_;
};

}  // namespace rp
