#pragma once
// SHA-256 digests in the OCI form "sha256:<64 hex>". Streaming hashing is OpenSSL's (SHA-NI when the
// CPU has it), so hashing never becomes the bottleneck of a layer pipeline.
#include <memory>
#include <string>
#include <string_view>

#include "util/byte_sink.hpp"

namespace rp {

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  void update(const void* data, size_t size);
  void update(std::string_view s) { update(s.data(), s.size()); }
  // Returns "sha256:<hex>". The object is reset afterwards and can be used again.
  std::string finish_digest();
  // Returns the 32 raw bytes.
  std::string finish_raw();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

std::string sha256_digest(std::string_view data);  // "sha256:<hex>"
std::string sha256_hex(std::string_view data);     // "<hex>"
std::string to_hex(std::string_view raw);

// Validates "sha256:<64 lowercase hex>"; returns the hex part. Throws InputError otherwise.
std::string digest_hex(std::string_view digest);
bool is_valid_digest(std::string_view digest);
// 64 lowercase hex digits: a SHA-256 as apt's indexes and wheels' hashes write it (no "sha256:").
bool is_sha256_hex(std::string_view hex);

// Passes bytes on to `next` (if any) while hashing and counting them.
class HashingSink final : public ByteSink {
 public:
  explicit HashingSink(ByteSink* next = nullptr) : next_(next) {}
  void write(const void* data, size_t size) override;
  uint64_t count() const { return count_; }
  std::string finish_digest() { return sha256_.finish_digest(); }

 private:
  ByteSink* next_;
  Sha256 sha256_;
  uint64_t count_ = 0;
};

}  // namespace rp
