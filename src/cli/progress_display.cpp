#include "cli/progress_display.hpp"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "cli/logging.hpp"

namespace rp::cli {

std::string human_duration(double seconds) {
  if (!(seconds >= 0) || seconds > 100 * 3600) return "";
  auto s = static_cast<long>(seconds + 0.5);
  char buf[32];
  if (s >= 3600) std::snprintf(buf, sizeof buf, "%ldh%02ldm", s / 3600, (s / 60) % 60);
  else if (s >= 60) std::snprintf(buf, sizeof buf, "%ldm%02lds", s / 60, s % 60);
  else std::snprintf(buf, sizeof buf, "%lds", s);
  return buf;
}

namespace {

double seconds_between(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

std::string rate_text(uint64_t bytes, double secs) {
  return secs > 0.05 ? human_bytes(static_cast<uint64_t>(static_cast<double>(bytes) / secs)) + "/s" : "-";
}

// Bytes, rate and ETA of something that moved `done` of `total` bytes in `secs`.
std::string figures(uint64_t done, uint64_t total, double secs) {
  std::string s = human_bytes(done);
  if (total) s += " / " + human_bytes(total);
  s += "  " + rate_text(done, secs);
  if (total && done < total && secs > 0.2 && done > 0) {
    std::string eta = human_duration(static_cast<double>(total - done) * secs / static_cast<double>(done));
    if (!eta.empty()) s += "  ETA " + eta;
  }
  return s;
}

constexpr int kMaxLines = 8;  // active items shown; the rest are counted

ProgressDisplay* g_live = nullptr;

}  // namespace

ProgressMode ProgressDisplay::mode_for_stderr() {
  if (spdlog::get_level() > spdlog::level::info) return ProgressMode::kLines;  // --quiet: nothing but warnings
  if (json_logs()) return ProgressMode::kJson;
  return ::isatty(STDERR_FILENO) ? ProgressMode::kLive : ProgressMode::kLines;
}

ProgressDisplay::ProgressDisplay(ProgressMode mode) : mode_(mode) {
  set_transfer_observer(this);
  if (mode_ == ProgressMode::kLive) {
    g_live = this;
    set_log_hooks([] { if (g_live) g_live->erase(); }, [] { if (g_live) g_live->redraw(); });
  }
}

ProgressDisplay::~ProgressDisplay() {
  set_transfer_observer(nullptr);
  if (mode_ == ProgressMode::kLive) {
    set_log_hooks(nullptr, nullptr);
    g_live = nullptr;
    std::lock_guard lock(mu_);
    erase_locked();
  }
}

void ProgressDisplay::erase() {
  std::lock_guard lock(mu_);
  erase_locked();
}

void ProgressDisplay::redraw() {
  std::lock_guard lock(mu_);
  draw_locked(true);
}

void ProgressDisplay::erase_locked() {
  if (drawn_lines_ == 0) return;
  std::fprintf(stderr, "\033[%dA\r\033[J", drawn_lines_);
  std::fflush(stderr);
  drawn_lines_ = 0;
}

std::string ProgressDisplay::item_line(const Item& item, Clock::time_point now) const {
  std::string name = item.name.size() > 44 ? item.name.substr(0, 41) + "..." : item.name;
  char head[80];
  std::snprintf(head, sizeof head, "  %-8s %-44s ", transfer_kind_name(item.kind), name.c_str());
  return head + figures(item.done, item.total, seconds_between(item.started, now));
}

std::string ProgressDisplay::total_line(Clock::time_point now) const {
  uint64_t done = finished_bytes_, total = finished_bytes_;
  bool total_known = true;
  for (const auto& [id, item] : active_) {
    done += item.done;
    total += item.total;
    total_known = total_known && item.total > 0;
  }
  return "  total    " + std::to_string(finished_items_) + " done, " + std::to_string(active_.size()) + " active  " +
         figures(done, total_known ? total : 0, seconds_between(first_start_, now));
}

void ProgressDisplay::draw_locked(bool force) {
  if (mode_ != ProgressMode::kLive) return;
  auto now = Clock::now();
  if (!force && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  std::string out;
  if (drawn_lines_) out += "\033[" + std::to_string(drawn_lines_) + "A\r";
  int lines = 0;
  for (const auto& [id, item] : active_) {
    if (lines == kMaxLines) {
      out += "\033[K  ... and " + std::to_string(active_.size() - kMaxLines) + " more\n";
      ++lines;
      break;
    }
    out += "\033[K" + item_line(item, now) + "\n";
    ++lines;
  }
  if (!active_.empty()) {
    out += "\033[K" + total_line(now) + "\n";
    ++lines;
  }
  out += "\033[J";
  std::fwrite(out.data(), 1, out.size(), stderr);
  std::fflush(stderr);
  drawn_lines_ = lines;
}

void ProgressDisplay::json_event(const char* event, const Item& item, bool ok) const {
  auto now = Clock::now();
  double secs = seconds_between(item.started, now);
  nlohmann::json j = {{"time_ms", std::chrono::duration_cast<std::chrono::milliseconds>(
                                      std::chrono::system_clock::now().time_since_epoch())
                                      .count()},
                      {"level", "info"},
                      {"event", std::string(transfer_kind_name(item.kind)) + "." + event},
                      {"item", item.name},
                      {"bytes", item.done}};
  if (item.total) j["total"] = item.total;
  if (std::string(event) != "start") {
    j["seconds"] = static_cast<double>(static_cast<int64_t>(secs * 1000)) / 1000;
    if (secs > 0) j["bytes_per_second"] = static_cast<uint64_t>(static_cast<double>(item.done) / secs);
  }
  if (!ok) j["ok"] = false;
  std::string line = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  std::fwrite(line.data(), 1, line.size(), stderr);
}

void ProgressDisplay::transfer_started(uint64_t id, TransferKind kind, const std::string& item, uint64_t total) {
  std::lock_guard lock(mu_);
  auto now = Clock::now();
  if (active_.empty() && finished_items_ == 0) first_start_ = now;
  Item& it = active_[id];
  it = Item{kind, item, 0, total, now, now};
  if (mode_ == ProgressMode::kJson) json_event("start", it);
  draw_locked(true);
}

void ProgressDisplay::transfer_advanced(uint64_t id, uint64_t done, uint64_t total) {
  std::lock_guard lock(mu_);
  auto found = active_.find(id);
  if (found == active_.end()) return;
  Item& it = found->second;
  it.done = done;
  if (total) it.total = total;
  auto now = Clock::now();
  if (mode_ == ProgressMode::kJson && now - it.last_event >= std::chrono::seconds(1)) {
    it.last_event = now;
    json_event("progress", it);
  }
  draw_locked(false);
}

void ProgressDisplay::transfer_finished(uint64_t id, uint64_t done, bool ok) {
  Item it;
  {
    std::lock_guard lock(mu_);
    auto found = active_.find(id);
    if (found == active_.end()) return;
    it = found->second;
    it.done = done;
    active_.erase(found);
    if (ok) {
      finished_bytes_ += done;
      ++finished_items_;
    }
    if (mode_ == ProgressMode::kJson) json_event("finish", it, ok);
    draw_locked(true);
  }
  if (mode_ == ProgressMode::kLines && ok && it.kind != TransferKind::kCompress)
    spdlog::debug("{} {}: {} in {:.1f}s", transfer_kind_name(it.kind), it.name, human_bytes(done),
                  seconds_between(it.started, Clock::now()));
}

void ProgressDisplay::layer_started(const std::string& name, uint64_t expected_bytes) {
  uint64_t id;
  {
    std::lock_guard lock(mu_);
    id = next_layer_id_++;
    layer_ids_[name] = id;
  }
  transfer_started(id, TransferKind::kCompress, "layer " + name, expected_bytes);
  if (mode_ == ProgressMode::kLines) spdlog::info("layer {}: writing about {}", name, human_bytes(expected_bytes));
}

void ProgressDisplay::layer_advanced(const std::string& name, uint64_t bytes_in, uint64_t) {
  uint64_t id;
  {
    std::lock_guard lock(mu_);
    auto found = layer_ids_.find(name);
    if (found == layer_ids_.end()) return;
    id = found->second;
  }
  transfer_advanced(id, bytes_in, 0);
}

void ProgressDisplay::layer_finished(const std::string& name, uint64_t bytes_in, uint64_t bytes_out,
                                     bool from_cache) {
  uint64_t id = 0;
  double secs = 0;
  {
    std::lock_guard lock(mu_);
    auto found = layer_ids_.find(name);
    if (found != layer_ids_.end()) {
      id = found->second;
      layer_ids_.erase(found);
      auto item = active_.find(id);
      if (item != active_.end()) secs = seconds_between(item->second.started, Clock::now());
    }
  }
  if (id) transfer_finished(id, bytes_in, true);
  if (from_cache)
    spdlog::info("layer {}: {} -> {} (cached)", name, human_bytes(bytes_in), human_bytes(bytes_out));
  else
    spdlog::info("layer {}: {} -> {} in {:.1f}s ({})", name, human_bytes(bytes_in), human_bytes(bytes_out), secs,
                 rate_text(bytes_in, secs));
}

}  // namespace rp::cli
