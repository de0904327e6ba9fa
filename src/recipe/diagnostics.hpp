#pragma once
// Recipe errors carry a location ("recipe.yaml:12:5"), the key at fault and, when a known name is
// close, a suggestion. The loader collects every error it can find before stopping, so one run shows
// them all.
#include <string>
#include <vector>

#include "util/error.hpp"

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

// The closest of `candidates` to `word` when it is close enough to be a likely typo, else "".
std::string closest_match(const std::string& word, const std::vector<std::string>& candidates);
// "did you mean 'x'?" or "" when nothing is close.
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace rp::recipe
