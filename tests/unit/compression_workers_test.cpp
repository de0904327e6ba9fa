// The compressors' workers and memory (assemble/compression.hpp): zstd's worker count is bounded by
// its memory budget whatever the pool, and both compressors write the same bytes for any number of
// workers.
#include <doctest/doctest.h>

#include <random>
#include <string>

#include "assemble/compression.hpp"
#include "assemble/memory_budget.hpp"
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

TEST_CASE("compression: zstd workers fit the memory budget, at least one, at most the pool and one") {
  CHECK(rp::zstd_workers(3, 1) == 1);  // one CPU: nothing to overlap
  CHECK(rp::zstd_workers(3, 2) == 3);  // one more than the CPUs, while the share has room
  unsigned many = rp::zstd_workers(3, 64);
  CHECK(many >= 3);
  CHECK(many <= 8);
  CHECK(rp::zstd_workers(3, 4096) == many);  // the share decides, not the pool
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

TEST_CASE("compression: zstd holds no more than a layer's memory share, with 1, 2 or 64 threads") {
  // 40 MiB of half-compressible input: enough jobs (2 MiB each) for every worker to hold one.
  std::mt19937 rng(5);
  std::string data(40u << 20, '\0');
  for (size_t i = 0; i < data.size(); ++i) data[i] = (i / 8192) % 2 ? static_cast<char>(rng()) : static_cast<char>('a' + i % 7);
  const uint64_t share = rp::memory::per_layer(rp::memory::kCompressionShare);
  uint64_t peak_one = 0;
  for (unsigned threads : {1u, 2u, 64u}) {
    CAPTURE(threads);
    rp::CountingSink out;
    auto compressor = rp::make_compressor(rp::Compression::parse("zstd"), out, threads);
    for (size_t at = 0; at < data.size(); at += 1u << 20) compressor->write(data.data() + at, 1u << 20);
    compressor->finish();
    uint64_t peak = compressor->peak_memory();
    CAPTURE(peak);
    CHECK(peak > (4u << 20));  // counted: the contexts and the input ring at least
    CHECK(peak <= share);
    if (threads == 1) peak_one = peak;
    else CHECK(peak > peak_one);  // more workers did start (3 at level 3), within the share
  }
}
