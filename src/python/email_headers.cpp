// Email-style header parsing for package metadata files.
#include "python/email_headers.hpp"

#include "python/text.hpp"

namespace rp::python {

namespace {

// One line without its terminator ("\n" or "\r\n"); advances `pos`.
std::string_view next_line(std::string_view text, size_t& pos) {
  size_t end = text.find('\n', pos);
  if (end == std::string_view::npos) end = text.size();
  std::string_view line = text.substr(pos, end - pos);
  pos = end < text.size() ? end + 1 : end;
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

bool valid_field_name(std::string_view name) {
  if (name.empty()) return false;
  for (char c : name) {
    // RFC 5322 field names: printable ASCII except ':' and space.
    if (c <= ' ' || c > '~') return false;
  }
  return true;
}

}  // namespace

EmailHeaders EmailHeaders::parse(std::string_view text) {
  EmailHeaders h;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t line_start = pos;
    std::string_view line = next_line(text, pos);
    if (line.empty()) {
      h.body_ = std::string(text.substr(pos));
      return h;
    }
    if (line.front() == ' ' || line.front() == '\t') {
      // A continuation line; one before any field is ignored.
      if (!h.fields_.empty()) {
        h.fields_.back().value += '\n';
        h.fields_.back().value += trim(line);
      }
      continue;
    }
    size_t colon = line.find(':');
    if (colon == std::string_view::npos || !valid_field_name(line.substr(0, colon))) {
      // Not a header: what follows is the body (Python's email parser does the same).
      h.body_ = std::string(text.substr(line_start));
      return h;
    }
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
    h.fields_.push_back({std::string(line.substr(0, colon)), std::string(value)});
  }
  return h;
}

std::optional<std::string> EmailHeaders::get(std::string_view name) const {
  for (const auto& f : fields_) {
    if (iequals(f.name, name)) return f.value;
  }
  return std::nullopt;
}

std::vector<std::string> EmailHeaders::get_all(std::string_view name) const {
  std::vector<std::string> out;
  for (const auto& f : fields_) {
    if (iequals(f.name, name)) out.push_back(f.value);
  }
  return out;
}

}  // namespace rp::python
