#pragma once
// `rockpack cache`: the store as a managed cache (like `uv cache` and `docker builder prune`).
// Usage by kind and age, pruning by age, size or all, and verifying every blob against its name.
// Pruning takes the store's lock exclusively (waiting for running builds, which hold it shared:
// ContentStore), so nothing a build in progress uses is removed.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/fs.hpp"

namespace rp {

struct CacheUsage {
  struct Kind {
    std::string name;  // "blobs", "records", "tmp"
    uint64_t files = 0;
    uint64_t bytes = 0;
  };
  std::vector<Kind> kinds;
  // Blob bytes by the days since their last use: < 1, < 7, < 30, older.
  uint64_t by_age[4] = {0, 0, 0, 0};
  uint64_t total_bytes = 0;
};
CacheUsage cache_usage(const fs::path& root);

struct PruneOptions {
  std::optional<int> keep_days;        // remove what was not used in the last N days
  std::optional<uint64_t> keep_bytes;  // then remove the least recently used until the store fits
  bool all = false;                    // remove everything
};
struct PruneResult {
  uint64_t files = 0;
  uint64_t bytes = 0;
};
// Waits for running builds (the store lock) and prunes. Throws rp::InputError when no criterion is given.
PruneResult prune_cache(const fs::path& root, const PruneOptions& options);

struct VerifyResult {
  uint64_t blobs = 0;
  std::vector<std::string> bad;  // digests whose content does not hash to their name
  // Records a RecordCheck refused: "kind/file: why".
  std::vector<std::string> bad_records;
  bool repaired = false;
};
// Checks the record values of some kinds (the layer records: assemble/layer_builder.hpp knows
// what makes one trustworthy; this module only walks the files). Returns why a value is bad, or "".
struct RecordCheck {
  std::vector<std::string> kinds;
  std::function<std::string(const nlohmann::json& value)> check;
};
// Hashes every blob and runs `records` over its kinds; with `repair`, removes the bad blobs and
// records (under the exclusive lock).
VerifyResult verify_cache(const fs::path& root, bool repair, const RecordCheck& records = {});

// "10G", "500M", "1.5GiB", "123" (bytes) -> bytes. Throws rp::InputError.
// Past 16 EiB (2^64 - 1 bytes) it is refused, never wrapped.
uint64_t parse_size(const std::string& text);
// "30" -> 30: --keep-days, a whole number from 0 to 36500. Throws rp::InputError naming what is wrong
// (negative, not a number, too large).
int parse_days(const std::string& text);

// The store's lock file; ContentStore holds it shared while it is open.
fs::path store_lock_path(const fs::path& root);

}  // namespace rp
