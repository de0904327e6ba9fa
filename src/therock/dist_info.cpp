#include "therock/dist_info.hpp"

#include <algorithm>
#include <cctype>

#include "python/pep440.hpp"
#include "python/text.hpp"
#include "therock/families.hpp"
#include "util/strings.hpp"
#include "therock/py_statements.hpp"
#include "util/error.hpp"

namespace rp::therock {

namespace {

constexpr size_t kMaxDistInfoSize = 1 << 20;

using TokenKind = PyToken::Kind;

bool is(const PyToken& t, TokenKind kind, std::string_view text = {}) {
  return t.kind == kind && (text.empty() || t.text == text);
}

// Token patterns of the statements we understand. `tokens` must match exactly.
bool matches(const std::vector<PyToken>& tokens, std::initializer_list<std::pair<TokenKind, std::string_view>> pattern) {
  if (tokens.size() != pattern.size()) return false;
  size_t i = 0;
  for (const auto& [kind, text] : pattern) {
    if (!is(tokens[i++], kind, text)) return false;
  }
  return true;
}

class DistInfoReader {
 public:
  explicit DistInfoReader(std::string_view origin) : origin_(origin) {}

  void statement(const PyStatement& s) {
    if (s.indented) return;  // inside a class, function or block: not one of the module's facts
    const auto& t = s.tokens;
    // NAME = "string" | NAME = None
    if (t.size() == 3 && is(t[0], TokenKind::kName) && is(t[1], TokenKind::kOp, "=")) {
      bool none = is(t[2], TokenKind::kName, "None");
      if (!none && !is(t[2], TokenKind::kString)) return;
      std::string value = none ? "" : t[2].text;
      if (t[0].text == "__version__") info_.version = value;
      if (t[0].text == "DEFAULT_TARGET_FAMILY") info_.default_family = value;
      return;
    }
    // AVAILABLE_TARGET_FAMILIES.append("family") (and the LINUX_/WINDOWS_ lists)
    for (auto [list_name, list] : {std::pair{"AVAILABLE_TARGET_FAMILIES", &info_.available_families},
                                   std::pair{"LINUX_TARGET_FAMILIES", &info_.linux_families},
                                   std::pair{"WINDOWS_TARGET_FAMILIES", &info_.windows_families}}) {
      if (matches(t, {{TokenKind::kName, list_name}, {TokenKind::kOp, "."}, {TokenKind::kName, "append"},
                      {TokenKind::kOp, "("}, {TokenKind::kString, ""}, {TokenKind::kOp, ")"}})) {
        add_to(*list, t[4].text);
        return;
      }
    }
    // AVAILABLE_TARGET_FAMILIES = ["a", "b"]
    if (t.size() >= 4 && is(t[0], TokenKind::kName, "AVAILABLE_TARGET_FAMILIES") && is(t[1], TokenKind::kOp, "=") &&
        is(t[2], TokenKind::kOp, "[") && is(t.back(), TokenKind::kOp, "]")) {
      info_.available_families.clear();
      for (size_t i = 3; i + 1 < t.size(); ++i) {
        if (is(t[i], TokenKind::kString)) add_family(t[i].text);
      }
      return;
    }
    // ALL_PACKAGES["name"].field = "value"
    if (t.size() == 8 && is(t[0], TokenKind::kName, "ALL_PACKAGES") && is(t[1], TokenKind::kOp, "[") && is(t[2], TokenKind::kString) &&
        is(t[3], TokenKind::kOp, "]") && is(t[4], TokenKind::kOp, ".") && is(t[5], TokenKind::kName) && is(t[6], TokenKind::kOp, "=") &&
        is(t[7], TokenKind::kString)) {
      auto it = info_.packages.find(t[2].text);
      if (it == info_.packages.end()) {
        throw InputError(where(s) + "changes package '" + t[2].text + "', which the module never declares",
                         "the rocm sdist is inconsistent; try another version");
      }
      if (t[5].text == "dist_package_template") it->second.dist_template = t[7].text;
      if (t[5].text == "py_package_template") it->second.py_package_template = t[7].text;
      return;
    }
    // PackageEntry("logical", "dist-template", py_package_template="...", required=True, ...)
    if (t.size() >= 3 && is(t[0], TokenKind::kName, "PackageEntry") && is(t[1], TokenKind::kOp, "(") &&
        is(t.back(), TokenKind::kOp, ")")) {
      package_entry(s);
    }
  }

