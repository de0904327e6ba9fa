#include "assemble/compression.hpp"

#include <libdeflate.h>
#define ZSTD_STATIC_LINKING_ONLY  // ZSTD_estimateCCtxSize (what a worker costs), ZSTD_createCCtx_advanced
#include <zstd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "assemble/memory_budget.hpp"
#include "util/cpus.hpp"
#include "util/error.hpp"

namespace rp {

Compression Compression::parse(const std::string& text) {
  Compression c;
  std::string kind = text, level;
  if (auto colon = text.find(':'); colon != std::string::npos) {
    kind = text.substr(0, colon);
    level = text.substr(colon + 1);
  }
  if (kind == "gzip") {
    c.kind = Kind::kGzip;
    c.level = 6;
  } else if (kind == "zstd") {
    c.kind = Kind::kZstd;
    c.level = 3;
  } else if (kind == "none") {
    c.kind = Kind::kNone;
    c.level = 0;
  } else {
    throw InputError("unknown compression '" + text + "'", "use gzip[:1-12], zstd[:1-19] or none");
  }
  if (!level.empty()) {
    int max = c.kind == Kind::kGzip ? 12 : c.kind == Kind::kZstd ? 19 : 0;
    try {
      size_t used = 0;
      c.level = std::stoi(level, &used);
      if (used != level.size()) throw std::invalid_argument("trailing");
    } catch (const std::exception&) {
      throw InputError("compression level '" + level + "' is not a number", "use e.g. gzip:6 or zstd:10");
    }
    if (c.level < 1 || c.level > max)
      throw InputError("compression level " + level + " is out of range for " + kind,
                       kind + " levels run from 1 to " + std::to_string(max));
  }
  return c;
}

std::string Compression::str() const {
  switch (kind) {
    case Kind::kGzip: return "gzip:" + std::to_string(level);
    case Kind::kZstd: return "zstd:" + std::to_string(level);
    case Kind::kNone: return "none";
  }
  return "none";
}

const char* Compression::media_type() const {
  switch (kind) {
    case Kind::kGzip: return "application/vnd.oci.image.layer.v1.tar+gzip";
    case Kind::kZstd: return "application/vnd.oci.image.layer.v1.tar+zstd";
    case Kind::kNone: return "application/vnd.oci.image.layer.v1.tar";
  }
  return "";
}

namespace {

unsigned resolve_threads(unsigned threads) {
  return threads ? threads : worker_count();
}

class PassthroughCompressor final : public Compressor {
 public:
  explicit PassthroughCompressor(ByteSink& out) : out_(out) {}
  void write(const void* data, size_t size) override { out_.write(data, size); }
  void finish() override {}

 private:
  ByteSink& out_;
};

// pigz-style parallel gzip on libdeflate: input is cut into fixed blocks, each compressed by a
// worker into a complete gzip member, and the members are written in input order. The block size
// fixes the output, so it never depends on the number of cores. Memory is bounded by the number of
// blocks in flight: two per worker (one being compressed, one waiting), at most kMaxInFlight, each
// 1 MiB of input and at most about 1 MiB of output: a layer's share of memory::kCompressionShare
// (32 MiB) whatever the core count.
class ParallelGzipCompressor final : public Compressor, private DeflatePassthrough {
 public:
  static constexpr size_t kBlockSize = 1 << 20;
  static constexpr size_t kMaxInFlight = memory::per_layer(memory::kCompressionShare) / (2 * kBlockSize);

  ParallelGzipCompressor(ByteSink& out, int level, unsigned threads)
      : out_(out), level_(level), max_in_flight_(std::min<size_t>(2 * size_t{threads} + 2, kMaxInFlight)) {
    current_.reserve(kBlockSize);
    for (unsigned i = 0; i < threads; ++i) workers_.emplace_back([this] { work(); });
  }

  ~ParallelGzipCompressor() override { stop_workers(); }

  void write(const void* data, size_t size) override {
    if (copying_) {  // the bytes of a copied deflate stream: only the trailer needs them
      copied_crc_ = libdeflate_crc32(copied_crc_, data, size);
      copied_size_ += size;
      return;
    }
    const char* p = static_cast<const char*>(data);
    while (size) {
      size_t take = std::min(size, kBlockSize - current_.size());
      current_.append(p, take);
      p += take;
      size -= take;
      if (current_.size() == kBlockSize) submit();
    }
  }

