#include "util/gzip_fd_reader.hpp"

#include <libdeflate.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>

namespace rp {

struct GzipFdReader::State {
  libdeflate_decompressor* deflate = nullptr;
  z_stream z{};
  bool z_ready = false;
  ~State() {
    if (deflate) libdeflate_free_decompressor(deflate);
    if (z_ready) inflateEnd(&z);
  }
};

GzipFdReader::GzipFdReader(int fd, Sha256* compressed_sha, Sha256* uncompressed_sha, size_t input_window,
                           size_t libdeflate_limit)
    : fd_(fd), compressed_sha_(compressed_sha), uncompressed_sha_(uncompressed_sha), in_(input_window), out_(libdeflate_limit),
      state_(std::make_unique<State>()) {
  state_->deflate = libdeflate_alloc_decompressor();
  state_->z_ready = inflateInit2(&state_->z, 16 + MAX_WBITS) == Z_OK;  // gzip only
}

GzipFdReader::~GzipFdReader() = default;

int64_t GzipFdReader::fail(const std::string& message) {
  if (error_.empty()) error_ = message;
  return -1;
}

bool GzipFdReader::fill() {
  if (eof_ || in_end_ - in_pos_ >= in_.size() / 2) return true;
  if (in_pos_ > 0) {
    std::memmove(in_.data(), in_.data() + in_pos_, in_end_ - in_pos_);
    in_end_ -= in_pos_;
    in_pos_ = 0;
  }
  while (in_end_ < in_.size()) {
    ssize_t n = ::read(fd_, in_.data() + in_end_, in_.size() - in_end_);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      error_ = std::strerror(errno);
      return false;
    }
    if (n == 0) {
      eof_ = true;
      break;
    }
    if (compressed_sha_) compressed_sha_->update(in_.data() + in_end_, static_cast<size_t>(n));
    in_end_ += static_cast<size_t>(n);
  }
  return true;
}

int64_t GzipFdReader::next(const void** out) {
  if (!error_.empty()) return -1;
  if (done_) return 0;
  if (!state_->deflate || !state_->z_ready) return fail("cannot allocate a gzip decompressor");
  z_stream& z = state_->z;
  for (;;) {
    if (streaming_) {
      if (in_pos_ == in_end_ && !fill()) return -1;
      z.next_in = in_.data() + in_pos_;
      z.avail_in = static_cast<uInt>(in_end_ - in_pos_);
      z.next_out = out_.data();
      z.avail_out = static_cast<uInt>(out_.size());
      int r = inflate(&z, Z_NO_FLUSH);
      in_pos_ = in_end_ - z.avail_in;
      size_t produced = out_.size() - z.avail_out;
      if (r == Z_STREAM_END) {
        streaming_ = false;
        ++members_;
      } else if (r == Z_BUF_ERROR) {
        if (produced == 0 && in_pos_ == in_end_ && eof_) return fail("the gzip stream is truncated");
      } else if (r != Z_OK) {
        return fail(std::string("corrupt gzip data: ") + (z.msg ? z.msg : "inflate failed"));
      }
      if (produced > 0) {
        if (uncompressed_sha_) uncompressed_sha_->update(out_.data(), produced);
        *out = out_.data();
        return static_cast<int64_t>(produced);
      }
      continue;
    }
    // Between members.
    if (!fill()) return -1;
    const size_t avail = in_end_ - in_pos_;
    if (avail == 0) {
      if (members_ == 0) return fail("the gzip stream is empty");
      done_ = true;
      return 0;
    }
    if (avail < 2 || in_[in_pos_] != 0x1f || in_[in_pos_ + 1] != 0x8b) {
      if (members_ == 0) return fail("not gzip data");
      // Trailing bytes: hashed with the rest of the blob, not decompressed.
      in_pos_ = in_end_;
      while (!eof_) {
        if (!fill()) return -1;
        in_pos_ = in_end_;
      }
      done_ = true;
      return 0;
    }
    size_t used_in = 0, used_out = 0;
    libdeflate_result r = libdeflate_gzip_decompress_ex(state_->deflate, in_.data() + in_pos_, avail, out_.data(),
                                                        out_.size(), &used_in, &used_out);
    if (r == LIBDEFLATE_SUCCESS) {
      in_pos_ += used_in;
      ++members_;
      if (used_out == 0) continue;
      if (uncompressed_sha_) uncompressed_sha_->update(out_.data(), used_out);
      *out = out_.data();
      return static_cast<int64_t>(used_out);
    }
    // A member larger than the buffers (or damaged: zlib says how): zlib, from the member's start.
    if (inflateReset2(&z, 16 + MAX_WBITS) != Z_OK) return fail("cannot reset the gzip decompressor");
    streaming_ = true;
  }
}

}  // namespace rp
