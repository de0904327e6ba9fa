// PEP 508 marker parsing and evaluation.
//
// Grammar (whitespace allowed between tokens):
//   marker      = and_expr ("or" and_expr)*
//   and_expr    = expr ("and" expr)*              -- "and" binds tighter than "or"
//   expr        = "(" marker ")" | value op value  -- one side a variable, the other a quoted string
//   op          = "<" | "<=" | "!=" | "==" | ">=" | ">" | "~=" | "===" | "in" | "not" "in"
#include "python/marker.hpp"

#include <algorithm>

#include "python/parse_error.hpp"
#include "python/pep440.hpp"
#include "python/text.hpp"
#include "util/error.hpp"

namespace rp::python {

struct Marker::Node {
  enum class Kind { kAnd, kOr, kCompare } kind = Kind::kCompare;
  std::vector<Node> children;  // kAnd / kOr
  // kCompare: exactly one side is a variable (canonical name), the other a string literal.
  bool lhs_is_var = false;
  std::string lhs;
  MarkerOp op = MarkerOp::kEqual;
  std::string rhs;
};

namespace {

// Variables of PEP 508, plus the dotted legacy spellings that old metadata still uses.
struct VarName {
  std::string_view spelling;
  std::string_view canonical;
};
constexpr VarName kVariables[] = {
    {"implementation_name", "implementation_name"},
    {"implementation_version", "implementation_version"},
    {"os_name", "os_name"},
    {"platform_machine", "platform_machine"},
    {"platform_python_implementation", "platform_python_implementation"},
    {"platform_release", "platform_release"},
    {"platform_system", "platform_system"},
    {"platform_version", "platform_version"},
    {"python_full_version", "python_full_version"},
    {"python_version", "python_version"},
    {"sys_platform", "sys_platform"},
    {"extra", "extra"},
    {"os.name", "os_name"},
    {"sys.platform", "sys_platform"},
    {"platform.version", "platform_version"},
    {"platform.machine", "platform_machine"},
    {"platform.python_implementation", "platform_python_implementation"},
    {"python_implementation", "platform_python_implementation"},
    // PEP 817 (wheel variants). A non-variant installer knows no variant properties: a comparison
    // on them is never true, whatever its operator (the line is for variant-aware installers).
    {"variant_properties", "variant_properties"},
    {"variant_namespaces", "variant_namespaces"},
    {"variant_features", "variant_features"},
    {"variant_label", "variant_label"},
};

bool is_variant_variable(std::string_view var) { return var.starts_with("variant_"); }

struct OpName {
  std::string_view text;
  MarkerOp op;
};
constexpr OpName kMarkerOps[] = {
    {"===", MarkerOp::kArbitrary}, {"==", MarkerOp::kEqual},        {"!=", MarkerOp::kNotEqual},
    {"<=", MarkerOp::kLessEqual},  {">=", MarkerOp::kGreaterEqual}, {"~=", MarkerOp::kCompatible},
    {"<", MarkerOp::kLess},        {">", MarkerOp::kGreater},
};

std::string_view op_text(MarkerOp op) {
  if (op == MarkerOp::kIn) return "in";
  if (op == MarkerOp::kNotIn) return "not in";
  for (const auto& o : kMarkerOps) {
    if (o.op == op) return o.text;
  }
  return "?";
}

bool is_version_variable(std::string_view var) {
  return var == "python_version" || var == "python_full_version" || var == "implementation_version";
}

// Nesting deeper than this is not a real marker; refusing it keeps recursion bounded.
constexpr int kMaxDepth = 64;

class MarkerParser {
 public:
  MarkerParser(std::string_view whole, size_t begin, std::string_view what) : s_(whole), pos_(begin), what_(what) {}

  Marker::Node run() {
    skip_ws();
    if (pos_ >= s_.size()) fail("expected a marker");
    Marker::Node n = parse_or(0);
    skip_ws();
    if (pos_ < s_.size()) fail("expected 'and', 'or' or the end of the marker");
    return n;
  }

 private:
  [[noreturn]] void fail(std::string_view why) const { throw_parse_error(what_, s_, pos_, why); }

  void skip_ws() {
    while (pos_ < s_.size() && is_space(s_[pos_])) ++pos_;
  }

  // A word made of letters, digits, '_' and '.' (variables and keywords).
  std::string_view peek_word() const {
    size_t end = pos_;
    while (end < s_.size() && (is_alnum(s_[end]) || s_[end] == '_' || s_[end] == '.')) ++end;
    return s_.substr(pos_, end - pos_);
  }

  bool take_keyword(std::string_view kw) {
    skip_ws();
    if (peek_word() != kw) return false;
    pos_ += kw.size();
    return true;
  }

