#pragma once
// Debian package versions, `[epoch:]upstream[-revision]`, compared exactly as dpkg compares them
// (lib/dpkg/version.c): epochs numerically, then upstream and revision by alternating non-digit runs
// (letters before other characters, '~' before everything, even the end of the string) and digit
// runs (numerically). So 1.0~rc1 < 1.0 < 1.0+b1 < 1:0.1.
#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rp::apt {

class Version {
 public:
  Version() = default;

  // Parses as dpkg does. Hard errors (empty, blanks inside, a bad epoch, an empty upstream or
  // revision) are rp::InputError naming `what`; the soft ones dpkg only warns about (upstream not
  // starting with a digit, unusual characters) are accepted, as dpkg and apt accept them.
  static Version parse(std::string_view text, std::string_view what = "version");
  static std::optional<Version> try_parse(std::string_view text);

  uint32_t epoch() const { return epoch_; }
  const std::string& upstream() const { return upstream_; }
  const std::string& revision() const { return revision_; }
  // As written (epoch included only when it was written): what dpkg's status records.
  const std::string& str() const { return text_; }
  bool empty() const { return text_.empty(); }

  // dpkg's order. Two spellings of one version ("0:1.0" and "1.0"; "1.0-0" and "1.0", a missing
  // revision comparing as "0") compare equal.
  friend std::strong_ordering operator<=>(const Version& a, const Version& b);
  friend bool operator==(const Version& a, const Version& b) { return (a <=> b) == 0; }

 private:
  uint32_t epoch_ = 0;
  std::string upstream_;
  std::string revision_;
  std::string text_;
};

// dpkg's verrevcmp on one part (upstream or revision): negative, zero or positive.
int compare_version_part(std::string_view a, std::string_view b);

}  // namespace rp::apt
