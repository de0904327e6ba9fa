#include "plan/host_files.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <map>

#include "util/error.hpp"

namespace rp {

namespace {

// Changes whenever the file's content may have: ctime moves on every write and cannot be set back.
std::string stat_identity(const fs::path& host, const struct stat& st) {
  return "stat:" + host.string() + ":" + std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino) + ":" +
         std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_sec) + "." +
         std::to_string(st.st_mtim.tv_nsec) + ":" + std::to_string(st.st_ctim.tv_sec) + "." +
         std::to_string(st.st_ctim.tv_nsec);
}

struct Walker {
  const HostCopy& copy;
  std::vector<Entry>& out;
  // (device, inode) -> index of every entry that is that file, to turn groups into hardlinks.
  std::map<std::pair<dev_t, ino_t>, std::vector<size_t>> links;

  Entry base_entry(const std::string& path, const struct stat& st) const {
    Entry e;
    e.path = path;
    e.mode = st.st_mode & 07777;
    e.uid = copy.uid;
    e.gid = copy.gid;
    e.origin = copy.origin;
    return e;
  }

  void visit(const fs::path& host, const std::string& dest) {
    struct stat st;
    if (::lstat(host.c_str(), &st) != 0)
      throw InputError(copy.origin + ": cannot read " + host.string() + ": " + std::strerror(errno));
    Entry e = base_entry(dest, st);
    if (S_ISREG(st.st_mode)) {
      e.type = EntryType::kFile;
      if (::access(host.c_str(), R_OK) != 0)
        throw InputError(copy.origin + ": " + host.string() + " is not readable");
      e.content = std::make_shared<HostFileContent>(host.string(), static_cast<uint64_t>(st.st_size),
                                                    stat_identity(host, st));
      if (st.st_nlink > 1) links[{st.st_dev, st.st_ino}].push_back(out.size());
      out.push_back(std::move(e));
    } else if (S_ISLNK(st.st_mode)) {
      std::string target(static_cast<size_t>(st.st_size) + 1, '\0');
      ssize_t n = ::readlink(host.c_str(), target.data(), target.size());
      if (n < 0) throw InputError(copy.origin + ": cannot read link " + host.string());
      target.resize(static_cast<size_t>(n));
      e.type = EntryType::kSymlink;
      e.mode = 0777;
      e.link_target = target;
      out.push_back(std::move(e));
    } else if (S_ISDIR(st.st_mode)) {
      e.type = EntryType::kDirectory;
      bool is_root = dest.empty();  // the image root itself is never an entry
      if (!is_root) out.push_back(std::move(e));
      std::vector<std::string> names;
      std::error_code ec;
      for (auto it = fs::directory_iterator(host, ec); !ec && it != fs::directory_iterator(); it.increment(ec))
        names.push_back(it->path().filename().string());
      if (ec) throw InputError(copy.origin + ": cannot list " + host.string() + ": " + ec.message());
      std::sort(names.begin(), names.end());
      for (const auto& name : names) visit(host / name, is_root ? name : dest + "/" + name);
    } else {
      throw InputError(copy.origin + ": " + host.string() + " is a socket, device or FIFO",
                       "only regular files, directories and symlinks can be copied into an image");
    }
  }

  // Within each group of paths that are one file, the first in sorted order carries the content
  // and the others become hardlinks to it, so the tar never references a path not yet written.
  void make_hardlinks() {
    for (auto& [key, indexes] : links) {
      if (indexes.size() < 2) continue;
      std::sort(indexes.begin(), indexes.end(), [&](size_t a, size_t b) { return out[a].path < out[b].path; });
      const std::string first = out[indexes[0]].path;
      for (size_t i = 1; i < indexes.size(); ++i) {
        Entry& e = out[indexes[i]];
        e.type = EntryType::kHardlink;
        e.link_target = first;
        e.content.reset();
      }
    }
  }
};

}  // namespace

void add_host_entries(const HostCopy& copy, std::vector<Entry>& out) {
  struct stat st;
  if (::lstat(copy.src.c_str(), &st) != 0)
    throw InputError(copy.origin + ": src " + copy.src.string() + " does not exist");
  if (S_ISDIR(st.st_mode) && copy.mode)
    throw InputError(copy.origin + ": 'mode' applies to a single file; " + copy.src.string() + " is a directory",
                     "a copied directory keeps the modes of its tree");
  Walker w{copy, out, {}};
  size_t first = out.size();
  w.visit(copy.src, copy.dest);
  if (copy.mode && out.size() > first) out[first].mode = *copy.mode;  // single file: its only entry
  w.make_hardlinks();
}

}  // namespace rp
