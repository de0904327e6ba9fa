#pragma once
// Small helpers shared by the unit tests: temporary directories and reading tars back with
// libarchive (a reader we did not write).
#include <archive.h>
#include <archive_entry.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "util/fs.hpp"

namespace rp::test {

struct TempDir {
  std::filesystem::path path;
  TempDir() {
    char tmpl[] = "/tmp/rockpack-test-XXXXXX";
    path = ::mkdtemp(tmpl);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::filesystem::path write(const std::string& rel, const std::string& content) const {
    auto p = path / rel;
    std::filesystem::create_directories(p.parent_path());
    rp::write_file_atomic(p, content);
    return p;
  }
};

struct TarMember {
  std::string path;
  int type = 0;  // AE_IFREG, AE_IFDIR, AE_IFLNK
  unsigned mode = 0;
  int64_t uid = 0, gid = 0, mtime = 0;
  std::string symlink, hardlink, uname, gname, data;
};

// Reads any tar (plain, gzip or zstd: libarchive detects it) from memory.
inline std::vector<TarMember> read_tar(const std::string& bytes) {
  std::vector<TarMember> out;
  archive* a = archive_read_new();
  archive_read_support_format_tar(a);
  archive_read_support_filter_all(a);
  if (archive_read_open_memory(a, bytes.data(), bytes.size()) != ARCHIVE_OK) {
    archive_read_free(a);
    throw std::runtime_error("not a tar");
  }
  archive_entry* e;
  while (archive_read_next_header(a, &e) == ARCHIVE_OK) {
    TarMember m;
    m.path = archive_entry_pathname(e);
    m.type = archive_entry_filetype(e);
    m.mode = archive_entry_perm(e);
    m.uid = archive_entry_uid(e);
    m.gid = archive_entry_gid(e);
    m.mtime = archive_entry_mtime(e);
    if (archive_entry_symlink(e)) m.symlink = archive_entry_symlink(e);
    if (archive_entry_hardlink(e)) m.hardlink = archive_entry_hardlink(e);
    if (archive_entry_uname(e)) m.uname = archive_entry_uname(e);
    if (archive_entry_gname(e)) m.gname = archive_entry_gname(e);
    char buf[65536];
    la_ssize_t n;
    while ((n = archive_read_data(a, buf, sizeof buf)) > 0) m.data.append(buf, static_cast<size_t>(n));
    out.push_back(m);
  }
  archive_read_free(a);
  return out;
}

}  // namespace rp::test
