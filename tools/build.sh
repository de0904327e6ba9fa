#!/usr/bin/env bash
# Configures and builds rockpack into ./build (optimized, with line-table debug info).
#
# -g1 instead of RelWithDebInfo's -g: backtraces, perf and sanitizer reports still name file and
# line, but the compiler no longer writes full variable and type info for every template instance
# of nlohmann::json, fmt and spdlog. Same machine code (debug info never changes it), and about a
# third less compile time: src/plan/python_step.cpp took 22.0 s of CPU with -O2 -g, 14.5 s with
# -O2 -g1, 15.4 s with -O2 alone (GCC 12, measured 2026-11-26).
#
# The sources compile in batches (a unity build, CMakeLists.txt ROCKPACK_UNITY), with Ninja when it
# is installed: the whole build took 289 s on 2 idle cores with Make and 16-file batches, and 198 s
# with Ninja and the libraries in 32-file batches (717 s file by file). docs/performance.md,
# "Building rockpack itself". A build directory keeps the generator it was made with.
set -euo pipefail
cd "$(dirname "$0")/.."
generator=()
[ ! -f build/CMakeCache.txt ] && command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S . -B build "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" >/dev/null
cmake --build build -j"$(nproc)"
