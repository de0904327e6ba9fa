// PEP 440 version specifiers: parsing and matching.
//
// The special cases follow the spec and the reference implementations (packaging, uv):
//   - "==V" ignores the candidate's local label unless V has one, so ==2.10.0a0 matches
//     2.10.0a0+rocm7.10.0a20251120;
//   - ">V" does not match post-releases or local versions of V itself;
//   - "<V" does not match pre-releases of V unless V is a pre-release;
//   - "<=V" and ">=V" compare the candidate without its local label.
#include <algorithm>

#include "python/pep440.hpp"
#include "python/text.hpp"
#include "util/error.hpp"

namespace rp::python {

namespace {

struct OpSpelling {
  std::string_view text;
  Specifier::Op op;
};

// Longest spellings first so "===" is not read as "==" followed by "=".
constexpr OpSpelling kSpecifierOps[] = {
    {"===", Specifier::Op::kArbitrary}, {"~=", Specifier::Op::kCompatible}, {"==", Specifier::Op::kEqual},
    {"!=", Specifier::Op::kNotEqual},   {"<=", Specifier::Op::kLessEqual},  {">=", Specifier::Op::kGreaterEqual},
    {"<", Specifier::Op::kLess},        {">", Specifier::Op::kGreater},
};

std::string_view op_text(Specifier::Op op) {
  for (const auto& o : kSpecifierOps) {
    if (o.op == op) return o.text;
  }
  return "?";
}

[[noreturn]] void fail_specifier(std::string_view text, std::string_view why) {
  throw InputError("invalid version specifier '" + printable(text) + "': " + std::string(why),
                   "specifiers look like '>=1.0', '==2.10.*', '~=1.4.5', '!=1.3', combined with ','");
}

// Release-prefix match used by "==V.*" and "~=": the candidate's release, padded with zeros, must
// start with `prefix`. Pre/post/dev/local parts of the candidate do not matter.
bool prefix_match(const Version& v, uint64_t epoch, const std::vector<uint64_t>& prefix) {
  if (v.epoch() != epoch) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    uint64_t part = i < v.release().size() ? v.release()[i] : 0;
    if (part != prefix[i]) return false;
  }
  return true;
}

}  // namespace

Specifier Specifier::parse(std::string_view text) {
  std::string_view s = trim(text);
  Specifier spec;
  bool found = false;
  for (const auto& o : kSpecifierOps) {
    if (s.starts_with(o.text)) {
      spec.op_ = o.op;
      s.remove_prefix(o.text.size());
      found = true;
      break;
    }
  }
  if (!found) fail_specifier(text, "expected an operator (==, !=, <=, >=, <, >, ~=, ===)");
  s = trim(s);
  if (s.empty()) fail_specifier(text, "missing version after the operator");

  if (spec.op_ == Op::kArbitrary) {
    // "===" compares strings; the operand may be anything without whitespace.
    if (std::any_of(s.begin(), s.end(), is_space)) fail_specifier(text, "'===' operand may not contain spaces");
    spec.arbitrary_ = std::string(s);
    if (auto v = Version::try_parse(s)) spec.version_ = *v;
    return spec;
  }

  if (s.ends_with(".*")) {
    if (spec.op_ != Op::kEqual && spec.op_ != Op::kNotEqual) fail_specifier(text, "'.*' is only allowed with == and !=");
    spec.wildcard_ = true;
    s.remove_suffix(2);
  }
  auto v = Version::try_parse(s);
  if (!v) fail_specifier(text, "'" + printable(s) + "' is not a PEP 440 version");
  spec.version_ = *v;

  bool plain_release = !v->pre() && !v->post() && !v->dev() && !v->has_local();
  if (spec.wildcard_ && !plain_release) fail_specifier(text, "'.*' may only follow a release number like 2.10");
  switch (spec.op_) {
    case Op::kCompatible:
      if (v->has_local()) fail_specifier(text, "'~=' does not allow a local version label");
      if (v->release().size() < 2) fail_specifier(text, "'~=' needs at least two release numbers, e.g. ~=1.4");
      break;
    case Op::kLessEqual:
    case Op::kGreaterEqual:
    case Op::kLess:
    case Op::kGreater:
      if (v->has_local()) fail_specifier(text, "ordered comparisons do not allow a local version label");
      break;
    default:
      break;
  }
  return spec;
}