  Marker::Node combine(Marker::Node::Kind kind, std::vector<Marker::Node> parts) {
    if (parts.size() == 1) return std::move(parts.front());
    Marker::Node n;
    n.kind = kind;
    n.children = std::move(parts);
    return n;
  }

  Marker::Node parse_or(int depth) {
    std::vector<Marker::Node> parts;
    parts.push_back(parse_and(depth));
    while (take_keyword("or")) parts.push_back(parse_and(depth));
    return combine(Marker::Node::Kind::kOr, std::move(parts));
  }

  Marker::Node parse_and(int depth) {
    std::vector<Marker::Node> parts;
    parts.push_back(parse_expr(depth));
    while (take_keyword("and")) parts.push_back(parse_expr(depth));
    return combine(Marker::Node::Kind::kAnd, std::move(parts));
  }

  Marker::Node parse_expr(int depth) {
    skip_ws();
    if (pos_ < s_.size() && s_[pos_] == '(') {
      if (depth >= kMaxDepth) fail("parentheses nested too deeply");
      ++pos_;
      Marker::Node inner = parse_or(depth + 1);
      skip_ws();
      if (pos_ >= s_.size() || s_[pos_] != ')') fail("expected ')'");
      ++pos_;
      return inner;
    }
    Marker::Node n;
    auto [lhs_var, lhs] = parse_value();
    n.op = parse_op();
    auto [rhs_var, rhs] = parse_value();
    if (lhs_var == rhs_var) {
      fail(lhs_var ? "a marker compares a variable with a quoted string, not two variables"
                   : "a marker compares a variable with a quoted string, not two strings");
    }
    n.lhs_is_var = lhs_var;
    n.lhs = std::move(lhs);
    n.rhs = std::move(rhs);
    return n;
  }

  // A variable (returns true + canonical name) or a quoted string (false + contents).
  std::pair<bool, std::string> parse_value() {
    skip_ws();
    if (pos_ >= s_.size()) fail("expected a marker variable or a quoted string");
    char q = s_[pos_];
    if (q == '"' || q == '\'') {
      size_t close = s_.find(q, pos_ + 1);
      if (close == std::string_view::npos) fail("unterminated string");
      std::string value(s_.substr(pos_ + 1, close - pos_ - 1));
      pos_ = close + 1;
      return {false, std::move(value)};
    }
    std::string_view word = peek_word();
    for (const auto& v : kVariables) {
      if (word == v.spelling) {
        pos_ += word.size();
        return {true, std::string(v.canonical)};
      }
    }
    if (word.empty()) fail("expected a marker variable or a quoted string");
    fail("unknown marker variable '" + printable(word) + "'");
  }

  MarkerOp parse_op() {
    skip_ws();
    if (take_keyword("in")) return MarkerOp::kIn;
    if (take_keyword("not")) {
      if (!take_keyword("in")) fail("expected 'in' after 'not'");
      return MarkerOp::kNotIn;
    }
    skip_ws();
    for (const auto& o : kMarkerOps) {
      if (s_.substr(pos_).starts_with(o.text)) {
        pos_ += o.text.size();
        return o.op;
      }
    }
    fail("expected a comparison operator (==, !=, <, <=, >, >=, ~=, ===, in, not in)");
  }

