#!/usr/bin/env bash
# The whole test suite: install dependencies, build, run every unit and integration test, then the
# fuzz smoke run (every libFuzzer target a few seconds under ASan+UBSan over fuzz/corpus: tools/fuzz.sh;
# about 10 minutes on 2 cores, most of it building build-fuzz/ once).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh
bash tools/build.sh
ctest --test-dir build --output-on-failure -j"$(nproc)"
bash tools/fuzz.sh
