#pragma once
// The plumbing of every streaming stage: a producer pushes bytes into a ByteSink. Layers flow
// tar writer -> hashing tee -> compressor -> hashing tee -> file, one pass, no intermediate copy.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace rp {

class ByteSink {
 public:
  virtual ~ByteSink() = default;
  virtual void write(const void* data, size_t size) = 0;
  void write(std::string_view s) { write(s.data(), s.size()); }
  // The same as write(*bytes), for bytes held in a shared buffer (a whole inflated wheel member): a
  // sink that would copy them to use them later (BackgroundHashingSink) keeps the buffer instead.
  // Sinks that pass bytes on override it to pass the buffer on too.
  virtual void write_shared(const std::shared_ptr<const std::string>& bytes) { write(bytes->data(), bytes->size()); }
};

// A sink that computes the SHA-256 of everything written to it (a store blob being written). A
// source that must check the same bytes against a recorded hash (a wheel member against its RECORD
// row) asks it for the digest instead of hashing them a second time.
class DigestingSink : public ByteSink {
 public:
  virtual uint64_t size() const = 0;  // bytes written so far
  // "sha256:<hex>" of every byte written so far; nothing may be written after it.
  virtual std::string digest() = 0;
};

// Counts and discards; used where only the size or a digest is wanted.
class CountingSink final : public ByteSink {
 public:
  void write(const void*, size_t size) override { count_ += size; }
  uint64_t count() const { return count_; }

 private:
  uint64_t count_ = 0;
};

class StringSink final : public ByteSink {
 public:
  void write(const void* data, size_t size) override { out_.append(static_cast<const char*>(data), size); }
  const std::string& str() const { return out_; }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

}  // namespace rp
