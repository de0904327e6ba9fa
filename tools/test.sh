#!/usr/bin/env bash
# The whole test suite: install dependencies, build, run every unit and integration test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh
bash tools/build.sh
ctest --test-dir build --output-on-failure -j"$(nproc)"
