#include "image/rootfs_view.hpp"

#include <archive.h>
#include <archive_entry.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "entries/archive_member.hpp"
#include "image/layer_archive.hpp"
#include "entries/path_parts.hpp"
#include "util/digest.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

namespace rp {

namespace {

constexpr int kMaxSymlinks = 40;
constexpr const char* kWhiteoutPrefix = ".wh.";
constexpr const char* kOpaqueMarker = ".wh..wh..opq";

// A layer member's path as a view key; nullopt for the root itself or a path climbing out of it
// (such members cannot be meant for the image and are ignored).
std::optional<std::string> member_key(std::string_view path) {
  std::string key;
  for (const auto& part : path_components(path)) {
    if (part == "..") return std::nullopt;
    if (!key.empty()) key.push_back('/');
    key += part;
  }
  if (key.empty()) return std::nullopt;
  return key;
}

}  // namespace

void RootfsView::remove_subtree(const std::string& key, bool keep_self) {
  if (!keep_self) nodes_.erase(key);
  std::string prefix = key.empty() ? std::string() : key + "/";
  auto it = nodes_.lower_bound(prefix);
  while (it != nodes_.end() && it->first.compare(0, prefix.size(), prefix) == 0) {
    if (it->first.empty()) {  // the root key "" is nobody's child
      ++it;
      continue;
    }
    it = nodes_.erase(it);
  }
}

std::string RootfsView::through_parent_symlinks(const std::string& key) const {
  // Runtimes extract a member below a symlinked directory through the link (usrmerge: lib ->
  // usr/lib), so a layer's "lib/x/libc.so.6" lands in usr/lib/x.
  std::string current;
  auto parts = path_components(parent_key(key));
  for (size_t i = 0; i < parts.size(); ++i) {
    std::string next = current.empty() ? parts[i] : current + "/" + parts[i];
    auto it = nodes_.find(next);
    if (it == nodes_.end()) {  // this and the rest will be created as directories
      for (size_t j = i + 1; j < parts.size(); ++j) next += "/" + parts[j];
      current = std::move(next);
      break;
    }
    if (it->second.node.type == EntryType::kSymlink) {
      auto resolved = resolve(next, true);
      if (resolved && (resolved->empty() || nodes_.at(*resolved).node.type == EntryType::kDirectory)) {
        current = *resolved;
        continue;
      }
      if (!resolved) {
        // A dangling link (a layer's `lib -> usr/lib` ahead of usr/lib): runtimes make the
        // directory it names, and so does the view; its path is taken lexically, ".." stopping at
        // the root.
        const std::string& link = it->second.node.link_target;
        std::vector<std::string> target = link.empty() || link[0] == '/' ? std::vector<std::string>{} : path_components(current);
        for (const auto& c : path_components(link)) {
          if (c != "..") target.push_back(c);
          else if (!target.empty()) target.pop_back();
        }
        if (!target.empty()) {
          current.clear();
          for (const auto& c : target) current += (current.empty() ? "" : "/") + c;
          continue;
        }
      }
    }
    current = std::move(next);
  }
  return current.empty() ? path_base(key) : current + "/" + path_base(key);
}

void RootfsView::put(const std::string& original_key, Stored stored) {
  const std::string key = through_parent_symlinks(original_key);
  // Missing parents become plain directories, as container runtimes create them.
  std::string parent = parent_key(key);
  std::vector<std::string> missing;
  while (!parent.empty()) {
    auto it = nodes_.find(parent);
    if (it != nodes_.end()) {
      if (it->second.node.type != EntryType::kDirectory) {
        remove_subtree(parent, false);
        missing.push_back(parent);
      }
      break;
    }
    missing.push_back(parent);
    parent = parent_key(parent);
  }
  for (auto m = missing.rbegin(); m != missing.rend(); ++m) nodes_[*m] = Stored{Node{EntryType::kDirectory, 0755, 0, {}}, {}, {}};

  auto existing = nodes_.find(key);
  if (existing != nodes_.end() &&
      !(existing->second.node.type == EntryType::kDirectory && stored.node.type == EntryType::kDirectory))
    remove_subtree(key, true);
  nodes_[key] = std::move(stored);
}

// What one layer holds, read before it is applied (whiteouts apply to the layers below only,
// whatever their position in the tar).
struct RootfsView::LayerRead {
  // One member of a layer, collected before it is applied.
  struct Member {
    std::string key;
    EntryType type = EntryType::kFile;
    uint32_t mode = 0;
    uint64_t size = 0;
    std::string link;  // symlink target as written, or hardlink target key
    std::shared_ptr<const std::string> bytes;
    uint32_t uid = 0, gid = 0;
  };
  std::vector<Member> members;
  std::vector<std::string> whiteouts;    // keys removed with their subtree
  std::vector<std::string> opaque_dirs;  // directories whose lower contents are hidden
  std::string climbing;                  // RootfsView::climbing_member
  std::string unsafe_name;               // RootfsView::unsafe_member
};

namespace {

std::shared_ptr<const RootfsView::LayerRead> read_members(LayerArchive& layer_archive, const RootfsView::KeepContent& keep,
                                                          RootfsView::MetadataBudget* budget) {
  archive* a = layer_archive.get();
  const std::string& where = layer_archive.where();
  auto out = std::make_shared<RootfsView::LayerRead>();
  std::vector<RootfsView::LayerRead::Member>& members = out->members;
  archive_entry* e;
  int r;
  std::vector<char> chunk(1 << 16);
  while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK || r == ARCHIVE_WARN) {
    const char* name = archive_entry_pathname(e);
    if (out->climbing.empty()) {
      const char* hardlink = archive_entry_hardlink(e);
      if (name && has_dot_dot_component(name)) out->climbing = name;
      else if (hardlink && has_dot_dot_component(hardlink)) out->climbing = std::string(name ? name : "") + " -> " + hardlink;
    }
    if (budget) {
      // Charged before anything is kept: names libarchive has already read are bounded by its own
      // limits (a PAX header of at most 1 MB), what piles up here is bounded by the budget.
      const char* hardlink = archive_entry_hardlink(e);
      const char* symlink = archive_entry_symlink(e);
      uint64_t name_len = name ? std::strlen(name) : 0, link_len = hardlink ? std::strlen(hardlink) : symlink ? std::strlen(symlink) : 0;
      if (name_len > RootfsView::MetadataBudget::kMaxPathLength || link_len > RootfsView::MetadataBudget::kMaxPathLength)
        throw InputError(where + ": the member '" + printable(name ? name : "", 100) + "' has a name or link target of " +
                             std::to_string(std::max(name_len, link_len)) + " bytes; the most is " +
                             std::to_string(RootfsView::MetadataBudget::kMaxPathLength) + " (PATH_MAX)",
                         "the image is hostile or broken");
      budget->charge_member(name_len + link_len, where);
    }
    if (out->unsafe_name.empty()) {
      const char* hardlink = archive_entry_hardlink(e);
      const char* symlink = archive_entry_symlink(e);
      for (const char* text : {name, hardlink, symlink})
        if (text && unsafe_member_name(text)) out->unsafe_name = std::string(name ? name : "") + (text == name ? "" : std::string(" -> ") + text);
    }
    auto key = member_key(name ? name : "");
    if (!key) continue;
    std::string base = path_base(*key);
    if (base == kOpaqueMarker) {
      out->opaque_dirs.push_back(parent_key(*key));
      continue;
    }
    if (base.rfind(kWhiteoutPrefix, 0) == 0) {
      std::string hidden = base.substr(std::strlen(kWhiteoutPrefix));
      if (!hidden.empty()) out->whiteouts.push_back(parent_key(*key).empty() ? hidden : parent_key(*key) + "/" + hidden);
      continue;
    }
    RootfsView::LayerRead::Member m;
    m.key = std::move(*key);
    m.mode = archive_entry_perm(e) & 07777;
    m.uid = static_cast<uint32_t>(archive_entry_uid(e));
    m.gid = static_cast<uint32_t>(archive_entry_gid(e));
    auto type = archive_member_type(e);
    if (!type) continue;  // devices and fifos tell nothing about the file system's contents
    m.type = *type;
    if (m.type == EntryType::kHardlink) {
      auto target = member_key(archive_entry_hardlink(e));
      if (!target) continue;
      m.link = *target;
    } else if (m.type == EntryType::kSymlink) {
      m.link = archive_entry_symlink(e) ? archive_entry_symlink(e) : "";
    }
    if (m.type == EntryType::kFile) {
      int64_t size = archive_entry_size(e);
      m.size = size > 0 ? static_cast<uint64_t>(size) : 0;
      if (m.size <= RootfsView::kMaxKeptFileSize && keep && keep(m.key)) {
        if (budget) budget->charge_kept(m.size, where);
        std::string data;
        data.reserve(m.size);
        la_ssize_t n;
        while ((n = archive_read_data(a, chunk.data(), chunk.size())) > 0) data.append(chunk.data(), static_cast<size_t>(n));
        if (n < 0)
          throw Error("cannot read " + m.key + " in " + where + ": " +
                      (archive_error_string(a) ? archive_error_string(a) : "unknown error"));
        m.bytes = std::make_shared<const std::string>(std::move(data));
      }
    }
    members.push_back(std::move(m));
  }
  if (r != ARCHIVE_EOF)
    throw Error("cannot read " + where + ": " + layer_archive.error(),
                "the blob may be corrupt; remove it from the store and pull again");
  layer_archive.verify_digest();
  return out;
}

}  // namespace

