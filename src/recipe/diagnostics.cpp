#include "recipe/diagnostics.hpp"

#include "util/strings.hpp"

namespace rp::recipe {

std::string SourceLocation::str() const {
  if (line <= 0) return file;
  return file + ":" + std::to_string(line) + ":" + std::to_string(column);
}

std::string Diagnostic::str() const {
  std::string s = where.str() + ": " + message;
  if (!hint.empty()) s += " (" + hint + ")";
  return s;
}

namespace {
std::string join_diagnostics(const std::vector<Diagnostic>& list) {
  std::string s;
  for (size_t i = 0; i < list.size(); ++i) {
    if (i) s += "\n";
    s += list[i].str();
  }
  return s;
}
}  // namespace

RecipeError::RecipeError(std::vector<Diagnostic> diagnostics)
    : InputError(join_diagnostics(diagnostics), diagnostics.size() > 1 ? "fix the errors above and run again" : ""),
      diagnostics_(std::move(diagnostics)) {}

// A diagnostic quotes recipe and --set values; the sites shorten what they quote, and this bound
// catches any that does not (a 50 MB value is never echoed whole).
constexpr size_t kMaxDiagnosticBytes = 2000;

void Diagnostics::error(const SourceLocation& where, std::string message, std::string hint) {
  if (message.size() > kMaxDiagnosticBytes) message = shorten(message, kMaxDiagnosticBytes);
  if (hint.size() > kMaxDiagnosticBytes) hint = shorten(hint, kMaxDiagnosticBytes);
  list_.push_back({where, std::move(message), std::move(hint)});
}

void Diagnostics::throw_if_any() const {
  if (!list_.empty()) throw RecipeError(list_);
}

}  // namespace rp::recipe
