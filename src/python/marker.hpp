#pragma once
// PEP 508 environment markers: `python_version >= "3.8" and (sys_platform == "linux" or extra == "cuda")`.
//
// Parsed once into a small tree and evaluated against a MarkerEnvironment that describes the
// *target* interpreter (the one in the image), never the machine rockpack runs on.
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace rp::python {

// The values of the marker variables for one target interpreter.
struct MarkerEnvironment {
  std::string implementation_name = "cpython";
  std::string implementation_version = "3.11.2";
  std::string os_name = "posix";
  std::string platform_machine = "x86_64";
  std::string platform_python_implementation = "CPython";
  std::string platform_release;  // kernel release: unknown for an image, empty
  std::string platform_system = "Linux";
  std::string platform_version;  // kernel build string: unknown for an image, empty
  std::string python_full_version = "3.11.2";  // Debian 12's python3
  std::string python_version = "3.11";
  std::string sys_platform = "linux";

  // CPython on Linux for `python_version` ("3.12" or "3.12.1"; a missing patch level becomes ".0")
  // and `machine` ("x86_64", "aarch64"). Throws rp::InputError for a malformed version.
  static MarkerEnvironment for_python(std::string_view python_version, std::string_view machine);

  // The value of a (canonical) variable name; nullopt for unknown names and for "extra".
  std::optional<std::string> get(std::string_view variable) const;
};

enum class MarkerOp { kEqual, kNotEqual, kLess, kLessEqual, kGreater, kGreaterEqual, kCompatible, kArbitrary, kIn, kNotIn };

class Marker {
 public:
  // Throws rp::InputError naming the column of the problem.
  static Marker parse(std::string_view text);
  // Parses the marker that starts at `begin` inside `whole` (e.g. after the ';' of a requirement) so
  // that errors show the whole text and a column within it. `what` names the whole ("requirement").
  static Marker parse_part(std::string_view whole, size_t begin, std::string_view what);

  // `extras` are the extras requested for the package whose metadata holds this marker; `extra ==
  // "x"` is true when x is among them (names compared normalized, PEP 685).
  bool evaluate(const MarkerEnvironment& env, const std::set<std::string>& extras = {}) const;

  // True when some comparison uses the `extra` variable.
  bool mentions_extra() const;

  // Canonical text: double-quoted strings, single spaces, parentheses only where needed.
  std::string to_string() const;

  struct Node;

 private:
  std::shared_ptr<const Node> root_;
};

}  // namespace rp::python
