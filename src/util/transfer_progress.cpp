#include "util/transfer_progress.hpp"

#include <atomic>

namespace rp {

namespace {
std::atomic<TransferObserver*> g_observer{nullptr};
std::atomic<uint64_t> g_next_id{1};
}  // namespace

const char* transfer_kind_name(TransferKind kind) {
  switch (kind) {
    case TransferKind::kDownload: return "download";
    case TransferKind::kUpload: return "push";
    case TransferKind::kCompress: return "compress";
  }
  return "transfer";
}

void set_transfer_observer(TransferObserver* observer) { g_observer.store(observer); }

Transfer::Transfer(TransferKind kind, std::string item, uint64_t total)
    : observer_(g_observer.load()), total_(total) {
  if (!observer_) return;
  id_ = g_next_id.fetch_add(1);
  observer_->transfer_started(id_, kind, item, total);
}

Transfer::~Transfer() {
  if (observer_ && !ended_) observer_->transfer_finished(id_, done_, false);
}

void Transfer::update(uint64_t done, uint64_t total) {
  if (!observer_ || ended_) return;
  done_ = done;
  if (total) total_ = total;
  observer_->transfer_advanced(id_, done_, total_);
}

void Transfer::finish() {
  if (!observer_ || ended_) return;
  ended_ = true;
  observer_->transfer_finished(id_, done_ > total_ ? done_ : total_, true);
}

}  // namespace rp
