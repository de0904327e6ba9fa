// pip's requirements files. A line is either options only (it starts with '-') or a requirement
// followed by per-requirement options (only --hash is accepted there). Requirements are PEP 508
// strings, or a bare wheel path or URL, which becomes `name @ url` with the name from the file name.
#include "python/requirements_file.hpp"

#include <algorithm>
#include <system_error>

#include "python/requirements_lines.hpp"
#include "python/text.hpp"
#include "net/url.hpp"
#include "python/wheel_filename.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/suggest.hpp"

namespace rp::python {

namespace fs = std::filesystem;

namespace {

const char* const kNoSourceBuilds = "rockpack does not build source distributions; use a wheel (a .whl URL or path, or "
                                    "an index that has wheels)";

// Every option name pip knows in requirements files, for suggestions.
const std::vector<std::string> kKnownOptions = {
    "-r", "--requirement", "-c", "--constraint", "-i", "--index-url", "--extra-index-url", "--no-index",
    "-f", "--find-links", "--pre", "--hash", "--require-hashes", "--prefer-binary", "--only-binary",
    "--use-feature", "-e", "--editable", "--no-binary", "--trusted-host", "--global-option", "--config-settings"};
const std::vector<std::string> kOptionsWithValue = {
    "-r", "--requirement", "-c", "--constraint", "-i", "--index-url", "--extra-index-url", "-f", "--find-links",
    "--hash", "--only-binary", "--use-feature", "-e", "--editable", "--no-binary", "--trusted-host",
    "--global-option", "--config-settings"};

bool contains(const std::vector<std::string>& list, const std::string& s) {
  return std::find(list.begin(), list.end(), s) != list.end();
}

[[noreturn]] void fail(const std::string& where, const std::string& message, std::string hint = {}) {
  throw InputError(where + ": " + message, std::move(hint));
}

bool is_hex64(std::string_view s) {
  if (s.size() != 64) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
  });
}

bool has_scheme(std::string_view s) { return s.find("://") != std::string_view::npos; }

// One option word, split into its name and a value written with it ("--index-url=URL", "-rfile").
struct OptionWord {
  std::string name;
  std::optional<std::string> value;
};

OptionWord split_option(const std::string& word) {
  if (word.rfind("--", 0) == 0) {
    size_t eq = word.find('=');
    if (eq == std::string::npos) return {word, std::nullopt};
    return {word.substr(0, eq), word.substr(eq + 1)};
  }
  if (word.size() > 2) return {word.substr(0, 2), word.substr(2)};
  return {word, std::nullopt};
}

// Where the options of a requirement line begin: the first '-' after whitespace, outside quotes
// (a marker may quote text with spaces).
size_t options_start(std::string_view line) {
  char quote = 0;
  for (size_t i = 1; i < line.size(); ++i) {
    char c = line[i];
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '-' && is_space(line[i - 1])) {
      return i;
    }
  }
  return line.size();
}

// A line that starts with a project name followed by what PEP 508 allows after it; anything else
// ("./x.whl", "https://...", "pkg.tar.gz") is a bare path or URL.
bool is_named_requirement(std::string_view text) {
  size_t n = 0;
  while (n < text.size() && (is_alnum(text[n]) || text[n] == '-' || text[n] == '_' || text[n] == '.')) ++n;
  std::string_view head = text.substr(0, n);
  if (!is_valid_project_name(head)) return false;
  for (const char* ext : {".whl", ".zip", ".tar.gz", ".tgz", ".tar.bz2", ".tar.xz", ".tar"}) {
    if (head.size() > std::string_view(ext).size() && head.ends_with(ext)) return false;
  }
  return n == text.size() || std::string_view(" \t[@<>=!~(;").find(text[n]) != std::string_view::npos;
}

// The wheel a direct URL names; throws when it is not a wheel.
WheelFilename wheel_of_url(const std::string& where, const std::string& url) {
  size_t colon = url.find(':');
  std::string scheme = ascii_lower(url.substr(0, colon));
  if (scheme != "http" && scheme != "https" && scheme != "file")
    fail(where, "'" + printable(url) + "' is not a wheel URL (only http, https and file URLs of .whl files work)",
         kNoSourceBuilds);
  std::string name = net::url_filename(net::strip_fragment(url));
  auto wheel = WheelFilename::try_parse(name);
  if (!wheel) fail(where, "'" + printable(name) + "' is not a wheel file name", kNoSourceBuilds);
  return *wheel;
}

std::string file_url(const fs::path& path) {
  std::string out = "file://";
  for (char c : path.string()) {
    if (c == ' ') out += "%20";
    else if (c == '#') out += "%23";
    else if (c == '%') out += "%25";
    else out += c;
  }
  return out;
}

class RequirementsParser {
 public:
  RequirementsFile parse(const fs::path& file, bool as_constraints, const std::string& included_from);
  void check_hash_mode(const RequirementsFile& result) const;