  std::string_view s_;
  size_t pos_;
  std::string_view what_;
};

bool compare_strings(const std::string& l, MarkerOp op, const std::string& r) {
  switch (op) {
    case MarkerOp::kEqual:
    case MarkerOp::kArbitrary:
      return l == r;
    case MarkerOp::kNotEqual:
      return l != r;
    case MarkerOp::kLess:
      return l < r;
    case MarkerOp::kLessEqual:
      return l <= r;
    case MarkerOp::kGreater:
      return l > r;
    case MarkerOp::kGreaterEqual:
      return l >= r;
    case MarkerOp::kIn:
      return r.find(l) != std::string::npos;
    case MarkerOp::kNotIn:
      return r.find(l) == std::string::npos;
    case MarkerOp::kCompatible:
      return false;  // "~=" has no meaning for plain strings
  }
  return false;
}

// Version-typed variables compare as PEP 440 versions when both sides are versions (the
// specifier is built from the right-hand side, as packaging does); everything else as strings.
bool compare(const std::string& l, MarkerOp op, const std::string& r, std::string_view var) {
  if (is_version_variable(var) && op != MarkerOp::kIn && op != MarkerOp::kNotIn) {
    auto lv = Version::try_parse(l);
    if (lv) {
      try {
        return Specifier::parse(std::string(op_text(op)) + r).contains(*lv, true);
      } catch (const InputError&) {
        // Not a version on the right: fall back to comparing strings.
      }
    }
  }
  return compare_strings(l, op, r);
}

bool eval_node(const Marker::Node& n, const MarkerEnvironment& env, const std::set<std::string>& extras) {
  switch (n.kind) {
    case Marker::Node::Kind::kAnd:
      return std::all_of(n.children.begin(), n.children.end(), [&](const auto& c) { return eval_node(c, env, extras); });
    case Marker::Node::Kind::kOr:
      return std::any_of(n.children.begin(), n.children.end(), [&](const auto& c) { return eval_node(c, env, extras); });
    case Marker::Node::Kind::kCompare:
      break;
  }
  const std::string& var = n.lhs_is_var ? n.lhs : n.rhs;
  if (var == "extra") {
    // Compare normalized names against each requested extra; with none requested, `extra` is "".
    std::string literal = normalize_name(n.lhs_is_var ? n.rhs : n.lhs);
    std::vector<std::string> values;
    for (const auto& e : extras) values.push_back(normalize_name(e));
    if (values.empty()) values.emplace_back();
    auto test = [&](const std::string& v) {
      return n.lhs_is_var ? compare(v, n.op, literal, var) : compare(literal, n.op, v, var);
    };
    if (n.op == MarkerOp::kNotEqual || n.op == MarkerOp::kNotIn) return std::all_of(values.begin(), values.end(), test);
    return std::any_of(values.begin(), values.end(), test);
  }
  if (is_variant_variable(var)) return false;
  std::string value = env.get(var).value_or("");
  return n.lhs_is_var ? compare(value, n.op, n.rhs, var) : compare(n.lhs, n.op, value, var);
}

bool node_mentions_extra(const Marker::Node& n) {
  if (n.kind == Marker::Node::Kind::kCompare) return (n.lhs_is_var ? n.lhs : n.rhs) == "extra";
  return std::any_of(n.children.begin(), n.children.end(), node_mentions_extra);
}

std::string quote(const std::string& s) {
  char q = s.find('"') == std::string::npos ? '"' : '\'';
  return q + s + q;
}

std::string node_to_string(const Marker::Node& n, bool parenthesize_or) {
  if (n.kind == Marker::Node::Kind::kCompare) {
    std::string l = n.lhs_is_var ? n.lhs : quote(n.lhs);
    std::string r = n.lhs_is_var ? quote(n.rhs) : n.rhs;
    return l + " " + std::string(op_text(n.op)) + " " + r;
  }
  bool is_and = n.kind == Marker::Node::Kind::kAnd;
  std::string out;
  for (size_t i = 0; i < n.children.size(); ++i) {
    if (i) out += is_and ? " and " : " or ";
    // Inside an "and", an "or" needs parentheses to keep its meaning.
    out += node_to_string(n.children[i], is_and);
  }
  return (!is_and && parenthesize_or) ? "(" + out + ")" : out;
}

}  // namespace

MarkerEnvironment MarkerEnvironment::for_python(std::string_view python_version, std::string_view machine) {
  auto v = Version::try_parse(python_version);
  if (!v || v->release().size() < 2 || v->release().size() > 3 || v->epoch() != 0 || v->has_local()) {
    throw InputError("invalid Python version '" + printable(python_version) + "'",
                     "give the target interpreter's version as 3.X or 3.X.Y, e.g. 3.11");
  }
  MarkerEnvironment env;
  const auto& r = v->release();
  env.python_version = std::to_string(r[0]) + "." + std::to_string(r[1]);
  env.python_full_version = r.size() == 3 ? v->to_string() : env.python_version + ".0";
  env.implementation_version = env.python_full_version;
  env.platform_machine = std::string(machine);
  return env;
}

std::optional<std::string> MarkerEnvironment::get(std::string_view variable) const {
  if (variable == "implementation_name") return implementation_name;
  if (variable == "implementation_version") return implementation_version;
  if (variable == "os_name") return os_name;
  if (variable == "platform_machine") return platform_machine;
  if (variable == "platform_python_implementation") return platform_python_implementation;
  if (variable == "platform_release") return platform_release;
  if (variable == "platform_system") return platform_system;
  if (variable == "platform_version") return platform_version;
  if (variable == "python_full_version") return python_full_version;
  if (variable == "python_version") return python_version;
  if (variable == "sys_platform") return sys_platform;
  return std::nullopt;
}

Marker Marker::parse(std::string_view text) { return parse_part(text, 0, "marker"); }

Marker Marker::parse_part(std::string_view whole, size_t begin, std::string_view what) {
  Marker m;
  m.root_ = std::make_shared<const Node>(MarkerParser(whole, begin, what).run());
  return m;
}

bool Marker::evaluate(const MarkerEnvironment& env, const std::set<std::string>& extras) const {
  return root_ ? eval_node(*root_, env, extras) : true;
}

bool Marker::mentions_extra() const { return root_ && node_mentions_extra(*root_); }

std::string Marker::to_string() const { return root_ ? node_to_string(*root_, false) : std::string(); }

}  // namespace rp::python
