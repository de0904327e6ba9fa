#include "therock/devel_expansion.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <string_view>
#include <unordered_map>
#include <utility>

#include <nlohmann/json.hpp>

#include "python/wheel_record.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

namespace rp::therock {

namespace {

using python::InstalledWheel;

constexpr const char* kDevelRoot = "_rocm_sdk_devel";
// The kernel's own limit on symlinks followed while resolving one path: enough for any real chain,
// and it ends a loop.
constexpr int kMaxLinkHops = 40;
constexpr uint64_t kMaxLinksFileSize = 64u << 20;

// `rocm-sdk init` keeps these symlinks: the launchers find the real compiler next to their target.
const std::set<std::string> kLaunchers = {"amdclang", "amdclang++", "amdclang-cl", "amdclang-cpp",
                                          "amdflang", "amdlld",    "amdllvm"};

std::string read_content(const ContentSource& content) {
  StringSink sink;
  content.write_to(sink);
  return sink.take();
}

std::string base_name(const std::string& path) { return path.substr(path.rfind('/') + 1); }
std::string parent_of(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> parts;
  size_t i = 0;
  while (i <= path.size()) {
    size_t j = std::min(path.find('/', i), path.size());
    parts.push_back(path.substr(i, j - i));
    i = j + 1;
  }
  return parts;
}

// `base` + "/" + `relative` with "." and ".." applied; empty when the result is not below `root`.
std::string lexically_within(const std::string& base, const std::string& relative, const std::string& root) {
  std::vector<std::string> parts = split_path(base);
  for (auto& p : split_path(relative)) {
    if (p.empty() || p == ".") continue;
    if (p == "..") {
      if (parts.empty()) return {};
      parts.pop_back();
      continue;
    }
    parts.push_back(std::move(p));
  }
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : "/") + p;
  return out.rfind(root + "/", 0) == 0 ? out : std::string();
}

// Where an entry lives: wheels[wheel].entries[entry]. Indices, since entries are appended.
struct Slot {
  size_t wheel = 0;
  size_t entry = 0;
};

enum class Kind { kFile, kDirectory, kMissing, kLoop };
struct Resolved {
  Kind kind;
  std::string path;  // the image path the links finally name
};

// Every entry of the wheels by image path, with symlink resolution over them: the layer's file
// tree before it exists, so links are resolved as the kernel would resolve them in the image.
class ImageTree {
 public:
  explicit ImageTree(std::vector<InstalledWheel>& wheels) : wheels_(wheels) {
    for (size_t w = 0; w < wheels.size(); ++w)
      for (size_t e = 0; e < wheels[w].entries.size(); ++e) by_path_[wheels[w].entries[e].path] = {w, e};
  }

  size_t owner(const std::string& path) const { return by_path_.at(path).wheel; }

  Entry* find(const std::string& path) {
    auto it = by_path_.find(path);
    return it == by_path_.end() ? nullptr : &at(it->second);
  }
  // The entry at a path known to exist.
  Entry& get(const std::string& path) { return at(by_path_.at(path)); }

  // Adds `entry` to wheel `w`, with the parent directories it lacks (a wheel's entries include
  // every directory above its files). An entry already at that path is replaced in place.
  void put(size_t w, Entry entry) {
    for (std::string dir = parent_of(entry.path); !dir.empty() && !by_path_.count(dir); dir = parent_of(dir)) {
      Entry d;
      d.path = dir;
      d.type = EntryType::kDirectory;
      d.mode = 0755;
      d.origin = entry.origin;
      append(w, std::move(d));
    }
    auto [it, inserted] = by_path_.try_emplace(entry.path, Slot{w, wheels_[w].entries.size()});
    if (inserted) wheels_[w].entries.push_back(std::move(entry));
    else at(it->second) = std::move(entry);
  }

