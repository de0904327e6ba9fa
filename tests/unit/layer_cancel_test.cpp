// A layer whose build stopped (LayerOptions::cancelled, set when a plan fails after a step had
// layers written in the background) ends at its next entry and leaves nothing in the store; one
// not cancelled is written as always.
#include <doctest/doctest.h>

#include <atomic>
#include <filesystem>

#include "assemble/layer_builder.hpp"
#include "test_helpers.hpp"

using namespace rp;
using rp::test::TempDir;

namespace {

std::vector<Entry> some_files(int n) {
  std::vector<Entry> out;
  for (int i = 0; i < n; ++i) {
    Entry e;
    e.path = "data/file" + std::to_string(i);
    e.type = EntryType::kFile;
    e.mode = 0644;
    e.content = std::make_shared<InlineContent>(std::string(4096, static_cast<char>('a' + i % 26)));
    e.origin = "test";
    out.push_back(std::move(e));
  }
  finalize_entries(out);
  return out;
}

// 1 MiB of bytes that stop the build when they are read: the layer is then half written.
class StoppingContent final : public ContentSource {
 public:
  explicit StoppingContent(std::atomic<bool>& stop) : stop_(stop) {}
  uint64_t size() const override { return kSize; }
  void write_to(ByteSink& sink) const override {
    std::string bytes(kSize, 'x');
    sink.write(bytes.data(), bytes.size());
    stop_ = true;
  }
  std::string content_key() const override { return "test:stopping"; }
  std::string describe() const override { return "content that stops the build"; }

 private:
  static constexpr uint64_t kSize = 1u << 20;
  std::atomic<bool>& stop_;
};

// The store's blobs, records and temporaries (its lock files are bookkeeping).
size_t files_under(const std::filesystem::path& store) {
  size_t n = 0;
  for (const char* part : {"blobs", "records", "tmp"}) {
    if (!std::filesystem::exists(store / part)) continue;
    for (const auto& e : std::filesystem::recursive_directory_iterator(store / part))
      if (e.is_regular_file()) ++n;
  }
  return n;
}

}  // namespace

TEST_CASE("layer builder: a cancelled layer stops and stores nothing; an uncancelled one is written") {
  TempDir dir;
  ContentStore store(dir.path / "store");
  const auto entries = some_files(50);
  const size_t before = files_under(dir.path / "store");

  std::atomic<bool> cancelled{true};
  LayerOptions options{Compression::parse("zstd"), 0, 2};
  options.cancelled = &cancelled;
  {
    LayerBuilder builder(store, options);
    CHECK_THROWS_AS(builder.build("data", entries, "recipe/data"), LayerCancelled);
  }
  CHECK(files_under(dir.path / "store") == before);  // no blob, no record, no temporary left

  cancelled = false;
  LayerBuilder builder(store, options);
  BuiltLayer built = builder.build("data", entries, "recipe/data");
  CHECK_FALSE(built.from_cache);
  CHECK(store.contains(built.layer.blob.digest));
  CHECK(files_under(dir.path / "store") > before);
}

TEST_CASE("layer builder: a layer cancelled half-way leaves no blob and no temporary") {
  TempDir dir;
  ContentStore store(dir.path / "store");
  std::atomic<bool> cancelled{false};
  auto entries = some_files(200);
  Entry stopper;
  stopper.path = "data/file0-stop";  // sorts near the start: most entries come after it
  stopper.type = EntryType::kFile;
  stopper.mode = 0644;
  stopper.content = std::make_shared<StoppingContent>(cancelled);
  stopper.origin = "test";
  entries.push_back(std::move(stopper));
  finalize_entries(entries);
  const size_t before = files_under(dir.path / "store");

  LayerOptions options{Compression::parse("gzip"), 0, 2};
  options.cancelled = &cancelled;
  LayerBuilder builder(store, options);
  CHECK_THROWS_AS(builder.build("data", entries, "recipe/data"), LayerCancelled);
  CHECK(cancelled.load());
  CHECK(files_under(dir.path / "store") == before);
}
