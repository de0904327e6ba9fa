// Compressed index files (Packages.xz, Packages.gz, ...), decompressed as they are read (the
// parser takes the text piece by piece); their hash is checked on the compressed bytes.
#include <archive.h>
#include <archive_entry.h>

#include <algorithm>
#include <cstring>
#include <functional>
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

namespace {

std::string archive_message(archive* a) {
  const char* m = archive_error_string(a);
  return m ? m : "?";
}

// libarchive pulls the compressed bytes through this.
struct PullSource {
  const std::function<size_t(char*, size_t)>* read;
  char buffer[1 << 16];
};

la_ssize_t pull(archive*, void* data, const void** out) {
  auto* source = static_cast<PullSource*>(data);
  *out = source->buffer;
  return static_cast<la_ssize_t>((*source->read)(source->buffer, sizeof source->buffer));
}

}  // namespace

void decompress_index_stream(const std::function<size_t(char*, size_t)>& read, const std::string& path,
                             const std::string& what, const std::function<void(std::string_view)>& sink) {
  if (!ends_with(path, ".xz") && !ends_with(path, ".gz") && !ends_with(path, ".bz2") && !ends_with(path, ".zst") &&
      !ends_with(path, ".lzma")) {
    auto buffer = std::make_unique<char[]>(1 << 16);
    size_t total = 0;
    while (size_t n = read(buffer.get(), 1 << 16)) {
      total += n;
      if (total > kMaxIndex) throw Error(what + " is larger than 1 GiB", "the index is hostile or damaged");
      sink(std::string_view(buffer.get(), n));
    }
    return;
  }
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
  auto source = std::make_unique<PullSource>();
  source->read = &read;
  if (archive_read_open(a.get(), source.get(), nullptr, pull, nullptr) != ARCHIVE_OK)
    throw Error("cannot decompress " + what + ": " + archive_message(a.get()), "the repository served a damaged index");
  archive_entry* e = nullptr;
  int header = archive_read_next_header(a.get(), &e);
  if (header != ARCHIVE_OK && header != ARCHIVE_EOF)
    throw Error("cannot decompress " + what + ": " + archive_message(a.get()), "the repository served a damaged index");
  // Bytes no decompressor recognised would be passed through as they are: a name that says
  // compressed must be.
  if (archive_filter_count(a.get()) < 2)
    throw Error("cannot decompress " + what + ": it is not compressed as its name " + path + " says",
                "the repository served a damaged index");
  if (header == ARCHIVE_EOF) return;
  auto chunk = std::make_unique<char[]>(1 << 16);
  size_t total = 0;
  la_ssize_t n;
  while ((n = archive_read_data(a.get(), chunk.get(), 1 << 16)) > 0) {
    total += static_cast<size_t>(n);
    if (total > kMaxIndex) throw Error(what + " is larger than 1 GiB uncompressed", "the index is hostile or damaged");
    sink(std::string_view(chunk.get(), static_cast<size_t>(n)));
  }
  if (n < 0)
    throw Error("cannot decompress " + what + ": " + archive_message(a.get()), "the repository served a damaged index");
}

std::string decompress_index(std::string_view bytes, const std::string& path, const std::string& what) {
  size_t pos = 0;
  std::function<size_t(char*, size_t)> read = [&](char* buffer, size_t size) {
    size_t n = std::min(size, bytes.size() - pos);
    std::memcpy(buffer, bytes.data() + pos, n);
    pos += n;
    return n;
  };
  std::string out;
  decompress_index_stream(read, path, what, [&](std::string_view text) { out.append(text); });
  return out;
}

}  // namespace rp::apt
