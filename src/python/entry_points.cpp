// entry_points.txt parsing.
#include "python/entry_points.hpp"

#include "python/text.hpp"
#include "util/error.hpp"

namespace rp::python {

namespace {

// Dotted Python identifiers: ASCII letters, digits, '_', '.', and any non-ASCII byte (UTF-8
// identifiers are legal Python).
bool is_dotted_name(std::string_view s) {
  if (s.empty() || s.front() == '.' || s.back() == '.') return false;
  for (char c : s) {
    if (!is_alnum(c) && c != '_' && c != '.' && static_cast<unsigned char>(c) < 0x80) return false;
  }
  return true;
}

// `module[:attr] [extra, ...]`; false when the value does not have that shape.
bool parse_value(std::string_view value, EntryPoint& ep) {
  std::string_view main = value;
  size_t bracket = value.find('[');
  if (bracket != std::string_view::npos) {
    if (value.back() != ']') return false;
    std::string_view list = value.substr(bracket + 1, value.size() - bracket - 2);
    for (std::string_view e : split(list, ',')) {
      e = trim(e);
      if (e.empty()) continue;
      if (!is_valid_project_name(e)) return false;
      ep.extras.emplace_back(e);
    }
    main = trim(value.substr(0, bracket));
  }
  size_t colon = main.find(':');
  ep.module = std::string(trim(main.substr(0, colon)));
  if (!is_dotted_name(ep.module)) return false;
  if (colon != std::string_view::npos) {
    ep.attr = std::string(trim(main.substr(colon + 1)));
    if (!is_dotted_name(ep.attr)) return false;
  }
  return true;
}

// A script name becomes a file name in bin/: nothing that could climb out or hide a path.
bool is_safe_script_name(std::string_view name) {
  if (name.empty() || name == ".") return false;
  for (char c : name) {
    if (c == '/' || c == '\\' || c == '\0') return false;
  }
  return name.find("..") == std::string_view::npos;
}

}  // namespace

EntryPoints EntryPoints::parse(std::string_view text, std::string_view source) {
  EntryPoints out;
  std::string group;
  size_t line_no = 0;
  for (std::string_view raw : split(text, '\n')) {
    ++line_no;
    std::string_view line = trim(raw);
    if (line.empty() || line.front() == '#' || line.front() == ';') continue;
    auto where = [&] { return std::string(source) + " line " + std::to_string(line_no); };
    if (line.front() == '[') {
      if (line.back() != ']') throw InputError(where() + ": malformed section header '" + printable(line) + "'");
      group = std::string(trim(line.substr(1, line.size() - 2)));
      continue;
    }
    if (group.empty()) continue;  // entries before any section belong to no group
    size_t eq = line.find('=');
    if (eq == std::string_view::npos) throw InputError(where() + ": expected 'name = value'");
    EntryPoint ep;
    ep.group = group;
    ep.name = std::string(trim(line.substr(0, eq)));
    ep.value = std::string(trim(line.substr(eq + 1)));
    bool parsed = parse_value(ep.value, ep);
    if (group == "console_scripts" || group == "gui_scripts") {
      if (!parsed || ep.attr.empty()) {
        throw InputError(where() + ": entry point '" + printable(ep.name) + "' must be 'module:function', got '" +
                         printable(ep.value) + "'");
      }
      if (!is_safe_script_name(ep.name)) {
        throw InputError(where() + ": script name '" + printable(ep.name) + "' is not a plain file name",
                         "the package tries to install a script outside the scripts directory");
      }
    } else if (!parsed) {
      ep.module.clear();
      ep.attr.clear();
      ep.extras.clear();
    }
    out.entries.push_back(std::move(ep));
  }
  return out;
}

std::vector<EntryPoint> EntryPoints::group(std::string_view name) const {
  std::vector<EntryPoint> out;
  for (const auto& e : entries) {
    if (e.group == name) out.push_back(e);
  }
  return out;
}

}  // namespace rp::python
