#pragma once
// Files that appear whole or not at all. Every output and every store entry is written to a temporary
// name in the destination directory and renamed into place only once complete, so an interrupted
// build never leaves a half-written file where a reader could find it.
#include <filesystem>
#include <string>
#include <string_view>

#include "util/byte_sink.hpp"

namespace rp {

namespace fs = std::filesystem;

// Owns a file descriptor; closes it when destroyed.
class UniqueFd {
 public:
  explicit UniqueFd(int fd = -1) : fd_(fd) {}
  ~UniqueFd();
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  UniqueFd(UniqueFd&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  UniqueFd& operator=(UniqueFd&& o) noexcept;  // closes what it held
  int get() const { return fd_; }

 private:
  int fd_;
};

// A file written through a temporary sibling; commit() renames it to its final path.
// Destroyed without commit(), the temporary is removed.
class AtomicFile final : public ByteSink {
 public:
  explicit AtomicFile(fs::path final_path, unsigned mode = 0644);
  ~AtomicFile() override;
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(const void* data, size_t size) override;
  using ByteSink::write;
  // Flushes, closes and renames. With `durable`, fsyncs the file before the rename.
  void commit(bool durable = false);
  // Like commit(), but renames to `path` (same file system) instead of the path given at construction.
  void commit_as(const fs::path& path, bool durable = false);
  // Discards the temporary now.
  void abandon();
  const fs::path& temp_path() const { return temp_path_; }
  const fs::path& final_path() const { return final_path_; }

 private:
  void flush_buffer();
  void write_fully(const char* p, size_t size);
  fs::path final_path_;
  fs::path temp_path_;
  int fd_ = -1;
  int signal_slot_ = -1;  // its registration for removal on SIGINT/SIGTERM (util/temp_files.hpp)
  std::string buffer_;
};

// Writes `content` to `path` atomically.
void write_file_atomic(const fs::path& path, std::string_view content, unsigned mode = 0644);

// Reads a whole (small) file. Throws rp::Error with the path on failure.
std::string read_file(const fs::path& path);

// Streams a file into a sink in large reads.
void stream_file(const fs::path& path, ByteSink& sink);

// A uniquely named sibling path for temporaries: "<path>.tmp-<pid>-<random>".
fs::path temp_sibling(const fs::path& path);

// Expands a leading "~/" using $HOME.
fs::path expand_home(const std::string& path);

}  // namespace rp