  void finish() override {
    if (copying_) throw Error("internal: a copied deflate stream was not ended");
    if (!current_.empty() || submitted_ == 0) submit();  // an empty layer is still one valid member
    while (next_to_write_ < submitted_) write_next();
    stop_workers();
  }

  DeflatePassthrough* deflate_passthrough() override { return level_ <= 6 ? this : nullptr; }

 private:
  void begin() override {
    if (!current_.empty()) submit();
    while (next_to_write_ < submitted_) write_next();
    // RFC 1952 header: deflate, no flags, no mtime; XFL 0 and OS 255 ("unknown") as libdeflate writes.
    static const unsigned char kHeader[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff};
    out_.write(kHeader, sizeof kHeader);
    copying_ = true;
    copied_crc_ = 0;
    copied_size_ = 0;
  }
  ByteSink& deflate_sink() override { return out_; }
  void end() override {
    unsigned char trailer[8];
    for (int i = 0; i < 4; ++i) {
      trailer[i] = static_cast<unsigned char>(copied_crc_ >> (8 * i));
      trailer[4 + i] = static_cast<unsigned char>(copied_size_ >> (8 * i));  // ISIZE: size mod 2^32
    }
    out_.write(trailer, sizeof trailer);
    copying_ = false;
  }

  struct Job {
    uint64_t seq;
    std::string input;
    std::string output;
    bool done = false;
    std::string error;
  };

  void submit() {
    // Bound memory: wait for the oldest block and write it out before queuing another.
    while (submitted_ - next_to_write_ >= max_in_flight_) write_next();
    auto job = std::make_shared<Job>();
    job->seq = submitted_++;
    job->input.swap(current_);
    {
      std::lock_guard lock(mu_);
      current_ = take_spare();
      pending_.push_back(job);
      in_order_.push_back(job);
    }
    current_.clear();
    current_.reserve(kBlockSize);
    work_cv_.notify_one();
  }

  void write_next() {
    std::shared_ptr<Job> job;
    {
      std::unique_lock lock(mu_);
      job = in_order_.front();
      done_cv_.wait(lock, [&] { return job->done; });
      in_order_.pop_front();
    }
    if (!job->error.empty()) throw Error(job->error);
    out_.write(job->output.data(), job->output.size());
    ++next_to_write_;
    std::lock_guard lock(mu_);
    spare_.push_back(std::move(job->output));
  }

  void work() {
    libdeflate_compressor* c = libdeflate_alloc_compressor(level_);
    for (;;) {
      std::shared_ptr<Job> job;
      {
        std::unique_lock lock(mu_);
        work_cv_.wait(lock, [&] { return stopping_ || !pending_.empty(); });
        if (pending_.empty()) break;
        job = pending_.front();
        pending_.pop_front();
        job->output = take_spare();
      }
      if (!c) {
        job->error = "libdeflate could not allocate a compressor";
      } else {
        job->output.resize(libdeflate_gzip_compress_bound(c, job->input.size()));
        size_t n = libdeflate_gzip_compress(c, job->input.data(), job->input.size(), job->output.data(),
                                            job->output.size());
        if (n == 0) job->error = "libdeflate failed to compress a block";
        job->output.resize(n);
      }
      {
        std::lock_guard lock(mu_);
        spare_.push_back(std::move(job->input));
        job->done = true;
      }
      done_cv_.notify_all();
    }
    libdeflate_free_compressor(c);
  }

  // A block's buffer from those written out before (under mu_): 2,300 blocks of 1 MiB in and out for
  // a ROCm layer, each a fresh mapping otherwise (malloc maps buffers this large, cli/main.cpp),
  // whose page faults cost the gzip build about 20% more CPU time. At most about two buffers per
  // block in flight are kept.
  std::string take_spare() {
    if (spare_.empty()) return {};
    std::string s = std::move(spare_.back());
    spare_.pop_back();
    return s;
  }

