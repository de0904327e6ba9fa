#pragma once
// Progress of byte transfers — downloads (registry blobs, wheels), uploads (push) and layer
// compression — reported to one process-wide observer, so the modules that move bytes need no
// plumbing to the CLI that draws them. Without an observer (tests, library use) it costs a pointer
// check per update.
#include <cstdint>
#include <string>

namespace rp {

enum class TransferKind { kDownload, kUpload, kCompress };
const char* transfer_kind_name(TransferKind kind);  // "download", "push", "compress"

class TransferObserver {
 public:
  virtual ~TransferObserver() = default;
  // `total` is 0 when unknown. Called from any thread; ids are unique per process.
  virtual void transfer_started(uint64_t id, TransferKind kind, const std::string& item, uint64_t total) = 0;
  virtual void transfer_advanced(uint64_t id, uint64_t done, uint64_t total) = 0;
  // `ok` false: it failed or was abandoned (a retry starts a new transfer).
  virtual void transfer_finished(uint64_t id, uint64_t done, bool ok) = 0;
};

// Installs the observer (nullptr: none). The observer must outlive every transfer.
void set_transfer_observer(TransferObserver* observer);

// One transfer, reported from start to end. Driven by one thread at a time.
class Transfer {
 public:
  Transfer(TransferKind kind, std::string item, uint64_t total = 0);
  ~Transfer();  // reports a failure unless finish() was called
  Transfer(const Transfer&) = delete;
  Transfer& operator=(const Transfer&) = delete;

  // `done` bytes so far; `total` 0 keeps the total known so far.
  void update(uint64_t done, uint64_t total = 0);
  void finish();

 private:
  TransferObserver* observer_;
  uint64_t id_ = 0;
  uint64_t done_ = 0;
  uint64_t total_ = 0;
  bool ended_ = false;
};

}  // namespace rp
