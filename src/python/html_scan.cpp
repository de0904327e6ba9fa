// The forgiving HTML tokenizer.
#include "python/html_scan.hpp"

#include "python/text.hpp"

namespace rp::python {

namespace {

constexpr size_t kMaxAttributes = 64;

bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

void append_utf8(std::string& out, uint32_t cp) {
  if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = 0xFFFD;
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// Decodes the reference starting at s[i] == '&'. Returns the number of bytes consumed, 0 if it
// is not a reference we know.
size_t decode_reference(std::string_view s, size_t i, std::string& out) {
  // No reference we decode is longer than "&#x10FFFF;", so look no further (and stay linear).
  size_t semi = s.substr(i + 1, 10).find(';');
  if (semi == std::string_view::npos) return 0;
  semi += i + 1;
  std::string_view body = s.substr(i + 1, semi - i - 1);
  if (body.size() >= 2 && body[0] == '#') {
    bool hex = body[1] == 'x' || body[1] == 'X';
    std::string_view digits = body.substr(hex ? 2 : 1);
    if (digits.empty()) return 0;
    uint32_t cp = 0;
    for (char c : digits) {
      int d;
      if (c >= '0' && c <= '9') {
        d = c - '0';
      } else if (hex && c >= 'a' && c <= 'f') {
        d = c - 'a' + 10;
      } else if (hex && c >= 'A' && c <= 'F') {
        d = c - 'A' + 10;
      } else {
        return 0;
      }
      cp = cp * (hex ? 16 : 10) + static_cast<uint32_t>(d);  // at most 8 digits: no overflow
    }
    append_utf8(out, cp);
    return semi - i + 1;
  }
  static constexpr std::pair<std::string_view, std::string_view> kNamed[] = {
      {"amp", "&"}, {"lt", "<"}, {"gt", ">"}, {"quot", "\""}, {"apos", "'"}, {"nbsp", "\xC2\xA0"}};
  for (const auto& [name, text] : kNamed) {
    if (body == name) {
      out += text;
      return semi - i + 1;
    }
  }
  return 0;
}

class Tokenizer {
 public:
  explicit Tokenizer(std::string_view s) : s_(s) {}

  std::vector<HtmlToken> run() {
    while (pos_ < s_.size()) {
      size_t lt = s_.find('<', pos_);
      if (lt == std::string_view::npos) lt = s_.size();
      if (lt > pos_) add_text(s_.substr(pos_, lt - pos_));
      pos_ = lt;
      if (pos_ < s_.size()) markup();
    }
    return std::move(out_);
  }

 private:
  void add_text(std::string_view t) {
    HtmlToken tok;
    tok.kind = HtmlToken::Kind::kText;
    tok.text = decode_html_entities(t);
    out_.push_back(std::move(tok));
  }

  // Skips past `terminator`, or to the end when it never comes.
  void skip_past(std::string_view terminator) {
    size_t end = s_.find(terminator, pos_);
    pos_ = end == std::string_view::npos ? s_.size() : end + terminator.size();
  }

  // pos_ is at '<'.
  void markup() {
    std::string_view rest = s_.substr(pos_);
    if (rest.starts_with("<!--")) {
      pos_ += 4;
      skip_past("-->");
    } else if (rest.starts_with("<!") || rest.starts_with("<?")) {
      skip_past(">");
    } else if (rest.size() > 2 && rest[1] == '/' && is_letter(rest[2])) {
      pos_ += 2;
      HtmlToken tok;
      tok.kind = HtmlToken::Kind::kEndTag;
      tok.name = tag_name();
      skip_past(">");
      out_.push_back(std::move(tok));
    } else if (rest.size() > 1 && is_letter(rest[1])) {
      ++pos_;
      start_tag();
    } else {
      add_text("<");
      ++pos_;
    }
  }

  std::string tag_name() {
    size_t start = pos_;
    while (pos_ < s_.size() && !is_space(s_[pos_]) && s_[pos_] != '/' && s_[pos_] != '>') ++pos_;
    return ascii_lower(s_.substr(start, pos_ - start));
  }

  void start_tag() {
    HtmlToken tok;
    tok.kind = HtmlToken::Kind::kStartTag;
    tok.name = tag_name();
    while (true) {
      while (pos_ < s_.size() && (is_space(s_[pos_]) || s_[pos_] == '/')) ++pos_;
      if (pos_ >= s_.size()) return;  // EOF inside a tag: the tag is dropped
      if (s_[pos_] == '>') {
        ++pos_;
        break;
      }
      // Attribute name: anything up to whitespace, '/', '>' or '=' (a leading '=' is part of it).
      size_t start = pos_++;
      while (pos_ < s_.size() && !is_space(s_[pos_]) && s_[pos_] != '/' && s_[pos_] != '>' && s_[pos_] != '=') ++pos_;
      std::string name = ascii_lower(s_.substr(start, pos_ - start));
      std::optional<std::string> value;
      size_t save = pos_;
      while (pos_ < s_.size() && is_space(s_[pos_])) ++pos_;
      if (pos_ < s_.size() && s_[pos_] == '=') {
        ++pos_;
        while (pos_ < s_.size() && is_space(s_[pos_])) ++pos_;
        if (pos_ >= s_.size()) return;
        char q = s_[pos_];
        if (q == '"' || q == '\'') {
          size_t close = s_.find(q, pos_ + 1);
          if (close == std::string_view::npos) {
            pos_ = s_.size();
            return;  // unterminated quoted value runs to EOF: drop the tag
          }
          value = decode_html_entities(s_.substr(pos_ + 1, close - pos_ - 1));
          pos_ = close + 1;
        } else {
          size_t vstart = pos_;
          while (pos_ < s_.size() && !is_space(s_[pos_]) && s_[pos_] != '>') ++pos_;
          value = decode_html_entities(s_.substr(vstart, pos_ - vstart));
        }
      } else {
        pos_ = save;
      }
      // A bounded number of attributes keeps the duplicate check cheap on hostile input.
      if (tok.attributes.size() < kMaxAttributes && !tok.has(name)) {
        tok.attributes.emplace_back(std::move(name), std::move(value));
      }
    }
    bool raw_text = tok.name == "script" || tok.name == "style";
    std::string name = tok.name;
    out_.push_back(std::move(tok));
    if (raw_text) skip_raw_text(name);
  }

  // The content of <script> and <style> is not markup; skip to the matching end tag.
  void skip_raw_text(const std::string& name) {
    std::string closing = "</" + name;
    while (pos_ < s_.size()) {
      size_t lt = s_.find("</", pos_);
      if (lt == std::string_view::npos) {
        pos_ = s_.size();
        return;
      }
      if (iequals(s_.substr(lt, closing.size()), closing)) {
        pos_ = lt;
        return;
      }
      pos_ = lt + 2;
    }
  }

  std::string_view s_;
  size_t pos_ = 0;
  std::vector<HtmlToken> out_;
};

}  // namespace

bool HtmlToken::has(std::string_view attr) const {
  for (const auto& a : attributes) {
    if (a.first == attr) return true;
  }
  return false;
}

std::optional<std::string> HtmlToken::get(std::string_view attr) const {
  for (const auto& a : attributes) {
    if (a.first == attr) return a.second.value_or("");
  }
  return std::nullopt;
}

std::string decode_html_entities(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    if (s[i] == '&') {
      if (size_t n = decode_reference(s, i, out)) {
        i += n;
        continue;
      }
    }
    out += s[i++];
  }
  return out;
}

std::vector<HtmlToken> tokenize_html(std::string_view html) { return Tokenizer(html).run(); }

}  // namespace rp::python
