#pragma once
// Package relationship fields (Debian Policy 7.1): Depends, Pre-Depends, Recommends, Conflicts,
// Breaks, Replaces, Provides. "a (>= 1.2) | b:any, c [amd64] <!nocheck>" is a list of alternative
// groups; each alternative names a package, optionally an architecture qualifier (:any, :native,
// :amd64), a version constraint, architecture restrictions and build profiles.
#include <string>
#include <string_view>
#include <vector>

#include "apt/version.hpp"

namespace rp::apt {

enum class VersionOp { kAny, kLess, kLessEqual, kEqual, kGreaterEqual, kGreater };

// "<<", "<=", "=", ">=", ">>" (and "" for kAny).
const char* op_text(VersionOp op);
// Whether `v op constraint` holds.
bool version_matches(const Version& v, VersionOp op, const Version& constraint);

struct Relation {
  std::string name;
  std::string arch_qualifier;  // "" (none), "any", "native" or an architecture name
  VersionOp op = VersionOp::kAny;
  Version version;  // meaningful when op != kAny
  // "[amd64 arm64]" or "[!i386]" (all negated or all plain); empty = every architecture.
  std::vector<std::string> architectures;

  // Whether a package of `version` satisfies the version part (the name is the caller's business).
  bool version_ok(const Version& v) const { return op == VersionOp::kAny || version_matches(v, op, version); }
  // Whether the relation applies on `arch` (its architecture restrictions).
  bool applies_to(std::string_view arch) const;
  // "name[:qual] (op version)"
  std::string str() const;
};

// One comma-separated item: alternatives joined by '|'.
using AlternativeGroup = std::vector<Relation>;

std::string to_string(const AlternativeGroup& group);

// Parses a relationship field's value (continuation lines allowed). Build profiles ("<!nocheck>")
// are accepted and ignored: they never select binary packages. An empty value is an empty list.
// Throws rp::InputError naming `what` ("Depends of gcc 4:12.2.0-3").
std::vector<AlternativeGroup> parse_relations(std::string_view text, std::string_view what);

// Package names: lowercase letters, digits, '+', '-', '.', at least two characters, starting with
// a letter or digit (Policy 5.6.1).
bool is_valid_package_name(std::string_view name);

}  // namespace rp::apt
