#!/bin/bash
# Times the sandbox: an empty run step, and the before/after diff of a step touching 10,000 files.
# Usage: bench/sandbox_bench.sh   (as root; compiles the sandbox sources directly, no CMake build needed)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out" /tmp/sbx/broot' EXIT
mkdir -p /tmp/sbx
g++ -std=c++20 -O2 -I"$repo/src" "$repo/bench/sandbox_bench.cpp" "$repo"/src/sandbox/*.cpp "$repo/src/entries/entry.cpp" \
  "$repo/src/util/digest.cpp" "$repo/src/util/fs.cpp" -o "$out/bench" -lcrypto
echo "empty step:        $("$out/bench" true)"
echo "10,000 files step: $("$out/bench" 'for d in /data/*; do for f in $d/*; do echo y >> $f; done; done')"
