#include "assemble/tar_index.hpp"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <vector>

#include "util/archive_fd_reader.hpp"
#include "util/error.hpp"

namespace rp {

namespace {

// A POSIX (ustar or PAX) tar: "ustar" at offset 257 of the first header.
bool is_plain_tar(const fs::path& file) {
  UniqueFd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return false;
  char header[262];
  ssize_t n = ::pread(fd.get(), header, sizeof header, 0);
  return n == static_cast<ssize_t>(sizeof header) && std::memcmp(header + 257, "ustar", 5) == 0;
}

// Decompresses the archive blob into a new store blob (a plain tar); returns its digest.
std::string decompress_to_store(ContentStore& store, const std::string& archive_digest, const std::string& what) {
  ArchiveFdReader reader;
  reader.fd = ::open(store.blob_path(archive_digest).c_str(), O_RDONLY | O_CLOEXEC);
  if (reader.fd < 0) throw Error("cannot open " + what + " in the store: " + std::strerror(errno));
  UniqueFd owner_fd(reader.fd);
  archive* a = archive_read_new();
  std::unique_ptr<archive, decltype(&archive_read_free)> owner(a, archive_read_free);
  archive_read_support_filter_all(a);
  archive_read_support_format_raw(a);
  auto error = [&](const std::string& doing) {
    return InputError("cannot " + doing + " " + what + ": " +
                          (archive_error_string(a) ? archive_error_string(a) : "unknown error"),
                      "check that it is a .tar, .tar.gz, .tar.zst or .tar.xz archive");
  };
  if (archive_read_open(a, &reader, nullptr, &ArchiveFdReader::read, nullptr) != ARCHIVE_OK) throw error("open");
  archive_entry* e;
  if (archive_read_next_header(a, &e) != ARCHIVE_OK) throw error("decompress");
  auto writer = store.begin_blob();
  std::vector<char> chunk(1 << 20);
  la_ssize_t n;
  while ((n = archive_read_data(a, chunk.data(), chunk.size())) > 0) writer->write(chunk.data(), static_cast<size_t>(n));
  if (n < 0) throw error("decompress");
  return writer->commit();
}

}  // namespace

TarIndex load_tar_index(ContentStore& store, const std::string& archive_digest, const std::string& what) {
  // The record names a blob holding the serialized index (TarIndex::serialize): reading it back
  // verifies it like any blob, and it is pruned like one.
  constexpr const char* kKind = "tar-index";
  if (auto record = store.get_record(kKind, archive_digest)) {
    try {
      auto blob = record->find("index");
      if (blob != record->end() && blob->is_string() && store.contains(blob->get<std::string>())) {
        TarIndex index = TarIndex::parse(store.read_all(blob->get<std::string>()));
        if (store.contains(index.tar_digest)) return index;
      }
    } catch (const Error&) {
      // A stale or damaged record (or index blob): index again below.
    }
  }
  TarIndex index;
  // A plain tar needs no copy: decompressing it would only write the same bytes again.
  index.tar_digest = is_plain_tar(store.blob_path(archive_digest)) ? archive_digest
                                                                   : decompress_to_store(store, archive_digest, what);
  index.members = index_plain_tar(store.blob_path(index.tar_digest), what);
  store.put_record(kKind, archive_digest, {{"index", store.put(index.serialize())}});
  return index;
}

}  // namespace rp