  void stop_workers() {
    {
      std::lock_guard lock(mu_);
      stopping_ = true;
    }
    work_cv_.notify_all();
    for (auto& t : workers_)
      if (t.joinable()) t.join();
    workers_.clear();
  }

  ByteSink& out_;
  int level_;
  size_t max_in_flight_;
  std::string current_;
  uint64_t submitted_ = 0;
  uint64_t next_to_write_ = 0;
  std::mutex mu_;
  std::condition_variable work_cv_, done_cv_;
  std::deque<std::shared_ptr<Job>> pending_;   // not yet picked by a worker
  std::deque<std::shared_ptr<Job>> in_order_;  // not yet written, in input order
  std::vector<std::string> spare_;             // buffers of blocks written out, for the next ones
  bool stopping_ = false;
  std::vector<std::thread> workers_;
  bool copying_ = false;  // between begin() and end() of a copied deflate stream
  uint32_t copied_crc_ = 0;
  uint64_t copied_size_ = 0;
};

// zstd with its own worker threads. nbWorkers >= 1 always: zstd's single-threaded mode emits a
// different (equally valid) frame, and we want one output for every machine. The job size is fixed
// (kJobSize) for the same reason -- zstd's frame depends on it, never on the worker count -- and for
// memory: by default a job is 4 windows (8 MiB at level 3, 16 MiB at level 10).
//
// Memory (zstd 1.5's multithreaded compressor, measured with heaptrack and peak_memory()): an input
// ring of kJobSize x (workers + 3) (each worker's job, and slack for the overlap and the job being
// filled); an output buffer of about kJobSize for each job in its table (workers + 2), which holds
// its output until this thread flushes it; and a compression context (ZSTD_estimateCCtxSize) per
// worker and one for the frame. Counting the ring and the workers' contexts alone, 4 workers fit a
// 32 MiB share at level 3, and peaks of 33 MiB were measured when the flushing thread fell behind.
// The workers are one more than the pool (when it has 2 or more), as many as fit a layer's share of
// memory::kCompressionShare with everything counted, and at least 2 when the pool has 2 (fewer
// would halve a 2-core build's speed): at level 3, 3 workers in 32 MiB; at level 10 and above the
// contexts alone pass the share and the floor of 2 decides. The one more keeps the cores busy while
// a worker waits for this thread to post or flush a job: with as many workers as CPUs, the ROCm
// build's largest layer, written alone at the end, kept 2 cores 88% busy; with one more, the layers
// stage's efficiency went from 0.93-0.95 to 0.96-0.97 (same frame: it never depends on the workers). On one
// CPU there is nothing to overlap. Past a few workers the layer's own digests (one SHA-256 each
// over the stream, about 1.7 GB/s) bound a layer anyway, and layers are written side by side
// (LayerBuilder::build_all).
class ZstdCompressor final : public Compressor {
 public:
  static constexpr size_t kJobSize = 2u << 20;

  static unsigned workers_for(int level, unsigned threads) {
    const size_t share = memory::per_layer(memory::kCompressionShare);
    const size_t context = ZSTD_estimateCCtxSize(level);
    const size_t fixed = 3 * kJobSize + 2 * kJobSize + context;  // ring slack, 2 more jobs' output, the frame's context
    const size_t per_worker = context + 2 * kJobSize;              // its context, its job's input and output
    size_t fit = share > fixed ? (share - fixed) / per_worker : 0;
    fit = std::max<size_t>(2, fit);
    const size_t wanted = threads >= 2 ? threads + 1 : threads;
    return static_cast<unsigned>(std::max<size_t>(1, std::min<size_t>(wanted, fit)));
  }

