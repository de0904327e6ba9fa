#include "python/record_check.hpp"

#include <spdlog/spdlog.h>

#include "util/error.hpp"

namespace rp::python {

void RecordCheck::check(const std::string& member, const std::string& expected_hash, const std::string& expected_size,
                        const std::string& actual_hash, uint64_t actual_size) {
  if (actual_hash == expected_hash && (expected_size.empty() || expected_size == std::to_string(actual_size))) return;
  std::string message = wheel_ + ": '" + member + "' does not match its RECORD row (RECORD: " + expected_hash +
                        (expected_size.empty() ? "" : ", " + expected_size + " bytes") + "; the member: " +
                        actual_hash + ", " + std::to_string(actual_size) + " bytes)";
  if (strict_) refuse_record_mismatch(message);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (mismatches_++ > 0) return;  // once per wheel: a wheel with thousands of bad rows must not flood the log
  }
  warn_record_mismatch(message);
  if (on_mismatch_) on_mismatch_(message);
}

size_t RecordCheck::mismatches() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return mismatches_;
}

void refuse_record_mismatch(const std::string& message) {
  throw Error(message, "the wheel is corrupt or was changed after it was built (pip refuses it too): rebuild it or "
                       "fetch a good copy; without --strict the build warns and keeps the wheel's bytes");
}

void warn_record_mismatch(const std::string& message) {
  spdlog::warn("{}; pip refuses such a wheel. The layer has the member as the wheel holds it (further mismatches in "
               "this wheel are not listed). Rebuild or re-download the wheel; `rockpack build --strict` refuses it",
               message);
}

}  // namespace rp::python
