#include "python/zip_member_content.hpp"

#include "util/digest.hpp"

namespace rp::python {

void ZipMemberContent::write_to(ByteSink& sink) const { archive_->stream_member(member_, sink); }

bool ZipMemberContent::has_deflate_stream() const {
  return member_.method == ZipMember::kDeflated && member_.uncompressed_size >= (1u << 20);
}

void ZipMemberContent::write_with_deflate(ByteSink& sink, ByteSink& deflated) const {
  archive_->stream_member_with_deflate(member_, sink, deflated);
}

std::string ZipMemberContent::content_key() const {
  if (!wheel_digest_.empty()) return "wheel-member:" + wheel_digest_ + ":" + member_.name;
  if (key_.empty()) {
    HashingSink hashing;
    archive_->stream_member(member_, hashing);
    key_ = hashing.finish_digest();
  }
  return key_;
}

std::string ZipMemberContent::quick_key() const {
  if (!wheel_digest_.empty()) return content_key();
  return "wheel-member:" + archive_->file_identity() + ":" + std::to_string(member_.local_header_offset) + ":" +
         std::to_string(member_.crc32) + ":" + std::to_string(member_.uncompressed_size);
}

}  // namespace rp::python
