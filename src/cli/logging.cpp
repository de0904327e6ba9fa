#include "cli/logging.hpp"

#include <nlohmann/json.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <iostream>

namespace rp::cli {

namespace {
bool g_json = false;

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

void setup_logging(const GlobalOptions& global) {
  auto logger = spdlog::stderr_color_mt("rockpack");
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

}  // namespace rp::cli