std::shared_ptr<const RootfsView::LayerRead> RootfsView::read_layer(const ContentStore& store, const Descriptor& layer,
                                                                    const KeepContent& keep, const std::string& diff_id,
                                                                    MetadataBudget* budget) {
  LayerArchive layer_archive(store, layer, diff_id);
  return read_members(layer_archive, keep, budget);
}

std::shared_ptr<const RootfsView::LayerRead> RootfsView::read_layer(const fs::path& file, const Descriptor& layer,
                                                                    const KeepContent& keep, const std::string& diff_id,
                                                                    MetadataBudget* budget) {
  LayerArchive layer_archive(file, layer, diff_id);
  return read_members(layer_archive, keep, budget);
}

void RootfsView::MetadataBudget::charge_member(uint64_t path_bytes, const std::string& where) {
  uint64_t members = members_.fetch_add(1) + 1;
  uint64_t bytes = path_bytes_.fetch_add(path_bytes) + path_bytes;
  if (members > max_members_)
    throw InputError(where + ": more than " + std::to_string(max_members_) + " files in the image(s) read",
                     "rockpack lists at most that many files; the image is hostile or far larger than any it is meant for");
  if (bytes > max_path_bytes_)
    throw InputError(where + ": the file names of the image(s) read take more than " + std::to_string(max_path_bytes_ >> 20) +
                         " MiB",
                     "rockpack holds at most that much of names in memory; the image is hostile or far larger than any it "
                     "is meant for");
}

