#include "util/deb822.hpp"

#include "util/error.hpp"
#include "util/strings.hpp"

namespace rp {

namespace {

// A line without its CR and trailing blanks.
std::string_view strip_line_end(std::string_view line) {
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
  return line;
}

bool is_blank(std::string_view line) { return trim(line).empty(); }

// Field names are printable ASCII without ':' and not starting with '#' or '-' (Debian policy 5.1).
bool valid_field_name(std::string_view name) {
  if (name.empty() || name.front() == '#' || name.front() == '-') return false;
  for (char c : name)
    if (c <= ' ' || c > '~') return false;
  return true;
}

}  // namespace

std::optional<std::string> Deb822Stanza::get(std::string_view name) const {
  for (const auto& f : fields_)
    if (iequals(f.name, name)) return f.value;
  return std::nullopt;
}

std::string Deb822Stanza::value(std::string_view name) const { return get(name).value_or(std::string()); }

std::string Deb822Stanza::str() const {
  std::string out;
  for (const auto& f : fields_) {
    out += f.name;
    out += ':';
    // A value that starts on a continuation line ("Description:\n text") has an empty first line.
    if (!f.value.empty() && f.value.front() != '\n') out += ' ';
    out += f.value;
    out += '\n';
  }
  return out;
}

Deb822Reader::Deb822Reader(std::string_view text, std::string origin, Deb822Options options)
    : text_(text), origin_(std::move(origin)), options_(options), line_(options.first_line > 0 ? options.first_line - 1 : 0) {}

void Deb822Reader::fail(size_t line, const std::string& what) const {
  throw Error(origin_ + ":" + std::to_string(line) + ": " + what,
              "the file is not in Debian's control-file format (deb822); check where it comes from");
}

std::optional<Deb822Stanza> Deb822Reader::next() {
  Deb822Stanza stanza;
  Deb822Field* current = nullptr;  // the field continuation lines extend
  bool skipping_field = false;     // lenient mode: continuation lines of a skipped field
  while (pos_ < text_.size()) {
    size_t end = text_.find('\n', pos_);
    if (end == std::string_view::npos) end = text_.size();
    std::string_view line = strip_line_end(text_.substr(pos_, end - pos_));
    pos_ = end + 1;
    ++line_;

    if (options_.comments && !line.empty() && line.front() == '#') continue;
    if (is_blank(line)) {
      if (!stanza.fields_.empty()) break;  // the stanza ends; blank lines before one are skipped
      continue;
    }
    if (line.front() == ' ' || line.front() == '\t') {
      if (current) {
        current->value += '\n';
        current->value += line;
      } else if (options_.strict && !skipping_field) {
        fail(line_, "a continuation line (starting with a blank) with no field before it: '" + printable(line, 80) + "'");
      }
      continue;
    }
    current = nullptr;
    skipping_field = false;
    size_t colon = line.find(':');
    std::string_view name = colon == std::string_view::npos ? std::string_view() : line.substr(0, colon);
    if (colon == std::string_view::npos || !valid_field_name(name)) {
      if (options_.strict) fail(line_, "expected 'Field: value', found '" + printable(line, 80) + "'");
      skipping_field = true;
      continue;
    }
    if (stanza.get(name)) {
      if (options_.strict) fail(line_, "the field '" + printable(name, 80) + "' appears twice in one stanza");
      skipping_field = true;
      continue;
    }
    if (stanza.fields_.size() >= options_.max_fields_per_stanza)
      fail(line_, "a stanza with more than " + std::to_string(options_.max_fields_per_stanza) + " fields");
    if (stanza.fields_.empty()) {
      if (++stanzas_ > options_.max_stanzas)
        fail(line_, "more than " + std::to_string(options_.max_stanzas) + " stanzas");
      stanza.line_ = line_;
    }
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
    stanza.fields_.push_back(Deb822Field{std::string(name), std::string(value), line_});
    current = &stanza.fields_.back();
  }
  if (stanza.fields_.empty()) return std::nullopt;
  return stanza;
}

std::vector<Deb822Stanza> parse_deb822(std::string_view text, const std::string& origin, Deb822Options options) {
  Deb822Reader reader(text, origin, options);
  std::vector<Deb822Stanza> out;
  while (auto s = reader.next()) out.push_back(std::move(*s));
  return out;
}

size_t Deb822Stanza::line_of(std::string_view name) const {
  for (const auto& f : fields_)
    if (iequals(f.name, name)) return f.line;
  return line_;
}

Deb822Stanza parse_one_deb822(std::string_view text, const std::string& origin, Deb822Options options) {
  Deb822Reader reader(text, origin, options);
  auto first = reader.next();
  if (!first) throw Error(origin + ": no fields (an empty control stanza)");
  if (auto second = reader.next())
    throw Error(origin + ":" + std::to_string(second->line()) + ": a second stanza where exactly one is expected");
  return std::move(*first);
}

std::vector<std::string_view> deb822_value_lines(std::string_view value) {
  std::vector<std::string_view> out;
  size_t pos = 0;
  bool first = true;
  for (;;) {
    size_t nl = value.find('\n', pos);
    size_t end = nl == std::string_view::npos ? value.size() : nl;
    std::string_view line = value.substr(pos, end - pos);
    if (!first) {
      if (!line.empty() && (line[0] == ' ' || line[0] == '\t')) line.remove_prefix(1);
      if (line == ".") line = {};
    }
    out.push_back(line);
    first = false;
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
  return out;
}

std::string deb822_folded(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  size_t i = 0;
  while (i < value.size()) {
    if (value[i] == '\n') {
      while (!out.empty() && (out.back() == ' ' || out.back() == '\t')) out.pop_back();
      while (i < value.size() && (value[i] == '\n' || value[i] == ' ' || value[i] == '\t')) ++i;
      if (!out.empty() && i < value.size()) out.push_back(' ');
      continue;
    }
    out.push_back(value[i++]);
  }
  while (!out.empty() && (out.back() == ' ' || out.back() == '\t')) out.pop_back();
  return out;
}

}  // namespace rp
