#include "util/spdx_license.hpp"

#include <map>
#include <vector>

#include "util/strings.hpp"

namespace rp {

namespace {

const std::map<std::string, std::string>& ids() {
  static const std::map<std::string, std::string> table = [] {
    static const char* const kIds[] = {
#include "util/spdx_license_ids.inc"
    };
    std::map<std::string, std::string> m;
    for (const char* id : kIds) m.emplace(ascii_lower(id), id);
    return m;
  }();
  return table;
}

// Tokens: "(", ")", and words (identifiers, operators); '(' and ')' split words.
std::vector<std::string> tokens(std::string_view s) {
  std::vector<std::string> out;
  std::string cur;
  auto flush = [&] {
    if (!cur.empty()) out.push_back(std::move(cur));
    cur.clear();
  };
  for (char c : s) {
    if (c == '(' || c == ')') {
      flush();
      out.emplace_back(1, c);
    } else if (is_space(c)) {
      flush();
    } else {
      cur += c;
    }
  }
  flush();
  return out;
}

// Recursive descent over: or := and ("OR" and)*, and := with ("AND" with)*,
// with := primary ["WITH" exception], primary := "(" or ")" | id ["+"].
class Parser {
 public:
  explicit Parser(std::vector<std::string> t) : t_(std::move(t)) {}

  std::optional<std::string> parse() {
    auto e = parse_or(0);
    if (!e || pos_ != t_.size()) return std::nullopt;
    return e;
  }

 private:
  bool is_op(const char* op) const { return pos_ < t_.size() && iequals(t_[pos_], op) && (t_[pos_] == op || t_[pos_] == ascii_lower(op)); }

  std::optional<std::string> parse_or(int depth) {
    auto left = parse_and(depth);
    if (!left) return std::nullopt;
    std::string out = *left;
    while (is_op("OR")) {
      ++pos_;
      auto right = parse_and(depth);
      if (!right) return std::nullopt;
      out += " OR " + *right;
    }
    return out;
  }

  std::optional<std::string> parse_and(int depth) {
    auto left = parse_with(depth);
    if (!left) return std::nullopt;
    std::string out = *left;
    while (is_op("AND")) {
      ++pos_;
      auto right = parse_with(depth);
      if (!right) return std::nullopt;
      out += " AND " + *right;
    }
    return out;
  }

  std::optional<std::string> parse_with(int depth) {
    auto primary = parse_primary(depth);
    if (!primary) return std::nullopt;
    if (!is_op("WITH")) return primary;
    ++pos_;
    if (pos_ >= t_.size()) return std::nullopt;
    auto exception = spdx_license_id(t_[pos_++]);
    if (!exception) return std::nullopt;
    return *primary + " WITH " + *exception;
  }

  std::optional<std::string> parse_primary(int depth) {
    if (pos_ >= t_.size() || depth > 50) return std::nullopt;
    if (t_[pos_] == "(") {
      ++pos_;
      auto inner = parse_or(depth + 1);
      if (!inner || pos_ >= t_.size() || t_[pos_] != ")") return std::nullopt;
      ++pos_;
      return "(" + *inner + ")";
    }
    std::string word = t_[pos_];
    if (word == ")" || iequals(word, "AND") || iequals(word, "OR") || iequals(word, "WITH")) return std::nullopt;
    ++pos_;
    bool plus = false;
    auto id = spdx_license_id(word);
    if (!id && word.size() > 1 && word.back() == '+') {
      plus = true;
      id = spdx_license_id(std::string_view(word).substr(0, word.size() - 1));
    }
    if (!id) return std::nullopt;
    return *id + (plus ? "+" : "");
  }

  std::vector<std::string> t_;
  size_t pos_ = 0;
};

}  // namespace

std::optional<std::string> spdx_license_id(std::string_view id) {
  if (id.empty() || id.size() > 100) return std::nullopt;
  auto it = ids().find(ascii_lower(id));
  if (it == ids().end()) return std::nullopt;
  return it->second;
}

std::optional<std::string> spdx_expression(std::string_view text) {
  if (text.size() > 1000) return std::nullopt;
  for (char c : text)
    if (c == '\n' || c == '\r') return std::nullopt;
  auto t = tokens(text);
  if (t.empty()) return std::nullopt;
  return Parser(std::move(t)).parse();
}

}  // namespace rp
