// PEP 508 requirement parsing.
//
//   requirement = name ws* extras? ws* (versionspec | "@" ws* url (ws+ | end))? ws* (";" marker)?
//   versionspec = "(" specifiers ")" | specifiers
// The URL runs to the next whitespace, so a ';' glued to it is part of the URL (as in PEP 508).
#include "python/pep508.hpp"

#include <algorithm>

#include "python/parse_error.hpp"
#include "python/text.hpp"
#include "util/error.hpp"

namespace rp::python {

namespace {

class RequirementParser {
 public:
  explicit RequirementParser(std::string_view text) : s_(text) {}

  Requirement run() {
    Requirement r;
    skip_ws();
    r.name = identifier("a package name");
    skip_ws();
    if (at('[')) parse_extras(r);
    skip_ws();
    if (at('@')) {
      ++pos_;
      skip_ws();
      size_t start = pos_;
      while (pos_ < s_.size() && !is_space(s_[pos_])) ++pos_;
      if (pos_ == start) fail("expected a URL after '@'");
      r.url = std::string(s_.substr(start, pos_ - start));
      skip_ws();
    } else if (at('(')) {
      size_t close = s_.find(')', pos_);
      if (close == std::string_view::npos) fail("expected ')' to close the version specifier");
      r.specifier = specifiers(pos_ + 1, close);
      pos_ = close + 1;
      skip_ws();
    } else if (pos_ < s_.size() && std::string_view("<>=!~").find(s_[pos_]) != std::string_view::npos) {
      size_t end = std::min(s_.find(';', pos_), s_.size());
      r.specifier = specifiers(pos_, end);
      pos_ = end;
    }
    if (at(';')) {
      ++pos_;
      r.marker = Marker::parse_part(s_, pos_, "requirement");
      pos_ = s_.size();
    }
    if (pos_ < s_.size()) {
      fail(r.url.empty() ? "expected a version specifier, '@ <url>' or '; <marker>'" : "expected '; <marker>' after the URL");
    }
    return r;
  }

 private:
  [[noreturn]] void fail(std::string_view why) const { throw_parse_error("requirement", s_, pos_, why); }
  bool at(char c) const { return pos_ < s_.size() && s_[pos_] == c; }
  void skip_ws() {
    while (pos_ < s_.size() && is_space(s_[pos_])) ++pos_;
  }

  // letterOrDigit ( (letterOrDigit | [-_.])* letterOrDigit )?
  std::string identifier(std::string_view what) {
    size_t start = pos_;
    if (pos_ >= s_.size() || !is_alnum(s_[pos_])) fail("expected " + std::string(what));
    while (pos_ < s_.size() && (is_alnum(s_[pos_]) || s_[pos_] == '-' || s_[pos_] == '_' || s_[pos_] == '.')) ++pos_;
    if (!is_alnum(s_[pos_ - 1])) {
      --pos_;
      fail(std::string(what) + " must end with a letter or digit");
    }
    return std::string(s_.substr(start, pos_ - start));
  }

  void parse_extras(Requirement& r) {
    ++pos_;  // '['
    skip_ws();
    if (at(']')) {
      ++pos_;
      return;
    }
    while (true) {
      std::string extra = normalize_name(identifier("an extra name"));
      if (std::find(r.extras.begin(), r.extras.end(), extra) == r.extras.end()) r.extras.push_back(extra);
      skip_ws();
      if (at(',')) {
        ++pos_;
        skip_ws();
        continue;
      }
      if (at(']')) {
        ++pos_;
        return;
      }
      fail("expected ',' or ']' in the extras list");
    }
  }

  SpecifierSet specifiers(size_t begin, size_t end) {
    std::string_view text = s_.substr(begin, end - begin);
    try {
      return SpecifierSet::parse(text);
    } catch (const InputError& e) {
      size_t first = begin;
      while (first < end && is_space(s_[first])) ++first;
      pos_ = first;
      fail(e.what());
    }
  }

  std::string_view s_;
  size_t pos_ = 0;
};

}  // namespace

Requirement Requirement::parse(std::string_view text) { return RequirementParser(text).run(); }

std::string Requirement::normalized_name() const { return normalize_name(name); }

std::string Requirement::to_string(bool with_marker) const {
  std::string out = name;
  if (!extras.empty()) {
    out += '[';
    for (size_t i = 0; i < extras.size(); ++i) out += (i ? "," : "") + extras[i];
    out += ']';
  }
  if (!url.empty()) {
    out += " @ " + url;
  } else {
    out += specifier.to_string();
  }
  if (with_marker && marker) out += (url.empty() ? "; " : " ; ") + marker->to_string();
  return out;
}

bool Requirement::applies(const MarkerEnvironment& env, const std::set<std::string>& requested_extras) const {
  return !marker || marker->evaluate(env, requested_extras);
}

}  // namespace rp::python
