// The layer writer's read-ahead (assemble/read_ahead.hpp): the same tar bytes as without it, and a
// content that fails fails when the writer reaches it.
#include <doctest/doctest.h>

#include <memory>
#include <string>
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

std::vector<rp::Entry> read_ahead_entries() {
  std::vector<rp::Entry> entries;
  for (int i = 0; i < 300; ++i) {
    rp::Entry e;
    e.path = "d/f" + std::to_string(i);
    // Sizes from empty to beyond ReadAhead's budget, so that some files wait for room, one is
    // written inline (over kMaxFileSize) and directories come between.
    size_t size = i == 7 ? static_cast<size_t>(rp::ReadAhead::kMaxFileSize + 1) : static_cast<size_t>(i * 977 % 300000);
    e.content = std::make_shared<rp::InlineContent>(std::string(size, static_cast<char>('a' + i % 26)));
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
