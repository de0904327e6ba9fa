#include <doctest/doctest.h>

#include <random>
#include <string>

#include "util/background_hashing_sink.hpp"
#include "util/byte_sink.hpp"
#include "util/digest.hpp"

TEST_CASE("background hashing sink: the same digest, count and forwarded bytes as hashing in line") {
  std::mt19937 rng(7);
  std::string data(5u * 1024 * 1024 + 12345, '\0');
  for (auto& c : data) c = static_cast<char>(rng());
  // Write sizes that straddle the 1 MiB blocks, tiny and larger than a block.
  for (size_t step : {size_t{1} << 20, size_t{4093}, size_t{3} << 20, data.size()}) {
    CAPTURE(step);
    rp::StringSink forwarded;
    rp::BackgroundHashingSink sink(&forwarded);
    for (size_t at = 0; at < data.size(); at += step) sink.write(data.data() + at, std::min(step, data.size() - at));
    CHECK(sink.finish_digest() == rp::sha256_digest(data));
    CHECK(sink.count() == data.size());
    CHECK(forwarded.str() == data);
  }
  rp::BackgroundHashingSink empty;
  CHECK(empty.finish_digest() == rp::sha256_digest(""));
}

TEST_CASE("background hashing sink: destroyed without finishing (a build that failed) stops its thread") {
  std::string block(3u << 20, 'x');
  rp::CountingSink forwarded;
  for (int i = 0; i < 20; ++i) {
    rp::BackgroundHashingSink sink(&forwarded);
    sink.write(block.data(), block.size());
  }  // (a hang here, or ASan's report of a thread still running, is the other failure)
  CHECK(forwarded.count() == 20 * block.size());
}
