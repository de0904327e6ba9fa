#include "recipe/matrix_section.hpp"

#include <algorithm>
#include <cctype>
#include <regex>
#include <set>

#include "recipe/substitute.hpp"
#include "util/strings.hpp"

namespace rp::recipe {

namespace {

// Keys of `matrix:` that are not axes. Arg names are checked against them (an arg called `include`
// could not be an axis).
const std::vector<std::string> kMatrixReservedKeys = {"include", "exclude", "name", "tags", "floating"};
const std::vector<std::string> kMatrixBuiltins = {"DATE", "SOURCE_DATE_EPOCH"};

// A plain scalar as written (no substitution: matrix values are arg values).
std::optional<std::string> matrix_scalar(const DocumentReader& in, const YAML::Node& node, const std::string& what) {
  if (!node.IsScalar()) {
    in.error(node, what + " must be a single value, not a " +
                       (node.IsMap() ? "mapping" : node.IsSequence() ? "list" : "null"));
    return std::nullopt;
  }
  return node.Scalar();
}

// Templates may use every declared arg and the built-ins; checked now with placeholder values, so a
// typo is an error at its line, not a surprise in one variant.
bool matrix_template_ok(const DocumentReader& in, const YAML::Node& node, const std::string& text,
                 const std::map<std::string, std::string>& declared, const std::string& what) {
  std::map<std::string, std::string> vars;
  for (const auto& [k, v] : declared) vars[k] = "x";
  for (const auto& b : kMatrixBuiltins) vars[b] = "x";
  SubstitutionError err;
  if (substitute(text, vars, err)) return true;
  in.error(node, err.message + " in " + what, err.hint.empty() ? "templates may use the recipe's args and DATE, SOURCE_DATE_EPOCH" : err.hint);
  return false;
}

std::optional<std::vector<std::string>> matrix_template_list(const DocumentReader& in, const YAML::Node& node,
                                                      const std::map<std::string, std::string>& declared,
                                                      const std::string& what) {
  std::vector<std::string> out;
  if (node.IsScalar()) {
    if (!matrix_template_ok(in, node, node.Scalar(), declared, what)) return std::nullopt;
    return std::vector<std::string>{node.Scalar()};
  }
  if (!node.IsSequence()) {
    in.error(node, what + " must be a list of tag templates");
    return std::nullopt;
  }
  bool ok = true;
  for (const auto& item : node) {
    auto v = matrix_scalar(in, item, what + " item");
    if (!v || !matrix_template_ok(in, item, *v, declared, what)) {
      ok = false;
      continue;
    }
    out.push_back(*v);
  }
  if (!ok) return std::nullopt;
  return out;
}

std::vector<std::string> matrix_declared_names(const std::map<std::string, std::string>& declared) {
  std::vector<std::string> names;
  for (const auto& [k, v] : declared) names.push_back(k);
  return names;
}

bool check_matrix_arg_key(const DocumentReader& in, const YAML::Node& key_node, const std::string& key,
                   const std::map<std::string, std::string>& declared, const std::string& where) {
  if (declared.count(key)) return true;
  std::string hint = did_you_mean(key, matrix_declared_names(declared));
  if (hint.empty()) hint = "a matrix varies the recipe's args: declare '" + shorten(key) + "' under args: first";
  in.error(key_node, "'" + shorten(key) + "' in " + where + " is not an arg of the recipe", hint);
  return false;
}

// An include: or exclude: item: a mapping of arg: value (include may add tags/floating).
std::optional<MatrixEntry> read_matrix_entry(const DocumentReader& in, const YAML::Node& item, bool include,
                                      const std::map<std::string, std::string>& declared,
                                      const std::set<std::string>& axes) {
  const std::string what = include ? "matrix include item" : "matrix exclude item";
  if (!item.IsMap() || item.size() == 0) {
    in.error(item, what + " must be a non-empty mapping of ARG: value");
    return std::nullopt;
  }
  MatrixEntry e;
  e.where = in.at(item);
  bool ok = true;
  std::set<std::string> seen;
  for (auto it = item.begin(); it != item.end(); ++it) {
    std::string key = it->first.Scalar();
    if (!seen.insert(key).second) {
      in.error(it->first, "duplicate key '" + shorten(key) + "' in " + what);
      ok = false;
      continue;
    }
    if (include && (key == "tags" || key == "floating")) {
      auto list = matrix_template_list(in, it->second, declared, "matrix include " + key);
      if (!list) ok = false;
      else (key == "tags" ? e.tags : e.floating) = *list;
      continue;
    }
    if (!check_matrix_arg_key(in, it->first, key, declared, what)) {
      ok = false;
      continue;
    }
    // GitHub lets exclude name only matrix keys; so does rockpack (anything else could never match).
    if (!include && !axes.count(key)) {
      in.error(it->first, "'" + key + "' in a matrix exclude item is not an axis of the matrix",
               "exclude drops combinations of the axes; list '" + key + "' as an axis or remove it here");
      ok = false;
      continue;
    }
    auto v = matrix_scalar(in, it->second, "the value of '" + key + "' in " + what);
    if (!v) {
      ok = false;
      continue;
    }
    e.values.emplace_back(key, *v);
  }
  if (ok && e.values.empty()) {
    in.error(item, what + " names no arg", "e.g. {" + (axes.empty() ? std::string("ARG") : *axes.begin()) + ": value}");
    ok = false;
  }
  if (!ok) return std::nullopt;
  return e;
}

std::optional<std::string> matrix_value_of(const std::vector<std::pair<std::string, std::string>>& values,
                                      const std::string& key) {
  for (const auto& [k, v] : values)
    if (k == key) return v;
  return std::nullopt;
}

void set_matrix_value(std::vector<std::pair<std::string, std::string>>& values, const std::string& key, const std::string& value) {
  for (auto& [k, v] : values)
    if (k == key) {
      v = value;
      return;
    }
  values.emplace_back(key, value);
}

// A variant name derived from its values: lowercase, anything outside [a-z0-9._] becomes '-'.
std::string derived_variant_name(const std::vector<std::pair<std::string, std::string>>& values) {
  std::string out;
  for (const auto& [k, v] : values) {
    if (!out.empty()) out += '-';
    for (char c : v) {
      char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      out += (std::isalnum(static_cast<unsigned char>(l)) || l == '.' || l == '_') ? l : '-';
    }
  }
  return out;
}

}  // namespace

bool valid_variant_name(const std::string& name) {
  static const std::regex kVariantName("[a-z0-9][a-z0-9._-]{0,127}");
  return std::regex_match(name, kVariantName);
}

std::optional<MatrixSection> read_matrix_section(const DocumentReader& in, const YAML::Node& node,
                                                 const std::map<std::string, std::string>& declared) {
  if (!node.IsMap() || node.size() == 0) {
    in.error(node, "'matrix' must be a mapping of ARG: [values] (with optional include, exclude, name, tags, floating)",
             "e.g. matrix: {PYTHON: [\"3.11\", \"3.12\"], TARGET: [gfx942, gfx950]}");
    return std::nullopt;
  }
  MatrixSection m;
  m.where = in.at(node);
  bool ok = true;
  std::set<std::string> seen;
  // The axes first: include and exclude items are checked against them.
  for (auto it = node.begin(); it != node.end(); ++it) {
    std::string key = it->first.Scalar();
    if (!seen.insert(key).second) {
      in.error(it->first, "duplicate key '" + shorten(key) + "' in matrix");
      ok = false;
      continue;
    }
    if (std::find(kMatrixReservedKeys.begin(), kMatrixReservedKeys.end(), key) != kMatrixReservedKeys.end()) continue;
    if (!check_matrix_arg_key(in, it->first, key, declared, "matrix")) {
      ok = false;
      continue;
    }
    const YAML::Node values = it->second;  // a copy: it-> yields a temporary
    if (!values.IsSequence() || values.size() == 0) {
      in.error(values, "matrix axis '" + key + "' must be a non-empty list of values", "e.g. " + key + ": [a, b]");
      ok = false;
      continue;
    }
    std::vector<std::string> list;
    for (const auto& v : values) {
      auto s = matrix_scalar(in, v, "a value of matrix axis '" + key + "'");
      if (!s) {
        ok = false;
        continue;
      }
      if (std::find(list.begin(), list.end(), *s) != list.end()) {
        in.error(v, "value '" + shorten(*s) + "' appears twice in matrix axis '" + key + "'");
        ok = false;
        continue;
      }
      list.push_back(*s);
    }
    m.axes.emplace_back(key, std::move(list));
  }
  std::set<std::string> axes;
  for (const auto& [k, v] : m.axes) axes.insert(k);
  for (const char* list_key : {"exclude", "include"}) {
    const YAML::Node& list = node[list_key];
    if (!list) continue;
    bool include = std::string(list_key) == "include";
    if (!list.IsSequence()) {
      in.error(list, std::string("matrix ") + list_key + " must be a list of mappings", "e.g. - {ARG: value}");
      ok = false;
      continue;
    }
    for (const auto& item : list) {
      auto e = read_matrix_entry(in, item, include, declared, axes);
      if (!e) ok = false;
      else (include ? m.include : m.exclude).push_back(std::move(*e));
    }
  }
  if (const YAML::Node& n = node["name"]) {
    auto v = matrix_scalar(in, n, "matrix name");
    if (!v || !matrix_template_ok(in, n, *v, declared, "matrix name")) ok = false;
    else m.name_template = *v;
  }
  if (const YAML::Node& n = node["tags"]) {
    auto list = matrix_template_list(in, n, declared, "matrix tags");
    if (!list) ok = false;
    else m.tags = *list;
  }
  if (const YAML::Node& n = node["floating"]) {
    auto list = matrix_template_list(in, n, declared, "matrix floating");
    if (!list) ok = false;
    else m.floating = *list;
  }
  if (ok && m.axes.empty() && m.include.empty()) {
    in.error(node, "matrix has no axis and no include item", "add an axis: ARG: [value, ...]");
    ok = false;
  }
  if (!ok) return std::nullopt;
  return m;
}

std::vector<Variant> expand_matrix(const MatrixSection& matrix, Diagnostics& diag) {
  // The product, bounded before it is made: a typo of a long list must not allocate millions.
  size_t product = matrix.axes.empty() ? 0 : 1;
  for (const auto& [k, values] : matrix.axes) {
    product *= values.size();
    if (product > kMaxVariants * 16) break;
  }
  if (product > kMaxVariants * 16) {
    diag.error(matrix.where, "matrix expands to more than " + std::to_string(kMaxVariants) + " variants",
               "a family is at most " + std::to_string(kMaxVariants) + " images; split the recipe or exclude combinations");
    return {};
  }
  struct Combination {
    std::vector<std::pair<std::string, std::string>> values;
    size_t original = 0;  // how many of `values` are the axes' (never overwritten by include)
    std::vector<std::string> tags, floating;
  };
  std::vector<Combination> combos;
  for (size_t i = 0; i < product; ++i) {
    Combination c;
    size_t rest = i;
    // The last axis varies fastest, as GitHub lists its jobs.
    std::vector<std::pair<std::string, std::string>> values(matrix.axes.size());
    for (size_t a = matrix.axes.size(); a-- > 0;) {
      const auto& [key, list] = matrix.axes[a];
      values[a] = {key, list[rest % list.size()]};
      rest /= list.size();
    }
    c.values = std::move(values);
    c.original = c.values.size();
    combos.push_back(std::move(c));
  }
  // exclude: a combination matching every pair of an item is dropped.
  for (const auto& e : matrix.exclude) {
    size_t before = combos.size();
    std::erase_if(combos, [&](const Combination& c) {
      for (const auto& [k, v] : e.values)
        if (matrix_value_of(c.values, k) != v) return false;
      return true;
    });
    if (combos.size() == before)
      diag.error(e.where, "this matrix exclude item matches no combination",
                 "check its values against the axes (a typo here would silently build an image you meant to drop)");
  }
  // include: added to each combination whose original values it keeps; else a combination of its own.
  const size_t originals = combos.size();
  for (const auto& inc : matrix.include) {
    bool fitted = false;
    for (size_t i = 0; i < originals; ++i) {
      Combination& c = combos[i];
      bool fits = true;
      for (const auto& [k, v] : inc.values) {
        for (size_t o = 0; o < c.original; ++o)
          if (c.values[o].first == k && c.values[o].second != v) fits = false;
      }
      if (!fits) continue;
      fitted = true;
      for (const auto& [k, v] : inc.values) set_matrix_value(c.values, k, v);
      c.tags.insert(c.tags.end(), inc.tags.begin(), inc.tags.end());
      c.floating.insert(c.floating.end(), inc.floating.begin(), inc.floating.end());
    }
    if (!fitted) combos.push_back(Combination{inc.values, inc.values.size(), inc.tags, inc.floating});
  }
  if (combos.size() > kMaxVariants) {
    diag.error(matrix.where, "matrix expands to " + std::to_string(combos.size()) + " variants, more than " +
                                 std::to_string(kMaxVariants),
               "split the recipe or exclude combinations");
    return {};
  }
  if (combos.empty()) {
    diag.error(matrix.where, "matrix excludes every combination", "remove an exclude item");
    return {};
  }
  std::vector<Variant> out;
  std::map<std::string, size_t> names;
  for (auto& c : combos) {
    Variant v;
    if (matrix.name_template.empty()) {
      v.name = derived_variant_name(c.values);
    } else {
      std::map<std::string, std::string> vars(c.values.begin(), c.values.end());
      SubstitutionError err;
      auto name = substitute(matrix.name_template, vars, err);
      if (!name) {
        diag.error(matrix.where, err.message + " in matrix name for the variant " + derived_variant_name(c.values),
                   "a name template may use the args the matrix sets for every variant");
        continue;
      }
      v.name = *name;
    }
    if (!valid_variant_name(v.name)) {
      diag.error(matrix.where, "variant name '" + shorten(v.name) + "' is not valid",
                 "names use lowercase letters, digits, '.', '_' and '-' (set matrix name: to a template)");
      continue;
    }
    if (names.count(v.name)) {
      diag.error(matrix.where, "two variants are named '" + v.name + "'",
                 "set matrix name: to a template that tells them apart, e.g. \"${" +
                     (matrix.axes.empty() ? std::string("ARG") : matrix.axes.front().first) + "}-...\"");
      continue;
    }
    names[v.name] = out.size();
    v.args = std::move(c.values);
    v.extra_tags = std::move(c.tags);
    v.extra_floating = std::move(c.floating);
    out.push_back(std::move(v));
  }
  return out;
}

std::vector<std::string> variant_tags(const std::vector<std::string>& templates,
                                      const std::map<std::string, std::string>& vars, const SourceLocation& where,
                                      Diagnostics& diag) {
  static const std::regex kTag("[A-Za-z0-9_][A-Za-z0-9._-]{0,127}");
  std::vector<std::string> out;
  for (const auto& t : templates) {
    SubstitutionError err;
    auto tag = substitute(t, vars, err);
    if (!tag) {
      diag.error(where, err.message + " in matrix tag '" + shorten(t) + "'", err.hint);
      continue;
    }
    if (!std::regex_match(*tag, kTag)) {
      diag.error(where, "matrix tag '" + shorten(t) + "' becomes '" + shorten(*tag) + "', not a valid tag",
                 "tags use letters, digits, '_', '.', '-', start with a letter, digit or '_', at most 128");
      continue;
    }
    if (std::find(out.begin(), out.end(), *tag) == out.end()) out.push_back(*tag);
  }
  return out;
}

}  // namespace rp::recipe
