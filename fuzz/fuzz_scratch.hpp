#pragma once
// A scratch directory for the targets whose readers take a file path: one per fuzzing process,
// under $TMPDIR (tools/fuzz.sh points it at its own run directory and removes that afterwards) or
// /tmp. Created on first use.
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <string_view>

inline const std::string& fuzz_scratch_dir() {
  static const std::string dir = [] {
    const char* tmp = std::getenv("TMPDIR");
    std::string path = std::string(tmp && *tmp ? tmp : "/tmp") + "/rockpack-fuzz-XXXXXX";
    if (!::mkdtemp(path.data())) std::abort();
    return path;
  }();
  return dir;
}

// Writes the input where a reader that takes a path will find it. Plain write(2), not
// rp::write_file_atomic: its 1 MiB buffer costs an ASan mmap per input, which made the file-based
// targets ten times slower; a scratch file needs no atomicity.
inline void write_scratch_file(const std::string& path, std::string_view bytes) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) std::abort();
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n <= 0) std::abort();
    done += static_cast<size_t>(n);
  }
  ::close(fd);
}
