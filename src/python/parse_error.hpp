#pragma once
// Parse errors that point at the problem: "invalid requirement: expected ')' at column 12", followed
// by the text and a caret under the column, so a user can see what to fix in their recipe or which
// piece of package metadata is broken.
#include <string_view>

namespace rp::python {

// Throws rp::InputError. `what` names the thing being parsed ("requirement", "marker"); `pos` is a
// 0-based offset into `text`.
[[noreturn]] void throw_parse_error(std::string_view what, std::string_view text, size_t pos, std::string_view why);

}  // namespace rp::python
