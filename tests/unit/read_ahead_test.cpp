// The layer writer's read-ahead (assemble/read_ahead.hpp): the same tar bytes as without it, and a
// content that fails fails when the writer reaches it.
#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "assemble/read_ahead.hpp"
#include "assemble/tar_writer.hpp"
#include "util/error.hpp"

namespace {

class FailingContent final : public rp::ContentSource {
 public:
  uint64_t size() const override { return 10; }
  void write_to(rp::ByteSink&) const override { throw rp::Error("read-ahead test: this content fails"); }
  std::string content_key() const override { return "failing"; }
  std::string describe() const override { return "a failing test content"; }
};

// A large content that writes some of its bytes and then fails.
class FailingLargeContent final : public rp::ContentSource {
 public:
  uint64_t size() const override { return rp::ReadAhead::kMaxFileSize + 5; }
  void write_to(rp::ByteSink& sink) const override {
    std::string piece(3u << 20, 'x');
    sink.write(piece.data(), piece.size());
    throw rp::Error("read-ahead test: this large content fails");
  }
  std::string content_key() const override { return "failing-large"; }
  std::string describe() const override { return "a failing large test content"; }
};

// Counts how many contents are produced at once: the first ones wait (up to 5 s) until `want` run
// together, so the peak reaches `want` exactly when that many workers produce in parallel.
struct Concurrency {
  std::mutex mutex;
  std::condition_variable changed;
  int running = 0;
  int peak = 0;
  int want = 0;
};
class GatheringContent final : public rp::ContentSource {
 public:
  explicit GatheringContent(Concurrency& c) : c_(c) {}
  uint64_t size() const override { return 1000; }
  void write_to(rp::ByteSink& sink) const override {
    {
      std::unique_lock lock(c_.mutex);
      c_.peak = std::max(c_.peak, ++c_.running);
      c_.changed.notify_all();
      c_.changed.wait_for(lock, std::chrono::seconds(5), [&] { return c_.peak >= c_.want; });
      --c_.running;
    }
    std::string bytes(1000, 'g');
    sink.write(bytes.data(), bytes.size());
  }
  std::string content_key() const override { return "gathering"; }
  std::string describe() const override { return "a gathering test content"; }

 private:
  Concurrency& c_;
};

std::vector<rp::Entry> read_ahead_entries() {
  std::vector<rp::Entry> entries;
  for (int i = 0; i < 300; ++i) {
    rp::Entry e;
    e.path = "d/f" + std::to_string(i);
    // Sizes from empty to beyond ReadAhead's budget, so that some files wait for room, three are
    // streamed through a pipe (over kMaxFileSize, two of them next to each other) and directories
    // come between.
    size_t size = static_cast<size_t>(i * 977 % 300000);
    if (i == 7 || i == 150 || i == 151) size = static_cast<size_t>(rp::ReadAhead::kMaxFileSize + 1 + i);
    std::string bytes(size, static_cast<char>('a' + i % 26));
    for (size_t k = 0; k < bytes.size(); k += 4099) bytes[k] = static_cast<char>(k / 4099);  // pieces differ
    e.content = std::make_shared<rp::InlineContent>(std::move(bytes));
    entries.push_back(e);
    if (i % 50 == 0) {
      rp::Entry dir;
      dir.path = "dir" + std::to_string(i);
      dir.type = rp::EntryType::kDirectory;
      dir.mode = 0755;
      entries.push_back(dir);
    }
  }
  return entries;
}

std::string tar_of(const std::vector<rp::Entry>& entries, bool read_ahead, unsigned threads) {
  rp::StringSink out;
  rp::TarWriter tar(out, 1700000000);
  if (!read_ahead) {
    for (const auto& e : entries) tar.add(e);
  } else {
    rp::ReadAhead ahead(entries, tar, threads);
    for (size_t i = 0; i < entries.size(); ++i) {
      tar.add(entries[i], ahead.take(i));
      ahead.release(i);
    }
  }
  tar.finish();
  return out.take();
}

}  // namespace

TEST_CASE("read-ahead: the tar stream is byte for byte the one written without it") {
  auto entries = read_ahead_entries();
  std::string plain = tar_of(entries, false, 0);
  for (unsigned threads : {1u, 2u, 4u}) {
    CAPTURE(threads);
    CHECK(tar_of(entries, true, threads) == plain);
  }
}

TEST_CASE("read-ahead: a content that fails throws when the writer reaches it, after the entries before it") {
  auto entries = read_ahead_entries();
  entries[120].content = std::make_shared<FailingContent>();
  rp::StringSink out;
  rp::TarWriter tar(out, 1700000000);
  rp::ReadAhead ahead(entries, tar, 2);
  size_t written = 0;
  std::string message;
  try {
    for (size_t i = 0; i < entries.size(); ++i) {
      tar.add(entries[i], ahead.take(i));
      ahead.release(i);
      ++written;
    }
  } catch (const rp::Error& e) {
    message = e.what();
  }
  CHECK(written == 120);
  CHECK(message.find("this content fails") != std::string::npos);
}

