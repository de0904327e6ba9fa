#include "store/cache_admin.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <ctime>

#include "util/digest.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

namespace rp {

namespace {

struct FileInfo {
  fs::path path;
  uint64_t bytes = 0;
  std::time_t last_use = 0;  // the later of atime and mtime
};

std::vector<FileInfo> files_under(const fs::path& dir) {
  std::vector<FileInfo> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    struct stat st;
    if (::lstat(it->path().c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    out.push_back({it->path(), static_cast<uint64_t>(st.st_size), std::max(st.st_atime, st.st_mtime)});
  }
  return out;
}

// Holds the store lock exclusively: no build is running while it is held.
class ExclusiveStoreLock {
 public:
  explicit ExclusiveStoreLock(const fs::path& root) {
    fd_ = ::open(store_lock_path(root).c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) throw Error("cannot open " + store_lock_path(root).string());
    if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      spdlog::info("waiting for the builds using {} to finish", root.string());
      ::flock(fd_, LOCK_EX);
    }
  }
  ~ExclusiveStoreLock() { ::close(fd_); }
  ExclusiveStoreLock(const ExclusiveStoreLock&) = delete;
  ExclusiveStoreLock& operator=(const ExclusiveStoreLock&) = delete;

 private:
  int fd_ = -1;
};

bool remove_file(const FileInfo& f, PruneResult& result) {
  std::error_code ec;
  if (!fs::remove(f.path, ec)) return false;
  ++result.files;
  result.bytes += f.bytes;
  return true;
}

}  // namespace

fs::path store_lock_path(const fs::path& root) { return root / "store.lock"; }

CacheUsage cache_usage(const fs::path& root) {
  CacheUsage u;
  std::time_t now = std::time(nullptr);
  for (const char* kind : {"blobs", "records", "tmp"}) {
    CacheUsage::Kind k{kind};
    for (const auto& f : files_under(root / kind)) {
      ++k.files;
      k.bytes += f.bytes;
      if (std::string(kind) == "blobs") {
        double days = std::difftime(now, f.last_use) / 86400.0;
        u.by_age[days < 1 ? 0 : days < 7 ? 1 : days < 30 ? 2 : 3] += f.bytes;
      }
    }
    u.total_bytes += k.bytes;
    u.kinds.push_back(k);
  }
  return u;
}

PruneResult prune_cache(const fs::path& root, const PruneOptions& options) {
  if (!options.all && !options.keep_days && !options.keep_bytes)
    throw InputError("cache prune needs --all, --keep-days N or --keep-bytes SIZE");
  if (options.keep_days && *options.keep_days < 0)
    throw InputError("--keep-days " + std::to_string(*options.keep_days) + " is negative", "write 0 or more");
  PruneResult result;
  std::error_code ec;
  if (!fs::is_directory(root / "blobs", ec)) return result;
  ExclusiveStoreLock lock(root);
  std::vector<FileInfo> files;
  // locks/: the per-layer build locks (assemble/layer_build_lock.hpp), free while this lock is held.
  for (const char* kind : {"blobs", "records", "tmp", "locks"})
    for (auto& f : files_under(root / kind)) files.push_back(std::move(f));
  if (options.all) {
    for (const auto& f : files) remove_file(f, result);
    return result;
  }
  std::vector<FileInfo> kept;
  std::time_t cutoff = std::time(nullptr) - static_cast<std::time_t>(options.keep_days.value_or(0)) * 86400;
  for (auto& f : files) {
    if (options.keep_days && f.last_use < cutoff && remove_file(f, result)) continue;
    kept.push_back(std::move(f));
  }
  if (options.keep_bytes) {
    uint64_t total = 0;
    for (const auto& f : kept) total += f.bytes;
    std::sort(kept.begin(), kept.end(), [](const FileInfo& a, const FileInfo& b) { return a.last_use < b.last_use; });
    for (const auto& f : kept) {
      if (total <= *options.keep_bytes) break;
      if (remove_file(f, result)) total -= f.bytes;
    }
  }
  return result;
}

VerifyResult verify_cache(const fs::path& root, bool repair, const RecordCheck& records) {
  VerifyResult result;
  std::optional<ExclusiveStoreLock> lock;
  if (repair) lock.emplace(root);
  for (const auto& f : files_under(root / "blobs" / "sha256")) {
    std::string name = f.path.filename().string();
    if (name.size() != 64 || name.find_first_not_of("0123456789abcdef") != std::string::npos) continue;
    ++result.blobs;
    HashingSink hash(nullptr);
    try {
      stream_file(f.path, hash);
    } catch (const Error&) {
      result.bad.push_back("sha256:" + name);
      continue;
    }
    if (hash.finish_digest() != "sha256:" + name) result.bad.push_back("sha256:" + name);
  }
  std::vector<fs::path> bad_record_files;
  if (records.check)
    for (const auto& kind : records.kinds)
      for (const auto& f : files_under(root / "records" / kind)) {
        std::string why;
        try {
          auto j = nlohmann::json::parse(read_file(f.path));
          why = j.is_object() && j.contains("value") ? records.check(j["value"]) : "not a record";
        } catch (const std::exception& e) {
          why = std::string("unreadable: ") + e.what();
        }
        if (why.empty()) continue;
        result.bad_records.push_back(kind + "/" + f.path.filename().string() + ": " + why);
        bad_record_files.push_back(f.path);
      }
  if (repair) {
    for (const auto& d : result.bad) {
      std::error_code ec;
      fs::remove(root / "blobs" / "sha256" / digest_hex(d), ec);
    }
    for (const auto& f : bad_record_files) {
      std::error_code ec;
      fs::remove(f, ec);
    }
    result.repaired = true;
  }
  return result;
}

uint64_t parse_size(const std::string& text) {
  // Digits, an optional fraction, an optional unit: parsed by hand, because stod also takes "inf",
  // "nan", "0x1p70" and exponents, and a value past 2^64 cast to an integer is undefined (it came
  // out as 0, and --keep-bytes 0 removes the whole store).
  auto bad = [&text] {
    return InputError("'" + printable(text, 40) + "' is not a size", "write e.g. 500M, 10G or a number of bytes");
  };
  size_t i = 0;
  uint64_t whole = 0;
  bool too_large = false;
  while (i < text.size() && is_digit(text[i])) {
    uint64_t digit = static_cast<uint64_t>(text[i] - '0');
    if (whole > (UINT64_MAX - digit) / 10) too_large = true;
    else whole = whole * 10 + digit;
    ++i;
  }
  if (i == 0) throw bad();
  long double fraction = 0, place = 0.1L;
  if (i < text.size() && text[i] == '.') {
    ++i;
    size_t start = i;
    for (; i < text.size() && is_digit(text[i]); ++i, place /= 10) fraction += place * (text[i] - '0');
    if (i == start) throw bad();
  }
  std::string unit = text.substr(i);
  if (!unit.empty() && (unit.back() == 'B' || unit.back() == 'b')) unit.pop_back();
  if (unit.size() == 2 && (unit[1] == 'i' || unit[1] == 'I')) unit.pop_back();
  int shift = unit.empty() ? 0 : unit == "K" || unit == "k" ? 10 : unit == "M" || unit == "m" ? 20
              : unit == "G" || unit == "g" ? 30 : unit == "T" || unit == "t" ? 40 : -1;
  if (shift < 0) throw bad();
  long double bytes = (static_cast<long double>(whole) + fraction) * static_cast<long double>(uint64_t{1} << shift);
  // 2^64 itself is not representable: the largest size is one below it.
  if (too_large || bytes >= 18446744073709551616.0L)
    throw InputError("the size '" + printable(text, 40) + "' is too large: the most is 18446744073709551615 bytes (16 EiB)",
                     "write e.g. 500M or 10G");
  if (shift == 0 && fraction == 0) return whole;  // exact, whatever long double's precision
  return static_cast<uint64_t>(bytes);
}

int parse_days(const std::string& text) {
  // At most 100 years: a cutoff that far back keeps everything, and days * 86400 stays in range.
  constexpr int kMaxDays = 36500;
  bool digits = !text.empty() && text.size() <= 9 && std::all_of(text.begin(), text.end(), is_digit);
  if (!text.empty() && text[0] == '-' && text.size() > 1)
    throw InputError("--keep-days " + printable(text, 40) + " is negative: it counts days back from now",
                     "write 0 or more, e.g. --keep-days 30 keeps what was used in the last 30 days");
  if (!digits) throw InputError("--keep-days '" + printable(text, 40) + "' is not a whole number of days", "write e.g. --keep-days 30");
  int days = std::stoi(text);
  if (days > kMaxDays)
    throw InputError("--keep-days " + text + " is more than " + std::to_string(kMaxDays) + " days (100 years)",
                     "write at most " + std::to_string(kMaxDays));
  return days;
}

}  // namespace rp
