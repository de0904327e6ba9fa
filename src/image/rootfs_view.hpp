#pragma once
// A read-only view of an image's file system, built from its layers and from the entries earlier
// recipe steps plan, so later steps can ask what the image holds ("which python3.* are in
// /usr/bin?", "what does libc.so.6 say its version is?") without unpacking anything to disk.
// Only the metadata of every path is kept; file contents only for the paths a caller asks for.
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "entries/entry.hpp"
#include "entries/file_tree.hpp"
#include "image/descriptor.hpp"
#include "store/content_store.hpp"

namespace rp {

// The plan stage's FileTree: ecosystem modules (python, therock, apt) read the image through the
// FileTree interface and never see layers or the store.
class RootfsView : public FileTree {
 public:
  using Node = FileTree::Node;
  // Decides which regular files of a layer have their contents kept. `path` is relative to the
  // root, without a leading '/'.
  using KeepContent = std::function<bool(std::string_view path)>;

  // Files larger than this are never kept in memory, whatever `keep` says.
  static constexpr uint64_t kMaxKeptFileSize = 32u << 20;

  // Applies one layer blob of `store` on top of what the view holds: tar, gzip or zstd by the
  // descriptor's media type, OCI whiteouts (".wh.<name>", ".wh..wh..opq") honoured. The blob is
  // streamed and its digest verified. Throws rp::Error for an unreadable or corrupt layer.
  void add_layer(const ContentStore& store, const Descriptor& layer, const KeepContent& keep);

  // add_layer in two halves, so that layers can be read on several threads (and a layer two views
  // share read once) while each view applies them in order. read_layer is a pure function of the
  // blob: the member metadata, the kept contents and the whiteouts, digest verified.
  struct LayerRead;
  // What the reads of untrusted layers may hold in memory, over every layer charged to it (both
  // images of a diff): members, the bytes of their paths and link targets, and kept contents. A
  // 3 MB layer of 150,000 empty files with 3 KB paths would otherwise hold 450 MB of paths, twice.
  // Thread-safe: the layers are read on several threads.
  class MetadataBudget {
   public:
    // Ten times what the largest images rockpack is made for hold (a ROCm devel image with PyTorch:
    // ~100,000 files, ~9 MB of paths), and small enough that the worst case stays near 500 MB.
    static constexpr uint64_t kDefaultMembers = 1'000'000;
    static constexpr uint64_t kDefaultPathBytes = 96ull << 20;
    static constexpr uint64_t kDefaultKeptBytes = 256ull << 20;    // dpkg status + METADATA files
    static constexpr uint64_t kMaxPathLength = 4096;               // PATH_MAX: longer names are refused
    explicit MetadataBudget(uint64_t members = kDefaultMembers, uint64_t path_bytes = kDefaultPathBytes,
                            uint64_t kept_bytes = kDefaultKeptBytes)
        : max_members_(members), max_path_bytes_(path_bytes), max_kept_bytes_(kept_bytes) {}
    // Counts one member of `where` with `path_bytes` of names; throws rp::InputError past a bound.
    void charge_member(uint64_t path_bytes, const std::string& where);
    // Counts `bytes` of kept content; throws rp::InputError past the bound.
    void charge_kept(uint64_t bytes, const std::string& where);

   private:
    uint64_t max_members_, max_path_bytes_, max_kept_bytes_;
    std::atomic<uint64_t> members_{0}, path_bytes_{0}, kept_bytes_{0};
  };
  // With `diff_id` given, a gzip or plain tar layer's uncompressed bytes are checked against it too.
  // With `budget`, what the read holds is charged to it (and a single path past kMaxPathLength refused).
  static std::shared_ptr<const LayerRead> read_layer(const ContentStore& store, const Descriptor& layer,
                                                     const KeepContent& keep, const std::string& diff_id = {},
                                                     MetadataBudget* budget = nullptr);
  // The same with the blob read in place from `file` (an OCI layout's blob), hashed as it is read.
  static std::shared_ptr<const LayerRead> read_layer(const fs::path& file, const Descriptor& layer,
                                                     const KeepContent& keep, const std::string& diff_id = {},
                                                     MetadataBudget* budget = nullptr);
  void apply_layer(const LayerRead& layer);
  // The first member of `layer` whose path or hardlink target climbs out of the root ("../"), as
  // "path" or "path -> target"; empty when none does. The view ignores such members; the base
  // check refuses them.
  static std::string climbing_member(const LayerRead& layer);
  // The first member whose name or link target holds a newline (entries/path_parts.hpp,
  // unsafe_member_name), as "path" or "path -> target"; empty when none does. The view keeps such
  // members (diff lists them, escaped); the base check refuses them.
  static std::string unsafe_member(const LayerRead& layer);
  // Planned entries (paths relative to the root); file contents are read on demand from their
  // ContentSource. Later entries replace earlier ones at the same path; whiteout entries (".wh.<name>",
  // ".wh..wh..opq", as a run: step's layer has them) remove what is below, as in a layer.
  void add_entries(const std::vector<Entry>& entries);

  // Paths are accepted with or without a leading '/'. Symlinks in the parent components are
  // followed; the last component is not.
  std::optional<Node> lstat(std::string_view path) const override;
  // The absolute path ("/usr/bin/python3.11") with every symlink resolved (absolute and relative
  // targets, at most 40 links); nullopt when a component is missing or the links loop.
  std::optional<std::string> realpath(std::string_view path) const override;
  // The child names of a directory (symlinks to it followed), sorted; empty when it is no directory.
  std::vector<std::string> list(std::string_view dir) const override;
  // A regular file's bytes (symlinks followed); nullopt when it is absent, not a file, larger than
  // `max`, or its content was not kept.
  std::optional<std::string> read(std::string_view path, size_t max = kDefaultMaxRead) const override;
  // Every path (relative, no leading '/') for which `match` is true, sorted.
  std::vector<std::string> find(const std::function<bool(std::string_view path)>& match) const override;

 private:
  struct Stored {
    Node node;
    std::shared_ptr<const std::string> bytes;             // kept layer content
    std::shared_ptr<const ContentSource> source;          // planned entry content
  };
  // Resolves `path` to the key of its node ("" is the root). Follows a symlink in the last
  // component only when `follow_last`.
  std::optional<std::string> resolve(std::string_view path, bool follow_last) const;
  // Puts `stored` at `key`, creating missing parents and replacing what was there (a non-directory
  // replaces a whole subtree).
  void put(const std::string& key, Stored stored);
  // `key` with symlinks in its parent directories resolved, as tar extraction follows them.
  std::string through_parent_symlinks(const std::string& key) const;
  void remove_subtree(const std::string& key, bool keep_self);

  std::map<std::string, Stored> nodes_;  // key: relative path, no leading '/'
};

}  // namespace rp