 private:
  void option_line(const fs::path& file, const std::string& where, const std::string& text, bool as_constraints,
                   RequirementsFile& out);
  RequirementLine requirement_line(const fs::path& file, const std::string& where, const std::string& text);
  Requirement bare_location(const fs::path& file, const std::string& where, const std::string& text);
  fs::path included_path(const fs::path& file, const std::string& value) const {
    fs::path p(value);
    return (p.is_absolute() ? p : file.parent_path() / p).lexically_normal();
  }

  std::vector<fs::path> stack_;  // files being parsed, outermost first: detects include cycles
  bool require_hashes_ = false;
};

RequirementsFile RequirementsParser::parse(const fs::path& file, bool as_constraints, const std::string& included_from) {
  std::string prefix = included_from.empty() ? std::string() : included_from + ": ";
  std::error_code ec;
  if (!fs::is_regular_file(file, ec))
    throw InputError(prefix + (as_constraints ? "constraints" : "requirements") + " file " + file.string() +
                     " does not exist");
  fs::path key = fs::weakly_canonical(file, ec);
  if (std::find(stack_.begin(), stack_.end(), key) != stack_.end()) {
    std::string chain;
    for (const auto& f : stack_) chain += f.filename().string() + " -> ";
    throw InputError(prefix + "include cycle: " + chain + key.filename().string(),
                     "a requirements file may not include itself, directly or through others");
  }
  stack_.push_back(key);
  RequirementsFile out;
  for (const auto& line : logical_lines(read_file(file))) {
    std::string where = file.string() + ":" + std::to_string(line.number);
    if (line.text.front() == '-') {
      option_line(file, where, line.text, as_constraints, out);
    } else {
      RequirementLine req = requirement_line(file, where, line.text);
      (as_constraints ? out.constraints : out.requirements).push_back(std::move(req));
    }
  }
  stack_.pop_back();
  return out;
}

void RequirementsParser::option_line(const fs::path& file, const std::string& where, const std::string& text,
                         bool as_constraints, RequirementsFile& out) {
  std::vector<std::string> words;
  try {
    words = split_words(text);
  } catch (const InputError& e) {
    fail(where, e.what());
  }
  for (size_t i = 0; i < words.size(); ++i) {
    if (words[i].empty() || words[i][0] != '-')
      fail(where, "unexpected '" + printable(words[i]) + "' after an option",
           "write each requirement on its own line, not after options");
    OptionWord opt = split_option(words[i]);
    if (!contains(kKnownOptions, opt.name)) {
      // "-ifoo" was split as "-i" + "foo"; an unknown long option keeps its whole name.
      std::string hint = did_you_mean(opt.name, kKnownOptions);
      fail(where, "unknown option '" + printable(opt.name) + "'",
           hint.empty() ? "options rockpack reads: -r, -c, -i, --extra-index-url, -f, --no-index, --pre, --hash" : hint);
    }
    std::string value;
    if (contains(kOptionsWithValue, opt.name)) {
      if (opt.value) value = *opt.value;
      else if (i + 1 < words.size()) value = words[++i];
      else fail(where, "option '" + opt.name + "' needs a value");
    } else if (opt.value) {
      fail(where, "option '" + opt.name + "' takes no value");
    }

    const std::string& n = opt.name;
    if (n == "-r" || n == "--requirement") {
      merge_into(out, parse(included_path(file, value), as_constraints, where));
    } else if (n == "-c" || n == "--constraint") {
      merge_into(out, parse(included_path(file, value), true, where));
    } else if (n == "-i" || n == "--index-url") {
      out.index_url = value;
    } else if (n == "--extra-index-url") {
      out.extra_index_urls.push_back(value);
    } else if (n == "--no-index") {
      out.no_index = true;
    } else if (n == "-f" || n == "--find-links") {
      out.find_links.push_back(has_scheme(value) ? value : included_path(file, value).string());
    } else if (n == "--pre") {
      out.pre = true;
    } else if (n == "--require-hashes") {
      require_hashes_ = true;
    } else if (n == "--prefer-binary" || n == "--only-binary" || n == "--use-feature") {
      // Binary-only is what rockpack does anyway; pip feature flags mean nothing here.
    } else if (n == "--hash") {
      fail(where, "--hash must follow a requirement on the same line", "e.g. pkg==1.0 --hash=sha256:<hex>");
    } else if (n == "-e" || n == "--editable") {
      fail(where, "editable requirements ('" + n + "') are not supported", kNoSourceBuilds);
    } else if (n == "--no-binary" || n == "--global-option" || n == "--config-settings") {
      fail(where, "'" + n + "' asks for a source build", kNoSourceBuilds);
    } else if (n == "--trusted-host") {
      fail(where, "'--trusted-host' is not supported: rockpack always verifies TLS",
           "for a plain-HTTP index write its URL with http://");
    }
  }
}

