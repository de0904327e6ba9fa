#include "sandbox/materialize.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>

#include "util/error.hpp"

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

[[noreturn]] void fail(const Entry& e, const std::string& what) {
  throw Error("cannot write " + e.path + " (" + e.origin + ") into the sandbox's root: " + what);
}

// Refuses a path whose parent directories include a symlink: writing through it could leave `root`.
void check_parents(const fs::path& root, const Entry& e) {
  fs::path at = root;
  fs::path rel(e.path);
  for (auto it = rel.begin(); it != rel.end() && std::next(it) != rel.end(); ++it) {
    at /= *it;
    struct stat st {};
    if (::lstat(at.c_str(), &st) != 0) return;  // created below
    if (!S_ISDIR(st.st_mode)) fail(e, at.string() + " is not a directory");
  }
}

void remove_existing(const fs::path& path, bool keep_directory) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return;
  if (keep_directory && S_ISDIR(st.st_mode)) return;
  fs::remove_all(path);
}

void write_entry(const Entry& e, const fs::path& root) {
  check_parents(root, e);
  fs::path path = root / e.path;
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  if (ec) fail(e, ec.message());
  switch (e.type) {
    case EntryType::kDirectory:
      remove_existing(path, true);
      if (::mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) fail(e, strerror(errno));
      break;
    case EntryType::kFile: {
      remove_existing(path, false);
      int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
      if (fd < 0) fail(e, strerror(errno));
      try {
        FdSink sink(fd, path.string());
        if (e.content) e.content->write_to(sink);
      } catch (...) {
        ::close(fd);
        throw;
      }
      ::close(fd);
      break;
    }
    case EntryType::kSymlink:
      remove_existing(path, false);
      if (::symlink(e.link_target.c_str(), path.c_str()) != 0) fail(e, strerror(errno));
      break;
    case EntryType::kHardlink:
      remove_existing(path, false);
      if (::link((root / e.link_target).c_str(), path.c_str()) != 0) fail(e, strerror(errno));
      return;  // the link shares its target's owner and mode
  }
  if (::lchown(path.c_str(), e.uid, e.gid) != 0 && geteuid() == 0) fail(e, strerror(errno));
  if (e.type != EntryType::kSymlink && ::chmod(path.c_str(), e.mode) != 0) fail(e, strerror(errno));
}

std::string base_of(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string parent_of(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

bool is_number(const std::string& s) { return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos; }

// The numeric field `field` (2 = uid/gid, 3 = primary gid) of `name` in a passwd/group style file.
std::optional<uint32_t> lookup(const fs::path& file, const std::string& name, int field) {
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> parts;
    std::stringstream fields(line);
    for (std::string part; std::getline(fields, part, ':');) parts.push_back(part);
    if (parts.size() > static_cast<size_t>(field) && parts[0] == name && is_number(parts[field]))
      return static_cast<uint32_t>(std::stoul(parts[field]));
  }
  return std::nullopt;
}

}  // namespace

void materialize_layer(const std::vector<Entry>& entries, const fs::path& root) {
  // Whiteouts hide what lower layers hold, never what this layer itself adds: apply them first.
  for (const auto& e : entries) {
    std::string base = base_of(e.path);
    if (base.rfind(".wh.", 0) != 0) continue;
    check_parents(root, e);
    fs::path dir = root / parent_of(e.path);
    if (base == ".wh..wh..opq") {
      std::error_code ec;
      for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) fs::remove_all(it->path());
    } else {
      fs::remove_all(dir / base.substr(4));
    }
  }
  for (const auto& e : entries)
    if (base_of(e.path).rfind(".wh.", 0) != 0) write_entry(e, root);
}

SandboxUser resolve_user(const fs::path& root, const std::string& user, const std::string& origin) {
  SandboxUser result;
  if (user.empty()) return result;
  auto colon = user.find(':');
  std::string name = user.substr(0, colon);
  std::string group = colon == std::string::npos ? std::string() : user.substr(colon + 1);
  if (is_number(name)) {
    result.uid = static_cast<uint32_t>(std::stoul(name));
    result.gid = result.uid;
  } else {
    auto uid = lookup(root / "etc/passwd", name, 2);
    if (!uid)
      throw InputError(origin + ": user '" + name + "' is not in the image's /etc/passwd",
                       "create the user in an earlier step, or give a numeric uid");
    result.uid = *uid;
    result.gid = lookup(root / "etc/passwd", name, 3).value_or(*uid);
  }
  if (!group.empty()) {
    if (is_number(group)) {
      result.gid = static_cast<uint32_t>(std::stoul(group));
    } else {
      auto gid = lookup(root / "etc/group", group, 2);
      if (!gid)
        throw InputError(origin + ": group '" + group + "' is not in the image's /etc/group",
                         "create the group in an earlier step, or give a numeric gid");
      result.gid = *gid;
    }
  }
  return result;
}

}  // namespace rp
