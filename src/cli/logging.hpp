#pragma once
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"

namespace rp::cli {

// Configures spdlog: plain lines on stderr, or one JSON object a line with --log-format json.
void setup_logging(const GlobalOptions& global);
// Prints a failure the way every command reports it: "error: ..." and, when known, "hint: ...";
// with --log-format json, one {"level":"error","msg",...} object a line.
void report_error(const std::string& message, const std::string& hint);
// One error of several found at once (a recipe's diagnostics): with --log-format json each is its
// own object with file, line and column, so a CI annotator can point at each.
struct ErrorItem {
  std::string message;
  std::string hint;
  std::string file;
  int line = 0;
  int column = 0;
};
void report_errors(const std::vector<ErrorItem>& items, const std::string& text_message, const std::string& text_hint);
bool json_logs();
// An info line that CI may want to count: as text, `text`; with --log-format json, one object
// {"time_ms","level":"info","event":event,"msg":text, ...fields}.
void log_event(const std::string& event, const std::string& text, const nlohmann::json& fields);
// Called around every log line (a live progress display erases itself and draws again); nullptr: none.
void set_log_hooks(std::function<void()> before, std::function<void()> after);

}  // namespace rp::cli