RequirementLine RequirementsParser::requirement_line(const fs::path& file, const std::string& where, const std::string& text) {
  size_t cut = options_start(text);
  std::string req_text(trim(std::string_view(text).substr(0, cut)));
  RequirementLine line;
  line.where = where;
  if (is_named_requirement(req_text)) {
    try {
      line.requirement = Requirement::parse(req_text);
    } catch (const InputError& e) {
      fail(where, e.what(), e.hint());
    }
    if (!line.requirement.url.empty()) (void)wheel_of_url(where, line.requirement.url);
  } else {
    line.requirement = bare_location(file, where, req_text);
  }

  std::vector<std::string> words;
  try {
    words = split_words(std::string_view(text).substr(cut));
  } catch (const InputError& e) {
    fail(where, e.what());
  }
  for (size_t i = 0; i < words.size(); ++i) {
    OptionWord opt = split_option(words[i]);
    if (opt.name == "--global-option" || opt.name == "--config-settings")
      fail(where, "'" + opt.name + "' asks for a source build", kNoSourceBuilds);
    if (opt.name != "--hash")
      fail(where, "'" + printable(words[i]) + "' cannot follow a requirement",
           "only --hash=sha256:<hex> may follow a requirement on its line");
    std::string value = opt.value ? *opt.value : (i + 1 < words.size() ? words[++i] : std::string());
    size_t colon = value.find(':');
    std::string algorithm = ascii_lower(value.substr(0, colon));
    if (colon == std::string::npos || value.empty())
      fail(where, "--hash needs a value like sha256:<64 hex digits>");
    if (algorithm != "sha256")
      fail(where, "unsupported hash algorithm '" + printable(algorithm) + "'",
           "only sha256 is accepted: --hash=sha256:<64 hex digits>");
    std::string hex = value.substr(colon + 1);
    if (!is_hex64(hex)) fail(where, "'" + printable(hex) + "' is not a sha256 (64 hex digits)");
    line.hashes.push_back(ascii_lower(hex));
  }
  return line;
}

// "./dist/x-1.0-py3-none-any.whl", "https://host/x-1.0-py3-none-any.whl ; marker": pip accepts a
// path or URL instead of a name. Only wheels are usable, and only their name is known before download.
Requirement RequirementsParser::bare_location(const fs::path& file, const std::string& where, const std::string& text) {
  // A marker after a bare location must be set off by whitespace: ';' is legal inside URLs.
  std::string location = text;
  std::string marker;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == ';' && ((i > 0 && is_space(text[i - 1])) || (i + 1 < text.size() && is_space(text[i + 1])))) {
      location = std::string(trim(std::string_view(text).substr(0, i)));
      marker = std::string(text.substr(i));
      break;
    }
  }
  std::string url;
  std::string wheel_name;
  if (has_scheme(location)) {
    wheel_name = wheel_of_url(where, location).name;
    url = location;
  } else {
    fs::path path = included_path(file, location);
    std::error_code ec;
    if (fs::is_directory(path, ec))
      fail(where, "'" + printable(location) + "' is a project directory", kNoSourceBuilds);
    auto wheel = WheelFilename::try_parse(path.filename().string());
    if (!wheel) fail(where, "'" + printable(location) + "' is not a wheel", kNoSourceBuilds);
    if (!fs::is_regular_file(path, ec))
      fail(where, "wheel '" + printable(location) + "' does not exist (looked for " + path.string() + ")",
           "a path is relative to the requirements file");
    wheel_name = wheel->name;
    url = file_url(path);
  }
  try {
    return Requirement::parse(wheel_name + " @ " + url + (marker.empty() ? "" : " " + marker));
  } catch (const InputError& e) {
    fail(where, e.what(), e.hint());
  }
}

void RequirementsParser::check_hash_mode(const RequirementsFile& result) const {
  bool any = require_hashes_ || std::any_of(result.requirements.begin(), result.requirements.end(),
                                            [](const RequirementLine& l) { return !l.hashes.empty(); });
  if (!any) return;
  std::string missing;
  size_t count = 0;
  for (const auto& l : result.requirements) {
    if (!l.hashes.empty()) continue;
    if (++count <= 10) missing += "\n  " + l.where + ": " + l.requirement.to_string(false);
  }
  if (count == 0) return;
  if (count > 10) missing += "\n  ... and " + std::to_string(count - 10) + " more";
  throw InputError("hash-checking mode: " + std::to_string(count) + " requirement" + (count == 1 ? "" : "s") +
                       " without --hash:" + missing,
                   "once any requirement has --hash (or --require-hashes is given), every requirement needs "
                   "--hash=sha256:<hex>, as pip requires");
}

}  // namespace

RequirementsFile parse_requirements_file(const fs::path& file) {
  RequirementsParser parser;
  RequirementsFile result = parser.parse(fs::absolute(file).lexically_normal(), false, "");
  parser.check_hash_mode(result);
  return result;
}

void merge_into(RequirementsFile& into, RequirementsFile from) {
  auto append = [](auto& to, auto& more) {
    to.insert(to.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
  };
  append(into.requirements, from.requirements);
  append(into.constraints, from.constraints);
  if (from.index_url) into.index_url = std::move(from.index_url);
  append(into.extra_index_urls, from.extra_index_urls);
  append(into.find_links, from.find_links);
  into.no_index = into.no_index || from.no_index;
  into.pre = into.pre || from.pre;
}

}  // namespace rp::python
