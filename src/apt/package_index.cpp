#include "apt/package_index.hpp"

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

std::vector<Package> parse_packages_index(std::string_view text, const std::string& what, int origin) {
  std::vector<Package> out;
  try {
    for_each_stanza(text, what, [&](const Deb822Stanza& s) {
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
      out.push_back(std::move(p));
    });
  } catch (const InputError& e) {
    // A malformed index is the repository's fault, not the recipe's.
    throw Error(e.what(), "the repository's index is malformed; nothing from it was used");
  }
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
