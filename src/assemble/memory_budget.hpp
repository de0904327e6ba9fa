#pragma once
// The memory that writing layers may hold, as one budget for the whole process, split evenly among
// the layers written at once (LayerBuilder::build_all). Every buffer that grows with the work in
// flight takes its size from here, never from the worker count: a 16-core machine (or
// ROCKPACK_JOBS=16) starts more workers than a 2-core one, and with per-worker buffers its peak RSS
// grew with them (308-349 MiB on the ROCm-scale build, against 162-244 MiB with 2 workers).
// docs/performance.md, "Memory", lists each buffer and what it measured.
#include <cstdint>

namespace rp::memory {

// Layers written side by side (LayerBuilder::kParallelLayers): each gets 1/kLayersAtOnce of the
// shares below.
inline constexpr unsigned kLayersAtOnce = 2;

// Wheel and store contents produced ahead of the tar writers (assemble/read_ahead.hpp), counted
// with the buffers that produce them, for all layers together.
inline constexpr uint64_t kReadAheadShare = 48u << 20;
// The compressors' contexts and buffers (assemble/compression.cpp): zstd's worker contexts, jobs
// and input ring; gzip's blocks in flight with their output. For all layers together.
inline constexpr uint64_t kCompressionShare = 64u << 20;

// One layer's part of a share.
constexpr uint64_t per_layer(uint64_t share) { return share / kLayersAtOnce; }

}  // namespace rp::memory
