#include "apt/package_index.hpp"

#include <algorithm>

#include "util/deb822.hpp"
#include "util/error.hpp"
#include "util/digest.hpp"

namespace rp::apt {

namespace {

// Fills the fields both indexes and the status file have. Throws rp::Error on a bad name or version.
Package read_common(const Deb822Stanza& s, const std::string& what) {
  Package p;
  auto where = [&](const char* field) { return what + ":" + std::to_string(s.line_of(field)); };
  p.name = s.value("Package");
  if (!is_valid_package_name(p.name))
    throw Error(where("Package") + ": '" + p.name + "' is not a valid package name", "the index is malformed");
  try {
    p.version = Version::parse(s.value("Version"), "Version of " + p.name);
  } catch (const InputError& e) {
    throw Error(where("Version") + ": " + e.what(), "the index is malformed");
  }
  p.architecture = s.value("Architecture");
  p.multi_arch = parse_multi_arch(s.value("Multi-Arch"));
  p.essential = s.value("Essential") == "yes";
  p.priority = s.value("Priority");
  p.section = s.value("Section");
  const std::string source_field = s.value("Source");
  std::string_view source = source_field;
  if (source.empty()) {
    p.source = p.name;
    p.source_version = p.version.str();
  } else {
    size_t paren = source.find('(');
    std::string_view name = source.substr(0, paren);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    p.source = std::string(name);
    p.source_version = p.version.str();
    if (paren != std::string_view::npos) {
      size_t close = source.find(')', paren);
      std::string_view v = source.substr(paren + 1, close == std::string_view::npos ? std::string_view::npos : close - paren - 1);
      while (!v.empty() && v.front() == ' ') v.remove_prefix(1);
      while (!v.empty() && v.back() == ' ') v.remove_suffix(1);
      p.source_version = std::string(v);
    }
  }
  p.depends = deb822_folded(s.value("Depends"));
  p.pre_depends = deb822_folded(s.value("Pre-Depends"));
  p.recommends = deb822_folded(s.value("Recommends"));
  p.provides = deb822_folded(s.value("Provides"));
  p.conflicts = deb822_folded(s.value("Conflicts"));
  p.breaks = deb822_folded(s.value("Breaks"));
  p.replaces = deb822_folded(s.value("Replaces"));
  return p;
}

// Read one stanza at a time: Debian's main index is ~100 MB and is never held twice.
template <typename Fn>
void for_each_stanza(std::string_view text, const std::string& what, Fn fn) {
  Deb822Reader reader(text, what);
  while (auto stanza = reader.next()) fn(*stanza);
}

}  // namespace

MultiArch parse_multi_arch(std::string_view text) {
  if (text == "same") return MultiArch::kSame;
  if (text == "foreign") return MultiArch::kForeign;
  if (text == "allowed") return MultiArch::kAllowed;
  return MultiArch::kNo;
}

const char* multi_arch_text(MultiArch m) {
  switch (m) {
    case MultiArch::kSame: return "same";
    case MultiArch::kForeign: return "foreign";
    case MultiArch::kAllowed: return "allowed";
    case MultiArch::kNo: break;
  }
  return "no";
}

std::vector<AlternativeGroup> relations_of(const Package& pkg, std::string_view field_name, const std::string& text) {
  return parse_relations(text, std::string(field_name) + " of " + pkg.name + " " + pkg.version.str());
}

namespace {

constexpr size_t kMaxStanzaBytes = size_t{64} << 20;
constexpr size_t kMaxStanzas = 1'000'000;

// The package of one index stanza, every field a download and the resolver need checked.
Package read_index_stanza(const Deb822Stanza& s, const std::string& what, int origin) {
  for (const char* required : {"Package", "Version", "Architecture", "Filename", "Size", "SHA256"})
    if (s.value(required).empty())
      throw Error(what + ":" + std::to_string(s.line()) + ": the stanza of '" + s.value("Package") +
                      "' has no " + required,
                  std::string("every package in an index needs ") + required +
                      (std::string_view(required) == "SHA256" ? " (its .deb could not be verified)" : ""));
  Package p = read_common(s, what);
  p.filename = s.value("Filename");
  if (p.filename.find("..") != std::string::npos || p.filename.front() == '/')
    throw Error(what + ":" + std::to_string(s.line_of("Filename")) + ": Filename '" + p.filename + "' of " + p.name +
                    " leaves the repository", "the index is malformed or hostile");
  const std::string size = s.value("Size");
  if (size.size() > 15) throw Error(what + ":" + std::to_string(s.line_of("Size")) + ": Size of " + p.name + " is too large");
  for (char c : size) {
    if (c < '0' || c > '9')
      throw Error(what + ":" + std::to_string(s.line_of("Size")) + ": Size '" + std::string(size) + "' of " + p.name +
                  " is not a number");
    p.size = p.size * 10 + static_cast<uint64_t>(c - '0');
  }
  p.sha256 = s.value("SHA256");
  if (!is_sha256_hex(p.sha256))
    throw Error(what + ":" + std::to_string(s.line_of("SHA256")) + ": SHA256 of " + p.name + " is not 64 hex digits");
  p.origin = origin;
  return p;
}

// Where the last complete stanza of `text` ends (just after the newline before an empty line), from
// `from` on; 0 when there is none yet.
size_t last_stanza_end(std::string_view text, size_t from) {
  // Only the new part is searched: a long stanza arriving in many pieces is not rescanned each time.
  std::string_view tail = text.substr(std::min(from, text.size()));
  size_t best = 0;
  for (std::string_view sep : {std::string_view("\n\n"), std::string_view("\n\r\n")}) {
    size_t at = tail.rfind(sep);
    if (at != std::string_view::npos) best = std::max(best, from + at + 1);
  }
  return best;
}

}  // namespace

PackagesIndexParser::PackagesIndexParser(std::string what, int origin, std::function<void(Package&&)> sink)
    : what_(std::move(what)), origin_(origin), sink_(std::move(sink)) {}

void PackagesIndexParser::feed(std::string_view text) {
  const size_t old_size = pending_.size();
  pending_.append(text);
  // A separator may straddle the previous piece and this one.
  size_t end = last_stanza_end(pending_, old_size >= 2 ? old_size - 2 : 0);
  if (end == 0) {
    if (pending_.size() > kMaxStanzaBytes) {
      // The line where the stanza starts, after the blank lines that ended the previous one.
      size_t line = lines_done_ + 1;
      for (size_t i = 0; i < pending_.size() && (pending_[i] == '\n' || pending_[i] == '\r'); ++i) line += pending_[i] == '\n';
      throw Error(what_ + ":" + std::to_string(line) + ": a stanza longer than 64 MiB",
                  "the repository's index is malformed or hostile; nothing from it was used");
    }
    return;
  }
  parse_stanzas(std::string_view(pending_).substr(0, end));
  lines_done_ += static_cast<size_t>(std::count(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(end), '\n'));
  pending_.erase(0, end);
}

void PackagesIndexParser::finish() {
  parse_stanzas(pending_);
  pending_.clear();
  pending_.shrink_to_fit();
}

void PackagesIndexParser::parse_stanzas(std::string_view text) {
  try {
    Deb822Options options;
    options.first_line = lines_done_ + 1;
    options.max_stanzas = kMaxStanzas - std::min(stanzas_, kMaxStanzas);
    Deb822Reader reader(text, what_, options);
    while (auto stanza = reader.next()) {
      ++stanzas_;
      sink_(read_index_stanza(*stanza, what_, origin_));
    }
  } catch (const InputError& e) {
    // A malformed index is the repository's fault, not the recipe's.
    throw Error(e.what(), "the repository's index is malformed; nothing from it was used");
  }
}

std::vector<Package> parse_packages_index(std::string_view text, const std::string& what, int origin) {
  std::vector<Package> out;
  PackagesIndexParser parser(what, origin, [&](Package&& p) { out.push_back(std::move(p)); });
  parser.feed(text);
  parser.finish();
  return out;
}

InstalledDatabase parse_status_file(std::string_view text, const std::string& what) {
  InstalledDatabase db;
  try {
  for_each_stanza(text, what, [&](const Deb822Stanza& s) {
    db.stanzas.push_back(s.str());
    std::string arch = s.value("Architecture");
    db.stanza_names.push_back(s.value("Package") + ":" + arch);
    const std::string status = s.value("Status");
    // "want flag status": only fully installed packages satisfy dependencies.
    if (status.size() < 10 || status.substr(status.size() - 10) != " installed") return;
    Package p = read_common(s, what);
    p.status_stanza = db.stanzas.back();
    db.installed.push_back(std::move(p));
  });
  } catch (const InputError& e) {
    throw Error(e.what(), "the image's dpkg database is damaged; rebuild the base image");
  }
  return db;
}

}  // namespace rp::apt