TEST_CASE("read-ahead: a large file that fails mid-stream throws when the writer reaches it") {
  auto entries = read_ahead_entries();
  entries[30].content = std::make_shared<FailingLargeContent>();
  for (unsigned threads : {1u, 3u}) {
    CAPTURE(threads);
    rp::StringSink out;
    rp::TarWriter tar(out, 1700000000);
    rp::ReadAhead ahead(entries, tar, threads);
    size_t written = 0;
    std::string message;
    try {
      for (size_t i = 0; i < entries.size(); ++i) {
        tar.add(entries[i], ahead.take(i));
        ahead.release(i);
        ++written;
      }
    } catch (const rp::Error& e) {
      message = e.what();
    }
    CHECK(written == 30);
    CHECK(message.find("this large content fails") != std::string::npos);
  }
}

TEST_CASE("read-ahead: a layer abandoned while large files wait in their pipes stops its workers") {
  // Entries 150 and 151 are large: their producers fill their pipes and wait; the writer stops at
  // entry 100. The destructor must cancel them rather than wait forever.
  auto entries = read_ahead_entries();
  rp::StringSink out;
  rp::TarWriter tar(out, 1700000000);
  {
    rp::ReadAhead ahead(entries, tar, 4);
    for (size_t i = 0; i < 100; ++i) {
      tar.add(entries[i], ahead.take(i));
      ahead.release(i);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  CHECK(out.str().size() > 0);
}

TEST_CASE("read-ahead: every worker produces at once") {
  for (unsigned threads : {2u, 4u}) {
    CAPTURE(threads);
    Concurrency c;
    c.want = static_cast<int>(threads);
    std::vector<rp::Entry> entries;
    for (int i = 0; i < 40; ++i) {
      rp::Entry e;
      e.path = "g" + std::to_string(i);
      e.content = std::make_shared<GatheringContent>(c);
      entries.push_back(e);
    }
    rp::StringSink out;
    rp::TarWriter tar(out, 1700000000);
    rp::ReadAhead ahead(entries, tar, threads);
    for (size_t i = 0; i < entries.size(); ++i) {
      tar.add(entries[i], ahead.take(i));
      ahead.release(i);
    }
    CHECK(c.peak == static_cast<int>(threads));
  }
}

namespace {

// A content of `size` bytes made as it is written (no memory of its own), which counts the bytes of
// every content being produced or produced and not yet released by the writer.
struct LiveBytes {
  std::atomic<uint64_t> now{0}, peak{0};
};
class CountedContent final : public rp::ContentSource {
 public:
  CountedContent(uint64_t size, LiveBytes& live) : size_(size), live_(live) {}
  uint64_t size() const override { return size_; }
  void write_to(rp::ByteSink& sink) const override {
    uint64_t now = live_.now.fetch_add(size_) + size_;
    uint64_t peak = live_.peak.load();
    while (now > peak && !live_.peak.compare_exchange_weak(peak, now)) {
    }
    std::string chunk(64u << 10, static_cast<char>('a' + size_ % 26));
    for (uint64_t done = 0; done < size_;) {
      size_t n = static_cast<size_t>(std::min<uint64_t>(chunk.size(), size_ - done));
      sink.write(chunk.data(), n);
      done += n;
    }
  }
  std::string content_key() const override { return "counted"; }
  std::string describe() const override { return "a counted test content"; }

 private:
  uint64_t size_;
  LiveBytes& live_;
};

}  // namespace

TEST_CASE("read-ahead: what it holds stays within its memory share, with 2 workers or 64") {
  // 120 files of 1-8 MiB (about 540 MiB): 64 workers producing one each would hold over 300 MiB.
  for (unsigned threads : {2u, 64u}) {
    CAPTURE(threads);
    LiveBytes live;
    std::vector<rp::Entry> entries;
    for (int i = 0; i < 120; ++i) {
      rp::Entry e;
      e.path = "f" + std::to_string(i);
      e.content = std::make_shared<CountedContent>((1u << 20) + static_cast<uint64_t>(i) * 7919 * 61 % (7u << 20), live);
      entries.push_back(e);
    }
    rp::CountingSink out;
    rp::TarWriter tar(out, 1700000000);
    {
      rp::ReadAhead ahead(entries, tar, threads);
      for (size_t i = 0; i < entries.size(); ++i) {
        tar.add(entries[i], ahead.take(i));
        if (i % 8 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));  // a slow writer: the workers run ahead
        // Uncounted before it is released: once released, its budget lets a worker start the next
        // file, whose bytes must not be counted beside these.
        live.now -= entries[i].size();
        ahead.release(i);
      }
    }
    // Counted at kProducingFactor times their size while produced: the bytes themselves stay within
    // a third of the share, and never more than the share.
    CHECK(live.peak.load() <= rp::ReadAhead::kMaxAheadBytes);
    CHECK(rp::ReadAhead::kMaxAheadBytes == rp::memory::per_layer(rp::memory::kReadAheadShare));
    CHECK(live.peak.load() >= (1u << 20));  // it did read ahead
  }
}
