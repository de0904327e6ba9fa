#pragma once
// The email-style header format of METADATA, PKG-INFO and WHEEL files: "Name: value" lines,
// continuation lines starting with whitespace, fields that may repeat, and a body after the first
// blank line.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rp::python {

class EmailHeaders {
 public:
  struct Field {
    std::string name;   // as written
    std::string value;  // leading whitespace removed; continuation lines joined with '\n'
  };

  // Never throws: like Python's email parser, a line that is not a header ends the headers.
  static EmailHeaders parse(std::string_view text);

  // First value of a field (names compare case-insensitively), and all values in order.
  std::optional<std::string> get(std::string_view name) const;
  std::vector<std::string> get_all(std::string_view name) const;

  const std::vector<Field>& fields() const { return fields_; }
  const std::string& body() const { return body_; }

 private:
  std::vector<Field> fields_;
  std::string body_;
};

}  // namespace rp::python