  // Follows symlinks (and hardlink entries, whose targets are image paths) like realpath(3):
  // relative targets from the link's directory, absolute ones from the image root, ".." stopping
  // at the root. A chain longer than kMaxLinkHops is a loop.
  Resolved resolve(const std::string& path) const {
    std::vector<std::string> done;
    std::deque<std::string> todo;
    for (auto& p : split_path(path)) todo.push_back(std::move(p));
    int hops = 0;
    while (!todo.empty()) {
      std::string part = std::move(todo.front());
      todo.pop_front();
      if (part.empty() || part == ".") continue;
      if (part == "..") {
        if (!done.empty()) done.pop_back();
        continue;
      }
      done.push_back(std::move(part));
      auto it = by_path_.find(join(done));
      if (it == by_path_.end()) continue;
      const Entry& e = wheels_[it->second.wheel].entries[it->second.entry];
      if (e.type != EntryType::kSymlink && e.type != EntryType::kHardlink) continue;
      if (++hops > kMaxLinkHops) return {Kind::kLoop, join(done)};
      done.pop_back();
      if (e.type == EntryType::kHardlink || e.link_target.rfind('/', 0) == 0) done.clear();
      auto parts = split_path(e.link_target);
      todo.insert(todo.begin(), parts.begin(), parts.end());
    }
    std::string final_path = join(done);
    auto it = by_path_.find(final_path);
    if (it != by_path_.end()) {
      const Entry& e = wheels_[it->second.wheel].entries[it->second.entry];
      return {e.type == EntryType::kDirectory ? Kind::kDirectory : Kind::kFile, final_path};
    }
    // A directory that only exists as the parent of other entries.
    auto below = by_path_.lower_bound(final_path + "/");
    bool has_children = below != by_path_.end() && below->first.rfind(final_path + "/", 0) == 0;
    return {final_path.empty() || has_children ? Kind::kDirectory : Kind::kMissing, final_path};
  }

 private:
  static std::string join(const std::vector<std::string>& parts) {
    std::string out;
    for (const auto& p : parts) out += (out.empty() ? "" : "/") + p;
    return out;
  }
  Entry& at(Slot s) { return wheels_[s.wheel].entries[s.entry]; }
  void append(size_t w, Entry entry) {
    by_path_[entry.path] = {w, wheels_[w].entries.size()};
    wheels_[w].entries.push_back(std::move(entry));
  }

  std::vector<InstalledWheel>& wheels_;
  std::map<std::string, Slot> by_path_;
};

// Rewrites `wheel`'s RECORD without the rows for `removed` and with a `path,,` row for each of
// `added` (image paths), and keeps `files` in step, as pip does for files it did not unpack itself.
void update_record(InstalledWheel& wheel, const std::set<std::string>& removed, const std::vector<std::string>& added) {
  std::string record_path = wheel.dist_info + "/RECORD";
  auto it = std::find_if(wheel.entries.begin(), wheel.entries.end(),
                         [&](const Entry& e) { return e.path == record_path && e.content; });
  if (it == wheel.entries.end()) throw Error(wheel.filename + ": its installed RECORD is missing");
  // RECORD paths are relative to the directory holding the .dist-info (site-packages).
  std::string base = "/" + parent_of(wheel.dist_info);
  auto relative = [&](const std::string& path) { return python::relative_path(base, "/" + path); };
  std::set<std::string> removed_rows;
  for (const auto& path : removed) removed_rows.insert(relative(path));

  auto rows = python::parse_record(read_content(*it->content), wheel.filename + ":" + record_path);
  rows.erase(std::remove_if(rows.begin(), rows.end(), [&](const auto& r) { return removed_rows.count(r.path) > 0; }),
             rows.end());
  // No row twice (TheRock drops blank and duplicate rows when it rewrites a RECORD).
  std::set<std::string> listed;
  std::erase_if(rows, [&](const auto& r) { return r.path.empty() || !listed.insert(r.path).second; });
  for (const auto& path : added) {
    std::string row = relative(path);
    if (listed.insert(row).second) rows.push_back({std::move(row), "", ""});
  }
  it->content = std::make_shared<InlineContent>(python::format_record(rows));

  std::erase_if(wheel.files, [&](const std::string& f) { return removed.count(f) > 0; });
  // Both lists come sorted (`files` always is; `added` in the expansion's path order): merged, not
  // sorted again (20,000 paths that differ only after a long common prefix).
  auto old_end = static_cast<std::ptrdiff_t>(wheel.files.size());
  wheel.files.insert(wheel.files.end(), added.begin(), added.end());
  if (std::is_sorted(wheel.files.begin(), wheel.files.begin() + old_end) && std::is_sorted(added.begin(), added.end()))
    std::inplace_merge(wheel.files.begin(), wheel.files.begin() + old_end, wheel.files.end());
  else
    std::sort(wheel.files.begin(), wheel.files.end());
}

// The member's path in the image. Like `rocm-sdk init`, only the devel tree may come out of it.
std::string member_image_path(const std::string& name, const std::string& site, const std::string& what) {
  std::string_view trimmed = name;
  while (trimmed.size() > 1 && trimmed.back() == '/') trimmed.remove_suffix(1);
  std::string_view root(kDevelRoot);
  bool under_root = trimmed.starts_with(root) && (trimmed.size() == root.size() || trimmed[root.size()] == '/');
  if (has_dot_dot_component(trimmed) || !under_root)
    throw InputError(what + ": unexpected member '" + name + "' (every member must be under " + kDevelRoot + "/)",
                     "the rocm-sdk-devel wheel is damaged or not TheRock's; download it again");
  std::string path;
  path.reserve(site.size() + 1 + trimmed.size());
  path.append(site).append("/").append(trimmed);
  return normalize_image_path(path, what);
}

struct Expander {
  std::vector<InstalledWheel>& wheels;
  std::string site;
  ImageTree tree;
  DevelExpansion result;
  std::set<std::string> link_paths;     // every new symlink or hardlink, resolved at the end
  std::map<std::string, size_t> added;  // every new file or link -> the wheel whose RECORD lists it
  std::unordered_map<std::string, size_t> move_to;  // hardlinks -> the wheel (layer) of the file they share (looked up for every entry)

