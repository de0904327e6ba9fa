#include "registry/challenge.hpp"

#include <cctype>

namespace rp::registry {

namespace {

bool is_token_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || std::string_view("!#$%&'*+-.^_`|~/:").find(c) != std::string_view::npos;
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

class Scanner {
 public:
  explicit Scanner(std::string_view s) : s_(s) {}
  void skip_space() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t')) ++pos_;
  }
  void skip_space_and_commas() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == ',')) ++pos_;
  }
  bool done() const { return pos_ >= s_.size(); }
  char peek() const { return done() ? '\0' : s_[pos_]; }
  void advance() { ++pos_; }
  size_t pos() const { return pos_; }
  void reset(size_t p) { pos_ = p; }
  std::string token() {
    size_t start = pos_;
    while (pos_ < s_.size() && is_token_char(s_[pos_])) ++pos_;
    return std::string(s_.substr(start, pos_ - start));
  }
  std::string quoted() {  // at the opening quote
    std::string out;
    ++pos_;
    while (pos_ < s_.size() && s_[pos_] != '"') {
      if (s_[pos_] == '\\' && pos_ + 1 < s_.size()) ++pos_;
      out += s_[pos_++];
    }
    if (pos_ < s_.size()) ++pos_;  // closing quote
    return out;
  }
 private:
  std::string_view s_;
  size_t pos_ = 0;
};

}  // namespace

std::vector<Challenge> parse_challenges(std::string_view header) {
  std::vector<Challenge> out;
  Scanner sc(header);
  while (true) {
    sc.skip_space_and_commas();
    if (sc.done()) break;
    std::string scheme = sc.token();
    if (scheme.empty()) {
      sc.advance();  // garbage: skip a character and carry on
      continue;
    }
    Challenge ch;
    ch.scheme = lower(scheme);
    // Parameters until the next "<token> <token>=" which begins a new challenge.
    while (true) {
      sc.skip_space_and_commas();
      if (sc.done()) break;
      size_t mark = sc.pos();
      std::string name = sc.token();
      sc.skip_space();
      if (name.empty() || sc.peek() != '=') {
        // Not "name=": the scheme of the next challenge (or a token68 we have no use for).
        sc.reset(mark);
        if (name.empty()) sc.advance();
        break;
      }
      sc.advance();  // '='
      sc.skip_space();
      std::string value = sc.peek() == '"' ? sc.quoted() : sc.token();
      ch.params[lower(name)] = value;
    }
    out.push_back(std::move(ch));
  }
  return out;
}

}  // namespace rp::registry
