#include "apt/dpkg_database.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <set>

#include "util/deb822.hpp"
#include "util/strings.hpp"

namespace rp::apt {

namespace {

const char* kInfoDir = "var/lib/dpkg/info/";

// dpkg's own field order (lib/dpkg/parse.c); other fields follow in the control file's order.
const std::vector<std::string> kFieldOrder = {
    "Package",  "Essential",   "Protected",   "Status",      "Priority",   "Section",  "Installed-Size",
    "Origin",   "Maintainer",  "Bugs",        "Architecture", "Multi-Arch", "Source",   "Version",
    "Revision", "Config-Version", "Replaces", "Provides",    "Depends",    "Pre-Depends", "Recommends",
    "Suggests", "Breaks",      "Conflicts",   "Enhances",    "Conffiles",  "Filename", "Size",
    "MD5sum",   "MSDOS-Filename", "Description", "Triggers-Pending", "Triggers-Awaited"};

bool same_name(const std::string& a, const std::string& b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

std::string field_line(const std::string& name, const std::string& value) {
  // A value that starts on the next line (Conffiles, a multi-line list) has no blank after the colon.
  if (!value.empty() && value[0] == '\n') return name + ":" + value;
  return name + ": " + value;
}

std::shared_ptr<const ContentSource> text(std::string s) { return std::make_shared<InlineContent>(std::move(s)); }

Entry file_entry(const std::string& path, std::string content, uint32_t mode, const std::string& origin) {
  Entry e;
  e.path = path;
  e.type = EntryType::kFile;
  e.mode = mode;
  e.content = text(std::move(content));
  e.origin = origin;
  return e;
}


struct Keyed {
  std::string name, arch, text;
};

}  // namespace

std::string status_stanza(const UnpackedPackage& p, bool unpacked) {
  std::vector<std::pair<std::string, std::string>> fields;
  for (const auto& f : p.control)
    if (!same_name(f.first, "Status") && !same_name(f.first, "Conffiles") && !same_name(f.first, "Config-Version"))
      fields.push_back(f);
  fields.emplace_back("Status", unpacked ? "install ok unpacked" : "install ok installed");
  if (!p.conffiles.empty()) {
    std::string value;
    for (const auto& [path, md5] : p.conffiles) value += "\n " + path + " " + (unpacked ? "newconffile" : md5);
    fields.emplace_back("Conffiles", value);
  }
  auto rank = [](const std::string& name) -> size_t {
    for (size_t i = 0; i < kFieldOrder.size(); ++i)
      if (same_name(kFieldOrder[i], name)) return i;
    return kFieldOrder.size();
  };
  std::stable_sort(fields.begin(), fields.end(), [&](const auto& a, const auto& b) { return rank(a.first) < rank(b.first); });
  std::string out;
  for (const auto& [name, value] : fields) out += (out.empty() ? "" : "\n") + field_line(name, value);
  return out;
}

std::string merged_status(const InstalledDatabase& base, const std::vector<UnpackedPackage>& added, bool unpacked) {
  std::vector<Keyed> all;
  std::set<std::string> replaced;
  for (const auto& p : added) replaced.insert(p.name + ":" + p.architecture);
  for (size_t i = 0; i < base.stanzas.size(); ++i) {
    const std::string& id = base.stanza_names[i];
    size_t colon = id.find(':');
    Keyed k{id.substr(0, colon), id.substr(colon + 1), base.stanzas[i]};
    // An upgraded package's stanza is replaced; so is "arch all" vs the same package's old one.
    if (replaced.count(id)) continue;
    bool same_name_upgraded = std::any_of(added.begin(), added.end(), [&](const UnpackedPackage& p) {
      return p.name == k.name && p.multi_arch != "same";
    });
    if (same_name_upgraded) continue;
    all.push_back(std::move(k));
  }
  for (const auto& p : added) all.push_back({p.name, p.architecture, status_stanza(p, unpacked)});
  std::stable_sort(all.begin(), all.end(), [](const Keyed& a, const Keyed& b) {
    if (a.name != b.name) return a.name < b.name;
    return a.arch < b.arch;
  });
  std::string out;
  for (const auto& k : all) {
    std::string_view text = k.text;
    while (!text.empty() && text.back() == '\n') text.remove_suffix(1);  // Deb822Stanza::str() ends its last line
    out.append(text).append("\n\n");
  }
  return out;
}

std::vector<Entry> info_entries(const UnpackedPackage& p) {
  std::string stem = std::string(kInfoDir) + p.info_stem();
  std::string origin = p.name + " " + p.version + " (dpkg database)";
  std::vector<Entry> out;
  std::string list;
  for (const auto& path : p.paths) list += path + "\n";
  out.push_back(file_entry(stem + ".list", list, 0644, origin));
  for (const auto& [name, bytes] : p.control_files) {
    uint32_t mode = p.control_modes.count(name) ? p.control_modes.at(name) : 0644;
    // dpkg keeps scripts executable and everything else 0644.
    bool script = name == "preinst" || name == "postinst" || name == "prerm" || name == "postrm" || name == "config";
    std::string content = name == "md5sums" ? p.md5sums : bytes;
    out.push_back(file_entry(stem + "." + name, content, script ? 0755 : (mode & 0644) | 0644, origin));
  }
  return out;
}

std::vector<Entry> takeover_entries(const FileTree& image, const Takeovers& takeovers) {
  std::vector<Entry> out;
  for (const auto& [stem, paths] : takeovers) {
    std::string origin = stem + " (base package, files taken over)";
    if (auto list = image.read("/" + std::string(kInfoDir) + stem + ".list", 64u << 20)) {
      std::string kept;
      for (const auto& line : split(*list, '\n'))
        if (!line.empty() && !paths.count(std::string(line))) kept += std::string(line) + "\n";
      out.push_back(file_entry(std::string(kInfoDir) + stem + ".list", kept, 0644, origin));
    }
    if (auto sums = image.read("/" + std::string(kInfoDir) + stem + ".md5sums", 64u << 20)) {
      std::string kept;
      for (const auto& line : split(*sums, '\n')) {
        if (line.empty()) continue;
        if (line.size() > 34 && paths.count("/" + std::string(line.substr(34)))) continue;
        kept += std::string(line) + "\n";
      }
      out.push_back(file_entry(std::string(kInfoDir) + stem + ".md5sums", kept, 0644, origin));
    }
  }
  return out;
}

std::vector<Entry> new_database_entries(const FileTree& image) {
  std::vector<Entry> out;
  auto add = [&](const char* path, const char* content) {
    if (!image.lstat(std::string("/") + path)) out.push_back(file_entry(path, content, 0644, "dpkg database"));
  };
  add("var/lib/dpkg/info/format", "1\n");
  add("var/lib/dpkg/available", "");
  add("var/lib/dpkg/diversions", "");
  // dpkg makes statoverride the first time it needs it: an existing database (debootstrap's) may lack
  // it, and `apt-get install` would not add it; a new database gets it, as debootstrap's dpkg writes it.
  if (!image.lstat("/var/lib/dpkg/status")) add("var/lib/dpkg/statoverride", "");
  return out;
}

}  // namespace rp::apt
