#include "apt/installer.hpp"

#include <openssl/evp.h>

#include <algorithm>

#include "entries/path_parts.hpp"
#include "util/deb822.hpp"
#include "util/strings.hpp"
#include "util/digest.hpp"
#include "util/error.hpp"

namespace rp::apt {

namespace {

constexpr int kMaxSymlinks = 40;

std::string join_first(const std::vector<std::string>& parts, size_t n) {
  std::string out;
  for (size_t i = 0; i < n && i < parts.size(); ++i) {
    if (!out.empty()) out.push_back('/');
    out += parts[i];
  }
  return out;
}

// "a/b" + "../c" -> "a/c"; an absolute target starts again at the root. ".." above the root stays
// at the root, as the kernel does.
std::string lexically_join(const std::string& base, const std::string& target) {
  std::vector<std::string> parts = target.empty() || target[0] != '/' ? path_components(base) : std::vector<std::string>{};
  for (const auto& c : path_components(target)) {
    if (c == "..") {
      if (!parts.empty()) parts.pop_back();
    } else {
      parts.push_back(c);
    }
  }
  return join_first(parts, parts.size());
}

// The md5 of a content source's bytes (conffiles are recorded with it in the status file).
class Md5Sink final : public ByteSink {
 public:
  Md5Sink() : ctx_(EVP_MD_CTX_new()) { EVP_DigestInit_ex(ctx_, EVP_md5(), nullptr); }
  ~Md5Sink() override { EVP_MD_CTX_free(ctx_); }
  Md5Sink(const Md5Sink&) = delete;
  Md5Sink& operator=(const Md5Sink&) = delete;
  void write(const void* data, size_t size) override { EVP_DigestUpdate(ctx_, data, size); }
  std::string hex() {
    unsigned char out[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    EVP_DigestFinal_ex(ctx_, out, &len);
    return to_hex(std::string_view(reinterpret_cast<char*>(out), len));
  }

 private:
  EVP_MD_CTX* ctx_;
};

// name:x:id:... lines of /etc/passwd or /etc/group.
std::map<std::string, uint32_t> ids_of(const std::optional<std::string>& text) {
  std::map<std::string, uint32_t> out;
  if (!text) return out;
  size_t pos = 0;
  while (pos < text->size()) {
    size_t nl = text->find('\n', pos);
    if (nl == std::string::npos) nl = text->size();
    std::string line = text->substr(pos, nl - pos);
    pos = nl + 1;
    size_t a = line.find(':');
    if (a == std::string::npos) continue;
    size_t b = line.find(':', a + 1);
    if (b == std::string::npos) continue;
    size_t c = line.find(':', b + 1);
    std::string id = line.substr(b + 1, c == std::string::npos ? std::string::npos : c - b - 1);
    if (id.empty() || id.size() > 10 || id.find_first_not_of("0123456789") != std::string::npos) continue;
    out.emplace(line.substr(0, a), static_cast<uint32_t>(std::stoull(id)));
  }
  return out;
}

// A file this package does not install after all (a package installed before Replaces it): out of
// its list and md5sums, as dpkg leaves it.
void drop_listed(UnpackedPackage& rec, const std::string& listed) {
  std::erase(rec.paths, listed);
  std::string rel = listed.substr(1), kept;
  for (const auto& line : split(rec.md5sums, '\n')) {
    if (line.empty() || (line.size() > 34 && line.substr(34) == rel)) continue;
    kept += std::string(line) + "\n";
  }
  rec.md5sums = kept;
}

}  // namespace

// The lower tree with the entries of the packages installed so far on top.
class Installer::Overlay final : public FileTree {
 public:
  explicit Overlay(const FileTree& lower) : lower_(lower) {}

  struct Stored {
    Node node;
    std::shared_ptr<const ContentSource> content;
  };

  void put(const std::string& key, Stored s) {
    removed_.erase(key);
    nodes_[key] = std::move(s);
  }
  // A file of the image that an upgrade left out (dpkg removes it).
  void remove(const std::string& key) {
    nodes_.erase(key);
    removed_.insert(key);
  }

  std::optional<Node> get(const std::string& key) const {
    if (key.empty()) return Node{EntryType::kDirectory, 0755, 0, {}, 0, 0};
    auto it = nodes_.find(key);
    if (it != nodes_.end()) return it->second.node;
    if (removed_.count(key)) return std::nullopt;
    return lower_.lstat(key);
  }