void RootfsView::MetadataBudget::charge_kept(uint64_t bytes, const std::string& where) {
  if (kept_bytes_.fetch_add(bytes) + bytes > max_kept_bytes_)
    throw InputError(where + ": the package lists (dpkg status, METADATA files) of the image(s) read take more than " +
                         std::to_string(max_kept_bytes_ >> 20) + " MiB",
                     "the image is hostile or far larger than any it is meant for");
}

void RootfsView::add_layer(const ContentStore& store, const Descriptor& layer, const KeepContent& keep) {
  apply_layer(*read_layer(store, layer, keep));
}

std::string RootfsView::climbing_member(const LayerRead& layer) { return layer.climbing; }

std::string RootfsView::unsafe_member(const LayerRead& layer) { return layer.unsafe_name; }

void RootfsView::apply_layer(const LayerRead& layer) {
  for (const auto& dir : layer.opaque_dirs) remove_subtree(dir, true);
  for (const auto& key : layer.whiteouts) remove_subtree(key, false);
  for (const auto& m : layer.members) {
    if (m.type == EntryType::kHardlink) {
      auto target = nodes_.find(through_parent_symlinks(m.link));
      if (target == nodes_.end() || target->second.node.type != EntryType::kFile) continue;
      Stored copy = target->second;
      put(m.key, std::move(copy));
      continue;
    }
    put(m.key, Stored{Node{m.type, m.mode, m.size, m.link, m.uid, m.gid}, m.bytes, {}});
  }
}

