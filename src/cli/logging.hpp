#pragma once
#include <string>

#include "cli/commands.hpp"

namespace rp::cli {

// Configures spdlog: plain lines on stderr, or one JSON object a line with --log-format json.
void setup_logging(const GlobalOptions& global);
// Prints a failure the way every command reports it: "error: ..." and, when known, "hint: ...".
void report_error(const std::string& message, const std::string& hint);
bool json_logs();

}  // namespace rp::cli
