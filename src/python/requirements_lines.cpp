#include "python/requirements_lines.hpp"

#include <cstdlib>

#include "python/text.hpp"
#include "util/error.hpp"

namespace rp::python {

namespace {

bool is_comment_line(std::string_view line) {
  std::string_view t = trim(line);
  return !t.empty() && t.front() == '#';
}

// pip removes "(^|\s+)#.*$": a '#' glued to other text (a URL's "#sha256=" fragment) stays.
std::string_view strip_comment(std::string_view line) {
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '#' && (i == 0 || is_space(line[i - 1]))) return line.substr(0, i);
  }
  return line;
}

bool is_env_name_char(char c) { return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }

}  // namespace

std::vector<LogicalLine> logical_lines(std::string_view content) {
  std::vector<LogicalLine> out;
  LogicalLine pending;
  bool continuing = false;
  auto finish = [&](LogicalLine line) {
    std::string text(trim(strip_comment(line.text)));
    text = std::string(trim(expand_environment(text)));
    if (!text.empty()) out.push_back({line.number, std::move(text)});
  };
  int number = 0;
  size_t pos = 0;
  while (pos < content.size()) {
    size_t end = content.find('\n', pos);
    if (end == std::string_view::npos) end = content.size();
    std::string_view line = content.substr(pos, end - pos);
    pos = end + 1;
    ++number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);

    bool continues = !line.empty() && line.back() == '\\' && !is_comment_line(line);
    if (continues) line.remove_suffix(1);
    if (!continuing) pending = {number, ""};
    // A comment line inside a continuation ends it (pip does the same).
    if (!(continuing && is_comment_line(line))) pending.text += line;
    continuing = continues;
    if (!continuing) finish(std::move(pending));
  }
  if (continuing) finish(std::move(pending));
  return out;
}

std::string expand_environment(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '$' && i + 1 < text.size() && text[i + 1] == '{') {
      size_t j = i + 2;
      while (j < text.size() && is_env_name_char(text[j])) ++j;
      if (j > i + 2 && j < text.size() && text[j] == '}') {
        std::string name(text.substr(i + 2, j - i - 2));
        if (const char* value = std::getenv(name.c_str())) {
          out += value;
          i = j;
          continue;
        }
      }
    }
    out += text[i];
  }
  return out;
}

std::vector<std::string> split_words(std::string_view text) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (char c : text) {
    if (quote) {
      if (c == quote) quote = 0;
      else word += c;
      continue;
    }
    if (c == '"' || c == '\'') {
      quote = c;
      in_word = true;
    } else if (is_space(c)) {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (quote) throw InputError("unterminated quote in '" + printable(text) + "'");
  if (in_word) words.push_back(std::move(word));
  return words;
}

}  // namespace rp::python
