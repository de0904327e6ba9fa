#pragma once
// Draws build progress: on a terminal one live line per layer (bytes and rate); otherwise plain
// log lines when a layer starts and ends (CI logs stay readable; JSON with --log-format json).
#include <chrono>
#include <mutex>
#include <string>

#include "assemble/progress.hpp"

namespace rp::cli {

class ProgressDisplay final : public BuildProgress {
 public:
  explicit ProgressDisplay(bool live);
  void layer_started(const std::string& name, uint64_t expected_bytes) override;
  void layer_advanced(const std::string& name, uint64_t bytes_in, uint64_t bytes_out) override;
  void layer_finished(const std::string& name, uint64_t bytes_in, uint64_t bytes_out, bool from_cache) override;

 private:
  bool live_;
  std::mutex mu_;
  std::chrono::steady_clock::time_point started_;
  std::chrono::steady_clock::time_point last_draw_;
  uint64_t expected_ = 0;
};

std::string human_bytes(uint64_t bytes);

}  // namespace rp::cli
