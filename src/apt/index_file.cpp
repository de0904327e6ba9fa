// Compressed index files (Packages.xz, Packages.gz, ...), decompressed in memory: an index is read
// whole by the parser anyway, and its hash was checked on the compressed bytes.
#include <archive.h>
#include <archive_entry.h>

#include <memory>

#include "apt/package_index.hpp"
#include "util/error.hpp"

namespace rp::apt {

namespace {

constexpr size_t kMaxIndex = size_t{1} << 30;

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

std::string decompress_index(std::string_view bytes, const std::string& path, const std::string& what) {
  if (!ends_with(path, ".xz") && !ends_with(path, ".gz") && !ends_with(path, ".bz2") && !ends_with(path, ".zst") &&
      !ends_with(path, ".lzma"))
    return std::string(bytes);
  std::unique_ptr<archive, decltype(&archive_read_free)> a(archive_read_new(), archive_read_free);
  // The compressions an index is published in, and nothing else: "all" would also decode uuencoded
  // text and hand lrzip/grzip data to external programs.
  archive_read_support_filter_gzip(a.get());
  archive_read_support_filter_xz(a.get());
  archive_read_support_filter_lzma(a.get());
  archive_read_support_filter_bzip2(a.get());
  archive_read_support_filter_zstd(a.get());
  archive_read_support_format_raw(a.get());
  // An empty index (Debian's bookworm-updates contrib/binary-amd64/Packages.xz is the 32-byte xz of
  // nothing) decompresses to no bytes, which the raw format does not recognise.
  archive_read_support_format_empty(a.get());
  if (archive_read_open_memory(a.get(), bytes.data(), bytes.size()) != ARCHIVE_OK)
    throw Error("cannot decompress " + what + ": " + (archive_error_string(a.get()) ? archive_error_string(a.get()) : "?"),
                "the repository served a damaged index");
  archive_entry* e = nullptr;
  int header = archive_read_next_header(a.get(), &e);
  if (header != ARCHIVE_OK && header != ARCHIVE_EOF)
    throw Error("cannot decompress " + what + ": " + (archive_error_string(a.get()) ? archive_error_string(a.get()) : "?"),
                "the repository served a damaged index");
  // Bytes no decompressor recognised would be passed through as they are: a name that says
  // compressed must be.
  if (archive_filter_count(a.get()) < 2)
    throw Error("cannot decompress " + what + ": it is not compressed as its name " + path + " says",
                "the repository served a damaged index");
  if (header == ARCHIVE_EOF) return {};
  std::string out;
  char chunk[1 << 16];
  la_ssize_t n;
  while ((n = archive_read_data(a.get(), chunk, sizeof chunk)) > 0) {
    out.append(chunk, static_cast<size_t>(n));
    if (out.size() > kMaxIndex) throw Error(what + " is larger than 1 GiB uncompressed", "the index is hostile or damaged");
  }
  if (n < 0)
    throw Error("cannot decompress " + what + ": " + (archive_error_string(a.get()) ? archive_error_string(a.get()) : "?"),
                "the repository served a damaged index");
  return out;
}

}  // namespace rp::apt
