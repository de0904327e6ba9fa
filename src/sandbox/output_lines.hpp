#pragma once
// Splits a command's output stream into lines for the log, in bounded memory and linear time: a
// line longer than `max_line` bytes (a progress bar without newlines, `head -c 1G /dev/zero`) is
// passed on in pieces of `max_line` bytes, so the pending text never grows beyond that.
#include <cstddef>
#include <functional>
#include <string>

namespace rp {

class OutputLines {
 public:
  using Sink = std::function<void(std::string line)>;
  explicit OutputLines(Sink sink, size_t max_line = 16 * 1024) : sink_(std::move(sink)), max_line_(max_line) {}

  // Feeds the next bytes; complete lines (and full-length pieces) go to the sink.
  void feed(const char* data, size_t size);
  // Passes on what is left (the last line without its newline).
  void finish();
  // How many pieces were cut out of overlong lines.
  size_t split_lines() const { return split_; }

 private:
  Sink sink_;
  size_t max_line_;
  std::string pending_;
  size_t split_ = 0;
};

}  // namespace rp