  DistInfo finish() {
    if (info_.version.empty()) {
      throw InputError(std::string(origin_) + " sets no __version__",
                       "this is not a rocm sdist built by TheRock's index tooling");
    }
    if (!python::Version::try_parse(info_.version)) {
      throw InputError(std::string(origin_) + ": __version__ '" + info_.version + "' is not a valid version");
    }
    return std::move(info_);
  }

 private:
  std::string where(const PyStatement& s) const {
    return std::string(origin_) + ":" + std::to_string(s.line) + ": ";
  }

  void add_family(const std::string& family) { add_to(info_.available_families, family); }
  static void add_to(std::vector<std::string>& list, const std::string& item) {
    if (std::find(list.begin(), list.end(), item) == list.end()) list.push_back(item);
  }

  // Splits the call's arguments at top-level commas; understands string positionals and
  // keyword=string|True|False. Anything more complex leaves that argument unread.
  void package_entry(const PyStatement& s) {
    const auto& t = s.tokens;
    PackageTemplate entry;
    std::vector<std::string> positional;
    size_t i = 2;
    while (i + 1 < t.size()) {
      size_t end = i;
      int depth = 0;
      while (end + 1 < t.size() && !(depth == 0 && is(t[end], TokenKind::kOp, ","))) {
        if (is(t[end], TokenKind::kOp, "(") || is(t[end], TokenKind::kOp, "[") || is(t[end], TokenKind::kOp, "{")) ++depth;
        if (is(t[end], TokenKind::kOp, ")") || is(t[end], TokenKind::kOp, "]") || is(t[end], TokenKind::kOp, "}")) --depth;
        ++end;
      }
      size_t count = end - i;
      if (count == 1 && is(t[i], TokenKind::kString)) {
        positional.push_back(t[i].text);
      } else if (count == 3 && is(t[i], TokenKind::kName) && is(t[i + 1], TokenKind::kOp, "=")) {
        const std::string& key = t[i].text;
        const PyToken& value = t[i + 2];
        bool flag = is(value, TokenKind::kName, "True");
        if (key == "logical_name" && is(value, TokenKind::kString)) positional.insert(positional.begin(), value.text);
        if (key == "dist_package_template" && is(value, TokenKind::kString)) entry.dist_template = value.text;
        if (key == "py_package_template" && is(value, TokenKind::kString)) entry.py_package_template = value.text;
        if (key == "required") entry.required = flag;
        if (key == "is_target_specific") entry.target_specific = flag;
      }
      i = end + 1;
    }
    if (!positional.empty()) entry.logical_name = positional[0];
    if (positional.size() > 1 && entry.dist_template.empty()) entry.dist_template = positional[1];
    if (entry.logical_name.empty() || entry.dist_template.empty()) {
      throw InputError(where(s) + "a PackageEntry without a name or distribution template",
                       "the rocm sdist is not in a form rockpack can read; try another version");
    }
    info_.packages[entry.logical_name] = std::move(entry);
  }

