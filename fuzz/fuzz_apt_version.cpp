// Fuzzes Debian versions (apt::Version::parse/try_parse and dpkg's order), relationship fields
// (apt::parse_relations) and the recipe's package requests (apt::Request::parse). The input is split
// at newlines into up to three versions, whose order must be a total order: reflexive, antisymmetric
// (a < b exactly when b > a) and transitive. A relation written back with str() must read the same.
// Only rp::Error may come out.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "apt/relation.hpp"
#include "apt/resolver.hpp"
#include "apt/version.hpp"
#include "util/error.hpp"

using rp::apt::Version;

namespace {

std::optional<Version> parse(std::string_view text) {
  std::optional<Version> tried = Version::try_parse(text);
  std::optional<Version> thrown;
  try {
    thrown = Version::parse(text, "fuzz");
  } catch (const rp::InputError&) {
  }
  if (tried.has_value() != thrown.has_value()) __builtin_trap();
  if (tried && (tried->str() != thrown->str() || tried->upstream().empty())) __builtin_trap();
  if (tried) {
    // What is written reads back as the same version.
    auto again = Version::try_parse(tried->str());
    if (!again || *again != *tried || again->str() != tried->str()) __builtin_trap();
  }
  return tried;
}

void check_order(const Version& a, const Version& b) {
  if ((a < b) != (b > a) || (a == b) != (b == a) || (a > b) != (b < a)) __builtin_trap();
  int n = (a < b) + (a == b) + (a > b);
  if (n != 1) __builtin_trap();
}

void check_relations(std::string_view text) {
  try {
    for (const auto& group : rp::apt::parse_relations(text, "fuzz")) {
      for (const auto& r : group) {
        auto again = rp::apt::parse_relations(r.str(), "again");
        if (again.size() != 1 || again[0].size() != 1) __builtin_trap();
        const auto& s = again[0][0];
        if (s.name != r.name || s.arch_qualifier != r.arch_qualifier || s.op != r.op) __builtin_trap();
        if (r.op != rp::apt::VersionOp::kAny && !(s.version == r.version)) __builtin_trap();
      }
    }
  } catch (const rp::Error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (parts.size() < 2) {
    size_t nl = input.find('\n', start);
    if (nl == std::string_view::npos) break;
    parts.push_back(input.substr(start, nl - start));
    start = nl + 1;
  }
  parts.push_back(input.substr(start));

  std::vector<Version> versions;
  for (auto p : parts)
    if (auto v = parse(p)) versions.push_back(*v);
  for (const auto& a : versions) {
    if (!(a == a) || a < a) __builtin_trap();
    for (const auto& b : versions) check_order(a, b);
  }
  if (versions.size() == 3) {
    const Version &a = versions[0], &b = versions[1], &c = versions[2];
    if (a <= b && b <= c && !(a <= c)) __builtin_trap();
    if (a < b && b < c && !(a < c)) __builtin_trap();
  }

  check_relations(input);
  try {
    auto request = rp::apt::Request::parse(std::string(input));
    if (!rp::apt::is_valid_package_name(request.name)) __builtin_trap();
    for (const auto& v : versions) (void)request.version_ok(v);
  } catch (const rp::Error&) {
  }
  return 0;
}
