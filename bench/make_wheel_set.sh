#!/usr/bin/env bash
# The wheels of the Python install benchmark: about TOTAL_MB of wheels shaped like a ROCm CI image's
# (one torch-sized platlib wheel, two ROCm-SDK-sized ones, and small pure-Python ones), written by
# tests/tools/make_wheel.py. The large members are ~2:1 compressible, like shared libraries.
#   bench/make_wheel_set.sh OUT_DIR [TOTAL_MB=2048]
# Prints OUT_DIR. Reuses OUT_DIR when a previous run with the same TOTAL_MB finished there (the
# stamp file); deterministic, so every machine benchmarks the same bytes. Writes SHA256SUMS.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: bench/make_wheel_set.sh OUT_DIR [TOTAL_MB]}
total=${2:-2048}
stamp="$out/.complete-$total"
if [ -f "$stamp" ]; then echo "$out"; exit 0; fi

rm -rf "$out.tmp"
mkdir -p "$out.tmp"
mw() { python3 "$root/tests/tools/make_wheel.py" "$out.tmp" "$@" >/dev/null; }
plat="cp311-cp311-linux_x86_64"
mw rp-bench-torch 2.10.0a0+rocm7.10.0a20251120 --platlib --tag "$plat" --size-mb "$((total / 2))" \
  --requires 'rp-bench-rocm-sdk-core==7.10.0a20251120' --requires 'rp-bench-small-0>=1'
mw rp-bench-rocm-sdk-core 7.10.0a20251120 --platlib --tag "$plat" --size-mb "$((total / 5))"
mw rp-bench-rocm-sdk-libraries 7.10.0a20251120 --platlib --tag "$plat" --size-mb "$((total / 5))"
# The rest as 32 small wheels of many modules' worth of bytes each.
small_mb=$(python3 -c "print(max(0.01, ($total - $total // 2 - 2 * ($total // 5)) / 32))")
for i in $(seq 0 31); do
  mw "rp-bench-small-$i" "1.$i" --size-mb "$small_mb" --console-script "rp-bench-$i=rp_bench_small_$i:main"
done
(cd "$out.tmp" && sha256sum -- *.whl >SHA256SUMS)
rm -rf "$out"
mv "$out.tmp" "$out"
touch "$stamp"
echo "$out"
