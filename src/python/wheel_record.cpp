#include "python/wheel_record.hpp"

#include "python/text.hpp"
#include "util/digest.hpp"
#include "util/error.hpp"

namespace rp::python {

std::vector<RecordRow> parse_record(std::string_view text, std::string_view source) {
  std::vector<RecordRow> rows;
  size_t pos = 0;
  size_t line_no = 0;
  while (pos < text.size()) {
    ++line_no;
    std::vector<std::string> fields(1);
    bool quoted = false;
    bool end_of_row = false;
    while (pos < text.size() && !end_of_row) {
      char c = text[pos++];
      if (quoted) {
        if (c != '"') {
          fields.back().push_back(c);
        } else if (pos < text.size() && text[pos] == '"') {
          fields.back().push_back('"');
          ++pos;
        } else {
          quoted = false;
        }
      } else if (c == '"') {
        quoted = true;
      } else if (c == ',') {
        fields.emplace_back();
      } else if (c == '\n') {
        end_of_row = true;
      } else if (c != '\r') {
        fields.back().push_back(c);
      }
    }
    if (quoted) throw InputError(std::string(source) + ":" + std::to_string(line_no) + ": unterminated quote");
    if (fields.size() == 1 && fields[0].empty()) continue;  // blank line
    if (fields.size() > 3)
      throw InputError(std::string(source) + ":" + std::to_string(line_no) + ": more than three fields in '" +
                       printable(fields[0]) + "'");
    if (fields[0].empty()) throw InputError(std::string(source) + ":" + std::to_string(line_no) + ": empty path");
    fields.resize(3);
    rows.push_back(RecordRow{std::move(fields[0]), std::move(fields[1]), std::move(fields[2])});
  }
  return rows;
}

namespace {
std::string csv_field(const std::string& field) {
  if (field.find_first_of(",\"\r\n") == std::string::npos) return field;
  std::string out = "\"";
  for (char c : field) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  out.push_back('"');
  return out;
}
}  // namespace

std::string format_record(const std::vector<RecordRow>& rows) {
  std::string out;
  for (const auto& row : rows) {
    out += csv_field(row.path);
    out += ',';
    out += csv_field(row.hash);
    out += ',';
    out += csv_field(row.size);
    out += '\n';
  }
  return out;
}

std::string record_hash_of_raw_digest(std::string_view raw) {
  static const char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out = "sha256=";
  size_t i = 0;
  for (; i + 3 <= raw.size(); i += 3) {
    uint32_t v = (static_cast<unsigned char>(raw[i]) << 16) | (static_cast<unsigned char>(raw[i + 1]) << 8) |
                 static_cast<unsigned char>(raw[i + 2]);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  size_t rest = raw.size() - i;
  if (rest > 0) {
    uint32_t v = static_cast<unsigned char>(raw[i]) << 16;
    if (rest == 2) v |= static_cast<unsigned char>(raw[i + 1]) << 8;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    if (rest == 2) out += kAlphabet[(v >> 6) & 63];
  }
  return out;
}

std::string record_hash(std::string_view content) {
  Sha256 sha;
  sha.update(content);
  return record_hash_of_raw_digest(sha.finish_raw());
}

std::string relative_path(std::string_view from, std::string_view to) {
  // The common case, `to` below `from` (every RECORD row of a wheel's own files; 20,000 rows of
  // the ROCm devel tree): the rest of `to`, when splitting would give the same parts.
  if (!from.empty() && from.back() != '/' && to.size() > from.size() + 1 && to.starts_with(from) &&
      to[from.size()] == '/') {
    std::string_view rest = to.substr(from.size() + 1);
    if (rest.front() != '/' && rest.back() != '/' && rest.find("//") == std::string_view::npos) return std::string(rest);
  }
  std::vector<std::string_view> a, b;
  for (auto part : split(from, '/'))
    if (!part.empty()) a.push_back(part);
  for (auto part : split(to, '/'))
    if (!part.empty()) b.push_back(part);
  size_t common = 0;
  while (common < a.size() && common < b.size() && a[common] == b[common]) ++common;
  std::string out;
  for (size_t i = common; i < a.size(); ++i) out += "../";
  for (size_t i = common; i < b.size(); ++i) {
    out += b[i];
    if (i + 1 < b.size()) out += '/';
  }
  if (!out.empty() && out.back() == '/') out.pop_back();
  return out.empty() ? "." : out;
}

}  // namespace rp::python