bool Specifier::matches(const Version& v) const {
  switch (op_) {
    case Op::kArbitrary:
      return iequals(v.to_string(), arbitrary_);
    case Op::kEqual:
    case Op::kNotEqual: {
      bool equal;
      if (wildcard_) {
        equal = prefix_match(v, version_.epoch(), version_.release());
      } else if (version_.has_local()) {
        equal = v == version_;
      } else {
        equal = v.without_local() == version_;
      }
      return op_ == Op::kEqual ? equal : !equal;
    }
    case Op::kCompatible: {
      // ~=V.N means >=V.N, ==V.*
      std::vector<uint64_t> prefix(version_.release().begin(), version_.release().end() - 1);
      return v.without_local() >= version_ && prefix_match(v, version_.epoch(), prefix);
    }
    case Op::kLessEqual:
      return v.without_local() <= version_;
    case Op::kGreaterEqual:
      return v.without_local() >= version_;
    case Op::kLess:
      if (!(v < version_)) return false;
      // <3.0 must not select 3.0rc1 unless the specifier itself is a pre-release.
      return version_.is_prerelease() || !v.is_prerelease() || v.base() != version_.base();
    case Op::kGreater:
      if (!(v > version_)) return false;
      // >3.1 must not select 3.1.post1 (unless V is a post-release) nor 3.1+local.
      if (v.base() == version_.base()) {
        if (!version_.is_postrelease() && v.is_postrelease()) return false;
        if (v.has_local()) return false;
      }
      return true;
  }
  return false;
}

bool Specifier::names_prerelease() const {
  if (op_ == Op::kNotEqual) return false;
  if (op_ == Op::kArbitrary) {
    auto v = Version::try_parse(arbitrary_);
    return v && v->is_prerelease();
  }
  return version_.is_prerelease();
}

bool Specifier::contains(const Version& v, bool allow_prereleases) const {
  if (v.is_prerelease() && !allow_prereleases && !names_prerelease()) return false;
  return matches(v);
}

std::string Specifier::to_string() const {
  std::string out(op_text(op_));
  if (op_ == Op::kArbitrary) return out + arbitrary_;
  out += version_.to_string();
  if (wildcard_) out += ".*";
  return out;
}

SpecifierSet SpecifierSet::parse(std::string_view text) {
  SpecifierSet set;
  for (std::string_view part : split(text, ',')) {
    // A trailing or doubled comma is tolerated, as packaging does.
    if (trim(part).empty()) continue;
    set.specs_.push_back(Specifier::parse(part));
  }
  return set;
}

void SpecifierSet::add(const SpecifierSet& other) {
  specs_.insert(specs_.end(), other.specs_.begin(), other.specs_.end());
}

bool SpecifierSet::matches(const Version& v) const {
  return std::all_of(specs_.begin(), specs_.end(), [&](const Specifier& s) { return s.matches(v); });
}

bool SpecifierSet::names_prerelease() const {
  return std::any_of(specs_.begin(), specs_.end(), [](const Specifier& s) { return s.names_prerelease(); });
}

bool SpecifierSet::contains(const Version& v, bool allow_prereleases) const {
  if (v.is_prerelease() && !allow_prereleases && !names_prerelease()) return false;
  return matches(v);
}

bool SpecifierSet::is_pin() const {
  return std::any_of(specs_.begin(), specs_.end(), [](const Specifier& s) {
    return (s.op() == Specifier::Op::kEqual && !s.wildcard()) || s.op() == Specifier::Op::kArbitrary;
  });
}

std::string SpecifierSet::to_string() const {
  std::string out;
  for (size_t i = 0; i < specs_.size(); ++i) {
    if (i) out += ',';
    out += specs_[i].to_string();
  }
  return out;
}

}  // namespace rp::python
