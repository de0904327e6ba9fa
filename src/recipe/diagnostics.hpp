#pragma once
// Recipe errors carry a location ("recipe.yaml:12:5"), the key at fault and, when a known name is
// close, a suggestion. The loader collects every error it can find before stopping, so one run shows
// them all.
#include <string>
#include <vector>

#include "util/error.hpp"
#include "util/suggest.hpp"

namespace rp::recipe {

struct SourceLocation {
  std::string file;
  int line = 0;    // 1-based; 0 = unknown
  int column = 0;  // 1-based
  std::string str() const;
};

struct Diagnostic {
  SourceLocation where;
  std::string message;
  std::string hint;
  std::string str() const;  // "file:line:col: message (hint)"
};

class RecipeError : public InputError {
 public:
  explicit RecipeError(std::vector<Diagnostic> diagnostics);
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }

 private:
  std::vector<Diagnostic> diagnostics_;
};

class Diagnostics {
 public:
  void error(const SourceLocation& where, std::string message, std::string hint = {});
  bool empty() const { return list_.empty(); }
  // Throws RecipeError when any error was recorded.
  void throw_if_any() const;

 private:
  std::vector<Diagnostic> list_;
};

// Suggestions for typos live in util (requirements files use them too).
using rp::closest_match;
using rp::did_you_mean;

}  // namespace rp::recipe
