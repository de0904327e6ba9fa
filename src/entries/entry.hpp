#pragma once
// What goes into a layer: a sorted list of entries whose file contents are pulled on demand, so a
// layer of any size streams from its sources (files on disk, inline text, later .deb and wheel
// members) into the tar writer without being held in memory.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "util/byte_sink.hpp"

namespace rp {

class ContentSource {
 public:
  virtual ~ContentSource() = default;
  virtual uint64_t size() const = 0;
  // Writes exactly size() bytes into `sink`; throws rp::Error if the source changed underneath.
  virtual void write_to(ByteSink& sink) const = 0;
  // A stable identity of the content for the layer cache: normally "sha256:<hex>" of the bytes.
  virtual std::string content_key() const = 0;
  // Where the bytes come from, for error messages ("recipe.yaml:12 files[3]: /src/app.py").
  virtual std::string describe() const = 0;
  // A cheap identity that changes whenever the content may have changed (for host files: inode,
  // size, mtime and ctime, as git's index uses). Lets a warm rebuild skip reading every file.
  // Defaults to the content key.
  virtual std::string quick_key() const { return content_key(); }
  // Whether the content is held as a raw deflate stream (a large zip member) that a gzip layer can
  // copy instead of compressing the bytes again; then write_with_deflate() works.
  virtual bool has_deflate_stream() const { return false; }
  // Writes exactly size() bytes into `sink` and, in the same pass, their raw deflate stream into
  // `deflated`. Only when has_deflate_stream(); throws rp::Error like write_to.
  virtual void write_with_deflate(ByteSink& sink, ByteSink& deflated) const;
};

class InlineContent final : public ContentSource {
 public:
  explicit InlineContent(std::string bytes) : bytes_(std::move(bytes)) {}
  uint64_t size() const override { return bytes_.size(); }
  void write_to(ByteSink& sink) const override { sink.write(bytes_.data(), bytes_.size()); }
  std::string content_key() const override;
  std::string describe() const override { return "inline content"; }

 private:
  std::string bytes_;
};

// A file on the build host. Its size is taken when the entry is planned; a file that changes size
// before it is streamed fails the build instead of producing a corrupt tar.
class HostFileContent final : public ContentSource {
 public:
  HostFileContent(std::string path, uint64_t size, std::string stat_identity)
      : path_(std::move(path)), size_(size), stat_identity_(std::move(stat_identity)) {}
  uint64_t size() const override { return size_; }
  void write_to(ByteSink& sink) const override;
  std::string content_key() const override;  // hashes the file (memoized)
  std::string describe() const override { return path_; }
  std::string quick_key() const override { return stat_identity_; }

 private:
  std::string path_;
  uint64_t size_;
  std::string stat_identity_;
  mutable std::string key_;
};

enum class EntryType { kFile, kDirectory, kSymlink, kHardlink };

struct Entry {
  std::string path;  // relative to the image root: no leading "/", no "..", no trailing "/"
  EntryType type = EntryType::kFile;
  uint32_t mode = 0644;  // permission bits incl. setuid/setgid/sticky
  uint32_t uid = 0;
  uint32_t gid = 0;
  std::string link_target;  // symlink target as written, or hardlink target path (relative to root)
  std::shared_ptr<const ContentSource> content;  // regular files only
  std::map<std::string, std::string> xattrs;
  std::string origin;  // which recipe step asked for it, for error messages

  uint64_t size() const { return type == EntryType::kFile && content ? content->size() : 0; }
};

// Normalizes a path inside the image: strips leading "/" and "./", folds "//" and "/./", and rejects
// ".." components and empty paths. Throws InputError naming `origin`.
std::string normalize_image_path(const std::string& path, const std::string& origin);

// Sorts entries by path (bytewise, so parents precede children), adds missing parent directories
// (0755, root-owned), and rejects two entries for one path unless both are identical directories.
// Hardlink targets must exist in the list as regular files and sort before the link.
void finalize_entries(std::vector<Entry>& entries);

class Sha256;
// Feeds `h` one line per entry: type, path, mode, owner, link, size, content identity (the content
// key, or with `quick` the quick key) and xattrs. Whatever changes a layer's bytes changes these
// lines: the layer cache and the run step's parent identity hash them.
void hash_entry_listing(Sha256& h, const std::vector<Entry>& entries, bool quick);

}  // namespace rp
