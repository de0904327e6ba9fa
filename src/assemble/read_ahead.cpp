#include "assemble/read_ahead.hpp"

#include <algorithm>
#include <deque>

#include "util/cpus.hpp"

namespace rp {

namespace {

// Appends into a string reserved for the file's size, so a file is copied once, not regrown.
class ReservedStringSink final : public ByteSink {
 public:
  ReservedStringSink(std::string& out, uint64_t expected) : out_(out) { out_.reserve(expected); }
  void write(const void* data, size_t size) override { out_.append(static_cast<const char*>(data), size); }

 private:
  std::string& out_;
};

struct Cancelled {};  // thrown into a producer whose pipe was cancelled (the layer is abandoned)

}  // namespace

// The pieces of one streamed file between the worker producing them and the writer. Bounded to
// kPipeBytes waiting; the writer reaches every file in order, and the file it waits for was taken
// by a worker before any later one, so a full pipe never holds up the file the writer needs.
class ReadAhead::Pipe final : public ContentStream {
 public:
  void push(std::shared_ptr<const std::string> piece, bool deflated) {
    if (piece->empty()) return;
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return cancelled_ || queued_ == 0 || queued_ + piece->size() <= kPipeBytes; });
    if (cancelled_) throw Cancelled{};
    queued_ += piece->size();
    queue_.push_back({std::move(piece), deflated});
    changed_.notify_all();
  }
  void close(std::exception_ptr error) {
    std::lock_guard lock(mutex_);
    closed_ = true;
    error_ = error;
    changed_.notify_all();
  }
  void cancel() {
    std::lock_guard lock(mutex_);
    cancelled_ = true;
    changed_.notify_all();
  }
  bool next(Chunk& chunk) override {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return !queue_.empty() || closed_; });
    if (queue_.empty()) {
      if (error_) std::rethrow_exception(error_);
      return false;
    }
    chunk = std::move(queue_.front());
    queue_.pop_front();
    queued_ -= chunk.bytes->size();
    changed_.notify_all();
    return true;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Chunk> queue_;
  uint64_t queued_ = 0;
  bool closed_ = false;
  bool cancelled_ = false;
  std::exception_ptr error_;
};

namespace {

// Cuts what a content writes into pieces of kPieceBytes and pushes them into the pipe.
class PieceSink final : public ByteSink {
 public:
  PieceSink(ReadAhead::Pipe& pipe, bool deflated) : pipe_(pipe), deflated_(deflated) {}
  void write(const void* data, size_t size) override {
    const char* p = static_cast<const char*>(data);
    while (size) {
      if (piece_.capacity() < ReadAhead::kPieceBytes) piece_.reserve(ReadAhead::kPieceBytes);
      size_t take = std::min(size, ReadAhead::kPieceBytes - piece_.size());
      piece_.append(p, take);
      p += take;
      size -= take;
      if (piece_.size() == ReadAhead::kPieceBytes) flush();
    }
  }
  void flush() {
    auto piece = std::make_shared<std::string>();
    piece->swap(piece_);
    pipe_.push(std::move(piece), deflated_);
  }

 private:
  ReadAhead::Pipe& pipe_;
  bool deflated_;
  std::string piece_;
};

}  // namespace

ReadAhead::ReadAhead(const std::vector<Entry>& entries, const TarWriter& writer, unsigned threads)
    : entries_(entries), writer_(writer), slots_(entries.size()) {
  if (threads == 0) threads = worker_count();
  // No worker when nothing is worth reading ahead (a layer of directories and links, say).
  bool any = false;
  for (size_t i = 0; i < entries_.size() && !any; ++i) any = eligible(i);
  if (!any) return;
  for (unsigned i = 0; i < threads; ++i) workers_.emplace_back([this] { work(); });
}

ReadAhead::~ReadAhead() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
    for (auto& pipe : pipes_) pipe->cancel();  // a producer waiting for room gives up
  }
  progress_.notify_all();
  for (auto& t : workers_) t.join();
}

