#include "recipe/document_reader.hpp"

#include <algorithm>
#include <set>

#include "recipe/substitute.hpp"
#include "util/strings.hpp"

namespace rp::recipe {

SourceLocation DocumentReader::at(const YAML::Node& node) const {
  return {file_.string(), node.Mark().line + 1, node.Mark().column + 1};
}

void DocumentReader::error(const YAML::Node& node, std::string message, std::string hint) const {
  diag_.error(at(node), std::move(message), std::move(hint));
}

bool DocumentReader::check_keys(const YAML::Node& map, const std::vector<std::string>& known,
                                const std::string& what) const {
  bool ok = true;
  std::set<std::string> seen;
  for (auto it = map.begin(); it != map.end(); ++it) {
    std::string key = it->first.Scalar();
    if (!seen.insert(key).second) {
      error(it->first, "duplicate key '" + key + "' in " + what);
      ok = false;
      continue;
    }
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      error(it->first, "unknown key '" + shorten(key) + "' in " + what, did_you_mean(key, known));
      ok = false;
    }
  }
  return ok;
}

std::optional<std::string> DocumentReader::text(const YAML::Node& node, const std::string& key) const {
  if (!node.IsScalar()) {
    error(node, "'" + key + "' must be a single value, not a " +
                    (node.IsMap() ? "mapping" : node.IsSequence() ? "list" : "null"));
    return std::nullopt;
  }
  SubstitutionError err;
  auto value = substitute(node.Scalar(), vars_, err);
  if (!value) error(node, err.message + " in '" + key + "'", err.hint);
  return value;
}

std::optional<std::vector<std::string>> DocumentReader::string_list(const YAML::Node& node,
                                                                    const std::string& key) const {
  std::vector<std::string> out;
  if (node.IsScalar()) {
    auto v = text(node, key);
    if (!v) return std::nullopt;
    out.push_back(*v);
    return out;
  }
  if (!node.IsSequence()) {
    error(node, "'" + key + "' must be a list of strings");
    return std::nullopt;
  }
  bool ok = true;
  for (const auto& item : node) {
    auto v = text(item, key + " item");
    if (v) out.push_back(*v);
    else ok = false;
  }
  if (!ok) return std::nullopt;
  return out;
}

std::optional<std::vector<std::pair<std::string, std::string>>> DocumentReader::string_map(
    const YAML::Node& node, const std::string& key) const {
  if (!node.IsMap()) {
    error(node, "'" + key + "' must be a mapping of KEY: value");
    return std::nullopt;
  }
  std::vector<std::pair<std::string, std::string>> out;
  std::set<std::string> seen;
  bool ok = true;
  for (auto it = node.begin(); it != node.end(); ++it) {
    std::string k = it->first.Scalar();
    if (!seen.insert(k).second) {
      error(it->first, "duplicate key '" + k + "' in " + key);
      ok = false;
      continue;
    }
    if (it->second.IsNull()) {
      out.emplace_back(k, "");
      continue;
    }
    auto v = text(it->second, key + "." + k);
    if (v) out.emplace_back(k, *v);
    else ok = false;
  }
  if (!ok) return std::nullopt;
  return out;
}

std::optional<bool> DocumentReader::boolean(const YAML::Node& node, const std::string& key) const {
  auto t = text(node, key);
  if (!t) return std::nullopt;
  if (*t == "true") return true;
  if (*t == "false") return false;
  error(node, "'" + key + "' must be true or false, got '" + *t + "'");
  return std::nullopt;
}

std::optional<uint32_t> DocumentReader::number(const YAML::Node& node, const std::string& key, int base,
                                               uint32_t max) const {
  auto t = text(node, key);
  if (!t) return std::nullopt;
  std::string s = *t;
  if (base == 8 && (s.rfind("0o", 0) == 0 || s.rfind("0O", 0) == 0)) s = s.substr(2);
  bool digits = !s.empty() && s.size() <= 10;
  for (char c : s) digits = digits && c >= '0' && c <= (base == 8 ? '7' : '9');
  unsigned long long v = digits ? std::stoull(s, nullptr, base) : 0;
  if (digits && v <= max) return static_cast<uint32_t>(v);
  // Say which rule the value breaks: "must be a number" for -5 reads as if -5 were no number.
  bool negative = s.size() > 1 && s[0] == '-' && s.find_first_not_of("0123456789", 1) == std::string::npos;
  if (base == 8)
    error(node, "'" + key + "' must be an octal mode like 0755, got '" + shorten(*t, 40) + "'");
  else if (negative)
    error(node, "'" + key + "' must not be negative, got '" + shorten(*t, 40) + "'",
          "write a whole number from 0 to " + std::to_string(max));
  else if (digits || (!s.empty() && s.size() <= 40 && s.find_first_not_of("0123456789") == std::string::npos))
    error(node, "'" + key + "' is too large: " + shorten(*t, 40) + " is more than " + std::to_string(max));
  else
    error(node, "'" + key + "' must be a whole number, got '" + shorten(*t, 40) + "'",
          "write a number from 0 to " + std::to_string(max));
  return std::nullopt;
}

std::optional<std::string> DocumentReader::image_path(const YAML::Node& node, const std::string& key) const {
  auto p = text(node, key);
  if (!p) return std::nullopt;
  if (p->empty() || (*p)[0] != '/') {
    error(node, "'" + key + "' must be an absolute path in the image, got '" + *p + "'");
    return std::nullopt;
  }
  if (has_dot_dot_component(*p)) {
    error(node, "'" + key + "' may not contain '..': '" + *p + "'");
    return std::nullopt;
  }
  return p;
}

std::filesystem::path DocumentReader::host_path(const std::string& written) const {
  std::filesystem::path p(written);
  if (!p.is_absolute()) p = file_.parent_path() / p;
  return p.lexically_normal();
}

}  // namespace rp::recipe
