// The compressors' workers and memory (assemble/compression.hpp): zstd's worker count is bounded by
// its memory budget whatever the pool, and both compressors write the same bytes for any number of
// workers.
#include <doctest/doctest.h>

#include <random>
#include <string>

#include "assemble/compression.hpp"
#include "util/byte_sink.hpp"

namespace {

std::string compress(const rp::Compression& c, const std::string& data, unsigned threads) {
  rp::StringSink out;
  auto compressor = rp::make_compressor(c, out, threads);
  // Uneven writes, as a tar stream makes them.
  size_t at = 0, step = 1;
  while (at < data.size()) {
    size_t n = std::min(data.size() - at, step);
    compressor->write(data.data() + at, n);
    at += n;
    step = step * 7 % 3000001 + 1;
  }
  compressor->finish();
  return out.take();
}

}  // namespace

TEST_CASE("compression: zstd workers fit the memory budget, at least one, at most the pool") {
  CHECK(rp::zstd_workers(3, 1) == 1);
  CHECK(rp::zstd_workers(3, 2) == 2);
  unsigned many = rp::zstd_workers(3, 64);
  CHECK(many >= 4);
  CHECK(many <= 16);
  CHECK(rp::zstd_workers(10, 64) < many);  // larger contexts, fewer workers
  CHECK(rp::zstd_workers(10, 64) == 2);     // but never fewer than 2 when the pool has them
  CHECK(rp::zstd_workers(19, 64) == 2);
  CHECK(rp::zstd_workers(19, 1) == 1);
}

TEST_CASE("compression: the same bytes for 1, 2 and 5 workers (gzip and zstd)") {
  std::mt19937 rng(11);
  std::string data(9u << 20, '\0');
  for (size_t i = 0; i < data.size(); ++i) data[i] = (i / 4096) % 2 ? static_cast<char>(rng()) : static_cast<char>('a' + i % 13);
  for (const char* kind : {"gzip", "zstd", "zstd:10"}) {
    CAPTURE(kind);
    rp::Compression c = rp::Compression::parse(kind);
    std::string one = compress(c, data, 1);
    CHECK(compress(c, data, 2) == one);
    CHECK(compress(c, data, 5) == one);
    CHECK(one.size() < data.size());
  }
}
