#include "entries/entry.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <set>
#include <string_view>

#include "util/digest.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

namespace rp {

void ContentSource::write_with_deflate(ByteSink&, ByteSink&) const {
  throw Error("internal: " + describe() + " has no deflate stream to copy");
}

std::string InlineContent::content_key() const { return sha256_digest(bytes_); }

namespace {
// Checks the byte count a source produced against the size promised in the tar header.
class SizeCheckingSink final : public ByteSink {
 public:
  explicit SizeCheckingSink(ByteSink& next) : next_(next) {}
  void write(const void* data, size_t size) override {
    count_ += size;
    next_.write(data, size);
  }
  uint64_t count() const { return count_; }

 private:
  ByteSink& next_;
  uint64_t count_ = 0;
};
}  // namespace

void HostFileContent::write_to(ByteSink& sink) const {
  SizeCheckingSink checked(sink);
  stream_file(path_, checked);
  if (checked.count() != size_)
    throw Error(path_ + " changed size while the layer was being written (" + std::to_string(size_) + " -> " +
                    std::to_string(checked.count()) + " bytes)",
                "do not modify the source tree during a build");
}

std::string HostFileContent::content_key() const {
  if (key_.empty()) {
    HashingSink h;
    stream_file(path_, h);
    key_ = h.finish_digest();
  }
  return key_;
}

std::string normalize_image_path(const std::string& path, const std::string& origin) {
  // Component by component, with no copies of them: every file of every wheel and archive comes
  // through here.
  std::string out;
  out.reserve(path.size());
  std::string_view rest = path;
  for (size_t i = 0; i <= rest.size();) {
    size_t j = std::min(rest.find('/', i), rest.size());
    std::string_view part = rest.substr(i, j - i);
    if (part == "..")
      throw InputError(origin + ": path '" + path + "' contains '..'", "paths in an image may not climb out of its root");
    if (!part.empty() && part != ".") {
      if (!out.empty()) out.push_back('/');
      out.append(part);
    }
    i = j + 1;
  }
  if (out.empty()) throw InputError(origin + ": path '" + path + "' names the image root", "give a file path");
  if (out.find('\0') != std::string::npos) throw InputError(origin + ": path contains a NUL byte");
  return out;
}

namespace {
const char* type_name(EntryType t) {
  switch (t) {
    case EntryType::kFile: return "file";
    case EntryType::kDirectory: return "directory";
    case EntryType::kSymlink: return "symlink";
    case EntryType::kHardlink: return "hardlink";
  }
  return "entry";
}
}  // namespace

void finalize_entries(std::vector<Entry>& entries) {
  std::set<std::string> present;
  for (const auto& e : entries) present.insert(e.path);
  std::vector<Entry> parents;
  for (const auto& e : entries) {
    std::string p = e.path;
    for (auto slash = p.rfind('/'); slash != std::string::npos; slash = p.rfind('/')) {
      p.resize(slash);
      if (!present.insert(p).second) continue;
      Entry dir;
      dir.path = p;
      dir.type = EntryType::kDirectory;
      dir.mode = 0755;
      dir.origin = "parent of " + e.path;
      parents.push_back(std::move(dir));
    }
  }
  entries.insert(entries.end(), std::make_move_iterator(parents.begin()), std::make_move_iterator(parents.end()));
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.path < b.path; });

  std::vector<Entry> out;
  out.reserve(entries.size());
  for (auto& e : entries) {
    if (!out.empty() && out.back().path == e.path) {
      const Entry& prev = out.back();
      if (prev.type == EntryType::kDirectory && e.type == EntryType::kDirectory) {
        // An explicit directory wins over an implied parent; two explicit ones must agree.
        bool prev_implied = prev.origin.rfind("parent of ", 0) == 0;
        bool this_implied = e.origin.rfind("parent of ", 0) == 0;
        if (prev_implied && !this_implied) out.back() = std::move(e);
        else if (!prev_implied && !this_implied && (prev.mode != e.mode || prev.uid != e.uid || prev.gid != e.gid))
          throw InputError("/" + e.path + " is declared twice with different modes or owners (" + prev.origin +
                           " and " + e.origin + ")");
        continue;
      }
      throw InputError("/" + e.path + " is written twice: as a " + type_name(prev.type) + " by " + prev.origin +
                           " and as a " + type_name(e.type) + " by " + e.origin,
                       "a layer holds each path once: remove one of them");
    }
    out.push_back(std::move(e));
  }
  // Parents must be directories: a file at "a" and another at "a/b" cannot both exist.
  std::map<std::string, const Entry*> by_path;
  for (const auto& e : out) by_path[e.path] = &e;
  for (const auto& e : out) {
    auto slash = e.path.rfind('/');
    if (slash != std::string::npos) {
      const Entry* parent = by_path[e.path.substr(0, slash)];
      if (parent && parent->type != EntryType::kDirectory)
        throw InputError("/" + e.path + " (" + e.origin + ") lies under /" + parent->path + ", which is a " +
                         type_name(parent->type) + " (" + parent->origin + ")");
    }
    if (e.type == EntryType::kHardlink) {
      auto it = by_path.find(e.link_target);
      if (it == by_path.end() || it->second->type != EntryType::kFile || !(e.link_target < e.path))
        throw InputError("hardlink /" + e.path + " (" + e.origin + ") points to /" + e.link_target +
                         ", which is not a regular file earlier in the same layer");
    }
  }
  entries = std::move(out);
}

namespace {
const char* type_code(EntryType t) {
  switch (t) {
    case EntryType::kFile: return "f";
    case EntryType::kDirectory: return "d";
    case EntryType::kSymlink: return "l";
    case EntryType::kHardlink: return "h";
  }
  return "?";
}
}  // namespace

void hash_entry_listing(Sha256& h, const std::vector<Entry>& entries, bool quick) {
  for (const auto& e : entries) {
    std::string line = std::string(type_code(e.type)) + "\t" + e.path + "\t" + std::to_string(e.mode) + "\t" +
                       std::to_string(e.uid) + ":" + std::to_string(e.gid) + "\t" + e.link_target + "\t" +
                       std::to_string(e.size()) + "\t" +
                       (e.content ? (quick ? e.content->quick_key() : e.content->content_key()) : "");
    for (const auto& [k, v] : e.xattrs) line += "\tx:" + k + "=" + sha256_hex(v);
    line += "\n";
    h.update(line);
  }
}

}  // namespace rp
