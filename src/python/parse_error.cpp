// Parse errors with a column and a caret.
#include "python/parse_error.hpp"

#include <string>

#include "python/text.hpp"
#include "util/error.hpp"

namespace rp::python {

void throw_parse_error(std::string_view what, std::string_view text, size_t pos, std::string_view why) {
  if (pos > text.size()) pos = text.size();
  // Show at most ~60 characters on each side of the problem so the caret stays readable.
  constexpr size_t kWindow = 60;
  size_t from = pos > kWindow ? pos - kWindow : 0;
  size_t to = std::min(text.size(), pos + kWindow);
  std::string excerpt = (from > 0 ? "..." : "") + printable(text.substr(from, to - from), 2 * kWindow);
  size_t caret = (from > 0 ? 3 : 0) + (pos - from);
  if (to < text.size()) excerpt += "...";
  std::string message = "invalid " + std::string(what) + ": " + std::string(why) + " at column " +
                        std::to_string(pos + 1) + "\n    " + excerpt + "\n    " + std::string(caret, ' ') + "^";
  throw InputError(std::move(message));
}

}  // namespace rp::python
