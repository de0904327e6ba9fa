#pragma once
// The one reader of Debian's control-file format (deb822, a dialect of RFC 822): dpkg's status
// database, a .deb's control file, a repository's Packages and Release files, apt's .sources files,
// and — in its lenient mode — apk's installed database, which shares the shape.
//
//   Package: libc6            <- a field: name, colon, value (leading blanks of the value dropped)
//   Depends: libgcc-s1,       <- a value may go on over continuation lines, which start with a
//    libcrypt1                   space or a tab
//                             <- one or more blank lines end a stanza
//
// Values are kept so that writing "Name: " + value + "\n" gives the field back as it was: the first
// line without its leading blanks, then each continuation line verbatim (leading space included),
// joined with '\n'. Trailing blanks and a CR before the LF are dropped from every line.
//
// The input is untrusted (it comes from repositories and base images): the strict mode reports every
// malformed line with its line number and never crashes; the lenient mode skips what it cannot read,
// as the tools that read these files in an image do.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rp {

struct Deb822Field {
  std::string name;   // as written (compare with iequals: field names are case-insensitive)
  std::string value;  // see above
  size_t line = 0;    // 1-based line of the field name
};

class Deb822Stanza {
 public:
  // The value of a field (names compare case-insensitively); nullopt when absent.
  std::optional<std::string> get(std::string_view name) const;
  // The value, or "" when absent.
  std::string value(std::string_view name) const;
  bool has(std::string_view name) const { return get(name).has_value(); }
  // The 1-based line of a field (for messages); the stanza's first line when it is absent.
  size_t line_of(std::string_view name) const;

  const std::vector<Deb822Field>& fields() const { return fields_; }
  size_t line() const { return line_; }  // 1-based line where the stanza starts

  // Writes the stanza back in deb822 form (fields in order, no trailing blank line).
  std::string str() const;

 private:
  friend class Deb822Reader;
  std::vector<Deb822Field> fields_;
  size_t line_ = 0;
};

struct Deb822Options {
  // Strict: a line that is neither a field, a continuation nor blank, a continuation with no field
  // before it, an empty field name and a field repeated within a stanza are errors. Lenient: skipped.
  bool strict = true;
  // Lines starting with '#' are comments (apt's .sources files allow them; dpkg's files do not).
  bool comments = false;
  // Bounds for hostile input; exceeding one is an error even in lenient mode.
  size_t max_stanzas = 1'000'000;
  size_t max_fields_per_stanza = 1'000;
  // The line number of the text's first line, for messages (a piece of a larger file read in parts).
  size_t first_line = 1;
};

// Reads stanzas one at a time, so a 100 MB Packages file is never held twice. `origin` names the
// input in messages ("http://deb/.../Packages", "/var/lib/dpkg/status of the base image").
// Errors are rp::Error (exit code 1: the file is someone else's data, not the user's input) with the
// message "<origin>:<line>: <what is wrong>".
class Deb822Reader {
 public:
  Deb822Reader(std::string_view text, std::string origin, Deb822Options options = {});
  // The next stanza; nullopt at the end of the input.
  std::optional<Deb822Stanza> next();

 private:
  [[noreturn]] void fail(size_t line, const std::string& what) const;

  std::string_view text_;
  std::string origin_;
  Deb822Options options_;
  size_t pos_ = 0;
  size_t line_ = 0;  // lines consumed so far
  size_t stanzas_ = 0;
};

// Every stanza of `text` (see Deb822Reader).
std::vector<Deb822Stanza> parse_deb822(std::string_view text, const std::string& origin, Deb822Options options = {});

// Exactly one stanza (a .deb's control file, a Release file): rp::Error naming `origin` when the
// text has none or several.
Deb822Stanza parse_one_deb822(std::string_view text, const std::string& origin, Deb822Options options = {});

// A multi-line value's lines: the first line (may be empty), then each continuation line without
// its leading blank; a continuation line of a single "." is an empty line (dpkg's convention).
std::vector<std::string_view> deb822_value_lines(std::string_view value);

// The value folded onto one line: each newline and the blanks around it become one space (how dpkg
// reads a Depends or Conffiles list written over several lines).
std::string deb822_folded(std::string_view value);

}  // namespace rp
