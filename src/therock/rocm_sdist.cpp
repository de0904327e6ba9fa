#include "therock/rocm_sdist.hpp"

#include <archive.h>
#include <archive_entry.h>

#include <algorithm>
#include <memory>

#include "entries/path_parts.hpp"
#include "python/core_metadata.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

namespace rp::therock {

namespace {

constexpr size_t kMaxEntries = 10'000;
constexpr uint64_t kMaxFileSize = 4 << 20;
constexpr uint64_t kMaxTotalSize = 64 << 20;
constexpr std::string_view kPackageDir = "src/rocm_sdk/";

struct ArchiveDeleter {
  void operator()(archive* a) const { archive_read_free(a); }
};

// "./a/b" -> "a/b"; empty when the path is absolute or has a "." or ".." component.
std::string safe_path(std::string path) {
  while (path.rfind("./", 0) == 0) path.erase(0, 2);
  while (!path.empty() && path.back() == '/') path.pop_back();
  if (path.empty() || path.front() == '/' || unsafe_member_name(path)) return {};
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    std::string_view part(path.data() + start, end - start);
    if (part.empty() || part == "." || part == "..") return {};
    start = end + 1;
  }
  return path;
}

class SdistReader {
 public:
  SdistReader(const std::filesystem::path& file, std::string name) : file_(file), name_(std::move(name)) {}

  RocmSdist read() {
    std::unique_ptr<archive, ArchiveDeleter> a(archive_read_new());
    archive_read_support_format_tar(a.get());
    archive_read_support_filter_all(a.get());
    if (archive_read_open_filename(a.get(), file_.c_str(), 64 << 10) != ARCHIVE_OK) bad_archive(a.get());
    archive_entry* entry = nullptr;
    size_t count = 0;
    int r;
    while ((r = archive_read_next_header(a.get(), &entry)) == ARCHIVE_OK || r == ARCHIVE_WARN) {
      if (++count > kMaxEntries) fail("has more than 10,000 entries");
      visit(a.get(), entry);
    }
    if (r != ARCHIVE_EOF) bad_archive(a.get());
    return finish();
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw InputError("the rocm sdist " + name_ + " " + what,
                     "TheRock publishes `rocm` as an sdist with src/rocm_sdk/_dist_info.py; check the index or "
                     "pin another version");
  }

  [[noreturn]] void bad_archive(archive* a) const {
    const char* why = archive_error_string(a);
    fail(std::string("is not a readable tar archive: ") + (why ? why : "unknown error"));
  }

  void visit(archive* a, archive_entry* entry) {
    const char* raw_name = archive_entry_pathname(entry);
    std::string raw = raw_name ? raw_name : "";
    std::string path = safe_path(raw);
    if (path.empty()) fail("contains an unsafe path '" + printable(raw) + "'");
    std::string top = path.substr(0, path.find('/'));
    if (result_.root.empty()) result_.root = top;
    if (top != result_.root) fail("has more than one top-level directory ('" + result_.root + "', '" + top + "')");
    if (path == top) return;
    std::string rel = path.substr(top.size() + 1);

    int64_t declared = archive_entry_size(entry);
    if (declared < 0) declared = 0;
    total_ += static_cast<uint64_t>(declared);
    if (total_ > kMaxTotalSize) fail("is larger than 64 MiB uncompressed");

    bool in_package = rel.rfind(kPackageDir, 0) == 0;
    bool regular = archive_entry_filetype(entry) == AE_IFREG && archive_entry_hardlink(entry) == nullptr;
    if (in_package && archive_entry_filetype(entry) != AE_IFDIR && !regular) {
      fail("has a link or special file in its package: " + rel);
    }
    if (rel == "PKG-INFO" && regular) {
      result_.pkg_info = read_data(a, entry, rel);
    } else if (in_package && regular) {
      SdistFile file;
      file.path = rel.substr(std::string_view("src/").size());
      file.executable = (archive_entry_perm(entry) & 0111) != 0;
      file.content = read_data(a, entry, rel);
      if (std::any_of(result_.package_files.begin(), result_.package_files.end(),
                      [&](const SdistFile& f) { return f.path == file.path; })) {
        fail("lists " + rel + " twice");
      }
      result_.package_files.push_back(std::move(file));
    }
  }

  std::string read_data(archive* a, archive_entry* entry, const std::string& rel) {
    int64_t size = archive_entry_size(entry);
    if (size < 0 || static_cast<uint64_t>(size) > kMaxFileSize) fail("has an oversized file " + rel);
    std::string data(static_cast<size_t>(size), '\0');
    size_t done = 0;
    while (done < data.size()) {
      la_ssize_t n = archive_read_data(a, data.data() + done, data.size() - done);
      if (n < 0) bad_archive(a);
      if (n == 0) fail("ends inside " + rel);
      done += static_cast<size_t>(n);
    }
    return data;
  }

  RocmSdist finish() {
    if (result_.root.empty()) fail("is empty");
    std::sort(result_.package_files.begin(), result_.package_files.end(),
              [](const SdistFile& x, const SdistFile& y) { return x.path < y.path; });
    auto it = std::find_if(result_.package_files.begin(), result_.package_files.end(),
                           [](const SdistFile& f) { return f.path == "rocm_sdk/_dist_info.py"; });
    if (it == result_.package_files.end()) fail("has no " + result_.root + "/src/rocm_sdk/_dist_info.py");
    result_.dist_info = parse_dist_info(it->content, name_ + ": " + result_.root + "/src/rocm_sdk/_dist_info.py");

    if (result_.pkg_info.empty()) fail("has no PKG-INFO");
    auto metadata = python::CoreMetadata::parse(result_.pkg_info, name_ + ": PKG-INFO");
    if (metadata.normalized_name() != "rocm") fail("is for the project '" + metadata.name + "', not rocm");
    if (!(metadata.version == python::Version::parse(result_.dist_info.version))) {
      fail("says version " + metadata.version.to_string() + " in PKG-INFO but " + result_.dist_info.version +
           " in _dist_info.py");
    }
    return std::move(result_);
  }

  const std::filesystem::path& file_;
  std::string name_;
  uint64_t total_ = 0;
  RocmSdist result_;
};

}  // namespace

RocmSdist read_rocm_sdist(const std::filesystem::path& archive, std::string_view display_name) {
  std::string name = display_name.empty() ? archive.string() : std::string(display_name);
  return SdistReader(archive, std::move(name)).read();
}

}  // namespace rp::therock
