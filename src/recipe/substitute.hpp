#pragma once
// ${VAR} substitution in recipe values. Variables are the recipe's args (after --set) and the
// built-ins DATE and SOURCE_DATE_EPOCH. "$$" is a literal "$"; a "$" not followed by "{" stays as is,
// so shell snippets like "$HOME" pass through untouched.
#include <map>
#include <optional>
#include <string>

namespace rp::recipe {

struct SubstitutionError {
  std::string message;
  std::string hint;
};

// Returns the substituted text, or fills `error` and returns nullopt.
std::optional<std::string> substitute(const std::string& text, const std::map<std::string, std::string>& vars,
                                      SubstitutionError& error);

}  // namespace rp::recipe