  // `path` with symlinks in its parent components resolved (and in the last one when `follow_last`);
  // nullopt when the links loop.
  std::optional<std::string> resolve(std::string_view path, bool follow_last) const {
    std::vector<std::string> todo = path_components(path);
    std::string cur;
    int hops = 0;
    for (size_t i = 0; i < todo.size(); ++i) {
      const std::string& c = todo[i];
      if (c == "..") {
        cur = parent_key(cur);
        continue;
      }
      std::string next = cur.empty() ? c : cur + "/" + c;
      bool last = i + 1 == todo.size();
      if (last && !follow_last) return next;
      auto node = get(next);
      if (node && node->type == EntryType::kSymlink) {
        if (++hops > kMaxSymlinks) return std::nullopt;
        std::string target = lexically_join(cur, node->link_target);
        std::vector<std::string> rest = path_components(target);
        for (size_t k = i + 1; k < todo.size(); ++k) rest.push_back(todo[k]);
        todo = std::move(rest);
        cur.clear();
        i = static_cast<size_t>(-1);
        continue;
      }
      cur = next;
    }
    return cur;
  }

  std::optional<Node> lstat(std::string_view path) const override {
    auto key = resolve(path, false);
    if (!key) return std::nullopt;
    return get(*key);
  }
  std::optional<std::string> realpath(std::string_view path) const override {
    auto key = resolve(path, true);
    if (!key || !get(*key)) return std::nullopt;
    return "/" + *key;
  }
  std::vector<std::string> list(std::string_view dir) const override {
    auto key = resolve(dir, true);
    if (!key) return {};
    auto node = get(*key);
    if (!node || node->type != EntryType::kDirectory) return {};
    std::set<std::string> names;
    std::string prefix = key->empty() ? "" : *key + "/";
    for (auto& n : lower_.list("/" + *key))
      if (!removed_.count(prefix + n)) names.insert(n);
    for (auto it = nodes_.lower_bound(prefix); it != nodes_.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it) {
      std::string rest = it->first.substr(prefix.size());
      if (!rest.empty() && rest.find('/') == std::string::npos) names.insert(rest);
    }
    return {names.begin(), names.end()};
  }
  std::optional<std::string> read(std::string_view path, size_t max) const override {
    auto key = resolve(path, true);
    if (!key) return std::nullopt;
    auto it = nodes_.find(*key);
    if (it == nodes_.end()) return removed_.count(*key) ? std::nullopt : lower_.read("/" + *key, max);
    if (it->second.node.type != EntryType::kFile || !it->second.content || it->second.content->size() > max)
      return std::nullopt;
    StringSink sink;
    it->second.content->write_to(sink);
    return sink.take();
  }