  Expander(std::vector<InstalledWheel>& w, std::string s) : wheels(w), site(std::move(s)), tree(w) {}

  // Replacing is allowed only for what the expansion itself added (a later tar member of the same
  // name, or a device link over a devel member), as unpacking over it would do.
  void check_free(const std::string& path, const std::string& what) {
    const Entry* existing = tree.find(path);
    if (!existing || added.count(path)) return;
    throw InputError(what + " would replace /" + path + " of " + existing->origin,
                     "the ROCm wheels do not fit together; use one version of every rocm-sdk package");
  }

  void add_member(size_t devel, const TarIndexMember& m, const MemberArchive& tar, const std::string& what) {
    Entry e;
    e.path = member_image_path(m.path, site, what);
    e.origin = wheels[devel].filename;
    if (m.type == EntryType::kDirectory) {
      const Entry* existing = tree.find(e.path);
      if (existing && existing->type == EntryType::kDirectory) return;
      check_free(e.path, what + " member " + m.path);
      added.erase(e.path);  // a directory over an earlier member of the same name: not a RECORD row
      link_paths.erase(e.path);
      e.type = EntryType::kDirectory;
      e.mode = 0755;
      tree.put(devel, std::move(e));
      return;
    }
    check_free(e.path, what + " member " + m.path);
    link_paths.erase(e.path);  // a later member of the same name wins, as when unpacking
    e.type = m.type;
    if (m.type == EntryType::kFile) {
      e.mode = (m.mode & 0111) ? 0755 : 0644;  // as `rocm-sdk init` writes them
      e.content = tar.content(m);
      ++result.files;
    } else if (m.type == EntryType::kSymlink) {
      e.mode = 0777;
      e.link_target = m.link_target;
      // TheRock's rule (rocm_sdk/_devel.py), decided when the member comes: the launchers in a
      // devel bin/ stay symlinks; a link whose target is, at that moment, an existing regular file
      // becomes a hardlink to it; anything else (directories, targets extracted later, nothing)
      // stays a symlink.
      std::string parent = parent_of(e.path);
      bool launcher = kLaunchers.count(base_name(e.path)) > 0 && base_name(parent) == "bin" &&
                      base_name(parent_of(parent)).starts_with(kDevelRoot);
      if (!launcher && e.link_target.rfind('/', 0) != 0 && tree.resolve(parent + "/" + e.link_target).kind == Kind::kFile)
        link_paths.insert(e.path);
      else
        ++result.symlinks;
    } else {
      e.mode = 0777;
      // A tar hardlink names another member; held as an image path like every hardlink entry.
      e.link_target = member_image_path(m.link_target, site, what);
      link_paths.insert(e.path);
    }
    added[e.path] = devel;
    tree.put(devel, std::move(e));
  }

