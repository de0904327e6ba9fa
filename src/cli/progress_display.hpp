#pragma once
// Draws what is moving: downloads (base image blobs, wheels), layer compression and pushes.
//  - on a terminal (text logs): a live block, one line per active item with bytes, rate and ETA,
//    and a total line, redrawn at most 10 times a second; log lines are printed above it;
//  - --log-format json: one JSON object a line per event (start, progress at most once a second
//    per item, finish), for CI systems that parse them;
//  - otherwise (text into a file or pipe): a line when a layer starts and ends, downloads and
//    uploads at debug level, so CI logs stay readable.
#include <chrono>
#include <map>
#include <mutex>
#include <string>

#include "assemble/progress.hpp"
#include "util/strings.hpp"  // human_bytes
#include "util/transfer_progress.hpp"

namespace rp::cli {

enum class ProgressMode { kLive, kJson, kLines };

class ProgressDisplay final : public BuildProgress, public TransferObserver {
 public:
  // Installs itself as the process's transfer observer (and log interceptor when live); the
  // destructor clears the live block and uninstalls.
  explicit ProgressDisplay(ProgressMode mode);
  ~ProgressDisplay() override;
  ProgressDisplay(const ProgressDisplay&) = delete;
  ProgressDisplay& operator=(const ProgressDisplay&) = delete;

  // The mode for this process: live on a terminal, JSON with --log-format json, lines otherwise.
  static ProgressMode mode_for_stderr();

  void layer_started(const std::string& name, uint64_t expected_bytes) override;
  void layer_advanced(const std::string& name, uint64_t bytes_in, uint64_t bytes_out) override;
  void layer_finished(const std::string& name, uint64_t bytes_in, uint64_t bytes_out, bool from_cache) override;

  void transfer_started(uint64_t id, TransferKind kind, const std::string& item, uint64_t total) override;
  void transfer_advanced(uint64_t id, uint64_t done, uint64_t total) override;
  void transfer_finished(uint64_t id, uint64_t done, bool ok) override;

  // Live mode: erase the block before a log line is printed, and draw it again after.
  void erase();
  void redraw();

 private:
  using Clock = std::chrono::steady_clock;
  struct Item {
    TransferKind kind;
    std::string name;
    uint64_t done = 0;
    uint64_t total = 0;
    Clock::time_point started;
    Clock::time_point last_event;
  };
  void draw_locked(bool force);
  void erase_locked();
  std::string item_line(const Item& item, Clock::time_point now) const;
  std::string total_line(Clock::time_point now) const;
  void json_event(const char* event, const Item& item, bool ok = true) const;

  ProgressMode mode_;
  std::mutex mu_;
  std::map<uint64_t, Item> active_;
  std::map<std::string, uint64_t> layer_ids_;  // layer name -> transfer id (layers report by name)
  uint64_t next_layer_id_ = uint64_t(1) << 62;
  // Totals over every item of the run, for the total line.
  uint64_t finished_bytes_ = 0;
  size_t finished_items_ = 0;
  Clock::time_point first_start_{};
  Clock::time_point last_draw_{};
  int drawn_lines_ = 0;
};

// "1m05s", "12s"; empty when not known.
std::string human_duration(double seconds);

}  // namespace rp::cli
