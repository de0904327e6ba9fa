#include "python/zip_member_content.hpp"

#include "python/wheel_record.hpp"
#include "util/digest.hpp"

namespace rp::python {

namespace {

// RECORD's form ("sha256=<urlsafe base64>") of a "sha256:<hex>" digest.
std::string record_hash_of(const std::string& digest) {
  std::string hex = digest_hex(digest);
  std::string raw(hex.size() / 2, '\0');
  for (size_t i = 0; i < raw.size(); ++i) raw[i] = static_cast<char>(std::stoi(hex.substr(2 * i, 2), nullptr, 16));
  return record_hash_of_raw_digest(raw);
}

std::string record_hash_of(HashingSink& hashing) { return record_hash_of(hashing.finish_digest()); }

}  // namespace

void ZipMemberContent::write_to(ByteSink& sink) const {
  if (!check_) return archive_->stream_member(member_, sink);
  // A sink that hashes what it gets from its first byte (a store blob: rocm-sdk-devel's tarball,
  // 256 MB, is copied into the store) has the member's digest anyway: check RECORD against it.
  auto* digesting = dynamic_cast<DigestingSink*>(&sink);
  if (digesting && digesting->size() == 0) {
    archive_->stream_member(member_, sink);
    check_->check(member_.name, record_hash_, record_size_, record_hash_of(digesting->digest()),
                  digesting->size());
    return;
  }
  HashingSink hashing(&sink);
  archive_->stream_member(member_, hashing);
  check_->check(member_.name, record_hash_, record_size_, record_hash_of(hashing),
                hashing.count());
}

// A copied member becomes a gzip member of its own (18 bytes of header and trailer) and ends the
// block being compressed before it, so copying pays from a few tens of KiB: from 64 KiB the overhead
// is under 0.1% of the member, and compressing it again would cost far more time than it saves
// bytes (wheels are deflated at zlib's default level, the one gzip layers use).
constexpr uint64_t kCopyDeflateFrom = 64u << 10;

bool ZipMemberContent::has_deflate_stream() const {
  return member_.method == ZipMember::kDeflated && member_.uncompressed_size >= kCopyDeflateFrom;
}

void ZipMemberContent::write_with_deflate(ByteSink& sink, ByteSink& deflated) const {
  if (!check_) return archive_->stream_member_with_deflate(member_, sink, deflated);
  HashingSink hashing(&sink);
  archive_->stream_member_with_deflate(member_, hashing, deflated);
  check_->check(member_.name, record_hash_, record_size_, record_hash_of(hashing),
                hashing.count());
}

std::string ZipMemberContent::with_check_mark(std::string key) const {
  return check_ ? "record-checked:" + key : key;
}

std::string ZipMemberContent::content_key() const {
  if (!wheel_digest_.empty()) return with_check_mark("wheel-member:" + wheel_digest_ + ":" + member_.name);
  if (key_.empty()) {
    HashingSink hashing;
    archive_->stream_member(member_, hashing);
    key_ = hashing.finish_digest();
  }
  return with_check_mark(key_);
}

std::string ZipMemberContent::quick_key() const {
  if (!wheel_digest_.empty()) return content_key();
  return with_check_mark("wheel-member:" + archive_->file_identity() + ":" + std::to_string(member_.local_header_offset) +
                         ":" + std::to_string(member_.crc32) + ":" + std::to_string(member_.uncompressed_size));
}

}  // namespace rp::python
