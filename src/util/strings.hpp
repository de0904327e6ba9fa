#pragma once
// Small string helpers shared by every module. ASCII only on purpose: every format rockpack parses
// (versions, names, markers, headers, control files) is defined over ASCII, and locale-dependent
// functions would make parsing depend on the machine.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rp {

bool is_space(char c);  // space, tab, CR, LF, FF, VT
bool is_alnum(char c);
inline bool is_digit(char c) { return c >= '0' && c <= '9'; }
std::string_view trim(std::string_view s);
std::string ascii_lower(std::string_view s);
bool iequals(std::string_view a, std::string_view b);
// Every piece between `sep`s, empty ones included ("a,,b" -> "a", "", "b").
std::vector<std::string_view> split(std::string_view s, char sep);
// The words of `s`: runs of characters other than space, tab, CR and LF (empty words dropped).
std::vector<std::string> split_words(std::string_view s);
// The parts with `sep` between each two.
std::string join(const std::vector<std::string>& parts, std::string_view sep);
// The last component of a '/'-separated path: what follows the last '/', or all of `path`.
std::string path_base(const std::string& path);
// Whether a '/'-separated path has a ".." component (which could climb out of where it is meant to
// stay: an image root, an archive's tree).
bool has_dot_dot_component(std::string_view path);

// For error messages: quotes nothing, replaces control bytes with '?', and cuts long input with "...".
std::string printable(std::string_view s, size_t max = 200);
// For text output to a terminal of what an untrusted image says (paths, labels, names): C0 and C1
// control characters, DEL and bytes that are not UTF-8 become visible escapes ("\n", "\x1b",
// "\u009b"), so nothing in an image can move the cursor, retitle the window or hide lines.
// Printable UTF-8 is kept as it is; nothing is cut.
std::string terminal_safe(std::string_view s);
// `text` cut to at most `max` bytes (with "... (N bytes)" appended when cut), for quoting untrusted
// values in messages: a 50 MB name must not be echoed whole.
std::string shorten(std::string_view text, size_t max = 200);
// A byte count for people: "512 B", "1.5 KiB", "3.2 GiB" (binary units, one decimal).
std::string human_bytes(uint64_t bytes);

}  // namespace rp
