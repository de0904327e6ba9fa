#pragma once
// Wheel file names (`{name}-{ver}(-{build})?-{py}-{abi}-{plat}.whl`) and the compatibility tags a
// target interpreter supports, in preference order (packaging.python.org "Platform compatibility tags").
#include <compare>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "python/pep440.hpp"

namespace rp::python {

struct WheelTag {
  std::string python;    // "cp311", "py3"
  std::string abi;       // "cp311", "abi3", "none"
  std::string platform;  // "manylinux_2_17_x86_64", "linux_x86_64", "any"

  std::string to_string() const { return python + "-" + abi + "-" + platform; }
  bool operator==(const WheelTag&) const = default;
};

// The optional build tag: starts with a digit; sorts as (number, rest). A wheel without one sorts
// below any wheel with one.
struct BuildTag {
  std::string number;  // the leading digits, compared as an unbounded integer
  std::string rest;    // what follows them
  std::strong_ordering operator<=>(const BuildTag& other) const;
  bool operator==(const BuildTag& other) const { return (*this <=> other) == 0; }
};

struct WheelFilename {
  std::string name;  // as in the file name ("torch", "rocm_sdk_core")
  Version version;
  std::optional<BuildTag> build;
  // Each field may be a '.'-joined set ("py2.py3"); the file supports the Cartesian product.
  std::vector<std::string> python_tags;
  std::vector<std::string> abi_tags;
  std::vector<std::string> platform_tags;

  // Accepts the name as found in a URL: percent-escapes ("%2B" for '+') are decoded first.
  // Throws rp::InputError for anything that is not a wheel file name.
  static WheelFilename parse(std::string_view filename);
  static std::optional<WheelFilename> try_parse(std::string_view filename);

  std::string normalized_name() const;
  std::vector<WheelTag> tags() const;
};

// The tags a target interpreter accepts, best first, for CPython 3.X on glibc Linux:
// for each platform P (manylinux_2_Y down to the architecture's floor with the legacy aliases right
// after their equivalents, then linux_<arch> last):
//   cp3X-cp3X-P, cp3X-abi3-P, cp3X-none-P, cp3(X-1)-abi3-P ... cp32-abi3-P,
//   py3X-none-P, py3-none-P, py3(X-1)-none-P ... py30-none-P
// then cp3X-none-any, py3X-none-any, py3-none-any, py3(X-1)-none-any ... py30-none-any.
class TagPolicy {
 public:
  // `implementation` "cp" (CPython; the only one with abi3), `python_minor` is X of 3.X,
  // glibc 2.`glibc_minor`, `machine` "x86_64" / "aarch64" / ... as uname reports it.
  TagPolicy(std::string implementation, int python_major, int python_minor, int glibc_major, int glibc_minor,
            std::string machine);
  // From text: python "3.11", glibc "2.35", machine "x86_64". Throws rp::InputError.
  static TagPolicy for_target(std::string_view python_version, std::string_view glibc_version,
                              std::string_view machine);

  const std::vector<WheelTag>& tags() const { return tags_; }
  // The platform tags in preference order (without "any").
  const std::vector<std::string>& platforms() const { return platforms_; }

  // Index in tags(): lower is better; nullopt when the tag is not supported.
  std::optional<size_t> priority(const WheelTag& tag) const;
  // The best priority among the file's tags; nullopt when the wheel cannot be installed.
  std::optional<size_t> best_priority(const WheelFilename& wheel) const;

 private:
  std::vector<WheelTag> tags_;
  std::vector<std::string> platforms_;
  std::unordered_map<std::string, size_t> index_;
};

// Among wheels of one version, the index of the one to install: the best tag priority, ties broken
// by the higher build tag. nullopt when none is compatible.
std::optional<size_t> choose_wheel(const std::vector<WheelFilename>& wheels, const TagPolicy& policy);

}  // namespace rp::python
