#pragma once
// Reading a wheel as a zip archive without unpacking it. The central directory is read once and
// validated against everything a hostile archive could try (paths that climb out, members that
// overlap or point outside the file, encryption, exotic compression, absurd sizes); afterwards any
// member can be streamed at any time by its offset, which is what lets a layer pull wheel members
// on demand in its own order.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "python/zip_format.hpp"
#include "util/byte_sink.hpp"
#include "util/fs.hpp"

namespace rp::python {

class WheelArchive {
 public:
  // Opens `file` and validates its central directory. `display_name` names the archive in messages
  // (the wheel's file name when `file` is a content-store blob); defaults to the path.
  // Throws rp::InputError for anything that is not a well-formed, safe zip.
  static std::shared_ptr<const WheelArchive> open(const fs::path& file, std::string display_name = {});

  const std::vector<ZipMember>& members() const { return members_; }
  // The member with exactly this name, or nullptr.
  const ZipMember* find(std::string_view name) const;
  const std::string& display_name() const { return display_name_; }
  const fs::path& path() const { return path_; }
  // Identity of the file on disk (device, inode, size, mtime), for cheap cache keys.
  const std::string& file_identity() const { return file_identity_; }

  // Streams the member's uncompressed bytes into `sink` and checks its size and CRC-32: a member of
  // up to 8 MiB is inflated whole and checked before any byte reaches `sink`, a larger one is
  // checked at its end. Throws rp::Error naming the wheel and the member on any mismatch or I/O failure.
  void stream_member(const ZipMember& member, ByteSink& sink) const;
  // Like stream_member for a deflated member, and in the same pass hands the member's raw deflate
  // stream, as stored, to `deflated` (a gzip layer copies it instead of compressing the bytes again).
  // The checks are the same, so a bad member still throws (a large one after `deflated` saw it).
  void stream_member_with_deflate(const ZipMember& member, ByteSink& sink, ByteSink& deflated) const;
  // The whole member in memory (checked like stream_member); for small files such as METADATA.
  // Throws rp::InputError when the member is larger than `max_size`.
  std::string read_member(const ZipMember& member, uint64_t max_size) const;
  // Up to `count` leading bytes of the member, without the end-of-member checks (for sniffing
  // a script's first line without inflating a large binary).
  std::string read_prefix(const ZipMember& member, size_t count) const;

  // Reads exactly `size` raw bytes at `offset` of the archive file. Throws rp::Error.
  void read_at(uint64_t offset, void* buffer, size_t size) const;

 private:
  WheelArchive(fs::path path, std::string display_name, int fd)
      : path_(std::move(path)), display_name_(std::move(display_name)), fd_(fd) {}
  void read_central_directory();
  // A small enough deflated member inflated in one call (libdeflate); false when the member is not
  // one, and the caller streams it instead.
  bool inflate_whole(const ZipMember& member, ByteSink& sink, ByteSink* deflated) const;

  fs::path path_;
  std::string display_name_;
  std::string file_identity_;
  UniqueFd fd_;
  uint64_t file_size_ = 0;
  std::vector<ZipMember> members_;
  std::unordered_map<std::string, size_t> by_name_;
};

}  // namespace rp::python