  std::string_view origin_;
  DistInfo info_;
};

// TheRock's templates, for a module whose body declares them in a form we did not recognise.
PackageTemplate default_template(const std::string& logical, IndexLayout layout) {
  if (logical == "core") return {"core", "rocm-sdk-core", "_rocm_sdk_core", true, false};
  if (logical == "devel") return {"devel", "rocm-sdk-devel", "rocm_sdk_devel", false, false};
  if (logical == "profiler") return {"profiler", "rocm-profiler", "_rocm_profiler", false, false};
  if (logical == "device") return {"device", "rocm-sdk-device-{target}", "_rocm_sdk_libraries", false, true};
  if (layout == IndexLayout::kMultiArch) return {"libraries", "rocm-sdk-libraries", "_rocm_sdk_libraries", false, false};
  return {"libraries", "rocm-sdk-libraries-{target_family}", "_rocm_sdk_libraries_{target_family}", false, true};
}

PackageTemplate template_of(const DistInfo& info, const std::string& logical, IndexLayout layout) {
  auto it = info.packages.find(logical);
  return it != info.packages.end() ? it->second : default_template(logical, layout);
}

// Substitutes {target_family} and {target}; any other placeholder means a template we do not know.
std::string expand(const std::string& tmpl, const std::string& family, const std::string& target) {
  std::string out;
  size_t i = 0;
  while (i < tmpl.size()) {
    if (tmpl[i] != '{') {
      out += tmpl[i++];
      continue;
    }
    size_t close = tmpl.find('}', i);
    std::string key = close == std::string::npos ? tmpl.substr(i) : tmpl.substr(i + 1, close - i - 1);
    if (key == "target_family") {
      out += family;
    } else if (key == "target") {
      out += target;
    } else {
      throw InputError("the rocm sdist names a package with an unknown placeholder: '" + tmpl + "'",
                       "rockpack knows {target_family} and {target}; try another version");
    }
    i = close + 1;
  }
  return out;
}

bool contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

// The family name this index uses for `target`: the current one, else an older alias it still
// publishes. Without an AVAILABLE_TARGET_FAMILIES list, the current name.
std::string index_family(const DistInfo& info, const std::string& target) {
  auto candidates = family_candidates(target);
  if (info.available_families.empty()) return candidates.front();
  for (const auto& family : candidates) {
    if (contains(info.available_families, family)) return family;
  }
  throw InputError("ROCm " + info.version + " on this index has no packages for " + target + " (family " +
                       candidates.front() + ")",
                   "this index publishes: " + join(info.available_families, ", ") +
                       "; choose another target or another index");
}

// All targets of the families a per-family index publishes.
std::vector<std::string> family_targets(const DistInfo& info) {
  std::vector<std::string> out;
  for (const auto& row : target_families()) {
    bool published = info.available_families.empty() || contains(info.available_families, std::string(row.family)) ||
                     (!row.legacy_family.empty() && contains(info.available_families, std::string(row.legacy_family)));
    if (published && !contains(out, std::string(row.target))) out.emplace_back(row.target);
  }
  return out;
}

// "gfx90a:xnack-" -> "gfx90a": device packages exist per base target (xnack variants merged).
std::string base_target(const std::string& entry) {
  std::string out = entry.substr(0, entry.find(':'));
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// The base targets a list names. Entries that are family names (older multi-arch builds listed
// families) stand for their targets.
std::vector<std::string> base_targets(const std::vector<std::string>& list) {
  std::vector<std::string> out;
  for (const auto& entry : list) {
    bool family = false;
    for (const auto& row : target_families()) {
      if (entry == row.family || entry == row.legacy_family) {
        family = true;
        if (!contains(out, std::string(row.target))) out.emplace_back(row.target);
      }
    }
    if (!family && !contains(out, base_target(entry))) out.push_back(base_target(entry));
  }
  return out;
}

}  // namespace

std::vector<std::string> release_targets(const DistInfo& info, IndexLayout layout) {
  if (layout == IndexLayout::kPerFamily) return family_targets(info);
  std::vector<std::string> out;
  const auto linux_targets = base_targets(info.linux_families);
  const auto windows_targets = base_targets(info.windows_families);
  for (const auto& t : base_targets(info.available_families)) {
    bool windows_only = contains(windows_targets, t) && !linux_targets.empty() && !contains(linux_targets, t);
    if (!windows_only) out.push_back(t);
  }
  return out;
}

void check_targets(const DistInfo& info, const std::vector<std::string>& targets, IndexLayout layout) {
  if (layout == IndexLayout::kPerFamily) {
    for (const auto& t : targets)
      if (t != "all") index_family(info, t);  // throws naming the families the index has
    return;
  }
  const auto have = release_targets(info, layout);
  for (const auto& t : targets) {
    if (t == "all" || contains(have, t)) continue;
    throw InputError("ROCm " + info.version + " has no device package for GPU target '" + t + "'",
                     "this release has: " + join(have, ", ") + " (or `all`); choose one of those, or another release");
  }
}

DistInfo parse_dist_info(std::string_view text, std::string_view origin) {
  if (text.size() > kMaxDistInfoSize) {
    throw InputError(std::string(origin) + " is larger than 1 MiB", "this is not TheRock's rocm sdist");
  }
  DistInfoReader reader(origin);
  for (const auto& statement : split_py_statements(text, origin)) reader.statement(statement);
  return reader.finish();
}

IndexLayout layout_of(const DistInfo& info) {
  auto it = info.packages.find("libraries");
  if (it == info.packages.end()) return IndexLayout::kPerFamily;
  return it->second.dist_template.find("{target_family}") == std::string::npos ? IndexLayout::kMultiArch
                                                                              : IndexLayout::kPerFamily;
}

const char* layout_name(IndexLayout layout) {
  return layout == IndexLayout::kMultiArch ? "multi-arch" : "per-family";
}

std::vector<std::string> known_extras(const DistInfo& info, IndexLayout layout) {
  std::vector<std::string> extras = {"libraries", "devel", "profiler", "device"};
  if (layout == IndexLayout::kMultiArch) {
    extras.push_back("device-all");
    for (const auto& target : release_targets(info, layout)) extras.push_back("device-" + target);
  }
  return extras;
}

std::vector<python::Requirement> requirements_for(const DistInfo& info, const std::vector<std::string>& targets,
                                                  const std::vector<std::string>& extras, IndexLayout layout) {
  if (info.version.empty()) throw InputError("the rocm sdist's _dist_info.py has no version");
  std::vector<python::Requirement> out;
  std::vector<std::string> seen;
  auto pin = [&](const std::string& name) {
    auto requirement = python::Requirement::parse(name + "==" + info.version);
    if (contains(seen, requirement.normalized_name())) return;
    seen.push_back(requirement.normalized_name());
    out.push_back(std::move(requirement));
  };
  auto device = [&](const std::string& target) { pin(expand(template_of(info, "device", layout).dist_template, "", target)); };

  // Required packages: those the module marks required; core when it marks none.
  bool any_required = false;
  for (const auto& [name, entry] : info.packages) {
    if (!entry.required) continue;
    any_required = true;
    std::string family = targets.empty() || layout == IndexLayout::kMultiArch ? info.default_family
                                                                               : index_family(info, targets.front());
    pin(expand(entry.dist_template, family, ""));
  }
  if (!any_required) pin(template_of(info, "core", layout).dist_template);

  auto all_known = known_extras(info, layout);
  for (const auto& raw_extra : extras) {
    std::string extra = python::normalize_name(raw_extra);
    if (!contains(all_known, extra)) {
      throw InputError("the rocm package has no component '" + raw_extra + "'", "known components: " + join(all_known, ", "));
    }
    if (extra == "libraries") {
      const auto entry = template_of(info, "libraries", layout);
      if (layout == IndexLayout::kPerFamily) {
        if (targets.empty() && info.default_family.empty()) {
          throw InputError("no GPU target given and the rocm sdist names no default family",
                           "set targets (PYTORCH_ROCM_ARCH), e.g. gfx942");
        }
        if (targets.empty()) pin(expand(entry.dist_template, info.default_family, ""));
        for (const auto& target : targets) pin(expand(entry.dist_template, index_family(info, target), ""));
      } else {
        pin(expand(entry.dist_template, "", ""));  // arch neutral: device code comes with device extras
      }
    } else if (extra == "devel" || extra == "profiler") {
      pin(expand(template_of(info, extra, layout).dist_template, "", ""));
    } else if (extra == "device") {
      // setup.py: the detected target's package. Never detected at build time: the default, so
      // that `rocm`'s metadata is the same for every recipe (and its layer shared); recipes name
      // their targets with device-<t> extras.
      if (layout == IndexLayout::kMultiArch && !info.default_family.empty()) device(base_target(info.default_family));
    } else if (extra == "device-all") {
      for (const auto& target : release_targets(info, layout)) device(target);
    } else {  // device-<gfx>
      device(extra.substr(std::string_view("device-").size()));
    }
  }
  return out;
}

}  // namespace rp::therock
