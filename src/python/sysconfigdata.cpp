#include "python/sysconfigdata.hpp"

#include <charconv>

#include "python/text.hpp"
#include "util/error.hpp"

namespace rp::python {

std::optional<std::string> SysconfigVars::get(const std::string& name) const {
  auto it = values.find(name);
  if (it == values.end()) return std::nullopt;
  return it->second;
}

std::optional<int64_t> SysconfigVars::get_int(const std::string& name) const {
  auto v = get(name);
  if (!v || v->empty()) return std::nullopt;
  int64_t out = 0;
  auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), out);
  if (ec != std::errc() || end != v->data() + v->size()) return std::nullopt;
  return out;
}

namespace {

constexpr int kMaxNesting = 16;

// A recursive-descent reader of the one dict literal. Every read is bounds-checked: the text may be
// anything an image contains.
class SysconfigParser {
 public:
  SysconfigParser(std::string_view text, const std::string& where) : s_(text), where_(where) {}

  SysconfigVars parse() {
    pos_ = find_assignment();
    skip_blank();
    expect('{');
    SysconfigVars vars;
    skip_blank();
    while (peek() != '}') {
      if (at_end()) fail("the dict is not closed with '}'");
      if (peek() != '\'' && peek() != '"') fail("expected a quoted key");
      std::string key = string_literal();
      skip_blank();
      expect(':');
      skip_blank();
      vars.values[key] = value(0);
      skip_blank();
      if (at_end()) fail("the dict is not closed with '}'");
      if (peek() == ',') {
        ++pos_;
        skip_blank();
      } else if (peek() != '}') {
        fail("expected ',' or '}' after the value of '" + printable(key, 60) + "'");
      }
    }
    return vars;
  }

 private:
  bool at_end() const { return pos_ >= s_.size(); }
  char peek() const { return at_end() ? '\0' : s_[pos_]; }