  // `_rocm_sdk_libraries/.devel_links/<target>.json` of a multi-arch device wheel.
  void add_device_links(size_t w, const Entry& spec) {
    const std::string what = wheels[w].filename + ": /" + spec.path;
    auto bad = [&](const std::string& why) {
      return InputError(what + ": " + why, "the device wheel is damaged or not TheRock's; download it again");
    };
    if (spec.size() > kMaxLinksFileSize) throw bad("the file is too large");
    auto json = nlohmann::json::parse(read_content(*spec.content), nullptr, false);
    if (json.is_discarded() || !json.is_object() || !json.contains("links") || !json["links"].is_array())
      throw bad("not a JSON object with a \"links\" list");
    for (const auto& link : json["links"]) {
      if (!link.is_object() || !link.contains("relpath") || !link["relpath"].is_string() || !link.contains("target") ||
          !link["target"].is_string())
        throw bad("a link without a \"relpath\" and a \"target\" string");
      std::string relpath = link["relpath"], target = link["target"];
      if (relpath.empty() || target.empty() || relpath.front() == '/' || target.front() == '/' ||
          has_dot_dot_component(relpath))
        throw bad("link paths must be relative ('" + relpath + "' -> '" + target + "')");
      std::string dest = normalize_image_path(site + "/" + kDevelRoot + "/" + relpath, what);
      // `target` is relative to the link's directory (../ up to site-packages, then the file).
      std::string source = lexically_within(parent_of(dest), target, site);
      if (source.empty()) throw bad("the link target '" + target + "' of '" + relpath + "' leaves site-packages");
      Resolved r = tree.resolve(source);
      if (r.kind != Kind::kFile) throw bad("the link target '" + target + "' is not a file in site-packages");
      check_free(dest, what + " link " + relpath);
      Entry e;
      e.path = dest;
      e.type = EntryType::kHardlink;
      e.mode = 0644;
      e.link_target = r.path;
      e.origin = wheels[w].filename;
      link_paths.insert(dest);
      added[dest] = w;
      tree.put(w, std::move(e));
      ++result.device_links;
    }
  }

  // The links chosen to become hardlinks (link_paths) become hardlinks; each group of paths
  // sharing one file gets its content at the smallest path, because the tar writer needs a
  // hardlink's target to come first. Every link of a group moves into the wheel that shipped the
  // file, so that the group stays in one layer (a hardlink cannot cross layers).
  void resolve_links() {
    std::map<std::string, std::vector<std::string>> groups;  // content path -> its links
    for (const auto& path : link_paths) {
      Entry& e = tree.get(path);
      Resolved r = tree.resolve(path);
      if (r.kind == Kind::kFile) {
        groups[r.path].push_back(path);
        continue;
      }
      if (e.type == EntryType::kHardlink)
        throw InputError("/" + path + " of " + e.origin + " is a hardlink to /" + e.link_target + ", which is not a file",
                         "the rocm-sdk-devel wheel is damaged; download it again");
      if (r.kind == Kind::kMissing || r.kind == Kind::kLoop)
        spdlog::warn("{}: the symlink /{} -> {} {}; it is kept as it is", e.origin, path, e.link_target,
                     r.kind == Kind::kLoop ? "is part of a loop" : "points to nothing");
      ++result.symlinks;
    }
    for (auto& [content_path, links] : groups) {
      result.hardlinks += links.size();
      std::string first = std::min(content_path, *std::min_element(links.begin(), links.end()));
      if (first != content_path) {
        Entry& from = tree.get(content_path);
        Entry& to = tree.get(first);
        to.type = EntryType::kFile;
        to.content = std::move(from.content);
        to.mode = from.mode;
        to.link_target.clear();
        links.push_back(content_path);  // from now on a link like the others
      }
      uint32_t mode = tree.get(first).mode;
      for (const auto& path : links) {
        if (path == first) continue;
        Entry& e = tree.get(path);
        e.type = EntryType::kHardlink;
        e.link_target = first;
        e.content.reset();
        e.mode = mode;
      }
      size_t owner = tree.owner(content_path);
      for (const auto& path : links) move_to[path] = owner;
    }
    move_entries();
  }