 private:
  const FileTree& lower_;
  std::map<std::string, Stored> nodes_;
  std::set<std::string> removed_;
};

std::string package_of_list_file(const std::string& file_name) {
  std::string stem = file_name.substr(0, file_name.size() - 5);  // ".list"
  return stem.substr(0, stem.find(':'));
}

Installer::Installer(const FileTree& lower)
    : lower_(lower), filter_(PathFilter::of_image(lower)), overlay_(std::make_shared<Overlay>(lower)) {
  users_ = ids_of(lower.read("/etc/passwd"));
  groups_ = ids_of(lower.read("/etc/group"));
  // Who owns what in the base: dpkg's file lists. Directories are shared freely and not tracked.
  for (const auto& name : lower.list("/var/lib/dpkg/info")) {
    if (name.size() <= 5 || name.substr(name.size() - 5) != ".list") continue;
    auto text = lower.read("/var/lib/dpkg/info/" + name, 64u << 20);
    if (!text) continue;
    Owner owner;
    owner.package = package_of_list_file(name);
    owner.info_stem = name.substr(0, name.size() - 5);
    size_t pos = 0;
    while (pos < text->size()) {
      size_t nl = text->find('\n', pos);
      if (nl == std::string::npos) nl = text->size();
      std::string listed = text->substr(pos, nl - pos);
      pos = nl + 1;
      if (listed.empty() || listed == "/.") continue;
      auto dest = overlay_->resolve(listed, false);
      if (!dest) continue;
      auto node = overlay_->get(*dest);
      if (!node || node->type == EntryType::kDirectory) continue;
      owner.listed = listed;
      owners_[*dest] = owner;
    }
  }
}

const FileTree& Installer::tree() const { return *overlay_; }

uint32_t Installer::user_id(const DataMember& m) const {
  auto it = users_.find(m.uname);
  return it != users_.end() ? it->second : m.uid;
}

uint32_t Installer::group_id(const DataMember& m) const {
  auto it = groups_.find(m.gname);
  return it != groups_.end() ? it->second : m.gid;
}

bool Installer::take_ownership(const std::string& dest, const std::string& listed, const DebContents& deb, size_t index) {
  const Package& p = deb.package;
  auto it = owners_.find(dest);
  if (it != owners_.end() && it->second.package != p.name) {
    const Owner& old = it->second;
    bool replaces = false;
    for (const auto& group : relations_of(p, "Replaces", p.replaces))
      for (const auto& r : group)
        if (r.name == old.package && (old.version.empty() || r.version_ok(Version::parse(old.version)))) replaces = true;
    // The other way round (the owner, installed earlier in this run, Replaces this package): dpkg
    // leaves the owner's file in place and skips this one ("replaced by files in installed package").
    if (!replaces && old.installed >= 0) {
      const UnpackedPackage& owner = packages_[static_cast<size_t>(old.installed)].record;
      for (const auto& [field, value] : owner.control) {
        if (!iequals(field, "Replaces")) continue;
        for (const auto& group : parse_relations(deb822_folded(value), "Replaces of " + owner.name))
          for (const auto& r : group)
            if (r.name == p.name && r.version_ok(p.version)) return false;
      }
    }
    if (!replaces)
      throw Error("apt: " + p.display() + " would overwrite '" + listed + "', which is also in package " + old.package +
                      (old.version.empty() ? " (installed in the base image)" : " " + old.version),
                  "two packages ship this file and neither Replaces the other: install only one of them");
    if (old.installed >= 0) {
      // The file leaves the earlier package: its entry, its list line and its md5sums line.
      InstalledDeb& prev = packages_[static_cast<size_t>(old.installed)];
      std::erase_if(prev.entries, [&](const Entry& e) { return e.path == dest; });
      std::erase(prev.record.paths, old.listed);
      std::string rel = old.listed.substr(1);
      std::string kept;
      for (const auto& line : split(prev.record.md5sums, '\n')) {
        if (line.size() > 34 && line.substr(34) == rel) continue;
        if (!line.empty()) kept += std::string(line) + "\n";
      }
      prev.record.md5sums = kept;
    } else {
      takeovers_[old.info_stem].insert(old.listed);
    }
  }
  owners_[dest] = Owner{p.name, p.version.str(), static_cast<int>(index), deb.package.multi_arch == MultiArch::kSame
                                                                                ? p.name + ":" + p.architecture
                                                                                : p.name,
                        listed};
  return true;
}

void Installer::ensure_parents(const std::string& dest, std::map<std::string, Entry>& entries, const std::string& origin) {
  // A layer's tar must not carry a parent directory with made-up attributes: parents the image has
  // are written with the attributes it has (finalize_entries would add 0755 root ones otherwise).
  for (std::string p = parent_key(dest); !p.empty(); p = parent_key(p)) {
    if (entries.count(p)) return;
    auto node = overlay_->get(p);
    if (!node || node->type != EntryType::kDirectory) return;
    Entry dir;
    dir.path = p;
    dir.type = EntryType::kDirectory;
    dir.mode = node->mode;
    dir.uid = node->uid;
    dir.gid = node->gid;
    dir.origin = origin;
    entries.emplace(p, std::move(dir));
  }
}

void Installer::remove_upgrade_leftovers(const UnpackedPackage& rec, std::map<std::string, Entry>& entries,
                                         const std::string& origin) {
  const std::string info = "/var/lib/dpkg/info/" + rec.info_stem();
  auto old_list = lower_.read(info + ".list", 64u << 20);
  if (!old_list) return;  // not an upgrade of a base package
  auto gone = [&](const std::string& dest) {
    std::string parent = parent_key(dest);
    Entry w;
    w.path = (parent.empty() ? "" : parent + "/") + ".wh." + dest.substr(parent.empty() ? 0 : parent.size() + 1);
    w.mode = 0644;
    w.origin = origin + " (upgrade: removes what the old version had)";
    w.content = std::make_shared<InlineContent>("");
    ensure_parents(dest, entries, origin);
    entries.insert_or_assign(w.path, std::move(w));
    overlay_->remove(dest);
  };
  // The old version's files that the new one does not put in place (dropped, or left out by a path
  // filter), unless another package owns them now. Directories stay (dpkg removes them only when
  // empty, which a base package's directory rarely is), and so do conffiles (dpkg keeps an obsolete
  // conffile).
  std::set<std::string_view> old_conffiles;
  auto conffiles_text = lower_.read(info + ".conffiles", 1u << 20).value_or("");
  for (std::string_view c : split(conffiles_text, '\n')) old_conffiles.insert(c);
  for (std::string_view line : split(*old_list, '\n')) {
    if (line.empty() || line == "/." || old_conffiles.count(line)) continue;
    auto dest = overlay_->resolve(line, false);
    if (!dest || dest->empty() || entries.count(*dest)) continue;
    auto node = overlay_->get(*dest);
    if (!node || node->type == EntryType::kDirectory) continue;
    auto owner = owners_.find(*dest);
    if (owner != owners_.end() && (owner->second.package != rec.name || owner->second.installed >= 0)) continue;
    if (owner != owners_.end()) owners_.erase(owner);
    gone(*dest);
  }
  // The old version's info files that the new one does not have (a postrm it dropped, ...).
  std::string dir = "var/lib/dpkg/info";
  std::string stem = rec.info_stem() + ".";
  for (const auto& name : lower_.list("/" + dir)) {
    if (name.compare(0, stem.size(), stem) != 0) continue;
    std::string kind = name.substr(stem.size());
    if (kind == "list" || kind.find('.') != std::string::npos || rec.control_files.count(kind)) continue;
    gone(dir + "/" + name);
  }
}

void Installer::install(const DebContents& deb) {
  const Package& p = deb.package;
  std::string origin = p.name + "_" + p.version.str() + "_" + p.architecture + ".deb";
  size_t index = packages_.size();
  InstalledDeb out;
  UnpackedPackage& rec = out.record;
  rec.name = p.name;
  rec.architecture = p.architecture;
  rec.version = p.version.str();
  rec.multi_arch = p.multi_arch == MultiArch::kNo ? "" : multi_arch_text(p.multi_arch);

  // The control file: its fields, in order, become the status stanza.
  Deb822Stanza control = parse_one_deb822(deb.control.files.at("control"), origin + ": control");
  if (control.value("Package") != p.name || control.value("Architecture") != p.architecture ||
      Version::parse(control.value("Version"), "Version in " + origin) != p.version)
    throw Error(origin + ": its control file says " + control.value("Package") + " " + control.value("Version") +
                    " (" + control.value("Architecture") + "), not what the index promised",
                "the repository's index and its .deb files disagree; nothing was installed");
  for (const auto& f : control.fields()) rec.control.emplace_back(f.name, f.value);
  for (const auto& [name, bytes] : deb.control.files) {
    if (name == "control") continue;
    if (name == "md5sums") rec.md5sums = bytes;
    rec.control_files[name] = bytes;
    rec.control_modes[name] = deb.control.modes.at(name);
  }
  std::set<std::string> conffiles;
  if (auto it = deb.control.files.find("conffiles"); it != deb.control.files.end())
    for (const auto& line : split(it->second, '\n')) {
      std::string l(line);
      while (!l.empty() && (l.back() == ' ' || l.back() == '\r')) l.pop_back();
      size_t slash = l.find('/');
      if (slash != std::string::npos) conffiles.insert(l.substr(slash));  // "remove-on-upgrade /etc/x" -> "/etc/x"
    }

  // Hardlinks name their targets by archive path: map those to where the target went.
  std::map<std::string, std::string> dest_of_member;
  std::map<std::string, EntryType> type_of_member;  // what a hardlink may point to: a file only
  std::set<std::string> filtered;        // members dpkg's path filters leave out (still listed)
  std::map<std::string, Entry> entries;  // by path
  for (const auto& m : deb.members) {
    std::vector<std::string> parts = path_components(m.path);
    for (const auto& c : parts)
      if (c == "..") throw InputError(origin + ": member '" + printable(m.path) + "' climbs out of the root", "the package is hostile or broken");
    std::string rel = join_first(parts, parts.size());
    std::string listed = rel.empty() ? "/." : "/" + rel;
    rec.paths.push_back(listed);
    if (rel.empty()) continue;
    // dpkg's path-exclude: left out of the file system; a hardlink to a left-out file goes too.
    bool link_to_filtered = false;
    if (m.type == EntryType::kHardlink) {
      std::vector<std::string> target_parts = path_components(m.link_target);
      link_to_filtered = filtered.count(join_first(target_parts, target_parts.size())) > 0;
    }
    if (link_to_filtered || (!filter_.empty() && filter_.skip(listed, m.type == EntryType::kDirectory))) {
      filtered.insert(rel);
      continue;
    }
    auto resolved = overlay_->resolve(rel, false);
    if (!resolved || resolved->empty())
      throw Error(origin + ": '" + listed + "' lies under a symlink loop in the image");
    const std::string& dest = *resolved;
    dest_of_member[rel] = dest;
    type_of_member[rel] = m.type;
    auto existing = overlay_->get(dest);

    Entry e;
    e.path = dest;
    e.type = m.type;
    e.mode = m.mode & 07777;
    e.uid = user_id(m);
    e.gid = group_id(m);
    e.origin = origin;
    switch (m.type) {
      case EntryType::kDirectory:
        // An existing directory keeps its attributes (dpkg does not change them); a symlink to a
        // directory stays a symlink (merged /usr).
        if (existing && (existing->type == EntryType::kDirectory || existing->type == EntryType::kSymlink)) continue;
        break;
      case EntryType::kFile:
        if (existing && existing->type == EntryType::kDirectory)
          throw Error(origin + ": '" + listed + "' is a directory in the image, the package ships a file there",
                      "the package does not fit this image");
        e.content = m.content;
        if (!take_ownership(dest, listed, deb, index)) {
          drop_listed(rec, listed);
          continue;
        }
        if (conffiles.count(listed)) {
          Md5Sink md5;
          m.content->write_to(md5);
          rec.conffiles.emplace_back(listed, md5.hex());
        }
        break;
      case EntryType::kSymlink:
        if (existing && existing->type == EntryType::kDirectory) {
          out.warnings.push_back("kept the directory /" + dest + " instead of the package's symlink to " + m.link_target);
          continue;
        }
        e.link_target = m.link_target;
        if (!take_ownership(dest, listed, deb, index)) {
          drop_listed(rec, listed);
          continue;
        }
        break;
      case EntryType::kHardlink: {
        std::vector<std::string> target_parts = path_components(m.link_target);
        auto target = dest_of_member.find(join_first(target_parts, target_parts.size()));
        if (target == dest_of_member.end())
          throw InputError(origin + ": hardlink '" + printable(listed) + "' points to '" + printable(m.link_target) +
                               "', which comes nowhere before it",
                           "the package is broken");
        // A hardlink to a directory or to a symlink cannot be unpacked (link(2) refuses the first,
        // tar readers differ on the second); dpkg refuses both, and so does this.
        if (EntryType t = type_of_member.at(target->first); t != EntryType::kFile && t != EntryType::kHardlink)
          throw InputError(origin + ": hardlink '" + printable(listed) + "' points to the " +
                               (t == EntryType::kDirectory ? "directory" : "symlink") + " '" + printable(m.link_target) +
                               "'; a hardlink must point to a regular file",
                           "the package is hostile or broken; nothing was installed");
        e.link_target = target->second;
        if (!take_ownership(dest, listed, deb, index)) {
          drop_listed(rec, listed);
          continue;
        }
        break;
      }
    }
    ensure_parents(dest, entries, origin);
    Overlay::Stored stored{FileTree::Node{m.type == EntryType::kHardlink ? EntryType::kFile : m.type, e.mode,
                                          m.content ? m.content->size() : 0, e.link_target, e.uid, e.gid},
                           m.content};
    if (m.type == EntryType::kHardlink) {
      auto it = entries.find(e.link_target);
      if (it != entries.end())
        stored = Overlay::Stored{FileTree::Node{EntryType::kFile, it->second.mode, it->second.size(), {}, it->second.uid,
                                                it->second.gid},
                                 it->second.content};
    }
    overlay_->put(dest, std::move(stored));
    // A later member at the same place replaces an earlier one (dpkg extracts in order).
    entries.insert_or_assign(dest, std::move(e));
  }
  for (const auto& c : conffiles)
    if (!filtered.count(c.substr(1)) && std::none_of(rec.conffiles.begin(), rec.conffiles.end(), [&](const auto& x) { return x.first == c; }))
      out.warnings.push_back("conffile " + printable(c) + " is not a file of the package");  // cut: the line is the package's

  remove_upgrade_leftovers(rec, entries, origin);

  // The layer writer wants a hardlink's target before it: the lowest path of each group is the file.
  std::map<std::string, std::vector<std::string>> links;  // file -> hardlinks to it
  for (const auto& [path, e] : entries)
    if (e.type == EntryType::kHardlink) links[e.link_target].push_back(path);
  for (auto& [file, group] : links) {
    auto lowest = std::min_element(group.begin(), group.end());
    if (*lowest > file || !entries.count(file) || entries.at(file).type != EntryType::kFile) continue;
    std::string first = *lowest;
    Entry moved = entries.at(file);  // the file's content moves to the lowest path
    moved.path = first;
    Entry link = entries.at(first);
    link.path = file;
    link.link_target = first;
    entries.insert_or_assign(first, std::move(moved));
    entries.insert_or_assign(file, std::move(link));
    for (const auto& other : group)
      if (other != first) entries.at(other).link_target = first;
  }
  out.entries.reserve(entries.size());
  for (auto& [path, e] : entries) out.entries.push_back(std::move(e));
  packages_.push_back(std::move(out));
}

}  // namespace rp::apt
