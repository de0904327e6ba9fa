#include "python/record_check.hpp"

#include <algorithm>
#include <cctype>
#include <string_view>

#include <spdlog/spdlog.h>

#include "util/error.hpp"

namespace rp::python {

namespace {

// "sha256=<urlsafe base64>" -> "sha256=<64 hex>": TheRock's split device wheels (rocm_kpack's
// wheel splitter) write RECORD hashes in hex, which pip does not check and this check accepts.
std::string hex_form(const std::string& b64_hash) {
  static const std::string kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string bytes;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : std::string_view(b64_hash).substr(7)) {
    size_t v = kAlphabet.find(c);
    if (v == std::string::npos) return {};
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes += static_cast<char>((acc >> bits) & 0xff);
    }
  }
  static const char* kHex = "0123456789abcdef";
  std::string out = "sha256=";
  for (unsigned char b : bytes) out += kHex[b >> 4], out += kHex[b & 15];
  return out;
}

bool is_hex_hash(const std::string& h) {
  return h.size() == 71 && h.rfind("sha256=", 0) == 0 &&
         std::all_of(h.begin() + 7, h.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); });
}

}  // namespace

void RecordCheck::check(const std::string& member, const std::string& expected_hash, const std::string& expected_size,
                        const std::string& actual_hash, uint64_t actual_size) {
  bool size_ok = expected_size.empty() || expected_size == std::to_string(actual_size);
  if (actual_hash == expected_hash && size_ok) return;
  if (size_ok && is_hex_hash(expected_hash) && actual_hash.rfind("sha256=", 0) == 0) {
    std::string lower = expected_hash;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (hex_form(actual_hash) == lower) return;
  }
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
