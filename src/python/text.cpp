// Python name rules.
#include "python/text.hpp"

namespace rp::python {

std::string normalize_name(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  bool in_run = false;
  for (char c : name) {
    if (c == '-' || c == '_' || c == '.') {
      if (!in_run) out += '-';
      in_run = true;
    } else {
      out += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
      in_run = false;
    }
  }
  return out;
}

bool is_valid_project_name(std::string_view name) {
  if (name.empty() || !is_alnum(name.front()) || !is_alnum(name.back())) return false;
  for (char c : name) {
    if (!is_alnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

}  // namespace rp::python