bool ReadAhead::eligible(size_t index) const {
  const Entry& e = entries_[index];
  return e.type == EntryType::kFile && e.content && e.size() > 0;
}

void ReadAhead::produce_whole(const Entry& entry, RenderedContent& content) {
  std::string produced;
  ReservedStringSink bytes(produced, entry.size());
  if (writer_.copies_deflate(entry)) {
    ReservedStringSink deflated(content.deflated, 0);
    entry.content->write_with_deflate(bytes, deflated);
    content.has_deflated = true;
  } else {
    entry.content->write_to(bytes);
  }
  content.bytes = std::make_shared<const std::string>(std::move(produced));
}

void ReadAhead::work() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    // Take the next entry when its cost fits the budget (or nothing else waits).
    progress_.wait(lock, [this] {
      if (stop_ || next_ >= slots_.size()) return true;
      if (!eligible(next_)) return true;
      return ahead_bytes_ == 0 || ahead_bytes_ + cost_of(next_) <= kMaxAheadBytes;
    });
    if (stop_ || next_ >= slots_.size()) return;
    size_t index = next_++;
    Slot& slot = slots_[index];
    if (!eligible(index)) {
      slot.state = State::kInline;
      progress_.notify_all();
      continue;
    }
    const Entry& entry = entries_[index];
    slot.cost = cost_of(index);
    ahead_bytes_ += slot.cost;

    if (streamed(index)) {
      // Ready at once: the writer drains the pipe while this worker fills it.
      auto pipe = std::make_shared<Pipe>();
      pipes_.push_back(pipe);
      slot.content.stream = pipe;
      const bool copy = writer_.copies_deflate(entry);
      slot.content.has_deflated = copy;
      slot.state = State::kReady;
      progress_.notify_all();
      lock.unlock();
      std::exception_ptr error;
      try {
        PieceSink bytes(*pipe, false);
        if (copy) {
          PieceSink deflated(*pipe, true);
          entry.content->write_with_deflate(bytes, deflated);
          deflated.flush();
        } else {
          entry.content->write_to(bytes);
        }
        bytes.flush();
      } catch (const Cancelled&) {
      } catch (...) {
        error = std::current_exception();
      }
      pipe->close(error);
      lock.lock();
      continue;
    }

    slot.state = State::kRunning;
    lock.unlock();
    RenderedContent content;
    std::exception_ptr error;
    try {
      produce_whole(entry, content);
    } catch (...) {
      error = std::current_exception();
    }

    lock.lock();
    // From now on it holds what it keeps, not what producing it took.
    uint64_t kept = error ? 0 : content.bytes->size() + content.deflated.capacity();
    if (kept < slot.cost) {
      ahead_bytes_ -= slot.cost - kept;
      slot.cost = kept;
    }
    slot.content = std::move(content);
    slot.error = error;
    slot.state = error ? State::kFailed : State::kReady;
    progress_.notify_all();
  }
}

const RenderedContent* ReadAhead::take(size_t index) {
  if (workers_.empty()) return nullptr;
  std::unique_lock<std::mutex> lock(mutex_);
  progress_.wait(lock, [&] { return slots_[index].state != State::kPending && slots_[index].state != State::kRunning; });
  Slot& slot = slots_[index];
  if (slot.state == State::kFailed) std::rethrow_exception(slot.error);
  return slot.state == State::kReady ? &slot.content : nullptr;
}

void ReadAhead::release(size_t index) {
  if (workers_.empty()) return;
  RenderedContent freed;  // destroyed outside the lock
  {
    std::lock_guard<std::mutex> lock(mutex_);
    Slot& slot = slots_[index];
    ahead_bytes_ -= slot.cost;
    slot.cost = 0;
    freed = std::move(slot.content);
    slot.content = RenderedContent{};
  }
  progress_.notify_all();
}

}  // namespace rp
