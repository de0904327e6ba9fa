#include "util/fs.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>

#include "util/error.hpp"
#include "util/temp_files.hpp"

namespace rp {

namespace {
constexpr size_t kWriteBuffer = 1 << 20;

std::string errno_text() { return std::strerror(errno); }
}  // namespace

fs::path temp_sibling(const fs::path& path) {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  char suffix[64];
  std::snprintf(suffix, sizeof suffix, ".tmp-%d-%016llx", static_cast<int>(getpid()),
                static_cast<unsigned long long>(rng()));
  return fs::path(path.string() + suffix);
}

AtomicFile::AtomicFile(fs::path final_path, unsigned mode) : final_path_(std::move(final_path)) {
  if (final_path_.has_parent_path()) {
    std::error_code ec;
    fs::create_directories(final_path_.parent_path(), ec);
    if (ec) throw Error("cannot create directory " + final_path_.parent_path().string() + ": " + ec.message());
  }
  temp_path_ = temp_sibling(final_path_);
  CreatedTemporary created = create_temporary(temp_path_.c_str(), O_WRONLY | O_CLOEXEC, mode);
  if (created.fd < 0) throw Error("cannot create " + temp_path_.string() + ": " + errno_text());
  fd_ = created.fd;
  signal_slot_ = created.slot;
  buffer_.reserve(kWriteBuffer);
}

AtomicFile::~AtomicFile() { abandon(); }

void AtomicFile::flush_buffer() {
  write_fully(buffer_.data(), buffer_.size());
  buffer_.clear();
}

void AtomicFile::write_fully(const char* p, size_t left) {
  while (left) {
    ssize_t n = ::write(fd_, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error("cannot write " + temp_path_.string() + ": " + errno_text(),
                  errno == ENOSPC ? "the disk is full: free space or choose another directory" : "");
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
}

void AtomicFile::write(const void* data, size_t size) {
  if (fd_ < 0) throw Error("write to a closed file " + final_path_.string());
  if (buffer_.size() + size > kWriteBuffer) flush_buffer();
  if (size >= kWriteBuffer) {
    // Large writes go straight through: no extra copy (a store blob's 1 MiB blocks).
    write_fully(static_cast<const char*>(data), size);
    return;
  }
  buffer_.append(static_cast<const char*>(data), size);
}

void AtomicFile::commit(bool durable) { commit_as(final_path_, durable); }

void AtomicFile::commit_as(const fs::path& path, bool durable) {
  final_path_ = path;
  if (fd_ < 0) throw Error("commit of a closed file " + final_path_.string());
  flush_buffer();
  if (durable && ::fsync(fd_) != 0) throw Error("cannot sync " + temp_path_.string() + ": " + errno_text());
  if (::close(fd_) != 0) {
    fd_ = -1;
    throw Error("cannot close " + temp_path_.string() + ": " + errno_text());
  }
  fd_ = -1;
  if (::rename(temp_path_.c_str(), final_path_.c_str()) != 0) {
    std::string why = errno_text();
    ::unlink(temp_path_.c_str());
    throw Error("cannot move " + temp_path_.string() + " to " + final_path_.string() + ": " + why);
  }
  unregister_temporary(signal_slot_);
  signal_slot_ = -1;
  temp_path_.clear();
}

void AtomicFile::abandon() {
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
  }
  if (!temp_path_.empty()) {
    ::unlink(temp_path_.c_str());
    unregister_temporary(signal_slot_);
    signal_slot_ = -1;
    temp_path_.clear();
  }
}

void write_file_atomic(const fs::path& path, std::string_view content, unsigned mode) {
  AtomicFile f(path, mode);
  f.write(content.data(), content.size());
  f.commit();
}

std::string read_file(const fs::path& path) {
  StringSink out;
  stream_file(path, out);
  return out.take();
}

UniqueFd::~UniqueFd() {
  if (fd_ >= 0) ::close(fd_);
}

UniqueFd& UniqueFd::operator=(UniqueFd&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.fd_;
    o.fd_ = -1;
  }
  return *this;
}

void stream_file(const fs::path& path, ByteSink& sink) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) throw Error("cannot open " + path.string() + ": " + errno_text());
  ::posix_fadvise(fd.get(), 0, 0, POSIX_FADV_SEQUENTIAL);
  // One buffer per thread, reused: a fresh megabyte per file costs more than reading small files.
  static thread_local std::string buf(1 << 20, '\0');
  for (;;) {
    ssize_t n = ::read(fd.get(), buf.data(), buf.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error("cannot read " + path.string() + ": " + errno_text());
    }
    if (n == 0) break;
    sink.write(buf.data(), static_cast<size_t>(n));
  }
}

fs::path expand_home(const std::string& path) {
  if (path.rfind("~/", 0) == 0) {
    const char* home = std::getenv("HOME");
    if (home && *home) return fs::path(home) / path.substr(2);
  }
  return fs::path(path);
}

}  // namespace rp
