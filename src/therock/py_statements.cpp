#include "therock/py_statements.hpp"

#include <cctype>

#include "util/error.hpp"

namespace rp::therock {

namespace {

bool is_name_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// String prefixes Python accepts (any case): r, u, b, f and the two-letter mixes.
bool is_string_prefix(std::string_view word) {
  std::string lower;
  for (char c : word) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower == "r" || lower == "u" || lower == "b" || lower == "f" || lower == "rb" || lower == "br" ||
         lower == "fr" || lower == "rf";
}

class Tokenizer {
 public:
  Tokenizer(std::string_view source, std::string_view origin) : src_(source), origin_(origin) {}

  std::vector<PyStatement> run() {
    while (pos_ < src_.size()) step();
    finish_statement();
    return std::move(statements_);
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(std::string(origin_) + ":" + std::to_string(line_) + ": " + what,
                     "the rocm sdist's _dist_info.py is damaged; try another version or report it to the index");
  }

  void begin_token() {
    if (!current_started_) {
      current_started_ = true;
      current_.line = line_;
      current_.indented = inherit_indent_ ? inherited_indent_ : pos_ != line_start_;
      inherit_indent_ = false;
    }
  }

  void finish_statement() {
    if (current_started_ && !current_.tokens.empty()) statements_.push_back(std::move(current_));
    current_ = PyStatement{};
    current_started_ = false;
  }

  void newline() {
    ++line_;
    ++pos_;
    line_start_ = pos_;
    inherit_indent_ = false;
    if (depth_ == 0) finish_statement();
  }

  void step() {
    char c = src_[pos_];
    if (c == '\n') return newline();
    if (c == ' ' || c == '\t' || c == '\r' || c == '\f') {
      ++pos_;
      return;
    }
    if (c == '#') {
      while (pos_ < src_.size() && src_[pos_] != '\n') ++pos_;
      return;
    }
    if (c == '\\' && pos_ + 1 < src_.size() && src_[pos_ + 1] == '\n') {  // explicit line joining
      pos_ += 2;
      ++line_;
      line_start_ = pos_;
      return;
    }
    if (c == ';' && depth_ == 0) {  // several statements on one line, all at the first one's level
      ++pos_;
      bool indented = current_.indented;
      finish_statement();
      inherited_indent_ = indented;
      inherit_indent_ = true;
      return;
    }
    begin_token();
    if (c == '"' || c == '\'') return string_literal(false);
    if (is_name_start(c)) {
      size_t start = pos_;
      while (pos_ < src_.size() && is_name_char(src_[pos_])) ++pos_;
      std::string_view word = src_.substr(start, pos_ - start);
      if (pos_ < src_.size() && (src_[pos_] == '"' || src_[pos_] == '\'') && is_string_prefix(word)) {
        bool raw = word.find_first_of("rR") != std::string_view::npos;
        return string_literal(raw);
      }
      current_.tokens.push_back({PyToken::Kind::kName, std::string(word)});
      return;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      size_t start = pos_;
      while (pos_ < src_.size() && (is_name_char(src_[pos_]) || src_[pos_] == '.')) ++pos_;
      current_.tokens.push_back({PyToken::Kind::kNumber, std::string(src_.substr(start, pos_ - start))});
      return;
    }
    if (c == '(' || c == '[' || c == '{') {
      if (++depth_ > 100) fail("brackets nested too deeply");
    } else if ((c == ')' || c == ']' || c == '}') && depth_ > 0) {
      --depth_;
    }
    current_.tokens.push_back({PyToken::Kind::kOp, std::string(1, c)});
    ++pos_;
  }

  // At the opening quote. Decodes the common escapes; keeps others as written (good enough for
  // names and versions, which contain none).
  void string_literal(bool raw) {
    char quote = src_[pos_];
    bool triple = src_.substr(pos_, 3) == std::string(3, quote);
    size_t start_line = line_;
    pos_ += triple ? 3 : 1;
    std::string value;
    while (true) {
      if (pos_ >= src_.size()) {
        line_ = start_line;
        fail("unterminated string");
      }
      char c = src_[pos_];
      if (c == quote && (!triple || src_.substr(pos_, 3) == std::string(3, quote))) {
        pos_ += triple ? 3 : 1;
        break;
      }
      if (c == '\n') {
        if (!triple) {
          line_ = start_line;
          fail("unterminated string");
        }
        ++line_;
        line_start_ = pos_ + 1;
      }
      if (c == '\\' && pos_ + 1 < src_.size()) {
        char next = src_[pos_ + 1];
        if (next == '\n') ++line_;
        if (raw) {
          value += c;
          value += next;
        } else if (next == 'n') {
          value += '\n';
        } else if (next == 't') {
          value += '\t';
        } else if (next == '\\' || next == '\'' || next == '"') {
          value += next;
        } else if (next != '\n') {
          value += c;
          value += next;
        }
        pos_ += 2;
        continue;
      }
      value += c;
      ++pos_;
    }
    current_.tokens.push_back({PyToken::Kind::kString, std::move(value)});
  }

  std::string_view src_;
  std::string_view origin_;
  size_t pos_ = 0;
  size_t line_ = 1;
  size_t line_start_ = 0;
  int depth_ = 0;
  PyStatement current_;
  bool current_started_ = false;
  bool inherit_indent_ = false;  // the statement after ';' takes the indentation of the one before
  bool inherited_indent_ = false;
  std::vector<PyStatement> statements_;
};

}  // namespace

std::vector<PyStatement> split_py_statements(std::string_view source, std::string_view origin) {
  return Tokenizer(source, origin).run();
}

}  // namespace rp::therock
