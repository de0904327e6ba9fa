#!/usr/bin/env bash
# The whole test suite: install dependencies, build, run every unit and integration test, then the
# sanitizer run (tools/fuzz.sh: every libFuzzer target a few seconds under ASan+UBSan over
# fuzz/corpus, then the unit tests under ASan+UBSan; most of its time is building build-fuzz/
# once). Each phase prints how long it took, so a slow CI run says where the time went.
set -euo pipefail
cd "$(dirname "$0")/.."
suite_start=$(date +%s)
phase() {
  local name=$1 start
  shift
  start=$(date +%s)
  "$@"
  echo "test.sh: $name took $(( $(date +%s) - start ))s (suite so far: $(( $(date +%s) - suite_start ))s)"
}
phase "install-deps" bash tools/install-deps.sh
phase "build" bash tools/build.sh
phase "ctest" ctest --test-dir build --output-on-failure -j"$(nproc)"
phase "fuzz" bash tools/fuzz.sh
