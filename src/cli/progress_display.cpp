#include "cli/progress_display.hpp"

#include <spdlog/spdlog.h>

#include <cstdio>

namespace rp::cli {

std::string human_bytes(uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
  return buf;
}

namespace {
double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}
std::string rate(uint64_t bytes, double secs) {
  return secs > 0 ? human_bytes(static_cast<uint64_t>(static_cast<double>(bytes) / secs)) + "/s" : "-";
}
}  // namespace

ProgressDisplay::ProgressDisplay(bool live) : live_(live) {}

void ProgressDisplay::layer_started(const std::string& name, uint64_t expected_bytes) {
  std::lock_guard lock(mu_);
  started_ = last_draw_ = std::chrono::steady_clock::now();
  expected_ = expected_bytes;
  if (!live_) spdlog::info("layer {}: writing about {}", name, human_bytes(expected_bytes));
}

void ProgressDisplay::layer_advanced(const std::string& name, uint64_t bytes_in, uint64_t bytes_out) {
  if (!live_) return;
  std::lock_guard lock(mu_);
  auto now = std::chrono::steady_clock::now();
  if (now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  int pct = expected_ ? static_cast<int>(100.0 * static_cast<double>(bytes_in) / static_cast<double>(expected_)) : 0;
  std::fprintf(stderr, "\r\033[K  layer %-12s %3d%%  %s -> %s  %s", name.c_str(), std::min(pct, 100),
               human_bytes(bytes_in).c_str(), human_bytes(bytes_out).c_str(),
               rate(bytes_in, seconds_since(started_)).c_str());
  std::fflush(stderr);
}

void ProgressDisplay::layer_finished(const std::string& name, uint64_t bytes_in, uint64_t bytes_out,
                                     bool from_cache) {
  std::lock_guard lock(mu_);
  double secs = seconds_since(started_);
  if (live_) std::fprintf(stderr, "\r\033[K");
  if (from_cache)
    spdlog::info("layer {}: {} -> {} (cached)", name, human_bytes(bytes_in), human_bytes(bytes_out));
  else
    spdlog::info("layer {}: {} -> {} in {:.1f}s ({})", name, human_bytes(bytes_in), human_bytes(bytes_out), secs,
                 rate(bytes_in, secs));
}

}  // namespace rp::cli
