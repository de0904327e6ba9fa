#pragma once
// Just enough of Python's tokenizer to read simple module-level statements (assignments, calls)
// from a file we must not execute: names, string literals, numbers and operators, grouped into
// logical lines (brackets and backslashes join physical lines; comments vanish). Strings of any
// form (prefixes, triple quotes) are consumed whole, so a docstring never looks like code.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace rp::therock {

struct PyToken {
  enum class Kind { kName, kString, kNumber, kOp };
  Kind kind;
  std::string text;  // a name, an operator, a number as written, or a string's decoded value
};

struct PyStatement {
  size_t line = 0;        // 1-based line where it starts
  bool indented = false;  // starts after leading whitespace (inside a block)
  std::vector<PyToken> tokens;
};

// Throws rp::InputError naming `origin` and the line for an unterminated string or bracket
// nesting deeper than 100.
std::vector<PyStatement> split_py_statements(std::string_view source, std::string_view origin);

}  // namespace rp::therock
