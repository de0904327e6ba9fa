#include "apt/preferences.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <regex>

#include "util/deb822.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

namespace rp::apt {

namespace {

std::string trimmed(std::string_view s) {
  size_t b = s.find_first_not_of(" \t");
  if (b == std::string_view::npos) return "";
  size_t e = s.find_last_not_of(" \t");
  return std::string(s.substr(b, e - b + 1));
}

// apt matches pin values as a /regex/, a glob, or literally.
bool value_matches(const std::string& pattern, const std::string& value) {
  if (pattern.size() >= 2 && pattern.front() == '/' && pattern.back() == '/') {
    if (pattern.size() > 256) return false;  // a base image's pattern: bounded
    try {
      return std::regex_search(value, std::regex(pattern.substr(1, pattern.size() - 2), std::regex::extended));
    } catch (const std::regex_error&) {
      return false;
    }
  }
  if (pattern.find_first_of("*?[") != std::string::npos) return fnmatch(pattern.c_str(), value.c_str(), 0) == 0;
  return pattern == value;
}

bool release_matches(const PinRecord& r, const ReleaseFacts& f) {
  for (const auto& [key, want] : r.release) {
    const std::string* have = nullptr;
    switch (key) {
      case 'a': have = &f.archive; break;
      case 'n': have = &f.codename; break;
      case 'o': have = &f.origin; break;
      case 'l': have = &f.label; break;
      case 'c': have = &f.component; break;
      case 'v': have = &f.version; break;
      default: return false;  // b= (architecture) and others: never matched here
    }
    if (!value_matches(want, *have)) return false;
  }
  return true;
}

bool names_match(const PinRecord& r, const std::string& name) {
  return std::any_of(r.packages.begin(), r.packages.end(), [&](const std::string& p) { return value_matches(p, name); });
}

// "a=bookworm-backports, c=main" -> conditions; a bare value is a version ("release 1.0").
bool parse_release_pin(std::string_view text, PinRecord& r) {
  for (std::string_view part : split(text, ',')) {
    std::string t = trimmed(part);
    if (t.empty()) continue;
    size_t eq = t.find('=');
    if (eq == std::string::npos) {
      r.release.emplace_back('v', t);
      continue;
    }
    std::string key = trimmed(t.substr(0, eq));
    if (key.size() != 1) return false;
    r.release.emplace_back(key[0], trimmed(t.substr(eq + 1)));
  }
  return true;
}

std::string unquoted(std::string s) {
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') return s.substr(1, s.size() - 2);
  return s;
}

}  // namespace

ReleaseFacts release_facts(const Release& release, const std::string& component, const std::string& site) {
  ReleaseFacts f;
  f.archive = release.suite;
  f.codename = release.codename;
  f.origin = release.origin;
  f.label = release.label;
  f.component = component;
  f.version = release.version;
  f.site = site;
  f.default_priority = release.not_automatic ? (release.but_automatic_upgrades ? 100 : 1) : 500;
  return f;
}

ReleaseFacts installed_release() {
  ReleaseFacts f;
  f.archive = "now";
  f.default_priority = 100;
  return f;
}

std::vector<PinRecord> parse_preferences(std::string_view text, const std::string& origin, std::vector<std::string>* warnings) {
  Deb822Options options;
  options.strict = false;
  options.comments = true;
  options.max_stanzas = 100000;
  std::vector<PinRecord> out;
  auto warn = [&](const std::string& w) {
    if (warnings) warnings->push_back(w);
  };
  for (const auto& s : parse_deb822(text, origin, options)) {
    PinRecord r;
    r.where = origin + ":" + std::to_string(s.line());
    auto package = s.get("Package");
    auto pin = s.get("Pin");
    auto prio = s.get("Pin-Priority");
    if (!package && !pin && !prio) continue;  // a stanza of Explanation: lines only
    if (!package || !pin || !prio) {
      warn(r.where + ": a preferences record needs Package, Pin and Pin-Priority; skipped as apt skips it");
      continue;
    }
    try {
      size_t used = 0;
      std::string p = trimmed(*prio);
      r.priority = std::stoi(p, &used);
      if (used != p.size()) throw std::invalid_argument("trailing");
    } catch (const std::exception&) {
      warn(r.where + ": Pin-Priority '" + trimmed(*prio) + "' is not a number; skipped");
      continue;
    }
    if (r.priority == 0) {
      warn(r.where + ": Pin-Priority 0 (or none); skipped as apt skips it");
      continue;
    }
    for (const auto& name : split_words(*package))
      if (name != "*") r.packages.push_back(name);
    if (r.packages.empty() && trimmed(*package) != "*") continue;
    std::string pin_text = trimmed(*pin);
    size_t blank = pin_text.find_first_of(" \t");
    std::string kind = pin_text.substr(0, blank);
    std::string rest = blank == std::string::npos ? "" : trimmed(pin_text.substr(blank));
    if (kind == "release") {
      r.kind = PinRecord::kRelease;
      if (!parse_release_pin(rest, r)) {
        warn(r.where + ": cannot read 'Pin: " + pin_text + "'; skipped");
        continue;
      }
    } else if (kind == "version") {
      r.kind = PinRecord::kVersion;
      r.value = rest;
    } else if (kind == "origin") {
      r.kind = PinRecord::kOrigin;
      r.value = unquoted(rest);
    } else {
      warn(r.where + ": unknown pin kind '" + kind + "'; skipped");
      continue;
    }
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<PinRecord> image_preferences(const FileTree& image, std::vector<std::string>* warnings) {
  std::vector<PinRecord> out;
  auto add = [&](const std::string& path) {
    auto text = image.read(path, 4u << 20);
    if (!text) return;
    auto records = parse_preferences(*text, path + " of the base image", warnings);
    out.insert(out.end(), records.begin(), records.end());
  };
  add("/etc/apt/preferences");
  std::vector<std::string> names = image.list("/etc/apt/preferences.d");
  std::sort(names.begin(), names.end());
  for (const auto& name : names) {
    // apt's rule for configuration parts: [A-Za-z0-9_.-] only, and no extension or ".pref".
    if (name.empty() || !std::all_of(name.begin(), name.end(), [](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
        }))
      continue;
    size_t dot = name.rfind('.');
    if (dot != std::string::npos && name.substr(dot) != ".pref") continue;
    add("/etc/apt/preferences.d/" + name);
  }
  return out;
}

int PinPolicy::release_priority(const ReleaseFacts& facts, std::optional<int> source_override) const {
  if (source_override) return *source_override;
  for (const auto& r : records_) {
    if (!r.packages.empty()) continue;
    bool match = r.kind == PinRecord::kRelease ? release_matches(r, facts)
                 : r.kind == PinRecord::kOrigin ? value_matches(r.value, facts.site)
                                                : false;  // "Package: *" with a version pin: no release matches
    if (match) return r.priority;
  }
  return facts.default_priority;
}

std::optional<int> PinPolicy::package_pin(const std::string& name, const Version& version,
                                          const std::vector<const ReleaseFacts*>& releases) const {
  for (const auto& r : records_) {
    if (r.packages.empty() || !names_match(r, name)) continue;
    bool match = false;
    switch (r.kind) {
      case PinRecord::kVersion: match = value_matches(r.value, version.str()); break;
      case PinRecord::kRelease:
        match = std::any_of(releases.begin(), releases.end(), [&](const ReleaseFacts* f) { return release_matches(r, *f); });
        break;
      case PinRecord::kOrigin:
        match = std::any_of(releases.begin(), releases.end(), [&](const ReleaseFacts* f) { return value_matches(r.value, f->site); });
        break;
    }
    if (match) return r.priority;
  }
  return std::nullopt;
}

int PinPolicy::priority(const std::string& name, const Version& version, const ReleaseFacts& facts,
                        std::optional<int> source_override) const {
  if (auto p = package_pin(name, version, {&facts})) return *p;
  return release_priority(facts, source_override);
}

std::string PinPolicy::fingerprint() const {
  std::string out;
  for (const auto& r : records_) {
    out += join(r.packages, " ") + "|" + std::to_string(r.kind) + "|" + r.value + "|";
    for (const auto& [k, v] : r.release) out += std::string(1, k) + "=" + v + ",";
    out += "|" + std::to_string(r.priority) + "\n";
  }
  return out;
}

}  // namespace rp::apt
