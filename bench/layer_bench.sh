#!/usr/bin/env bash
# Layer throughput: rockpack vs `tar | pigz` and `tar | zstd -T0` on the same generated tree, in one
# run. Prints input MB/s, wall time, peak RSS and output size side by side. Not a test.
#   bench/layer_bench.sh [TOTAL_MB=2100] [FILES=24000]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rockpack="$root/build/rockpack"
gen="$root/build/bench/gen_tree"
[ -x "$rockpack" ] && [ -x "$gen" ] || { echo "build first: bash tools/build.sh" >&2; exit 2; }
for t in pigz zstd /usr/bin/time; do command -v "$t" >/dev/null || { echo "missing $t (tools/install-deps.sh)" >&2; exit 2; }; done

mb=${1:-2100}; files=${2:-24000}
work=$(mktemp -d /tmp/rockpack-bench-XXXXXX); trap 'rm -rf "$work"' EXIT
"$gen" "$work/tree" "$mb" "$files" >/dev/null
bytes=$(du -sb --apparent-size "$work/tree" | cut -f1)
cat > "$work/recipe.yaml" <<Y
name: bench
files:
  - src: tree
    dest: /data
Y
cat "$work/tree"/d1/s1/* > /dev/null  # warm the page cache the same way for everyone
find "$work/tree" -type f -exec cat {} + > /dev/null

# run NAME SIZE-COMMAND COMMAND...: wall seconds and peak RSS from GNU time; SIZE-COMMAND prints the
# output size once the command is done.
run() {
  local name=$1 size_cmd=$2; shift 2
  /usr/bin/time -f "%e %M" -o "$work/time" "$@" >/dev/null 2>"$work/err" || { cat "$work/err" >&2; exit 1; }
  read -r secs rss < "$work/time"
  local size; size=$(eval "$size_cmd")
  printf "%-36s %8.2f s %9.1f MB/s %8.1f MB RSS %10.1f MB out\n" "$name" "$secs" \
    "$(echo "$bytes / 1000000 / $secs" | bc -l)" "$(echo "$rss / 1024" | bc -l)" "$(echo "$size / 1000000" | bc -l)"
  echo "$name $secs $rss $size" >> "$work/results"
}

layer_of() {  # the single layer blob of an OCI layout
  python3 - "$1" <<'P'
import json, sys, os
d = sys.argv[1]
idx = json.load(open(os.path.join(d, "index.json")))
m = json.load(open(os.path.join(d, "blobs/sha256", idx["manifests"][0]["digest"][7:])))
print(os.path.join(d, "blobs/sha256", m["layers"][0]["digest"][7:]))
P
}

echo "tree: $((bytes / 1000000)) MB in $files files, $(nproc) cores"
cd "$work"
run "rockpack gzip (libdeflate -6)" 'stat -c %s "$(layer_of "$work/g")"' \
  "$rockpack" --quiet build recipe.yaml --cache-dir "$work/c1" -o oci:"$work/g"
run "tar | pigz -p$(nproc) -6" 'stat -c %s "$work/pigz.tar.gz"' \
  sh -c "tar -C '$work' -cf - tree | pigz -p$(nproc) -6 > '$work/pigz.tar.gz'"
run "rockpack zstd (-3, all cores)" 'stat -c %s "$(layer_of "$work/z")"' \
  "$rockpack" --quiet build recipe.yaml --compression zstd --cache-dir "$work/c2" -o oci:"$work/z"
run "tar | zstd -T0 -3" 'stat -c %s "$work/zstd.tar.zst"' \
  sh -c "tar -C '$work' -cf - tree | zstd -q -T0 -3 > '$work/zstd.tar.zst'"
run "rockpack gzip, warm (layer cached)" 'stat -c %s "$(layer_of "$work/g2")"' \
  "$rockpack" --quiet build recipe.yaml --cache-dir "$work/c1" -o oci:"$work/g2"

python3 - "$work/results" <<'P'
import sys
r = {}
for line in open(sys.argv[1]):
    parts = line.split()
    name = " ".join(parts[:-3]); secs, rss, size = map(float, parts[-3:])
    r[name] = (secs, rss, size)
keys = list(r)
g, p, z, zz = keys[0], keys[1], keys[2], keys[3]
print()
print(f"gzip: throughput {r[p][0] / r[g][0]:.2f}x tar|pigz (target >= 0.9), size {r[g][2] / r[p][2] * 100 - 100:+.1f}% vs pigz -6 (target within 5%)")
print(f"zstd: throughput {r[zz][0] / r[z][0]:.2f}x tar|zstd (target >= 0.9), size {r[z][2] / r[zz][2] * 100 - 100:+.1f}% vs zstd -3")
print(f"peak RSS: gzip {r[g][1] / 1024:.0f} MB, zstd {r[z][1] / 1024:.0f} MB (target < 200 MB)")
P