  ZstdCompressor(ByteSink& out, int level, unsigned threads)
      : out_(out), ctx_(ZSTD_createCCtx_advanced(ZSTD_customMem{&counted_alloc, &counted_free, &memory_})) {
    if (!ctx_) throw Error("zstd could not allocate a compression context");
    check(ZSTD_CCtx_setParameter(ctx_, ZSTD_c_compressionLevel, level));
    check(ZSTD_CCtx_setParameter(ctx_, ZSTD_c_checksumFlag, 1));
    size_t r = ZSTD_CCtx_setParameter(ctx_, ZSTD_c_nbWorkers, static_cast<int>(workers_for(level, threads)));
    if (ZSTD_isError(r))
      throw Error("this libzstd was built without multithreading", "install Debian's libzstd (it has it)");
    check(ZSTD_CCtx_setParameter(ctx_, ZSTD_c_jobSize, static_cast<int>(kJobSize)));
    out_buf_.resize(ZSTD_CStreamOutSize());
  }
  ~ZstdCompressor() override { ZSTD_freeCCtx(ctx_); }
  uint64_t peak_memory() const override { return memory_.peak.load(); }

  // Small writes (tar headers, small files) are gathered first: each compressStream2 call in
  // multithreaded mode takes locks and checks jobs, which costs more than the copy.
  void write(const void* data, size_t size) override {
    if (staged_.size() + size > kStage) flush_stage();
    if (size >= kStage) {
      feed(data, size);
      return;
    }
    staged_.append(static_cast<const char*>(data), size);
  }

  void finish() override {
    flush_stage();
    ZSTD_inBuffer in{nullptr, 0, 0};
    while (pump(&in, ZSTD_e_end) != 0) {
    }
  }

 private:
  static constexpr size_t kStage = 1 << 20;
  void feed(const void* data, size_t size) {
    ZSTD_inBuffer in{data, size, 0};
    while (in.pos < in.size) pump(&in, ZSTD_e_continue);
  }
  void flush_stage() {
    if (staged_.empty()) return;
    feed(staged_.data(), staged_.size());
    staged_.clear();
  }
  size_t pump(ZSTD_inBuffer* in, ZSTD_EndDirective mode) {
    ZSTD_outBuffer o{out_buf_.data(), out_buf_.size(), 0};
    size_t remaining = ZSTD_compressStream2(ctx_, &o, in, mode);
    check(remaining);
    if (o.pos) out_.write(out_buf_.data(), o.pos);
    return remaining;
  }
  static void check(size_t r) {
    if (ZSTD_isError(r)) throw Error(std::string("zstd: ") + ZSTD_getErrorName(r));
  }

  // Every allocation of the context, its workers and their buffers goes through these (zstd passes
  // its custom allocator on to the multithreaded context), so peak_memory() is what zstd held.
  struct Memory {
    std::atomic<uint64_t> now{0}, peak{0};
  };
  static constexpr size_t kHeader = 16;  // the allocation's size, ahead of it (keeps malloc's alignment)
  static void* counted_alloc(void* opaque, size_t size) {
    auto* memory = static_cast<Memory*>(opaque);
    auto* block = static_cast<char*>(std::malloc(size + kHeader));
    if (!block) return nullptr;
    std::memcpy(block, &size, sizeof size);
    uint64_t now = memory->now.fetch_add(size) + size;
    uint64_t peak = memory->peak.load();
    while (now > peak && !memory->peak.compare_exchange_weak(peak, now)) {
    }
    return block + kHeader;
  }
  static void counted_free(void* opaque, void* address) {
    if (!address) return;
    char* block = static_cast<char*>(address) - kHeader;
    size_t size = 0;
    std::memcpy(&size, block, sizeof size);
    static_cast<Memory*>(opaque)->now.fetch_sub(size);
    std::free(block);
  }

  ByteSink& out_;
  Memory memory_;  // before ctx_: the context is made (and freed) with it
  ZSTD_CCtx* ctx_;
  std::string out_buf_;
  std::string staged_;
};

}  // namespace

unsigned zstd_workers(int level, unsigned threads) { return ZstdCompressor::workers_for(level, resolve_threads(threads)); }

std::unique_ptr<Compressor> make_compressor(const Compression& c, ByteSink& out, unsigned threads) {
  threads = resolve_threads(threads);
  switch (c.kind) {
    case Compression::Kind::kGzip: return std::make_unique<ParallelGzipCompressor>(out, c.level, threads);
    case Compression::Kind::kZstd: return std::make_unique<ZstdCompressor>(out, c.level, threads);
    case Compression::Kind::kNone: return std::make_unique<PassthroughCompressor>(out);
  }
  return nullptr;
}

}  // namespace rp
