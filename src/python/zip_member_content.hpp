#pragma once
// A layer file whose bytes come straight out of a wheel: the member is inflated while the tar is
// written, so installing a wheel never needs an unpacked copy on disk.
#include <memory>
#include <string>

#include "entries/entry.hpp"
#include "python/record_check.hpp"
#include "python/wheel_archive.hpp"

namespace rp::python {

class ZipMemberContent final : public ContentSource {
 public:
  // `member` must belong to `archive` (it points into archive->members()). `wheel_digest`, when
  // known, is the verified "sha256:<hex>" of the whole wheel file: it identifies every member's
  // bytes, so cache keys need not inflate the member just to hash it.
  ZipMemberContent(std::shared_ptr<const WheelArchive> archive, const ZipMember& member,
                   std::string wheel_digest = {})
      : archive_(std::move(archive)), member_(member), wheel_digest_(std::move(wheel_digest)) {}

  // Checks the member against its RECORD row (`record_hash` "sha256=...", `record_size` or empty)
  // as it streams: write_to and write_with_deflate hash the bytes they pass on (or take the digest
  // from a DigestingSink that has them all) and hand the result to `check` (which warns, or throws
  // in strict mode). Without this, nothing is checked but the CRC.
  void check_record(std::shared_ptr<RecordCheck> check, std::string record_hash, std::string record_size) {
    check_ = std::move(check);
    record_hash_ = std::move(record_hash);
    record_size_ = std::move(record_size);
  }

  uint64_t size() const override { return member_.uncompressed_size; }
  // Inflates the member into `sink`; throws rp::Error naming the wheel and member when the CRC-32
  // or the size does not match the central directory, then checks the RECORD row (check_record).
  void write_to(ByteSink& sink) const override;
  // With a wheel digest: "wheel-member:<wheel digest>:<member name>" (free). Without:
  // "sha256:<hex>" of the uncompressed bytes (computed once, on first use: inflates the member).
  // A member with a RECORD check has "record-checked:" in front: a layer cached by a build that did
  // not check its members (a rockpack before the check) is then never taken for a checked one, so
  // `build --strict` cannot accept unchecked bytes from the layer cache.
  std::string content_key() const override;
  std::string describe() const override { return archive_->display_name() + ":" + member_.name; }
  // The content key when the wheel digest is known; otherwise the wheel file's identity plus the
  // member's offset and CRC, which changes whenever the bytes may.
  std::string quick_key() const override;
  // Deflated members of at least 64 KiB: below that, ending the layer's current gzip member to copy
  // the stream costs more (size and time) than compressing the bytes again.
  bool has_deflate_stream() const override;
  void write_with_deflate(ByteSink& sink, ByteSink& deflated) const override;

 private:
  std::string with_check_mark(std::string key) const;

  std::shared_ptr<const WheelArchive> archive_;
  const ZipMember& member_;
  std::string wheel_digest_;
  mutable std::string key_;
  std::shared_ptr<RecordCheck> check_;
  std::string record_hash_;
  std::string record_size_;
};

}  // namespace rp::python
