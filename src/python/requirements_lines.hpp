#pragma once
// The text layer of pip's requirements-file format, before any option or requirement is parsed:
// physical lines joined at a trailing '\', comments removed, ${VAR} expanded, options split into words.
#include <string>
#include <string_view>
#include <vector>

namespace rp::python {

struct LogicalLine {
  int number = 0;  // 1-based number of its first physical line
  std::string text;
};

// Joins continuation lines (a line ending in '\' goes on with the next one, as pip does, with no
// space inserted; a comment line ends a continuation), removes comments ('#' at the start or after
// whitespace), expands ${VAR} and drops lines left empty.
std::vector<LogicalLine> logical_lines(std::string_view content);

// "${NAME}" -> the environment variable's value, for names of A-Z, 0-9 and '_' only (pip's rule);
// unset variables are left as written.
std::string expand_environment(std::string_view text);

// Splits option words on whitespace; single and double quotes group (and are removed), as the shell
// would. Throws rp::InputError on an unterminated quote.
std::vector<std::string> split_words(std::string_view text);

}  // namespace rp::python
