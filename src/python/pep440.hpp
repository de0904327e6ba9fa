#pragma once
// PEP 440 versions and version specifiers (packaging.python.org "Version specifiers").
//
// Version implements the normalized form and the total order of the spec; Specifier and
// SpecifierSet implement matching with the same special cases as pip's `packaging` and uv
// (local versions, post-releases and pre-releases next to the specified version).
#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rp::python {

class Version {
 public:
  enum class PreKind : int { kAlpha = 0, kBeta = 1, kRc = 2 };
  struct Pre {
    PreKind kind;
    uint64_t number;
  };

  Version() : release_{0} {}

  // Parses any spelling the spec allows ("v1.0-RC.1", "1.0-1", "1!2.0.post3.dev4+Local_1")
  // and throws rp::InputError on anything else.
  static Version parse(std::string_view text);
  static std::optional<Version> try_parse(std::string_view text);

  // The normalized form: "1!2.0rc1.post3.dev4+local.1".
  std::string to_string() const;
  // Without the local label.
  std::string public_string() const;
  // Epoch and release only ("1!2.0"), as packaging's base_version.
  std::string base_string() const;

  uint64_t epoch() const { return epoch_; }
  const std::vector<uint64_t>& release() const { return release_; }
  const std::optional<Pre>& pre() const { return pre_; }
  const std::optional<uint64_t>& post() const { return post_; }
  const std::optional<uint64_t>& dev() const { return dev_; }
  // Local label segments, lowercased, numeric ones without leading zeros.
  const std::vector<std::string>& local() const { return local_; }

  bool is_prerelease() const { return pre_.has_value() || dev_.has_value(); }
  bool is_postrelease() const { return post_.has_value(); }
  bool is_devrelease() const { return dev_.has_value(); }
  bool has_local() const { return !local_.empty(); }

  Version without_local() const;
  // Epoch and release only: the version with pre/post/dev/local dropped.
  Version base() const;

  // Spec ordering; 1.0 == 1.0.0 (trailing zeros of the release do not count).
  std::strong_ordering operator<=>(const Version& other) const;
  bool operator==(const Version& other) const { return (*this <=> other) == 0; }

 private:
  uint64_t epoch_ = 0;
  std::vector<uint64_t> release_;
  std::optional<Pre> pre_;
  std::optional<uint64_t> post_;
  std::optional<uint64_t> dev_;
  std::vector<std::string> local_;

  friend class VersionParser;
};

class Specifier {
 public:
  enum class Op { kCompatible, kEqual, kNotEqual, kLessEqual, kGreaterEqual, kLess, kGreater, kArbitrary };

  // One clause such as ">=1.0", "== 2.10.*", "~=1.4.5a4", "===foo". Throws rp::InputError.
  static Specifier parse(std::string_view text);

  Op op() const { return op_; }
  // The version operand; meaningless for "===" with a non-PEP 440 operand.
  const Version& version() const { return version_; }
  bool wildcard() const { return wildcard_; }

  // Whether `v` satisfies the clause, ignoring the pre-release policy.
  bool matches(const Version& v) const;
  // Like matches(), but a pre-release `v` is rejected unless `allow_prereleases` or the clause
  // itself names a pre-release (PEP 440's default handling).
  bool contains(const Version& v, bool allow_prereleases = false) const;
  // True when the operand is a pre-release ("==2.10.0a0", ">=1.0.dev0"); never for "!=".
  bool names_prerelease() const;

  std::string to_string() const;

 private:
  Op op_ = Op::kEqual;
  Version version_;
  bool wildcard_ = false;
  std::string arbitrary_;  // the operand of "===", compared as a string
};

// A comma-separated conjunction of specifiers; empty means "any version".
class SpecifierSet {
 public:
  SpecifierSet() = default;
  static SpecifierSet parse(std::string_view text);

  bool empty() const { return specs_.empty(); }
  const std::vector<Specifier>& specifiers() const { return specs_; }
  void add(const Specifier& s) { specs_.push_back(s); }
  void add(const SpecifierSet& other);

  bool matches(const Version& v) const;
  bool contains(const Version& v, bool allow_prereleases = false) const;
  bool names_prerelease() const;
  // True when some clause is "==V" (not a wildcard) or "===V": a pin.
  bool is_pin() const;

  std::string to_string() const;  // clauses joined with ","

 private:
  std::vector<Specifier> specs_;
};

// Decimal digits compared as unbounded non-negative integers (leading zeros ignored).
std::strong_ordering compare_numeric_strings(std::string_view a, std::string_view b);

}  // namespace rp::python
