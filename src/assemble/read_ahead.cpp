#include "assemble/read_ahead.hpp"

#include <algorithm>

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
  }
  progress_.notify_all();
  for (auto& t : workers_) t.join();
}

bool ReadAhead::eligible(size_t index) const {
  const Entry& e = entries_[index];
  if (e.type != EntryType::kFile || !e.content) return false;
  uint64_t size = e.size();
  return size > 0 && size <= kMaxFileSize;
}

void ReadAhead::work() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    // Take the next entry when its bytes fit the budget (or nothing else waits).
    progress_.wait(lock, [this] {
      if (stop_ || next_ >= slots_.size()) return true;
      if (!eligible(next_)) return true;
      return ahead_bytes_ == 0 || ahead_bytes_ + entries_[next_].size() <= kMaxAheadBytes;
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
    slot.cost = entry.size();
    slot.state = State::kRunning;
    ahead_bytes_ += slot.cost;
    lock.unlock();

    RenderedContent content;
    std::exception_ptr error;
    try {
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
    } catch (...) {
      error = std::current_exception();
    }

    lock.lock();
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
