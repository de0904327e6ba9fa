#!/usr/bin/env bash
# `rockpack diff` benchmark (not a test): two ROCm-sized images that differ as two nightlies do, and
# rockpack diff of them timed side by side with a peer doing the same job with standard tools.
#
# The images (files: recipes from the host's own trees, so nothing has to be generated but the
# nightly layer; about 2.9 GB uncompressed each, gzip:6 by default):
#   toolchain  /usr/lib/x86_64-linux-gnu                  shared
#   llvm       /usr/lib/llvm-14                           shared
#   share      /usr/share (+ a nightly stamp in B)        differs
#   python     /usr/lib/python3 (+ a METADATA 1.0 / 2.0)  differs (one package version)
#   rocm       a generated 300 MB tree, seed 1 / seed 2   differs
# Rows (each RUNS times, default 3; the median wall with its user+sys CPU and peak RSS):
#   rockpack diff, cold store (an empty --cache-dir each run) and warm (the same store again),
#   with and without --files, of oci: layouts; and of docker-archive: files when DOCKER_ARCHIVE=1;
#   peer: sha256sum of every blob (the verification) and `tar -tvzf` of every layer of both images
#   (the listing; the two images at once, as rockpack reads them), then `diff` of the two listings.
# The peer does less than rockpack: it applies no whiteouts, merges no layers and reads no packages.
#   bench/diff_bench.sh    (ROCKPACK=path/to/rockpack, RUNS=3, PEER_RUNS=$RUNS, COMPRESSION=gzip, DOCKER_ARCHIVE=0)
# Needs GNU time, skopeo (DOCKER_ARCHIVE=1), build/bench/gen_tree. The images are cached in
# ${ROCKPACK_BENCH_CACHE:-~/.cache/rockpack-bench} (remove diff-* there to rebuild them).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
ROCKPACK=${ROCKPACK:-$root/build/rockpack}
GEN_TREE=${GEN_TREE:-$root/build/bench/gen_tree}
RUNS=${RUNS:-3}
PEER_RUNS=${PEER_RUNS:-$RUNS}
COMPRESSION=${COMPRESSION:-gzip}
DOCKER_ARCHIVE=${DOCKER_ARCHIVE:-0}
case "${1:-}" in -h | --help) sed -n '2,22p' "$0"; exit 0 ;; esac
[ -x "$ROCKPACK" ] || { echo "diff_bench: build rockpack first ($ROCKPACK)" >&2; exit 2; }
[ -x "$GEN_TREE" ] || { echo "diff_bench: build gen_tree first (cmake --build build --target gen_tree)" >&2; exit 2; }
for t in /usr/bin/time python3 sha256sum tar; do
  command -v "$t" >/dev/null || { echo "diff_bench: $t is missing" >&2; exit 2; }
done
[ "$DOCKER_ARCHIVE" = 0 ] || command -v skopeo >/dev/null || { echo "diff_bench: skopeo is missing" >&2; exit 2; }
for d in /usr/lib/x86_64-linux-gnu /usr/lib/llvm-14 /usr/share /usr/lib/python3; do
  [ -d "$d" ] || { echo "diff_bench: $d is missing on this host" >&2; exit 2; }
done

# shellcheck source=lib.sh
source "$root/bench/lib.sh"
bench_setup diffbench

cache=${ROCKPACK_BENCH_CACHE:-$HOME/.cache/rockpack-bench}
images=$cache/diff-$COMPRESSION
mkdir -p "$cache"

# recipe FILE SEED VERSION: one nightly.
recipe() {
  local dir=$images/src$2
  mkdir -p "$dir/share" "$dir/meta/rp_nightly-$3.dist-info"
  "$GEN_TREE" "$dir/rocm" 300 3000 "$2" >/dev/null
  echo "nightly $2" >"$dir/share/stamp"
  printf 'Metadata-Version: 2.1\nName: rp-nightly\nVersion: %s\n' "$3" >"$dir/meta/rp_nightly-$3.dist-info/METADATA"
  cat >"$1" <<EOF
name: diffbench
files:
  - {src: /usr/lib/x86_64-linux-gnu, dest: /usr/lib/x86_64-linux-gnu, layer: toolchain}
  - {src: /usr/lib/llvm-14, dest: /usr/lib/llvm-14, layer: llvm}
  - {src: /usr/share, dest: /usr/share, layer: share}
  - {src: src$2/share/stamp, dest: /usr/share/rockpack-nightly, layer: share}
  - {src: /usr/lib/python3, dest: /usr/lib/python3, layer: python}
  - {src: src$2/meta/rp_nightly-$3.dist-info, dest: /usr/lib/python3/dist-packages/rp_nightly-$3.dist-info, layer: python}
  - {src: src$2/rocm, dest: /opt/rocm, layer: rocm}
tags: [latest]
EOF
}
if [ ! -f "$images/done" ]; then
  echo "building the two images (once; cached in $images)..." >&2
  rm -rf "$images" && mkdir -p "$images"
  recipe "$images/src1.yaml" 1 1.0
  recipe "$images/src2.yaml" 2 2.0
  for n in 1 2; do
    SOURCE_DATE_EPOCH=1700000000 "$ROCKPACK" build "$images/src$n.yaml" --allow-path /usr --compression "$COMPRESSION" \
      --cache-dir "$images/buildstore" -o "oci:$images/img$n:latest" >"$images/build$n.log" 2>&1 ||
      { cat "$images/build$n.log" >&2; exit 1; }
  done
  rm -rf "$images/buildstore" "$images"/src1/rocm "$images"/src2/rocm
  touch "$images/done"
