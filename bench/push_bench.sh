#!/usr/bin/env bash
# Registry push benchmark (not a test): pushes a generated multi-layer image of SIZE_MIB (default
# 2048) to a loopback docker-registry with rockpack and, in the same run, the same OCI layout with
# skopeo copy to a second, identical registry. Prints throughput, the ratio, the wall time of a
# second push (everything already there) and peak RSS (/usr/bin/time -v).
#   bench/push_bench.sh [SIZE_MIB] [LAYERS]     (ROCKPACK=path/to/rockpack, default build/rockpack)
set -euo pipefail
SIZE_MIB=${1:-2048}
LAYERS=${2:-8}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
ROCKPACK=${ROCKPACK:-$ROOT/build/rockpack}
for t in docker-registry skopeo python3 curl /usr/bin/time; do
  command -v "$t" >/dev/null || { echo "push_bench: $t is missing (tools/install-deps.sh)" >&2; exit 1; }
done
[ -x "$ROCKPACK" ] || { echo "push_bench: build rockpack first ($ROCKPACK)" >&2; exit 1; }

WORK=$(mktemp -d /tmp/rockpack-bench-XXXXXX)
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT
export XDG_CACHE_HOME="$WORK/cache"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# start_registry NAME: sets REG to its host:port. (Not run in $(...): the pid must reach PIDS here.)
start_registry() {
  local name=$1 port
  port=$(free_port)
  mkdir -p "$WORK/$name"
  cat > "$WORK/$name/config.yml" <<YAML
version: 0.1
log: {level: error, accesslog: {disabled: true}}
storage: {filesystem: {rootdirectory: $WORK/$name/data}}
http: {addr: 127.0.0.1:$port, secret: bench}
YAML
  docker-registry serve "$WORK/$name/config.yml" > "$WORK/$name/log" 2>&1 &
  PIDS+=($!)
  for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$port/v2/" && break; sleep 0.1; done
  REG="127.0.0.1:$port"
}

# The image: LAYERS layers of incompressible data, gzip level 1 (so skopeo has nothing to recompress).
echo "generating a ${SIZE_MIB} MiB image in ${LAYERS} layers..." >&2
per_layer=$((SIZE_MIB / LAYERS))
mkdir -p "$WORK/src"
{
  echo "name: bench"
  echo "files:"
  for i in $(seq 1 "$LAYERS"); do
    mkdir -p "$WORK/src/l$i"
    head -c "$((per_layer * 1024 * 1024))" /dev/urandom > "$WORK/src/l$i/data.bin"
    printf '  - src: l%s\n    dest: /data/l%s\n    layer: layer%s\n' "$i" "$i" "$i"
  done
  echo "tags: [v1]"
} > "$WORK/src/recipe.yaml"
"$ROCKPACK" --quiet build "$WORK/src/recipe.yaml" -o "oci:$WORK/layout:v1" --compression gzip:1 >/dev/null
rm -rf "$WORK/src" "$XDG_CACHE_HOME"
bytes=$(du -sb "$WORK/layout/blobs" | cut -f1)
mib=$(python3 -c "print(round($bytes / 1048576))")

start_registry rockpack
REG_A=$REG
start_registry skopeo
REG_B=$REG

# measure NAME CMD...: wall seconds and max RSS (MiB) into $WALL and $RSS.
measure() {
  local name=$1
  shift
  /usr/bin/time -v -o "$WORK/$name.time" "$@" > "$WORK/$name.out" 2>&1 || { cat "$WORK/$name.out" >&2; exit 1; }
  WALL=$(python3 - "$WORK/$name.time" <<'PY'
import sys
for line in open(sys.argv[1]):
    if "Elapsed (wall clock)" in line:
        t = line.rsplit(" ", 1)[1].strip().split(":")
        secs = float(t[-1]) + 60 * float(t[-2]) + (3600 * float(t[-3]) if len(t) > 2 else 0)
        print(f"{secs:.2f}")
PY
)
  RSS=$(awk -F: '/Maximum resident set size/ {printf "%.0f", $2 / 1024}' "$WORK/$name.time")
}

sync
measure skopeo skopeo copy -q --dest-tls-verify=false "oci:$WORK/layout:v1" "docker://$REG_B/bench/app:v1"
skopeo_wall=$WALL skopeo_rss=$RSS
measure rockpack "$ROCKPACK" push "oci:$WORK/layout:v1" "$REG_A/bench/app:v1"
rp_wall=$WALL rp_rss=$RSS
measure rockpack2 "$ROCKPACK" push "oci:$WORK/layout:v1" "$REG_A/bench/app:v1"
rp2_wall=$WALL rp2_rss=$RSS

python3 - <<PY
mib, rp, sk = $mib, $rp_wall, $skopeo_wall
print(f"image: {mib} MiB in $LAYERS layers (+ config), loopback docker-registry $(docker-registry --version | awk '{print $3}'), $(nproc) cores")
print(f"rockpack push : {rp:7.2f} s  {mib / rp:7.1f} MiB/s  peak RSS $rp_rss MiB")
print(f"skopeo copy   : {sk:7.2f} s  {mib / sk:7.1f} MiB/s  peak RSS $skopeo_rss MiB")
print(f"ratio (rockpack throughput / skopeo): {sk / rp:.2f}   (target >= 1.0)")
print(f"second push (all present): {$rp2_wall:.2f} s  peak RSS $rp2_rss MiB   (target < 1 s)")
PY