  // Moves the entries in move_to into their owners' entries (after all slots are used).
  void move_entries() {
    std::vector<std::vector<Entry>> moved(wheels.size());
    for (size_t w = 0; w < wheels.size(); ++w) {
      auto& entries = wheels[w].entries;
      auto keep = std::stable_partition(entries.begin(), entries.end(), [&](const Entry& e) {
        auto it = move_to.find(e.path);
        return it == move_to.end() || it->second == w;
      });
      for (auto it = keep; it != entries.end(); ++it) moved[move_to.at(it->path)].push_back(std::move(*it));
      entries.erase(keep, entries.end());
    }
    for (size_t w = 0; w < wheels.size(); ++w) {
      if (moved[w].empty()) continue;
      // The directories above a moved link, so that its layer has them with their modes.
      std::set<std::string> have;
      for (const auto& e : wheels[w].entries) have.insert(e.path);
      for (auto& e : moved[w]) {
        for (std::string dir = parent_of(e.path); !dir.empty() && have.insert(dir).second; dir = parent_of(dir)) {
          Entry d;
          d.path = dir;
          d.type = EntryType::kDirectory;
          d.mode = 0755;
          d.origin = e.origin;
          wheels[w].entries.push_back(std::move(d));
        }
        wheels[w].entries.push_back(std::move(e));
      }
    }
  }
};

// rocm-sdk-devel's tarball entry among `entries`, or entries.end().
std::vector<Entry>::const_iterator find_devel_tarball(const std::vector<Entry>& entries, const std::string& site) {
  for (const char* name : {"_devel.tar", "_devel.tar.xz"}) {
    std::string path = site + "/rocm_sdk_devel/" + name;
    auto it = std::find_if(entries.begin(), entries.end(),
                           [&](const Entry& e) { return e.path == path && e.type == EntryType::kFile && e.content; });
    if (it != entries.end()) return it;
  }
  return entries.end();
}

std::string tarball_name(const InstalledWheel& wheel, const std::string& site, const std::string& tarball_path) {
  return wheel.filename + ":" + tarball_path.substr(site.size() + 1);
}

}  // namespace

size_t own_shared_files(std::vector<InstalledWheel>& wheels, const std::string& site_packages) {
  const std::string path = normalize_image_path(site_packages, "site-packages") + "/_rocm_sdk_libraries/__init__.py";
  auto ships = [&](const InstalledWheel& w) {
    return std::any_of(w.entries.begin(), w.entries.end(), [&](const Entry& e) { return e.path == path; });
  };
  std::vector<size_t> shippers;
  for (size_t w = 0; w < wheels.size(); ++w)
    if (ships(wheels[w])) shippers.push_back(w);
  if (shippers.size() < 2) return 0;
  auto libraries = std::find_if(shippers.begin(), shippers.end(),
                                [&](size_t w) { return wheels[w].normalized_name == "rocm-sdk-libraries"; });
  size_t owner = libraries != shippers.end() ? *libraries : shippers.front();
  size_t dropped = 0;
  for (size_t w : shippers) {
    if (w == owner) continue;
    std::erase_if(wheels[w].entries, [&](const Entry& e) { return e.path == path; });
    ++dropped;
  }
  return dropped;
}

void prepare_devel(const ArchiveOpener& archives, const InstalledWheel& wheel, const std::string& site_packages) {
  if (wheel.normalized_name != "rocm-sdk-devel") return;
  std::string site = normalize_image_path(site_packages, "site-packages");
  auto it = find_devel_tarball(wheel.entries, site);
  if (it != wheel.entries.end()) archives.open(*it->content, tarball_name(wheel, site, it->path));
}