void RootfsView::add_entries(const std::vector<Entry>& entries) {
  // OCI whiteouts among the entries (a run: step's deletions) hide what the layers below hold, as
  // apply_layer does: first, whatever their place in the list.
  for (const auto& entry : entries) {
    auto key = member_key(entry.path);
    if (!key) continue;
    std::string base = path_base(*key);
    if (base == kOpaqueMarker) remove_subtree(parent_key(*key), true);
    else if (base.rfind(kWhiteoutPrefix, 0) == 0 && base.size() > std::strlen(kWhiteoutPrefix))
      remove_subtree(parent_key(*key).empty() ? base.substr(std::strlen(kWhiteoutPrefix))
                                              : parent_key(*key) + "/" + base.substr(std::strlen(kWhiteoutPrefix)), false);
  }
  for (const auto& entry : entries) {
    auto key = member_key(entry.path);
    if (!key) continue;
    if (path_base(*key).rfind(kWhiteoutPrefix, 0) == 0) continue;
    if (entry.type == EntryType::kHardlink) {
      auto target_key = member_key(entry.link_target);
      auto target = target_key ? nodes_.find(through_parent_symlinks(*target_key)) : nodes_.end();
      if (target == nodes_.end()) continue;
      Stored copy = target->second;
      put(*key, std::move(copy));
      continue;
    }
    Stored s;
    s.node = Node{entry.type, entry.mode & 07777, entry.size(), entry.type == EntryType::kSymlink ? entry.link_target : "",
                  entry.uid, entry.gid};
    if (entry.type == EntryType::kFile) s.source = entry.content;
    put(*key, std::move(s));
  }
}

std::optional<std::string> RootfsView::resolve(std::string_view path, bool follow_last) const {
  std::vector<std::string> todo = path_components(path);
  std::reverse(todo.begin(), todo.end());  // a stack: back() is the next component
  std::string current;                     // resolved so far, "" = root
  int links = 0;
  while (!todo.empty()) {
    std::string part = std::move(todo.back());
    todo.pop_back();
    if (part == "..") {
      current = parent_key(current);
      continue;
    }
    std::string next = current.empty() ? part : current + "/" + part;
    auto it = nodes_.find(next);
    if (it == nodes_.end()) return std::nullopt;
    const Node& node = it->second.node;
    bool last = todo.empty();
    if (node.type == EntryType::kSymlink && (!last || follow_last)) {
      if (++links > kMaxSymlinks) return std::nullopt;
      if (!node.link_target.empty() && node.link_target.front() == '/') current.clear();
      auto target = path_components(node.link_target);
      for (auto t = target.rbegin(); t != target.rend(); ++t) todo.push_back(*t);
      continue;
    }
    if (!last && node.type != EntryType::kDirectory) return std::nullopt;
    current = std::move(next);
  }
  return current;
}

std::optional<RootfsView::Node> RootfsView::lstat(std::string_view path) const {
  auto key = resolve(path, false);
  if (!key) return std::nullopt;
  if (key->empty()) return Node{EntryType::kDirectory, 0755, 0, {}};
  return nodes_.at(*key).node;
}

std::optional<std::string> RootfsView::realpath(std::string_view path) const {
  auto key = resolve(path, true);
  if (!key) return std::nullopt;
  return "/" + *key;
}

std::vector<std::string> RootfsView::list(std::string_view dir) const {
  std::vector<std::string> out;
  auto key = resolve(dir, true);
  if (!key) return out;
  if (!key->empty() && nodes_.at(*key).node.type != EntryType::kDirectory) return out;
  std::string prefix = key->empty() ? std::string() : *key + "/";
  for (auto it = nodes_.lower_bound(prefix); it != nodes_.end() && it->first.compare(0, prefix.size(), prefix) == 0;
       ++it) {
    std::string_view rest = std::string_view(it->first).substr(prefix.size());
    if (rest.empty() || rest.find('/') != std::string_view::npos) continue;
    out.emplace_back(rest);
  }
  return out;  // std::map order is bytewise, so already sorted
}

std::optional<std::string> RootfsView::read(std::string_view path, size_t max) const {
  auto key = resolve(path, true);
  if (!key || key->empty()) return std::nullopt;
  const Stored& s = nodes_.at(*key);
  if (s.node.type != EntryType::kFile || s.node.size > max) return std::nullopt;
  if (s.bytes) return *s.bytes;
  if (s.source) {
    StringSink sink;
    s.source->write_to(sink);
    return sink.take();
  }
  return std::nullopt;
}

std::vector<std::string> RootfsView::find(const std::function<bool(std::string_view path)>& match) const {
  std::vector<std::string> out;
  for (const auto& [key, stored] : nodes_)
    if (match(key)) out.push_back(key);
  return out;
}

}  // namespace rp
