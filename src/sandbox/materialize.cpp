#include "sandbox/materialize.hpp"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

#include "entries/archive_member.hpp"
#include "entries/path_parts.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace fs = std::filesystem;

namespace rp {
namespace {

class FdSink final : public ByteSink {
 public:
  FdSink(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  using ByteSink::write;
  void write(const void* data, size_t size) override {
    auto* bytes = static_cast<const char*>(data);
    while (size > 0) {
      ssize_t n = ::write(fd_, bytes, size);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw Error("cannot write " + path_ + ": " + strerror(errno));
      bytes += n;
      size -= static_cast<size_t>(n);
    }
  }

 private:
  int fd_;
  std::string path_;
};

// One path to write, from a planned entry or a layer tar's member.
struct Member {
  std::string path;  // relative, normalized
  EntryType type = EntryType::kFile;
  uint32_t mode = 0644;
  uint32_t uid = 0, gid = 0;
  std::string link;  // symlink target as written; hardlink target path (relative)
  std::map<std::string, std::string> xattrs;
  std::string origin;
  std::optional<int64_t> mtime;  // files and symlinks; unset: the time of writing
};

// Writes into a root directory the way a container runtime extracts a layer: symlinks in a path's
// parent directories are followed, but always inside the root (openat2's RESOLVE_IN_ROOT: an
// absolute link such as lib -> /usr/lib means <root>/usr/lib, and ".." stops at the root), so an
// image can never make rockpack write outside `root`. Missing parents become 0755 root directories.
class RootWriter {
 public:
  RootWriter(const fs::path& root, const IdMapping& ids) : root_(root), ids_(ids) {
    rootfd_ = UniqueFd(::open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (rootfd_.get() < 0) throw Error("cannot open the sandbox's root " + root.string() + ": " + strerror(errno));
  }

  // The directory holding `path`, opened (O_PATH) with symlinks resolved inside the root, created
  // when missing (or, without `create`, an fd of -1); `name` gets the last component.
  UniqueFd parent(const Member& m, std::string& name, bool create = true) {
    auto parts = path_components(m.path);
    if (parts.empty()) fail(m, "empty path");
    name = parts.back();
    parts.pop_back();
    // Entries come sorted, so most share the previous one's directory: reuse its descriptor.
    std::string parent_rel = join(parts, "/");
    if (cached_.get() >= 0 && parent_rel == cached_rel_) return UniqueFd(::fcntl(cached_.get(), F_DUPFD_CLOEXEC, 0));
    UniqueFd dir = directory(m, parts, create, 0);
    if (dir.get() < 0) return dir;
    cached_rel_ = parent_rel;
    cached_ = UniqueFd(::fcntl(dir.get(), F_DUPFD_CLOEXEC, 0));
    return dir;
  }

  // The directory at `parts` (relative to the root), symlinks resolved inside the root; missing
  // directories are made (or, without `create`, -1 is returned). A dangling symlink on the way is
  // made to point at a new directory, as container runtimes extract a layer whose `lib -> usr/lib`
  // comes before usr/lib does.
  UniqueFd directory(const Member& m, const std::vector<std::string>& parts, bool create, int depth) {
    if (depth > 40) fail(m, "too many levels of symbolic links");
    UniqueFd dir(::fcntl(rootfd_.get(), F_DUPFD_CLOEXEC, 0));
    std::string so_far;
    for (size_t i = 0; i < parts.size(); ++i) {
      const std::string& part = parts[i];
      std::string parent_so_far = so_far;
      so_far += (so_far.empty() ? "" : "/") + part;
      UniqueFd next = open_in_root(so_far);
      if (next.get() < 0 && errno == ENOENT) {
        if (!create) return UniqueFd();
        char target[4096];
        ssize_t n = ::readlinkat(dir.get(), part.c_str(), target, sizeof target - 1);
        if (n > 0) {
          // A dangling link: make what it points to (its path taken lexically, ".." stopping at the root).
          std::string link(target, static_cast<size_t>(n));
          std::vector<std::string> resolved = link[0] == '/' ? std::vector<std::string>{} : path_components(parent_so_far);
          for (const auto& c : path_components(link)) {
            if (c != "..") resolved.push_back(c);
            else if (!resolved.empty()) resolved.pop_back();
          }
          (void)directory(m, resolved, true, depth + 1);
        } else if (::mkdirat(dir.get(), part.c_str(), 0755) != 0 && errno != EEXIST) {
          fail(m, "cannot create " + so_far + ": " + strerror(errno));
        } else if (is_root_ && ids_.uids.size > 0) {
          (void)::fchownat(dir.get(), part.c_str(), ids_.uids.to_host(0), ids_.gids.to_host(0), AT_SYMLINK_NOFOLLOW);
        }
        next = open_in_root(so_far);
      }
      if (next.get() < 0) {
        if (errno == ENOTDIR || errno == ENOENT) fail(m, so_far + " is not a directory (nor a symlink to one)");
        fail(m, "cannot open " + so_far + ": " + strerror(errno));
      }
      dir = std::move(next);
    }
    return dir;
  }

  // Something was removed or replaced by a link: a cached directory may no longer be the path's.
  void forget_cached_parent() { cached_ = UniqueFd(); }

  // Removes what is at `name` in `dir` (a whole directory tree included), unless it is a directory
  // and `keep_directory`.
  void remove(int dir, const std::string& name, bool keep_directory) {
    struct stat st {};
    if (::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return;
    if (S_ISDIR(st.st_mode) && keep_directory) return;
    forget_cached_parent();
    if (S_ISDIR(st.st_mode)) {
      if (keep_directory) return;
      std::error_code ec;
      fs::remove_all(fd_path(dir) / name, ec);
    } else {
      ::unlinkat(dir, name.c_str(), 0);
    }
  }

  // Writes one member; `write_content` fills a regular file's descriptor.
  void write(const Member& m, const std::function<void(int fd, const std::string& where)>& write_content) {
    std::string name;
    UniqueFd dir = parent(m, name);
    const int d = dir.get();
    uint32_t mode = m.mode & 07777;
    if (!is_root_ && m.type == EntryType::kDirectory) mode |= 0700;  // rootless: we must still write into it
    switch (m.type) {
      case EntryType::kDirectory: {
        remove(d, name, true);
        if (::mkdirat(d, name.c_str(), 0700) != 0 && errno != EEXIST) fail(m, strerror(errno));
        owner_and_mode(m, d, name, mode);
        break;
      }
      case EntryType::kFile: {
        remove(d, name, false);
        UniqueFd fd(::openat(d, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600));
        if (fd.get() < 0) fail(m, strerror(errno));
        write_content(fd.get(), m.path);
        for (const auto& [key, value] : m.xattrs)
          (void)::fsetxattr(fd.get(), key.c_str(), value.data(), value.size(), 0);  // best effort: tmpfs lacks some
        if (::fchown(fd.get(), ids_.uids.to_host(m.uid), ids_.gids.to_host(m.gid)) != 0 && is_root_) fail(m, strerror(errno));
        if (::fchmod(fd.get(), mode) != 0) fail(m, strerror(errno));  // after chown, which clears setuid
        if (m.mtime) {
          const timespec times[2] = {{*m.mtime, 0}, {*m.mtime, 0}};
          if (::futimens(fd.get(), times) != 0) fail(m, strerror(errno));
        }
        break;
      }
      case EntryType::kSymlink:
        remove(d, name, false);
        if (::symlinkat(m.link.c_str(), d, name.c_str()) != 0) fail(m, strerror(errno));
        if (::fchownat(d, name.c_str(), ids_.uids.to_host(m.uid), ids_.gids.to_host(m.gid), AT_SYMLINK_NOFOLLOW) != 0 &&
            is_root_)
          fail(m, strerror(errno));
        if (m.mtime) {
          const timespec times[2] = {{*m.mtime, 0}, {*m.mtime, 0}};
          (void)::utimensat(d, name.c_str(), times, AT_SYMLINK_NOFOLLOW);  // best effort: nothing reads a link's
        }
        break;
      case EntryType::kHardlink: {
        Member target{m.link, EntryType::kFile, 0, 0, 0, {}, {}, m.origin, {}};
        std::string target_name;
        UniqueFd target_dir = parent(target, target_name);
        remove(d, name, false);
        if (::linkat(target_dir.get(), target_name.c_str(), d, name.c_str(), 0) != 0)
          fail(m, "cannot link to " + m.link + ": " + strerror(errno));
        break;  // the link shares its target's owner and mode
      }
    }
  }

  fs::path fd_path(int fd) const { return fs::path("/proc/self/fd") / std::to_string(fd); }

  [[noreturn]] static void fail(const Member& m, const std::string& what) {
    throw Error("cannot write " + m.path + (m.origin.empty() ? "" : " (" + m.origin + ")") +
                " into the sandbox's root: " + what);
  }

 private:
  UniqueFd open_in_root(const std::string& rel) const {
    open_how how{};
    how.flags = O_PATH | O_DIRECTORY | O_CLOEXEC;
    how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV;
    long fd = ::syscall(SYS_openat2, rootfd_.get(), rel.c_str(), &how, sizeof how);
    if (fd < 0 && errno == ENOSYS)
      throw Error("the kernel lacks openat2(2) (Linux 5.6 or newer is needed to build a sandbox's root safely)");
    return UniqueFd(static_cast<int>(fd));
  }

  void owner_and_mode(const Member& m, int d, const std::string& name, uint32_t mode) {
    if (::fchownat(d, name.c_str(), ids_.uids.to_host(m.uid), ids_.gids.to_host(m.gid), AT_SYMLINK_NOFOLLOW) != 0 && is_root_)
      fail(m, strerror(errno));
    if (::fchmodat(d, name.c_str(), mode, 0) != 0) fail(m, strerror(errno));
  }

  fs::path root_;
  IdMapping ids_;
  UniqueFd rootfd_;
  std::string cached_rel_;  // the directory `cached_` is, relative to the root
  UniqueFd cached_;
  bool is_root_ = ::geteuid() == 0;
};

constexpr const char* kOpaque = ".wh..wh..opq";

// Removes every child of `dir` (relative) except those named in `keep`.
void clear_directory(RootWriter& writer, const std::string& dir, const std::set<std::string>& keep, const std::string& origin) {
  Member marker{dir + "/" + kOpaque, EntryType::kFile, 0, 0, 0, {}, {}, origin, {}};
  std::string ignored;
  UniqueFd d = writer.parent(marker, ignored, false);
  if (d.get() < 0) return;
  std::error_code ec;
  std::vector<std::string> names;
  for (fs::directory_iterator it(writer.fd_path(d.get()), ec), end; !ec && it != end; it.increment(ec))
    names.push_back(it->path().filename().string());
  for (const auto& n : names)
    if (!keep.count(n)) writer.remove(d.get(), n, false);
}

void apply_whiteout(RootWriter& writer, const std::string& path, const std::string& origin) {
  std::string base = path_base(path);
  Member hidden{parent_key(path).empty() ? base.substr(4) : parent_key(path) + "/" + base.substr(4),
                EntryType::kFile, 0, 0, 0, {}, {}, origin, std::nullopt};
  std::string name;
  UniqueFd d = writer.parent(hidden, name, false);
  if (d.get() >= 0) writer.remove(d.get(), name, false);
}

bool is_number(const std::string& s) { return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos; }

constexpr size_t kMaxAccountFile = 4u << 20;

// The text of `rel` (etc/passwd, etc/group) in the image at `root`: opened inside the root
// (RESOLVE_IN_ROOT: an image's /etc/passwd -> /etc/shadow link means the image's own file, never the
// host's), without blocking (O_NONBLOCK: a FIFO does not hang the build), a regular file only, at
// most kMaxAccountFile bytes. nullopt when the image has no such file.
std::optional<std::string> read_account_file(const fs::path& root, const std::string& rel, const std::string& origin) {
  UniqueFd rootfd(::open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (rootfd.get() < 0) throw Error("cannot open the sandbox's root " + root.string() + ": " + strerror(errno));
  open_how how{};
  how.flags = O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
  how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV;
  long raw = ::syscall(SYS_openat2, rootfd.get(), rel.c_str(), &how, sizeof how);
  if (raw < 0 && errno == ENOENT) return std::nullopt;
  if (raw < 0) throw InputError(origin + ": cannot open the image's /" + rel + ": " + strerror(errno));
  UniqueFd fd(static_cast<int>(raw));
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode))
    throw InputError(origin + ": the image's /" + rel + " is not a regular file", "make it a plain file in an earlier step");
  if (static_cast<uint64_t>(st.st_size) > kMaxAccountFile)
    throw InputError(origin + ": the image's /" + rel + " has " + std::to_string(st.st_size) + " bytes, more than the " +
                     std::to_string(kMaxAccountFile) + " read to look a user up");
  std::string text(static_cast<size_t>(st.st_size), '\0');
  size_t got = 0;
  while (got < text.size()) {
    ssize_t n = ::read(fd.get(), text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  text.resize(got);
  return text;
}

// The numeric field `field` (2 = uid/gid, 3 = primary gid) of `name` in a passwd/group style text.
std::optional<uint32_t> lookup(const std::optional<std::string>& text, const std::string& name, int field) {
  if (!text) return std::nullopt;
  std::istringstream in(*text);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> parts;
    std::stringstream fields(line);
    for (std::string part; std::getline(fields, part, ':');) parts.push_back(part);
    if (parts.size() > static_cast<size_t>(field) && parts[0] == name && is_number(parts[field]) && parts[field].size() < 10)
      return static_cast<uint32_t>(std::stoul(parts[field]));
  }
  return std::nullopt;
}

}  // namespace

void materialize_layer(const std::vector<Entry>& entries, const fs::path& root, const IdMapping& ids,
                       std::optional<int64_t> mtime) {
  RootWriter writer(root, ids);
  // Whiteouts hide what lower layers hold, never what this layer itself adds: apply them first.
  for (const auto& e : entries) {
    std::string base = path_base(e.path);
    if (base.rfind(".wh.", 0) != 0) continue;
    if (base == kOpaque) clear_directory(writer, parent_key(e.path), {}, e.origin);
    else apply_whiteout(writer, e.path, e.origin);
  }
  for (const auto& e : entries) {
    if (path_base(e.path).rfind(".wh.", 0) == 0) continue;
    Member m{e.path, e.type, e.mode, e.uid, e.gid, e.link_target, e.xattrs, e.origin, mtime};
    writer.write(m, [&](int fd, const std::string& where) {
      FdSink sink(fd, where);
      if (e.content) e.content->write_to(sink);
    });
  }
}

void materialize_archive(archive* a, const fs::path& root, const std::string& where, const IdMapping& ids) {
  RootWriter writer(root, ids);
  // A layer's whiteouts hide lower layers only. Members come in the tar's order, so an opaque marker
  // may follow children of its directory that this layer wrote: those are kept.
  std::set<std::string> written;  // paths this layer wrote
  archive_entry* e;
  int r;
  std::vector<char> chunk(1 << 20);
  while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK || r == ARCHIVE_WARN) {
    const char* raw = archive_entry_pathname(e);
    std::string path;
    bool escapes = false;
    for (const auto& part : path_components(raw ? raw : "")) {
      if (part == "..") escapes = true;
      path += (path.empty() ? "" : "/") + part;
    }
    if (path.empty() || escapes) continue;  // the root itself; traversal members are refused when the base is checked
    std::string base = path_base(path);
    if (base == kOpaque) {
      std::set<std::string> keep;
      std::string dir = parent_key(path);
      std::string prefix = dir.empty() ? "" : dir + "/";
      for (auto it = written.lower_bound(prefix); it != written.end() && it->compare(0, prefix.size(), prefix) == 0; ++it)
        keep.insert(path_components(it->substr(prefix.size())).front());
      clear_directory(writer, dir, keep, where);
      continue;
    }
    if (base.rfind(".wh.", 0) == 0) {
      apply_whiteout(writer, path, where);
      continue;
    }
    Member m;
    m.path = path;
    m.origin = where;
    m.mode = archive_entry_perm(e) & 07777;
    m.uid = static_cast<uint32_t>(archive_entry_uid(e));
    m.gid = static_cast<uint32_t>(archive_entry_gid(e));
    if (archive_entry_mtime_is_set(e)) m.mtime = static_cast<int64_t>(archive_entry_mtime(e));
    auto type = archive_member_type(e);
    if (!type) continue;  // devices and fifos: the sandbox brings its own /dev
    m.type = *type;
    if (m.type == EntryType::kHardlink)
      for (const auto& part : path_components(archive_entry_hardlink(e))) m.link += (m.link.empty() ? "" : "/") + part;
    else if (m.type == EntryType::kSymlink)
      m.link = archive_entry_symlink(e) ? archive_entry_symlink(e) : "";
    archive_entry_xattr_reset(e);
    const char* xname;
    const void* xvalue;
    size_t xsize;
    while (archive_entry_xattr_next(e, &xname, &xvalue, &xsize) == ARCHIVE_OK)
      m.xattrs[xname] = std::string(static_cast<const char*>(xvalue), xsize);
    writer.write(m, [&](int fd, const std::string& file) {
      FdSink sink(fd, file);
      la_ssize_t n;
      while ((n = archive_read_data(a, chunk.data(), chunk.size())) > 0) sink.write(chunk.data(), static_cast<size_t>(n));
      if (n < 0) throw Error("cannot read " + file + " in " + where + ": " + archive_error_string(a));
    });
    written.insert(path);
  }
  if (r != ARCHIVE_EOF)
    throw Error("cannot read " + where + ": " + (archive_error_string(a) ? archive_error_string(a) : "unknown error"));
}

SandboxUser resolve_user(const fs::path& root, const std::string& user, const std::string& origin) {
  SandboxUser result;
  if (user.empty()) return result;
  auto colon = user.find(':');
  std::string name = user.substr(0, colon);
  std::string group = colon == std::string::npos ? std::string() : user.substr(colon + 1);
  if (is_number(name) && name.size() < 10) {
    result.uid = static_cast<uint32_t>(std::stoul(name));
    result.gid = result.uid;
  } else {
    auto passwd = read_account_file(root, "etc/passwd", origin);
    auto uid = lookup(passwd, name, 2);
    if (!uid)
      throw InputError(origin + ": user '" + name + "' is not in the image's /etc/passwd",
                       "create the user in an earlier step (accounts:), or give a numeric uid");
    result.uid = *uid;
    result.gid = lookup(passwd, name, 3).value_or(*uid);
  }
  if (!group.empty()) {
    if (is_number(group) && group.size() < 10) {
      result.gid = static_cast<uint32_t>(std::stoul(group));
    } else {
      auto gid = lookup(read_account_file(root, "etc/group", origin), group, 2);
      if (!gid)
        throw InputError(origin + ": group '" + group + "' is not in the image's /etc/group",
                         "create the group in an earlier step (accounts:), or give a numeric gid");
      result.gid = *gid;
    }
  }
  return result;
}

}  // namespace rp
