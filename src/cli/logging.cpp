#include "cli/logging.hpp"

#include <nlohmann/json.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <spdlog/sinks/base_sink.h>

#include <chrono>
#include <functional>
#include <iostream>
#include <mutex>

namespace rp::cli {

namespace {
bool g_json = false;

std::mutex g_hooks_mu;
std::function<void()> g_before_log, g_after_log;

// The stderr sink, with hooks around every line so a live progress block can step aside.
class HookedSink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  HookedSink() : inner_(std::make_shared<spdlog::sinks::stderr_color_sink_st>()) {}

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    std::function<void()> before, after;
    {
      std::lock_guard lock(g_hooks_mu);
      before = g_before_log;
      after = g_after_log;
    }
    if (before) before();
    inner_->log(msg);
    inner_->flush();
    if (after) after();
  }
  void flush_() override { inner_->flush(); }
  void set_pattern_(const std::string& pattern) override { inner_->set_pattern(pattern); }
  void set_formatter_(std::unique_ptr<spdlog::formatter> f) override { inner_->set_formatter(std::move(f)); }

 private:
  std::shared_ptr<spdlog::sinks::stderr_color_sink_st> inner_;
};

// A formatter that writes {"time","level","msg"} objects, escaping the message properly.
class JsonFormatter final : public spdlog::formatter {
 public:
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
    nlohmann::json j;
    auto secs = std::chrono::duration_cast<std::chrono::milliseconds>(msg.time.time_since_epoch()).count();
    j["time_ms"] = secs;
    j["level"] = std::string(spdlog::level::to_string_view(msg.level).data(),
                             spdlog::level::to_string_view(msg.level).size());
    j["msg"] = std::string(msg.payload.data(), msg.payload.size());
    std::string line = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    dest.append(line.data(), line.data() + line.size());
  }
  std::unique_ptr<formatter> clone() const override { return std::make_unique<JsonFormatter>(); }
};
}  // namespace

bool json_logs() { return g_json; }

void log_event(const std::string& event, const std::string& text, const nlohmann::json& fields) {
  if (!g_json) {
    spdlog::info("{}", text);
    return;
  }
  if (!spdlog::default_logger()->should_log(spdlog::level::info)) return;
  nlohmann::json j = {{"time_ms", std::chrono::duration_cast<std::chrono::milliseconds>(
                                      std::chrono::system_clock::now().time_since_epoch())
                                      .count()},
                      {"level", "info"},
                      {"event", event},
                      {"msg", text}};
  for (const auto& [k, v] : fields.items()) j[k] = v;
  std::cerr << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
}

void set_log_hooks(std::function<void()> before, std::function<void()> after) {
  std::lock_guard lock(g_hooks_mu);
  g_before_log = std::move(before);
  g_after_log = std::move(after);
}

void setup_logging(const GlobalOptions& global) {
  auto logger = std::make_shared<spdlog::logger>("rockpack", std::make_shared<HookedSink>());
  g_json = global.log_format == "json";
  if (g_json) {
    logger->set_formatter(std::make_unique<JsonFormatter>());
  } else {
    logger->set_pattern("%^%l%$: %v");
  }
  logger->set_level(global.quiet ? spdlog::level::warn : global.verbose ? spdlog::level::debug : spdlog::level::info);
  spdlog::set_default_logger(logger);
}

void report_error(const std::string& message, const std::string& hint) {
  if (g_json) {
    nlohmann::json j = {{"level", "error"}, {"msg", message}};
    if (!hint.empty()) j["hint"] = hint;
    std::cerr << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return;
  }
  std::cerr << "error: " << message << "\n";
  if (!hint.empty()) std::cerr << "hint: " << hint << "\n";
}

void report_errors(const std::vector<ErrorItem>& items, const std::string& text_message, const std::string& text_hint) {
  if (!g_json) {
    report_error(text_message, text_hint);
    return;
  }
  for (const auto& item : items) {
    nlohmann::json j = {{"level", "error"}, {"msg", item.message}};
    if (!item.file.empty()) j["file"] = item.file;
    if (item.line) j["line"] = item.line;
    if (item.column) j["column"] = item.column;
    if (!item.hint.empty()) j["hint"] = item.hint;
    std::cerr << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  }
}

}  // namespace rp::cli
