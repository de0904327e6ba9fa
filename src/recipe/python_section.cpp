// The `python:` section. Each document's mapping is checked key by key and merged onto the section;
// every problem is recorded at its YAML location so one run lists them all.
#include "recipe/python_section.hpp"

#include <algorithm>
#include <regex>
#include <set>

#include "python/pep508.hpp"
#include "python/requirements_file.hpp"
#include "python/text.hpp"
#include "net/url.hpp"
#include "python/wheel_filename.hpp"
#include "util/strings.hpp"

namespace rp::recipe {

namespace {

const std::vector<std::string> kPythonKeys = {
    "interpreter", "standalone", "venv",     "break_system_packages", "index_strategy", "prerelease", "indexes",
    "find_links",  "packages",   "requirements", "constraints",       "wheels",         "layers"};
const std::vector<std::string> kStandaloneKeys = {"url", "path", "sha256", "prefix", "strip"};
const std::vector<std::string> kIndexKeys = {"url", "netrc", "username_env", "password_env", "packages", "layer", "verify"};
const std::vector<std::string> kWheelKeys = {"url", "path", "sha256", "verify", "layer"};
const std::vector<std::string> kIndexStrategies = {"first-index", "unsafe-best-match"};
const std::vector<std::string> kPrereleaseModes = {"if-necessary-or-explicit", "allow", "disallow"};

const char* const kNoCredentialsHint =
    "credentials never go into a recipe: give an index `netrc: true` (~/.netrc or $NETRC) or "
    "username_env/password_env naming environment variables";

bool is_lower_hex64(const std::string& s) {
  return s.size() == 64 && std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

std::string without_trailing_slashes(std::string url) {
  while (!url.empty() && url.back() == '/') url.pop_back();
  return url;
}

class PythonSectionReader {
 public:
  PythonSectionReader(const DocumentReader& in, PythonSection& section) : in_(in), s_(section) {}

  void read(const YAML::Node& node);

 private:
  // A URL: one of `schemes`, never with user:password@ in it. nullopt (and an error) otherwise.
  std::optional<std::string> url(const YAML::Node& node, const std::string& key,
                                 const std::vector<std::string>& schemes);
  std::optional<std::string> sha256(const YAML::Node& node, const std::string& key);
  // A file on the build host, relative to the declaring document; it must exist.
  std::optional<fs::path> host_file(const YAML::Node& node, const std::string& key, bool directory_ok);
  // Package names or '*' globs, normalized (PEP 503).
  std::optional<std::vector<std::string>> package_names(const YAML::Node& node, const std::string& key);
  // Calls `each` with every item of a list of strings (or of a single string) and its node.
  template <typename Each>
  void each_text(const YAML::Node& node, const std::string& key, Each each);
  // A wheel's file name must parse, so a typo is caught now rather than after a download.
  void check_wheel_name(const YAML::Node& node, const std::string& filename);

  void standalone(const YAML::Node& node);
  void index(const YAML::Node& node);
  void wheel(const YAML::Node& node);
  void package(const YAML::Node& node, const std::string& text);
  void requirements_file(const YAML::Node& node, const std::string& key, std::vector<fs::path>& into);
  void layers(const YAML::Node& node);

  const DocumentReader& in_;
  PythonSection& s_;
};

void PythonSectionReader::read(const YAML::Node& node) {
  if (!node.IsMap()) {
    in_.error(node, "'python' must be a mapping (interpreter:, packages:, ...)");
    return;
  }
  s_.where = in_.at(node);
  if (!in_.check_keys(node, kPythonKeys, "python")) return;

  // The interpreter is one choice: a document that makes it replaces what earlier ones chose.
  if (node["interpreter"] && node["standalone"]) {
    in_.error(node["standalone"], "'python' has both 'interpreter' and 'standalone'",
              "use interpreter: for a python that is in the image, standalone: to add one");
  } else if (auto n = node["interpreter"]) {
    if (auto p = in_.image_path(n, "interpreter")) {
      s_.interpreter = *p;
      s_.standalone.reset();
    }
  } else if (auto n2 = node["standalone"]) {
    standalone(n2);
  }
  if (auto n = node["venv"]) {
    if (auto p = in_.image_path(n, "venv")) s_.venv = *p;
  }
  if (auto n = node["break_system_packages"]) {
    if (auto b = in_.boolean(n, "break_system_packages")) s_.break_system_packages = *b;
  }
  if (auto n = node["index_strategy"]) {
    if (auto t = in_.text(n, "index_strategy")) {
      if (*t == "first-index") s_.index_strategy = IndexStrategy::kFirstIndex;
      else if (*t == "unsafe-best-match") s_.index_strategy = IndexStrategy::kUnsafeBestMatch;
      else {
        std::string hint = did_you_mean(*t, kIndexStrategies);
        in_.error(n, "unknown index_strategy '" + *t + "'",
                  hint.empty() ? "use first-index (the default) or unsafe-best-match" : hint);
      }
    }
  }
  if (auto n = node["prerelease"]) {
    if (auto t = in_.text(n, "prerelease")) {
      if (*t == "if-necessary-or-explicit") s_.prerelease = PrereleaseMode::kIfNecessaryOrExplicit;
      else if (*t == "allow") s_.prerelease = PrereleaseMode::kAllow;
      else if (*t == "disallow") s_.prerelease = PrereleaseMode::kDisallow;
      else {
        std::string hint = did_you_mean(*t, kPrereleaseModes);
        in_.error(n, "unknown prerelease mode '" + *t + "'",
                  hint.empty() ? "use if-necessary-or-explicit (the default), allow or disallow" : hint);
      }
    }
  }
  if (auto n = node["indexes"]) {
    if (!n.IsSequence()) in_.error(n, "'indexes' must be a list of {url: ...} items");
    else for (const auto& item : n) index(item);
  }
  if (auto n = node["find_links"]) {
    each_text(n, "find_links", [&](const YAML::Node& item, const std::string& text) {
      if (text.find("://") != std::string::npos) {
        if (auto u = url(item, "find_links", {"http", "https", "file"})) s_.find_links.push_back(*u);
      } else if (auto p = host_file(item, "find_links", true)) {
        s_.find_links.push_back(p->string());
      }
    });
  }
  if (auto n = node["packages"]) {
    each_text(n, "packages", [&](const YAML::Node& item, const std::string& text) { package(item, text); });
  }
  if (auto n = node["requirements"]) requirements_file(n, "requirements", s_.requirements);
  if (auto n = node["constraints"]) requirements_file(n, "constraints", s_.constraints);
  if (auto n = node["wheels"]) {
    if (!n.IsSequence()) in_.error(n, "'wheels' must be a list of {url: ..., sha256: ...} items");
    else for (const auto& item : n) wheel(item);
  }
  if (auto n = node["layers"]) layers(n);
}

template <typename Each>
void PythonSectionReader::each_text(const YAML::Node& node, const std::string& key, Each each) {
  if (node.IsScalar()) {
    if (auto t = in_.text(node, key)) each(node, *t);
    return;
  }
  if (!node.IsSequence()) {
    in_.error(node, "'" + key + "' must be a list of strings");
    return;
  }
  for (const auto& item : node) {
    if (auto t = in_.text(item, key + " item")) each(item, *t);
  }
}

std::optional<std::string> PythonSectionReader::url(const YAML::Node& node, const std::string& key,
                                              const std::vector<std::string>& schemes) {
  auto t = in_.text(node, key);
  if (!t) return std::nullopt;
  auto parts = net::UrlParts::split(*t);
  std::string scheme = ascii_lower(parts.scheme.value_or(""));
  if (std::find(schemes.begin(), schemes.end(), scheme) == schemes.end() || !parts.authority) {
    std::string allowed;
    for (const auto& s : schemes) allowed += (allowed.empty() ? "" : ", ") + s + "://";
    in_.error(node, "'" + key + "' must be a URL starting with " + allowed + ", got '" + *t + "'");
    return std::nullopt;
  }
  if (parts.authority->find('@') != std::string::npos) {
    in_.error(node, "'" + key + "' has credentials in its URL", kNoCredentialsHint);
    return std::nullopt;
  }
  return t;
}

std::optional<std::string> PythonSectionReader::sha256(const YAML::Node& node, const std::string& key) {
  auto t = in_.text(node, key);
  if (!t) return std::nullopt;
  std::string hex = ascii_lower(*t);
  if (!is_lower_hex64(hex)) {
    in_.error(node, "'" + key + "' must be 64 hex digits, got '" + printable(*t, 80) + "'",
              "write the bare digest, without a 'sha256:' prefix");
    return std::nullopt;
  }
  return hex;
}

std::optional<fs::path> PythonSectionReader::host_file(const YAML::Node& node, const std::string& key, bool directory_ok) {
  auto t = in_.text(node, key);
  if (!t) return std::nullopt;
  fs::path p = in_.host_path(*t);
  std::error_code ec;
  bool ok = fs::is_regular_file(p, ec) || (directory_ok && fs::is_directory(p, ec));
  if (!ok) {
    in_.error(node, key + " '" + *t + "' does not exist (looked for " + p.string() + ")",
              "a path is relative to the file that declares it");
    return std::nullopt;
  }
  return p;
}

std::optional<std::vector<std::string>> PythonSectionReader::package_names(const YAML::Node& node, const std::string& key) {
  static const std::regex kNamePattern("[A-Za-z0-9*]([A-Za-z0-9._*-]*[A-Za-z0-9*])?");
  std::vector<std::string> out;
  bool ok = true;
  each_text(node, key, [&](const YAML::Node& item, const std::string& text) {
    if (!std::regex_match(text, kNamePattern)) {
      in_.error(item, "'" + text + "' in '" + key + "' is not a package name or a '*' glob",
                "write the project name alone (no version), e.g. torch or \"rocm-*\"");
      ok = false;
      return;
    }
    out.push_back(python::normalize_name(text));
  });
  if (!ok) return std::nullopt;
  return out;
}

void PythonSectionReader::check_wheel_name(const YAML::Node& node, const std::string& filename) {
  try {
    (void)python::WheelFilename::parse(filename);
  } catch (const InputError& e) {
    in_.error(node, "'" + printable(filename) + "' is not a wheel file name: " + e.what(),
              "rockpack installs wheels only (name-version-pytag-abitag-platform.whl)");
  }
}

void PythonSectionReader::standalone(const YAML::Node& node) {
  if (!node.IsMap()) {
    in_.error(node, "'standalone' must be a mapping with url (or path) and sha256");
    return;
  }
  if (!in_.check_keys(node, kStandaloneKeys, "python.standalone")) return;
  PythonStandalone st;
  st.where = in_.at(node);
  if (node["url"] && node["path"]) {
    in_.error(node["path"], "'standalone' has both 'url' and 'path'", "keep one of them");
  } else if (auto n = node["url"]) {
    st.url = url(n, "url", {"http", "https", "file"}).value_or("");
  } else if (auto n2 = node["path"]) {
    st.path = host_file(n2, "path", false);
  } else {
    in_.error(node, "'standalone' needs 'url' or 'path'", "the python-build-standalone install_only archive");
  }
  if (auto n = node["sha256"]) st.sha256 = sha256(n, "sha256").value_or("");
  else in_.error(node, "'standalone' needs 'sha256'", "the archive's sha256, 64 hex digits");
  if (auto n = node["prefix"]) {
    if (auto p = in_.image_path(n, "prefix")) st.prefix = *p;
  }
  if (auto n = node["strip"]) {
    if (auto t = in_.text(n, "strip")) {
      if (t->empty() || (*t)[0] == '/' || *t == ".." || t->find("../") != std::string::npos)
        in_.error(n, "'strip' must be the archive's top directory (a relative name), got '" + *t + "'");
      else
        st.strip = *t;
    }
  }
  s_.standalone = std::move(st);
  s_.interpreter.reset();
}

void PythonSectionReader::index(const YAML::Node& node) {
  if (!node.IsMap()) {
    in_.error(node, "each 'indexes' item must be a mapping with 'url'");
    return;
  }
  if (!in_.check_keys(node, kIndexKeys, "python.indexes item")) return;
  PythonIndex ix;
  ix.where = in_.at(node);
  if (auto n = node["url"]) {
    auto u = url(n, "url", {"http", "https"});
    if (!u) return;
    ix.url = *u;
    for (const auto& other : s_.indexes) {
      if (without_trailing_slashes(other.url) == without_trailing_slashes(ix.url)) {
        in_.error(n, "index '" + ix.url + "' is listed twice (first at " + other.where.str() + ")",
                  "list each index once; give it all its packages in one item");
        return;
      }
    }
  } else {
    in_.error(node, "an 'indexes' item needs 'url'", "the simple API root, e.g. https://host/simple/");
    return;
  }
  if (auto n = node["netrc"]) ix.netrc = in_.boolean(n, "netrc").value_or(false);
  static const std::regex kEnvName("[A-Za-z_][A-Za-z0-9_]*");
  for (const char* key : {"username_env", "password_env"}) {
    if (auto n = node[key]) {
      auto t = in_.text(n, key);
      if (t && !std::regex_match(*t, kEnvName))
        in_.error(n, std::string("'") + key + "' must name an environment variable, got '" + *t + "'",
                  "the name, not the value: e.g. INDEX_TOKEN");
      else if (t)
        (std::string(key) == "username_env" ? ix.username_env : ix.password_env) = *t;
    }
  }
  if (node["username_env"].IsDefined() != node["password_env"].IsDefined())
    in_.error(node, "an index needs both 'username_env' and 'password_env', or neither");
  if (ix.netrc && node["username_env"] && node["password_env"])
    in_.error(node, "an index takes its credentials from 'netrc' or from username_env/password_env, not both");
  if (auto n = node["packages"]) ix.packages = package_names(n, "packages").value_or(std::vector<std::string>{});
  if (auto n = node["layer"]) ix.layer = in_.text(n, "layer").value_or("");
  if (auto n = node["verify"]) {
    auto t = in_.text(n, "verify");
    if (t && *t == "tls-only") ix.tls_only = true;
    else if (t && *t != "hashes")
      in_.error(n, "unknown index verify '" + *t + "'",
                "'hashes' (the default: every file needs a sha256 from the index) or 'tls-only' (accept files "
                "without one on TLS alone; their sha256 is computed and locked)");
  }
  s_.indexes.push_back(std::move(ix));
}

void PythonSectionReader::wheel(const YAML::Node& node) {
  if (!node.IsMap()) {
    in_.error(node, "each 'wheels' item must be a mapping with url (or path) and sha256");
    return;
  }
  if (!in_.check_keys(node, kWheelKeys, "python.wheels item")) return;
  PythonWheel w;
  w.where = in_.at(node);
  if (node["url"] && node["path"]) {
    in_.error(node["path"], "a wheels item has both 'url' and 'path'", "keep one of them");
  } else if (auto n = node["url"]) {
    if (auto u = url(n, "url", {"http", "https", "file"})) {
      w.url = *u;
      check_wheel_name(n, net::url_filename(net::strip_fragment(w.url)));
    }
  } else if (auto n2 = node["path"]) {
    if ((w.path = host_file(n2, "path", false))) check_wheel_name(n2, w.path->filename().string());
  } else {
    in_.error(node, "a wheels item needs 'url' or 'path'");
  }
  if (auto n = node["verify"]) w.verify = in_.boolean(n, "verify").value_or(true);
  if (auto n = node["sha256"]) w.sha256 = sha256(n, "sha256").value_or("");
  else if (w.verify)
    in_.error(node, "a wheels item needs 'sha256'",
              "the wheel's sha256 (64 hex digits); `verify: false` installs it unchecked");
  if (auto n = node["layer"]) w.layer = in_.text(n, "layer").value_or("");
  s_.wheels.push_back(std::move(w));
}

void PythonSectionReader::package(const YAML::Node& node, const std::string& text) {
  python::Requirement req;
  try {
    req = python::Requirement::parse(text);
  } catch (const InputError& e) {
    in_.error(node, e.what(), "packages are PEP 508 strings, e.g. \"torch>=2.4\" or \"demo[cli]; python_version >= '3.9'\"");
    return;
  }
  if (!req.url.empty()) {
    auto parts = net::UrlParts::split(req.url);
    std::string scheme = ascii_lower(parts.scheme.value_or(""));
    if (scheme != "http" && scheme != "https" && scheme != "file") {
      in_.error(node, "'" + req.url + "' is not a wheel URL (http, https or file)",
                "rockpack does not build source distributions");
      return;
    }
    if (parts.authority && parts.authority->find('@') != std::string::npos) {
      in_.error(node, "the URL of '" + req.name + "' has credentials in it", kNoCredentialsHint);
      return;
    }
    check_wheel_name(node, net::url_filename(net::strip_fragment(req.url)));
  }
  s_.packages.emplace_back(text, in_.at(node));
}

void PythonSectionReader::requirements_file(const YAML::Node& node, const std::string& key, std::vector<fs::path>& into) {
  each_text(node, key, [&](const YAML::Node& item, const std::string&) {
    auto p = host_file(item, key, false);
    if (!p) return;
    // Parsed now so `rockpack validate` reports a broken file; the build parses it again.
    try {
      (void)python::parse_requirements_file(*p);
    } catch (const InputError& e) {
      in_.error(item, e.what(), e.hint());
      return;
    }
    into.push_back(*p);
  });
}

void PythonSectionReader::layers(const YAML::Node& node) {
  if (!node.IsMap()) {
    in_.error(node, "'layers' must be a mapping of layer name: [packages]");
    return;
  }
  for (auto it = node.begin(); it != node.end(); ++it) {
    std::string name = it->first.Scalar();
    auto names = package_names(it->second, "layers." + name);
    if (!names) continue;
    // A later document's entry for the same layer replaces the earlier one.
    auto same = std::find_if(s_.layers.begin(), s_.layers.end(), [&](const auto& l) { return l.first == name; });
    if (same != s_.layers.end()) s_.layers.erase(same);
    std::vector<std::string> kept;
    for (const auto& package : *names) {
      auto other = std::find_if(s_.layers.begin(), s_.layers.end(), [&](const auto& l) {
        return std::find(l.second.begin(), l.second.end(), package) != l.second.end();
      });
      if (other != s_.layers.end()) {
        in_.error(it->second, "package '" + package + "' is in layer '" + other->first + "' and in layer '" + name + "'",
                  "a package goes into one layer; remove it from one of them");
        continue;
      }
      if (std::find(kept.begin(), kept.end(), package) == kept.end()) kept.push_back(package);
    }
    s_.layers.emplace_back(name, std::move(kept));
  }
}

}  // namespace

void merge_python_section(const DocumentReader& in, const YAML::Node& node, std::optional<PythonSection>& section) {
  if (!section) section.emplace();
  PythonSectionReader(in, *section).read(node);
}

void check_python_section(const PythonSection& section, Diagnostics& diag, bool rocm_installs) {
  if (!section.interpreter && !section.standalone)
    diag.error(section.where, "the python section needs 'interpreter' or 'standalone'",
               "interpreter: /usr/bin/python3 for a python in the image, or standalone: {url, sha256} to add one");
  if (section.packages.empty() && section.requirements.empty() && section.wheels.empty() && !rocm_installs)
    diag.error(section.where, "the python section installs nothing",
               "list packages:, requirements: files or wheels:");
}

}  // namespace rp::recipe
