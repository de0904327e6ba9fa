#include "apt/relation.hpp"

#include "util/error.hpp"

namespace rp::apt {

namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

class Scanner {
 public:
  Scanner(std::string_view text, std::string_view what) : s_(text), what_(what) {}

  void skip_blanks() {
    while (i_ < s_.size() && is_blank(s_[i_])) ++i_;
  }
  bool done() {
    skip_blanks();
    return i_ >= s_.size();
  }
  char peek() {
    skip_blanks();
    return i_ < s_.size() ? s_[i_] : '\0';
  }
  bool accept(char c) {
    if (peek() != c) return false;
    ++i_;
    return true;
  }
  // A run of characters up to a blank or one of `stops`.
  std::string_view word(std::string_view stops) {
    skip_blanks();
    size_t start = i_;
    while (i_ < s_.size() && !is_blank(s_[i_]) && stops.find(s_[i_]) == std::string_view::npos) ++i_;
    return s_.substr(start, i_ - start);
  }
  [[noreturn]] void fail(const std::string& why) const {
    throw InputError(std::string(what_) + ": " + why + " in '" + std::string(s_.substr(0, 120)) + "'",
                     "relationship fields look like 'a (>= 1.0) | b, c:any'");
  }

 private:
  std::string_view s_;
  std::string_view what_;
  size_t i_ = 0;
};

Relation parse_one(Scanner& in) {
  Relation r;
  std::string_view name = in.word(",|([<:");
  if (name.empty()) in.fail("a package name is missing");
  r.name = std::string(name);
  if (!is_valid_package_name(r.name)) in.fail("'" + r.name + "' is not a valid package name");
  if (in.accept(':')) {
    std::string_view q = in.word(",|([<");
    if (q.empty()) in.fail("an architecture qualifier after ':' is missing");
    r.arch_qualifier = std::string(q);
  }
  if (in.accept('(')) {
    in.skip_blanks();
    std::string_view op = in.word("0123456789)");
    // The operator runs into the version when there is no blank between them: split it off.
    std::string op_str(op);
    size_t cut = op_str.find_first_not_of("<>=");
    std::string rest;
    if (cut != std::string::npos) {
      rest = op_str.substr(cut);
      op_str = op_str.substr(0, cut);
    }
    if (op_str == "<<") r.op = VersionOp::kLess;
    else if (op_str == "<=" || op_str == "<") r.op = VersionOp::kLessEqual;  // '<' is the obsolete '<='
    else if (op_str == "=") r.op = VersionOp::kEqual;
    else if (op_str == ">=" || op_str == ">") r.op = VersionOp::kGreaterEqual;  // '>' is the obsolete '>='
    else if (op_str == ">>") r.op = VersionOp::kGreater;
    else in.fail("'" + op_str + "' is not a version operator (<< <= = >= >>)");
    std::string version = rest + std::string(in.word(")"));
    if (version.empty()) in.fail("the version after " + op_str + " is missing");
    r.version = Version::parse(version, "the version in a relationship");
    if (!in.accept(')')) in.fail("')' is missing after the version");
  }
  if (in.accept('[')) {
    bool negated = false, plain = false;
    while (!in.accept(']')) {
      std::string_view a = in.word("]");
      if (a.empty()) in.fail("']' is missing");
      (a[0] == '!' ? negated : plain) = true;
      r.architectures.emplace_back(a);
    }
    if (negated && plain) in.fail("an architecture list mixes negated and plain names");
    if (r.architectures.empty()) in.fail("an empty architecture list '[]'");
  }
  while (in.accept('<')) {  // build profiles: binary packages ignore them
    for (;;) {
      std::string_view p = in.word(">");
      if (in.accept('>')) break;
      if (p.empty()) in.fail("'>' is missing after a build profile");
    }
  }
  return r;
}

}  // namespace

const char* op_text(VersionOp op) {
  switch (op) {
    case VersionOp::kLess: return "<<";
    case VersionOp::kLessEqual: return "<=";
    case VersionOp::kEqual: return "=";
    case VersionOp::kGreaterEqual: return ">=";
    case VersionOp::kGreater: return ">>";
    case VersionOp::kAny: break;
  }
  return "";
}

bool version_matches(const Version& v, VersionOp op, const Version& c) {
  switch (op) {
    case VersionOp::kLess: return v < c;
    case VersionOp::kLessEqual: return v <= c;
    case VersionOp::kEqual: return v == c;
    case VersionOp::kGreaterEqual: return v >= c;
    case VersionOp::kGreater: return v > c;
    case VersionOp::kAny: break;
  }
  return true;
}

bool Relation::applies_to(std::string_view arch) const {
  if (architectures.empty()) return true;
  bool negated = architectures.front()[0] == '!';
  for (const auto& a : architectures) {
    std::string_view listed = negated ? std::string_view(a).substr(1) : std::string_view(a);
    if (listed == arch || listed == "any" || (listed == "linux-any" && !arch.empty())) return !negated;
  }
  return negated;
}

std::string Relation::str() const {
  std::string s = name;
  if (!arch_qualifier.empty()) s += ":" + arch_qualifier;
  if (op != VersionOp::kAny) s += std::string(" (") + op_text(op) + " " + version.str() + ")";
  return s;
}

std::string to_string(const AlternativeGroup& group) {
  std::string s;
  for (const auto& r : group) s += (s.empty() ? "" : " | ") + r.str();
  return s;
}

std::vector<AlternativeGroup> parse_relations(std::string_view text, std::string_view what) {
  std::vector<AlternativeGroup> out;
  Scanner in(text, what);
  if (in.done()) return out;
  for (;;) {
    AlternativeGroup group;
    group.push_back(parse_one(in));
    while (in.accept('|')) group.push_back(parse_one(in));
    out.push_back(std::move(group));
    if (in.done()) break;
    if (!in.accept(',')) in.fail("',' or '|' expected after " + out.back().back().str());
    if (in.done()) break;  // a trailing comma, which dpkg tolerates
  }
  return out;
}

bool is_valid_package_name(std::string_view name) {
  if (name.size() < 2) return name.size() == 1 && ((name[0] >= 'a' && name[0] <= 'z') || (name[0] >= '0' && name[0] <= '9'));
  auto ok_first = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (!ok_first(name[0])) return false;
  for (char c : name)
    if (!ok_first(c) && c != '+' && c != '-' && c != '.') return false;
  return true;
}

}  // namespace rp::apt