  [[noreturn]] void fail(const std::string& why) const {
    size_t line = 1, col = 1;
    for (size_t i = 0; i < pos_ && i < s_.size(); ++i) {
      if (s_[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    throw InputError(where_ + ":" + std::to_string(line) + ":" + std::to_string(col) + ": cannot read the build "
                         "configuration: " + why,
                     "the interpreter's _sysconfigdata file looks damaged; check the image's Python installation");
  }

  void expect(char c) {
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++pos_;
  }

  // Where "build_time_vars =" ends: the name must start a line.
  size_t find_assignment() {
    constexpr std::string_view kName = "build_time_vars";
    size_t at = 0;
    while ((at = s_.find(kName, at)) != std::string_view::npos) {
      if (at == 0 || s_[at - 1] == '\n') {
        pos_ = at + kName.size();
        skip_blank();
        if (peek() == '=') return pos_ + 1;
      }
      at += kName.size();
    }
    pos_ = 0;
    fail("no 'build_time_vars = {...}' assignment");
  }

  // Whitespace, comments and backslash line continuations.
  void skip_blank() {
    while (!at_end()) {
      char c = s_[pos_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
        ++pos_;
      } else if (c == '#') {
        while (!at_end() && s_[pos_] != '\n') ++pos_;
      } else if (c == '\\' && pos_ + 1 < s_.size() && s_[pos_ + 1] == '\n') {
        pos_ += 2;
      } else {
        break;
      }
    }
  }

  std::string value(int depth) {
    if (depth > kMaxNesting) fail("values nested too deeply");
    char c = peek();
    if (c == '(') {
      ++pos_;
      skip_blank();
      std::string v = value(depth + 1);
      skip_blank();
      expect(')');
      return v;
    }
    if (c == '\'' || c == '"' || is_string_prefix()) {
      // Adjacent literals concatenate, as in Python source.
      std::string v = string_literal();
      for (;;) {
        size_t save = pos_;
        skip_blank();
        if (peek() == '\'' || peek() == '"' || is_string_prefix()) {
          v += string_literal();
        } else {
          pos_ = save;
          return v;
        }
      }
    }
    if (c == '-' || c == '+' || (c >= '0' && c <= '9')) return integer();
    for (std::string_view word : {"True", "False", "None"}) {
      if (s_.substr(pos_, word.size()) == word) {
        pos_ += word.size();
        return std::string(word);
      }
    }
    fail("expected a string or an integer");
  }

  std::string integer() {
    std::string out;
    if (peek() == '-' || peek() == '+') {
      if (peek() == '-') out.push_back('-');
      ++pos_;
    }
    size_t start = pos_;
    while (!at_end() && s_[pos_] >= '0' && s_[pos_] <= '9') out.push_back(s_[pos_++]);
    if (pos_ == start) fail("expected digits");
    if (!at_end() && (is_alnum(s_[pos_]) || s_[pos_] == '.' || s_[pos_] == '_'))
      fail("only decimal integers are expected here");
    // Drop leading zeros so the text is canonical ("0" stays).
    size_t digits = out[0] == '-' ? 1 : 0;
    while (out.size() > digits + 1 && out[digits] == '0') out.erase(digits, 1);
    if (out == "-0") out = "0";
    return out;
  }

  // r'', R'', u'', U'' prefixes (b'' is bytes: not a str, so not accepted).
  bool is_string_prefix() const {
    if (pos_ + 1 >= s_.size()) return false;
    char c = s_[pos_], q = s_[pos_ + 1];
    return (c == 'r' || c == 'R' || c == 'u' || c == 'U') && (q == '\'' || q == '"');
  }

  std::string string_literal() {
    bool raw = false;
    if (is_string_prefix()) {
      raw = s_[pos_] == 'r' || s_[pos_] == 'R';
      ++pos_;
    }
    char quote = peek();
    if (quote != '\'' && quote != '"') fail("expected a string");
    if (s_.substr(pos_, 3) == (quote == '\'' ? "'''" : "\"\"\"")) fail("triple-quoted strings are not expected");
    ++pos_;
    std::string out;
    for (;;) {
      if (at_end()) fail("the string is not closed");
      char c = s_[pos_];
      if (c == quote) {
        ++pos_;
        return out;
      }
      if (c == '\n') fail("the string is not closed before the end of the line");
      if (c != '\\') {
        out.push_back(c);
        ++pos_;
        continue;
      }
      if (pos_ + 1 >= s_.size()) fail("the string ends in a backslash");
      char e = s_[pos_ + 1];
      if (raw) {  // a raw string keeps the backslash; it only stops a quote from ending the string
        out.push_back('\\');
        out.push_back(e);
        pos_ += 2;
        continue;
      }
      pos_ += 2;
      switch (e) {
        case '\n': break;  // line continuation inside the literal
        case '\\': out.push_back('\\'); break;
        case '\'': out.push_back('\''); break;
        case '"': out.push_back('"'); break;
        case 'a': out.push_back('\a'); break;
        case 'b': out.push_back('\b'); break;
        case 'f': out.push_back('\f'); break;
        case 'n': out.push_back('\n'); break;
        case 'r': out.push_back('\r'); break;
        case 't': out.push_back('\t'); break;
        case 'v': out.push_back('\v'); break;
        case 'x': append_code_point(hex_digits(2), out); break;
        case 'u': append_code_point(hex_digits(4), out); break;
        case 'U': append_code_point(hex_digits(8), out); break;
        default:
          if (e >= '0' && e <= '7') {
            uint32_t v = static_cast<uint32_t>(e - '0');
            for (int i = 0; i < 2 && !at_end() && s_[pos_] >= '0' && s_[pos_] <= '7'; ++i)
              v = v * 8 + static_cast<uint32_t>(s_[pos_++] - '0');
            append_code_point(v, out);
          } else {  // Python keeps unknown escapes as written
            out.push_back('\\');
            out.push_back(e);
          }
      }
    }
  }

  uint32_t hex_digits(int count) {
    uint32_t v = 0;
    for (int i = 0; i < count; ++i) {
      char c = peek();
      int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
      if (d < 0) fail("malformed escape: expected " + std::to_string(count) + " hex digits");
      v = v * 16 + static_cast<uint32_t>(d);
      ++pos_;
    }
    return v;
  }

  // The str value is Unicode; kept here as UTF-8.
  void append_code_point(uint32_t cp, std::string& out) {
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) fail("escape outside Unicode");
    if (cp < 0x80) {
      out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }

  std::string_view s_;
  const std::string& where_;
  size_t pos_ = 0;
};

}  // namespace

SysconfigVars parse_sysconfigdata(std::string_view text, const std::string& where) {
  return SysconfigParser(text, where).parse();
}

}  // namespace rp::python
