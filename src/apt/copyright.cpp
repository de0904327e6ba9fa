#include "apt/copyright.hpp"

#include <algorithm>
#include <map>
#include <vector>

#include "util/deb822.hpp"
#include "util/strings.hpp"

namespace rp::apt {

std::string dep5_license_id(std::string_view short_name) {
  std::string name(trim(short_name));
  if (name.empty() || name.size() > 100) return "";
  static const std::map<std::string, std::string> kNames = {
      {"expat", "MIT"},          {"bsd-2-clause", "BSD-2-Clause"}, {"bsd-3-clause", "BSD-3-Clause"},
      {"bsd-4-clause", "BSD-4-Clause"}, {"artistic", "Artistic-1.0-Perl"}, {"perl", "Artistic-1.0-Perl OR GPL-1.0-or-later"},
      {"zlib", "Zlib"},          {"psf-2", "PSF-2.0"},            {"python", "PSF-2.0"},
      {"cc0", "CC0-1.0"},        {"mpl-2", "MPL-2.0"},            {"apache-2", "Apache-2.0"},
      {"isc", "ISC"},
  };
  if (auto it = kNames.find(ascii_lower(name)); it != kNames.end()) return it->second;
  // The GNU families: GPL-2, GPL-2+, LGPL-2.1+, AGPL-3, GFDL-1.3+ (a bare "GPL" names no version).
  const bool plus = name.back() == '+';
  std::string base = plus ? name.substr(0, name.size() - 1) : name;
  for (const char* family : {"GPL", "LGPL", "AGPL", "GFDL"}) {
    std::string prefix = std::string(family) + "-";
    if (base.size() <= prefix.size() || !iequals(base.substr(0, prefix.size()), prefix)) continue;
    std::string version = base.substr(prefix.size());
    if (version.find('.') == std::string::npos) version += ".0";
    if (auto id = spdx_license_id(std::string(family) + "-" + version + (plus ? "-or-later" : "-only"))) return *id;
    return "";
  }
  if (auto id = spdx_license_id(name)) return *id;
  return "";
}

DeclaredLicense dep5_license(std::string_view copyright) {
  DeclaredLicense out;
  try {
    Deb822Options options;
    options.strict = false;
    options.comments = false;
    options.max_stanzas = 10'000;
    Deb822Reader reader(copyright, "copyright", options);
    auto header = reader.next();
    if (!header) return out;
    // The header paragraph names the format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
    // (older files: .../copyright-format/1.0, dep5 drafts).
    std::string format = header->value("Format");
    if (format.find("copyright-format") == std::string::npos && format.find("dep5") == std::string::npos &&
        format.find("DEP-5") == std::string::npos)
      return out;
    std::string license;
    // The header's own License (the whole work) applies when no Files: * paragraph says otherwise.
    if (header->has("Files") && split_words(header->value("Files")) == std::vector<std::string>{"*"})
      license = header->value("License");
    while (auto stanza = reader.next()) {
      if (!stanza->has("Files")) continue;
      auto files = split_words(stanza->value("Files"));
      if (std::find(files.begin(), files.end(), "*") == files.end()) continue;
      license = stanza->value("License");
      break;
    }
    if (license.empty()) license = header->value("License");
    std::string line(trim(license.substr(0, license.find('\n'))));
    if (line.empty()) return out;
    // "GPL-2+ or Artistic, and BSD-3-clause": the comma binds loosest (an "and" of its parts).
    std::vector<std::string> groups;
    for (auto part : split(line, ',')) {
      std::string p(trim(part));
      if (p.starts_with("and ")) p = std::string(trim(std::string_view(p).substr(4)));
      std::vector<std::string> words = split_words(p);
      if (words.empty()) return out.text = line, out;
      std::string expr;
      for (size_t i = 0; i < words.size(); ++i) {
        if (i % 2 == 1) {
          std::string op = ascii_lower(words[i]);
          if (op != "or" && op != "and") return out.text = line, out;
          expr += op == "or" ? " OR " : " AND ";
          continue;
        }
        std::string id = dep5_license_id(words[i]);
        if (id.empty()) return out.text = line, out;
        expr += id.find(' ') != std::string::npos ? "(" + id + ")" : id;
      }
      if (words.size() % 2 == 0) return out.text = line, out;  // ends with an operator
      groups.push_back(groups.empty() && split(line, ',').size() == 1 ? expr : "(" + expr + ")");
    }
    std::string joined = join(groups, " AND ");
    if (auto e = spdx_expression(joined)) {
      out.expression = *e;
    } else {
      out.text = line;
    }
  } catch (const std::exception&) {
    // A copyright file deb822 cannot read (too many paragraphs): no license from it.
    out = {};
  }
  if (out.text.size() > 200) out.text = shorten(out.text, 200);
  return out;
}

}  // namespace rp::apt