bool prepare_devel_file(const ArchiveOpener& archives, const std::filesystem::path& wheel_file, const std::string& filename,
                        const std::string& wheel_digest) {
  python::InstallOptions options;
  options.filename = filename;
  options.wheel_digest = wheel_digest;
  options.strict_record = true;
  // Any scheme will do: only the tarball member's content (and its key) is used.
  const auto scheme = python::InstallScheme::venv("/rockpack-devel", 3, 0);
  python::InstalledWheel wheel = python::install_wheel(wheel_file, scheme, options);
  const std::string site = scheme.purelib.substr(1);
  if (wheel.normalized_name != "rocm-sdk-devel" || find_devel_tarball(wheel.entries, site) == wheel.entries.end()) return false;
  prepare_devel(archives, wheel, site);
  return true;
}

DevelExpansion expand_devel(const ArchiveOpener& archives, std::vector<InstalledWheel>& wheels, const std::string& site_packages) {
  std::string site = normalize_image_path(site_packages, "site-packages");
  auto devel_it = std::find_if(wheels.begin(), wheels.end(),
                               [](const InstalledWheel& w) { return w.normalized_name == "rocm-sdk-devel"; });
  if (devel_it == wheels.end()) return {};
  size_t devel = static_cast<size_t>(devel_it - wheels.begin());

  // Take the tarball out of the wheel: the image gets the tree instead.
  auto& entries = wheels[devel].entries;
  auto it = find_devel_tarball(entries, site);
  if (it == entries.end()) return {};
  std::shared_ptr<const ContentSource> tarball = it->content;
  std::string tarball_path = it->path;
  entries.erase(it);
  std::string what = tarball_name(wheels[devel], site, tarball_path);
  std::unique_ptr<MemberArchive> tar = archives.open(*tarball, what);

  // Room for the tree up front: 20,000 entries moved at each growth of the vector add up.
  wheels[devel].entries.reserve(wheels[devel].entries.size() + tar->members().size());
  Expander x(wheels, site);
  for (const auto& m : tar->members()) x.add_member(devel, m, *tar, what);

  // Device links come after the tree, as `rocm-sdk init` makes them; in path order for a stable result.
  std::string links_dir = site + "/_rocm_sdk_libraries/.devel_links/";
  std::vector<std::pair<std::string, size_t>> specs;
  for (size_t w = 0; w < wheels.size(); ++w)
    for (const auto& e : wheels[w].entries)
      if (e.type == EntryType::kFile && e.path.rfind(links_dir, 0) == 0 && e.path.ends_with(".json") &&
          e.path.find('/', links_dir.size()) == std::string::npos)
        specs.emplace_back(e.path, w);
  std::sort(specs.begin(), specs.end());
  for (const auto& [path, w] : specs) {
    Entry spec = x.tree.get(path);  // a copy: adding links may grow the wheel's entries
    x.add_device_links(w, spec);
  }

  // `rocm-sdk init` leaves the lock file it took to link device files (in no RECORD): present, the
  // run-time check finds the tree reconciled and takes no lock (a read-only image cannot).
  if (!specs.empty()) {
    Entry lock;
    lock.path = site + "/" + kDevelRoot + "/.devel_reconcile.lock";
    lock.type = EntryType::kFile;
    lock.mode = 0644;
    lock.content = std::make_shared<InlineContent>(std::string());
    lock.origin = wheels[devel].filename;
    x.tree.put(devel, std::move(lock));
  }

  x.resolve_links();

  // As after `rocm-sdk init`: the RECORDs gain `path,,` rows, and rocm-sdk-devel's still lists the
  // tarball it no longer has (pip tolerates the missing file when uninstalling).
  std::map<size_t, std::vector<std::string>> recorded = {{devel, {}}};
  for (const auto& [path, w] : x.added) recorded[w].push_back(path);
  for (const auto& [w, paths] : recorded) update_record(wheels[w], {}, paths);
  std::erase(wheels[devel].files, tarball_path);
  x.result.expanded = true;
  return x.result;
}

}  // namespace rp::therock
