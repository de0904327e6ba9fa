#include "apt/sources.hpp"

#include <algorithm>

#include "net/url.hpp"
#include "util/deb822.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

namespace rp::apt {

namespace {

std::string without_trailing_slash(std::string url) {
  while (url.size() > 1 && url.back() == '/') url.pop_back();
  return url;
}

bool yes(std::string_view v) { return v == "yes" || v == "true" || v == "1"; }

// Splits "a,b" option values (one-line form) into their items.
std::vector<std::string> comma_list(std::string_view v) {
  std::vector<std::string> out;
  for (auto item : split(v, ','))
    if (!trim(item).empty()) out.emplace_back(trim(item));
  return out;
}

void check_entry(const SourceEntry& e) {
  // A URL may carry user:password@ (apt allows it); messages show it without.
  const std::string url = net::redact_credentials(e.url);
  if (e.url.find("://") == std::string::npos)
    throw Error(e.origin + ": '" + url + "' is not a URL apt can fetch from",
                "only http:// and https:// sources are supported");
  if (e.url.rfind("http://", 0) != 0 && e.url.rfind("https://", 0) != 0)
    throw Error(e.origin + ": the source " + url + " uses a transport rockpack does not fetch from",
                "only http:// and https:// sources are supported");
  if (e.suite.empty()) throw Error(e.origin + ": the source " + url + " names no suite");
  if (e.flat() && !e.components.empty())
    throw Error(e.origin + ": the flat source " + url + " " + e.suite + " must not list components",
                "a suite ending in '/' names a flat repository, which has no components");
  if (!e.flat() && e.components.empty())
    throw Error(e.origin + ": the source " + url + " " + e.suite + " lists no components",
                "add components such as 'main', or end the suite with '/' for a flat repository");
}

std::string read_key_file(const FileTree& image, const std::string& path, const std::string& origin) {
  auto bytes = image.read(path, 16u << 20);
  if (!bytes)
    throw Error(origin + ": the key file " + path + " is not in the image",
                "install the keyring package first, or give the source a key with signed_by:");
  return *bytes;
}

}  // namespace

std::string SourceEntry::release_directory() const {
  if (flat()) {
    std::string s = suite;
    while (!s.empty() && s.back() == '/') s.pop_back();
    if (s.empty() || s == ".") return url;
    return url + "/" + s;
  }
  return url + "/dists/" + suite;
}

std::string SourceEntry::describe() const {
  // A URL may carry user:password@ (apt allows it); it never reaches a message.
  std::string out = net::redact_credentials(url) + " " + suite;
  if (!components.empty()) out += (suite.back() == '/' ? "" : "/") + join(components, " ");
  return out;
}

std::vector<SourceEntry> parse_one_line_sources(std::string_view text, const std::string& origin) {
  std::vector<SourceEntry> out;
  size_t line_no = 0;
  for (auto raw : split(text, '\n')) {
    ++line_no;
    std::string_view line = raw;
    if (size_t hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    line = trim(line);
    if (line.empty()) continue;
    std::string where = origin + ":" + std::to_string(line_no);
    std::string rest(line);
    std::vector<std::string> options;
    // "deb [opt=v opt2=v] uri suite comp..."
    size_t type_end = rest.find_first_of(" \t");
    std::string type = rest.substr(0, type_end);
    if (type == "deb-src") continue;
    if (type != "deb") throw Error(where + ": unknown source type '" + printable(type) + "'", "apt reads 'deb' and 'deb-src' lines");
    rest = type_end == std::string::npos ? "" : std::string(trim(rest.substr(type_end)));
    if (!rest.empty() && rest[0] == '[') {
      size_t close = rest.find(']');
      if (close == std::string::npos) throw Error(where + ": an option list '[' is not closed");
      options = split_words(rest.substr(1, close - 1));
      rest = rest.substr(close + 1);
    }
    auto w = split_words(rest);
    if (w.size() < 2) throw Error(where + ": a source line needs a URI and a suite");
    SourceEntry e;
    e.origin = where;
    e.url = without_trailing_slash(w[0]);
    e.suite = w[1];
    e.components.assign(w.begin() + 2, w.end());
    for (const auto& opt : options) {
      size_t eq = opt.find('=');
      if (eq == std::string::npos) throw Error(where + ": malformed option '" + printable(opt) + "'");
      std::string key = opt.substr(0, eq), value = opt.substr(eq + 1);
      if (key == "arch") e.architectures = comma_list(value);
      else if (key == "signed-by") e.signed_by = comma_list(value);
      else if (key == "trusted") e.trusted = yes(value);
      // Others (lang, target, by-hash, check-valid-until, ...) do not change what is installed.
    }
    check_entry(e);
    out.push_back(std::move(e));
  }
  return out;
}

std::vector<SourceEntry> parse_deb822_sources(std::string_view text, const std::string& origin) {
  std::vector<SourceEntry> out;
  Deb822Options options;
  options.comments = true;
  for (const auto& s : parse_deb822(text, origin, options)) {
    std::string where = origin + ":" + std::to_string(s.line());
    if (s.has("Enabled") && !yes(s.value("Enabled"))) continue;
    auto types = split_words(s.value("Types"));
    if (std::find(types.begin(), types.end(), "deb") == types.end()) continue;
    SourceEntry base;
    base.origin = where;
    base.components = split_words(s.value("Components"));
    base.architectures = split_words(s.value("Architectures"));
    base.trusted = yes(s.value("Trusted"));
    std::string signed_by = s.value("Signed-By");
    if (signed_by.find("-----BEGIN PGP PUBLIC KEY BLOCK-----") != std::string::npos) {
      // An inline key: continuation lines, with "." for the empty lines of the armor.
      std::string key;
      for (auto l : deb822_value_lines(signed_by)) {
        if (key.empty() && trim(l).empty()) continue;
        key += std::string(l) + "\n";
      }
      base.signed_by_inline = key;
    } else {
      base.signed_by = split_words(signed_by);
    }
    auto uris = split_words(s.value("URIs"));
    auto suites = split_words(s.value("Suites"));
    if (uris.empty() || suites.empty()) throw Error(where + ": a deb822 source needs URIs: and Suites:");
    for (const auto& uri : uris)
      for (const auto& suite : suites) {
        SourceEntry e = base;
        e.url = without_trailing_slash(uri);
        e.suite = suite;
        check_entry(e);
        out.push_back(std::move(e));
      }
  }
  return out;
}

std::vector<SourceEntry> image_sources(const FileTree& image) {
  std::vector<SourceEntry> out;
  if (auto text = image.read("/etc/apt/sources.list")) {
    auto list = parse_one_line_sources(*text, "/etc/apt/sources.list of the base image");
    out.insert(out.end(), list.begin(), list.end());
  }
  for (const auto& name : image.list("/etc/apt/sources.list.d")) {
    std::string path = "/etc/apt/sources.list.d/" + name;
    auto ends = [&](std::string_view suffix) {
      return name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
    };
    if (!ends(".list") && !ends(".sources")) continue;  // apt ignores other names (.disabled, .save)
    auto text = image.read(path);
    if (!text) continue;
    auto list = ends(".list") ? parse_one_line_sources(*text, path + " of the base image")
                              : parse_deb822_sources(*text, path + " of the base image");
    out.insert(out.end(), list.begin(), list.end());
  }
  return out;
}

Keyring image_keyring(const SourceEntry& entry, const FileTree& image) {
  Keyring keys;
  if (!entry.signed_by_inline.empty()) keys.files.push_back({entry.origin + " (inline Signed-By key)", entry.signed_by_inline});
  for (const auto& path : entry.signed_by) {
    if (path.empty() || path[0] != '/') {
      // A fingerprint instead of a file: apt then picks those keys from its global keyrings, which
      // this reader does not do. Say so instead of trusting more than the entry asked for.
      throw Error(entry.origin + ": Signed-By '" + printable(path) + "' is not a key file",
                  "name a keyring file (or give the source a key with signed_by: in the recipe)");
    }
    keys.files.push_back({path, read_key_file(image, path, entry.origin)});
  }
  if (!keys.files.empty()) return keys;
  if (auto legacy = image.read("/etc/apt/trusted.gpg", 16u << 20); legacy && !legacy->empty())
    keys.files.push_back({"/etc/apt/trusted.gpg", *legacy});
  for (const auto& name : image.list("/etc/apt/trusted.gpg.d")) {
    bool gpg = name.size() > 4 && name.compare(name.size() - 4, 4, ".gpg") == 0;
    bool asc = name.size() > 4 && name.compare(name.size() - 4, 4, ".asc") == 0;
    if (!gpg && !asc) continue;
    std::string path = "/etc/apt/trusted.gpg.d/" + name;
    if (auto bytes = image.read(path, 16u << 20); bytes && !bytes->empty()) keys.files.push_back({path, *bytes});
  }
  return keys;
}

}  // namespace rp::apt
