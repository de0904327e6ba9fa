#include "recipe/substitute.hpp"

#include <vector>

#include "recipe/diagnostics.hpp"

namespace rp::recipe {

std::optional<std::string> substitute(const std::string& text, const std::map<std::string, std::string>& vars,
                                      SubstitutionError& error) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c != '$' || i + 1 == text.size()) {
      out.push_back(c);
      continue;
    }
    char next = text[i + 1];
    if (next == '$') {
      out.push_back('$');
      ++i;
      continue;
    }
    if (next != '{') {
      out.push_back(c);
      continue;
    }
    size_t close = text.find('}', i + 2);
    if (close == std::string::npos) {
      error = {"unterminated '${' in '" + text.substr(i, 40) + "'", "close it with '}', or write '$${' for a literal"};
      return std::nullopt;
    }
    std::string name = text.substr(i + 2, close - i - 2);
    auto it = vars.find(name);
    if (it == vars.end()) {
      std::vector<std::string> names;
      for (const auto& [k, v] : vars) names.push_back(k);
      std::string hint = did_you_mean(name, names);
      if (hint.empty()) hint = "declare it under args:, or write '$${" + name + "}' for a literal";
      error = {"undefined variable '${" + name + "}'", hint};
      return std::nullopt;
    }
    out += it->second;
    i = close;
  }
  return out;
}

}  // namespace rp::recipe
