#!/usr/bin/env bash
# The main job on a fresh Debian 12 machine: install dependencies, build rockpack, and build the
# quickstart example into ./out/quickstart (an OCI layout; no registry, no daemon).
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/install-deps.sh
bash tools/build.sh
./build/rockpack build examples/quickstart/recipe.yaml --allow-path /bin  # the busybox layer copies /bin/busybox
./build/rockpack inspect oci:out/quickstart:latest
