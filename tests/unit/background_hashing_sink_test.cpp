#include <doctest/doctest.h>

#include <algorithm>
#include <memory>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>

#include "util/background_hashing_sink.hpp"
#include "util/byte_sink.hpp"
#include "util/digest.hpp"

TEST_CASE("background hashing sink: the same digest, count and forwarded bytes as hashing in line") {
  std::mt19937 rng(7);
  std::string data(5u * 1024 * 1024 + 12345, '\0');
  for (auto& c : data) c = static_cast<char>(rng());
  // Write sizes that straddle the 1 MiB blocks, tiny and larger than a block.
  // Forwarded at once or in blocks (a store blob), the file gets every byte in order.
  for (auto forward : {rp::BackgroundHashingSink::Forward::kAtOnce, rp::BackgroundHashingSink::Forward::kBlocks})
    for (size_t step : {size_t{1} << 20, size_t{4093}, size_t{3} << 20, data.size(), size_t{1000}}) {
      CAPTURE(step);
      const std::string bytes = step == 1000 ? data.substr(0, 1000) : data;  // under one block in all
      rp::StringSink forwarded;
      rp::BackgroundHashingSink sink(&forwarded, forward);
      for (size_t at = 0; at < bytes.size(); at += step) sink.write(bytes.data() + at, std::min(step, bytes.size() - at));
      CHECK(sink.finish_digest() == rp::sha256_digest(bytes));
      CHECK(sink.count() == bytes.size());
      CHECK(forwarded.str() == bytes);
    }
  rp::BackgroundHashingSink empty;
  CHECK(empty.finish_digest() == rp::sha256_digest(""));
}

TEST_CASE("background hashing sink: shared buffers are hashed in stream order with the gathered writes") {
  // A tar stream's shape: a 512-byte header, a member's bytes (large ones in shared buffers, kept
  // rather than copied), padding; the writer drops each buffer as soon as write_shared returns.
  for (auto forward : {rp::BackgroundHashingSink::Forward::kAtOnce, rp::BackgroundHashingSink::Forward::kBlocks}) {
    std::mt19937 rng(11);
    std::string data;
    rp::StringSink forwarded;
    rp::BackgroundHashingSink sink(&forwarded, forward);
    int i = 0;
    for (size_t size : {size_t{512}, size_t{300} << 10, size_t{700}, size_t{2} << 20, size_t{1} << 20, size_t{10},
                        size_t{256} << 10, size_t{(256 << 10) - 1}, size_t{20} << 20, size_t{3}, size_t{5} << 20}) {
      std::string piece(size, '\0');
      for (auto& c : piece) c = static_cast<char>(rng());
      data += piece;
      if (i++ % 2)
        sink.write_shared(std::make_shared<const std::string>(std::move(piece)));
      else
        sink.write(piece.data(), piece.size());
    }
    CHECK(sink.finish_digest() == rp::sha256_digest(data));
    CHECK(sink.count() == data.size());
    CHECK(forwarded.str() == data);
  }
}

TEST_CASE("background hashing sink: destroyed with shared buffers still queued (a build that failed)") {
  struct Failing final : rp::ByteSink {
    int left = 3;
    void write(const void*, size_t) override {
      if (--left < 0) throw std::runtime_error("disk full");
    }
  };
  for (int round = 0; round < 10; ++round) {
    Failing failing;
    rp::BackgroundHashingSink sink(&failing);
    auto write_ten = [&] {
      for (int i = 0; i < 10; ++i) sink.write_shared(std::make_shared<const std::string>(size_t{3} << 20, 'y'));
    };
    CHECK_THROWS_WITH(write_ten(), "disk full");
  }  // (ASan reports a leak or a use after free here if a kept buffer is mishandled)
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

TEST_CASE("background hashing sink: in blocks, bytes are passed on by a thread of its own, not the caller's") {
  // A store blob's write(2) calls leave the thread that produces the bytes (an inflate, a compressor).
  struct Recording final : rp::ByteSink {
    std::string bytes;
    std::set<std::thread::id> threads;
    void write(const void* data, size_t size) override {
      threads.insert(std::this_thread::get_id());
      bytes.append(static_cast<const char*>(data), size);
    }
  };
  std::string data(6u << 20, '\0');
  std::mt19937 rng(3);
  for (auto& c : data) c = static_cast<char>(rng());
  Recording recording;
  rp::BackgroundHashingSink sink(&recording, rp::BackgroundHashingSink::Forward::kBlocks);
  for (size_t at = 0; at < data.size(); at += 100000) sink.write(data.data() + at, std::min<size_t>(100000, data.size() - at));
  CHECK(sink.finish_digest() == rp::sha256_digest(data));
  CHECK(recording.bytes == data);
  REQUIRE(recording.threads.size() == 1);
  CHECK(*recording.threads.begin() != std::this_thread::get_id());
}

TEST_CASE("background hashing sink: in blocks, a failed write is thrown by a later write or by finish_digest") {
  struct Failing final : rp::ByteSink {
    int left = 0;
    void write(const void*, size_t) override {
      if (--left < 0) throw std::runtime_error("disk full");
    }
  };
  std::string block(1u << 20, 'z');
  for (int fail_after : {0, 2, 30}) {
    CAPTURE(fail_after);
    Failing failing;
    failing.left = fail_after;
    rp::BackgroundHashingSink sink(&failing, rp::BackgroundHashingSink::Forward::kBlocks);
    auto write_and_finish = [&] {
      for (int i = 0; i < 20; ++i) sink.write(block.data(), block.size());
      return sink.finish_digest();
    };
    if (fail_after < 20)
      CHECK_THROWS_WITH(write_and_finish(), "disk full");
    else
      CHECK(write_and_finish() == rp::sha256_digest(std::string(20u << 20, 'z')));
  }
  // Destroyed unfinished while its writer fails (the second write may already throw): no hang,
  // nothing leaks.
  for (int round = 0; round < 10; ++round) {
    Failing failing;
    rp::BackgroundHashingSink sink(&failing, rp::BackgroundHashingSink::Forward::kBlocks);
    try {
      sink.write(block.data(), block.size());
      sink.write(block.data(), block.size());
    } catch (const std::runtime_error& e) {
      CHECK(std::string(e.what()) == "disk full");
    }
  }
}