fi
if [ "$DOCKER_ARCHIVE" != 0 ]; then
  for n in 1 2; do
    [ -f "$images/img$n.tar" ] || skopeo copy -q "oci:$images/img$n:latest" "docker-archive:$images/img$n.tar:diffbench:$n" >&2
  done
fi

# The layer blobs of image N, in order (from the layout's manifest).
blobs() {
  python3 - "$images/img$1" <<'PY'
import json, sys
d = sys.argv[1]
idx = json.load(open(f"{d}/index.json"))
m = json.load(open(f'{d}/blobs/sha256/{idx["manifests"][0]["digest"][7:]}'))
for l in m["layers"]:
    print(f'{d}/blobs/sha256/{l["digest"][7:]} {l["size"]}')
PY
}
sizes=$(python3 - "$images" <<'PY'
import gzip, json, sys, zlib
d = sys.argv[1]
out = []
for n in (1, 2):
    idx = json.load(open(f"{d}/img{n}/index.json"))
    m = json.load(open(f'{d}/img{n}/blobs/sha256/{idx["manifests"][0]["digest"][7:]}'))
    out.append((len(m["layers"]), sum(l["size"] for l in m["layers"]), {l["digest"] for l in m["layers"]}))
shared = out[0][2] & out[1][2]
print(f"A: {out[0][0]} layers, {out[0][1]/1e6:.0f} MB compressed; B: {out[1][0]} layers, {out[1][1]/1e6:.0f} MB; "
      f"{len(shared)} layers shared")
PY
)

# The peer: verify every blob, list every layer, the two images at once; then diff the listings.
cat >"$work/peer.sh" <<'EOF'
#!/usr/bin/env bash
set -euo pipefail
work=$1; shift
side() {  # N BLOB SIZE...
  local n=$1; shift
  : >"$work/list$n"
  while [ $# -gt 0 ]; do
    echo "$(basename "$1")  $1" | sha256sum -c --quiet -
    tar -tvzf "$1" >>"$work/list$n"
    shift 2
  done
}
side 1 $(cat "$work/blobs1") &
p1=$!
side 2 $(cat "$work/blobs2") &
p2=$!
wait $p1 && wait $p2
diff "$work/list1" "$work/list2" >"$work/peer.diff" || true
wc -l <"$work/peer.diff"
EOF
chmod +x "$work/peer.sh"
blobs 1 >"$work/blobs1"
blobs 2 >"$work/blobs2"

# row NAME CMD...: RUNS runs; prints the median wall, its user+sys and the largest peak RSS.
declare -a rows
row() {
  local name=$1 prep=$2 runs=$RUNS
  shift 2
  [[ "$name" != peer* ]] || runs=$PEER_RUNS
  local results=()
  for _ in $(seq 1 "$runs"); do
    eval "$prep"
    /usr/bin/time -f "%e %U %S %M" -o "$work/t" "$@" >"$work/out" 2>&1 || { cat "$work/out" >&2; echo "diff_bench: $name failed" >&2; exit 1; }
    results+=("$(cat "$work/t")")
  done
  rows+=("$(printf '%s\n' "${results[@]}" | python3 -c '
import sys
name = sys.argv[1]
runs = sorted((tuple(map(float, l.split())) for l in sys.stdin if l.strip()), key=lambda r: r[0])
mid = runs[len(runs) // 2]
print(f"| {name} | {mid[0]:.1f} s | {mid[1] + mid[2]:.1f} s | {max(r[3] for r in runs) / 1024:.0f} MiB | " +
      " ".join(f"{r[0]:.1f}" for r in runs) + " |")' "$name")")
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
A="oci:$images/img1:latest"
B="oci:$images/img2:latest"
row "rockpack diff, cold store" 'rm -rf "$work/s"' "$ROCKPACK" diff --cache-dir "$work/s" "$A" "$B"
cp "$work/out" "$work/diff.txt"
row "rockpack diff, warm" ':' "$ROCKPACK" diff --cache-dir "$work/s" "$A" "$B"
row "rockpack diff --files, cold store" 'rm -rf "$work/s"' "$ROCKPACK" diff --files --cache-dir "$work/s" "$A" "$B"
cp "$work/out" "$work/diff-files.txt"
row "rockpack diff --files, warm" ':' "$ROCKPACK" diff --files --cache-dir "$work/s" "$A" "$B"
if [ "$DOCKER_ARCHIVE" != 0 ]; then
  row "rockpack diff docker-archive:, cold store" 'rm -rf "$work/s"' \
    "$ROCKPACK" diff --cache-dir "$work/s" "docker-archive:$images/img1.tar" "docker-archive:$images/img2.tar"
  row "rockpack diff docker-archive:, warm" ':' \
    "$ROCKPACK" diff --cache-dir "$work/s" "docker-archive:$images/img1.tar" "docker-archive:$images/img2.tar"
fi
row "peer: sha256sum + tar -tvzf of both, diff" ':' "$work/peer.sh" "$work"

echo
echo "rockpack diff of two nightly-like images ($sizes)"
echo "$(nproc) cores; load average before: $load_before; after: $(cut -d' ' -f1-3 /proc/loadavg); $RUNS runs each (the peer $PEER_RUNS)"
echo
echo "| job | wall (median) | user+sys | peak RSS | walls |"
echo "|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
echo
echo "rockpack diff says:"
sed 's/^/  /' "$work/diff.txt" | head -20
echo "with --files: $(grep '^Files:' "$work/diff-files.txt" || true)"
