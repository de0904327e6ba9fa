#include "sandbox/tree_diff.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <set>
#include <unordered_map>

#include "util/error.hpp"
#include "util/strings.hpp"

namespace fs = std::filesystem;

namespace rp {
namespace {

PathStat stat_of(const fs::path& path, const struct stat& st) {
  PathStat s;
  s.mode = st.st_mode;
  s.uid = st.st_uid;
  s.gid = st.st_gid;
  s.size = static_cast<uint64_t>(st.st_size);
  s.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  s.ctime_ns = static_cast<int64_t>(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec;
  s.ino = st.st_ino;
  s.nlink = st.st_nlink;
  if (S_ISLNK(st.st_mode)) s.link_target = fs::read_symlink(path).string();
  return s;
}

void walk(const fs::path& root, const std::string& rel, dev_t device, const std::set<std::string>& skip,
          TreeSnapshot& out) {
  std::error_code ec;
  for (fs::directory_iterator it(rel.empty() ? root : root / rel, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    std::string child = rel.empty() ? name : rel + "/" + name;
    struct stat st {};
    if (::lstat(it->path().c_str(), &st) != 0) continue;  // vanished while walking
    PathStat& s = out[child] = stat_of(it->path(), st);
    // Birth time tells a directory removed and made again from the old one when the inode number
    // was reused (tmpfs and ext4 do reuse them at once).
    struct statx sx {};
    if (S_ISDIR(st.st_mode) && ::statx(AT_FDCWD, it->path().c_str(), AT_SYMLINK_NOFOLLOW, STATX_BTIME, &sx) == 0 &&
        (sx.stx_mask & STATX_BTIME))
      s.btime_ns = static_cast<int64_t>(sx.stx_btime.tv_sec) * 1000000000 + sx.stx_btime.tv_nsec;
    if (S_ISDIR(st.st_mode) && st.st_dev == device && !skip.count(child)) walk(root, child, device, skip, out);
  }
  if (ec) throw Error("cannot read directory " + (root / rel).string() + ": " + ec.message());
}

bool same_identity(const PathStat& a, const PathStat& b) {
  return a.mode == b.mode && a.uid == b.uid && a.gid == b.gid && a.size == b.size && a.mtime_ns == b.mtime_ns &&
         a.ctime_ns == b.ctime_ns && a.ino == b.ino && a.btime_ns == b.btime_ns && a.link_target == b.link_target;
}

std::string parent_of(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

std::string join(const std::string& dir, const std::string& name) { return dir.empty() ? name : dir + "/" + name; }

bool under(const std::string& path, const std::string& dir) {
  return path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 && path[dir.size()] == '/';
}

bool in_new_pycache(const std::string& path, const TreeSnapshot& before) {
  // The nearest "__pycache__" component that did not exist before the step.
  std::string prefix;
  size_t start = 0;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    std::string part = path.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
    prefix = prefix.empty() ? part : prefix + "/" + part;
    if (part == "__pycache__" && !before.count(prefix)) return true;
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  return false;
}

Entry entry_for(const fs::path& root, const std::string& path, const PathStat& s, const std::string& origin) {
  Entry e;
  e.path = path;
  e.mode = s.mode & 07777;
  e.uid = s.uid;
  e.gid = s.gid;
  e.origin = origin;
  if (S_ISDIR(s.mode)) {
    e.type = EntryType::kDirectory;
  } else if (S_ISLNK(s.mode)) {
    e.type = EntryType::kSymlink;
    e.link_target = s.link_target;
  } else if (S_ISREG(s.mode)) {
    e.type = EntryType::kFile;
    e.content = std::make_shared<HostFileContent>(
        (root / path).string(), s.size,
        "ino=" + std::to_string(s.ino) + " size=" + std::to_string(s.size) + " mtime=" + std::to_string(s.mtime_ns) +
            " ctime=" + std::to_string(s.ctime_ns));
  } else {
    throw Error(origin + ": the step created " + path + ", a device, socket or fifo, which a layer cannot hold",
                "remove it at the end of the step's script");
  }
  return e;
}

Entry whiteout(const std::string& path, const std::string& origin) {
  Entry e;
  e.path = path;
  e.mode = 0644;
  e.origin = origin;
  e.content = std::make_shared<InlineContent>("");
  return e;
}

}  // namespace

TreeSnapshot snapshot_tree(const fs::path& root, const std::vector<std::string>& skip) {
  struct stat st {};
  if (::lstat(root.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw Error("cannot snapshot " + root.string() + ": not a directory");
  TreeSnapshot out;
  walk(root, "", st.st_dev, std::set<std::string>(skip.begin(), skip.end()), out);
  return out;
}

bool is_build_litter(const std::string& path) {
  // (var/cache/ldconfig holds aux-cache, ldconfig's record of file inodes and ctimes: never the same twice.)
  for (const char* dir : {"tmp", "var/cache/apt", "var/cache/ldconfig", "var/lib/apt/lists", "var/log"})
    if (under(path, dir)) return true;
  // dpkg's and debconf's backups of their databases (status-old, config.dat-old, ...).
  for (const char* dir : {"var/lib/dpkg/", "var/cache/debconf/"}) {
    std::string_view p(path), d(dir);
    if (p.size() > d.size() + 4 && p.compare(0, d.size(), d) == 0 && p.find('/', d.size()) == std::string_view::npos &&
        p.substr(p.size() - 4) == "-old")
      return true;
  }
  return false;
}

std::vector<Entry> diff_trees(const fs::path& root, const TreeSnapshot& before, const TreeSnapshot& after,
                              const DiffOptions& options) {
  auto dropped = [&](const std::string& path) {
    if (!options.keep_litter && is_build_litter(path)) return true;
    if (!options.keep_pycache && in_new_pycache(path, before)) return true;
    return false;
  };

  // Directories that existed before and were replaced by a new directory (other inode): opaque.
  std::set<std::string> opaque;
  std::vector<std::string> changed;
  for (const auto& [path, now] : after) {
    auto old = before.find(path);
    if (old != before.end() && same_identity(old->second, now)) continue;
    if (dropped(path)) continue;
    // /tmp itself: the command sees the image's /tmp, and writing there touches its times only;
    // a changed mode or owner is kept.
    if (!options.keep_litter && path == "tmp" && old != before.end() && old->second.mode == now.mode &&
        old->second.uid == now.uid && old->second.gid == now.gid)
      continue;
    if (old != before.end() && S_ISDIR(old->second.mode) && S_ISDIR(now.mode) && (old->second.ino != now.ino || old->second.btime_ns != now.btime_ns))
      opaque.insert(path);
    changed.push_back(path);
  }

  std::vector<Entry> entries;
  std::set<std::string> emitted;
  auto emit_with_parents = [&](const std::string& path) {
    // Parents keep the mode and owner they have in the tree (finalize_entries would make them 0755 root).
    std::vector<std::string> chain;
    for (std::string p = parent_of(path); !p.empty() && !emitted.count(p); p = parent_of(p)) chain.push_back(p);
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
      auto found = after.find(*it);
      if (found == after.end()) continue;
      entries.push_back(entry_for(root, *it, found->second, options.origin));
      emitted.insert(*it);
    }
    if (emitted.insert(path).second) entries.push_back(entry_for(root, path, after.at(path), options.origin));
  };

  // Hard links among the emitted files: the first path (bytewise) of an inode carries the content.
  std::unordered_map<uint64_t, std::string> first_of_inode;
  for (const auto& path : changed) {
    if (emitted.count(path)) continue;
    emit_with_parents(path);
    Entry& e = entries.back();
    const PathStat& s = after.at(path);
    if (e.type != EntryType::kFile || s.nlink < 2) continue;
    auto [it, inserted] = first_of_inode.emplace(s.ino, path);
    if (!inserted) {
      e.type = EntryType::kHardlink;
      e.link_target = it->second;
      e.content.reset();
    }
  }
  for (const auto& dir : opaque) {
    emit_with_parents(dir);
    entries.push_back(whiteout(dir + "/.wh..wh..opq", options.origin));
  }

  // Deletions: one whiteout for the topmost deleted path; nothing inside an opaque directory.
  std::string last_deleted;
  for (const auto& [path, old] : before) {
    if (after.count(path)) continue;
    if (!last_deleted.empty() && under(path, last_deleted)) continue;
    last_deleted = path;
    if (dropped(path)) continue;
    bool in_opaque = false;
    for (std::string p = parent_of(path); !p.empty(); p = parent_of(p))
      if (opaque.count(p)) in_opaque = true;
    if (in_opaque) continue;
    std::string parent = parent_of(path);
    if (!parent.empty()) emit_with_parents(parent);
    entries.push_back(whiteout(join(parent, ".wh." + path_base(path)), options.origin));
  }
  finalize_entries(entries);
  return entries;
}

}  // namespace rp
