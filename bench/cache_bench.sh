#!/usr/bin/env bash
# Registry layer cache benchmark (not a test): a nightly in which only the ROCm (and torch) wheels
# changed, built on an EMPTY store with --cache-from, against the same build on a warm store (the
# time of building only the changed layers: the issue's target is at most that + 10%) and a full
# cold build. All three push to a loopback docker-registry, as the nightly does.
#
# The image: the Debian python3 base, a generated `toolchain` tree (TOOLCHAIN_MB, default 1000; it
# stands in for the nightly's apt layers, which a ROCm-only nightly does not change), a venv with
# rocm[libraries,devel] and torch from a mock TheRock index with two nightlies V1 and V2
# (tests/tools/make_therock_index.py, `--scale rocm`: about 1 GB of ROCm wheels per nightly).
#   seed:   empty store S1, V1, --push, --cache-to REG/bench/cache       (last night's run)
#   (a) cold:   empty store, V2, --push REG/bench/cold                     (no cache at all)
#   (b) warm:   store S1 (holds V1), V2, --push REG/bench/warm             (only changed layers built)
#   (c) cached: empty store, V2, --cache-from REG/bench/cache, --push REG/bench/cached
# (a), (b), (c) must give one digest. Prints wall times, layers built / from the registry cache,
# bytes compressed (from the build.layers events) and (c) / (b).
#   bench/cache_bench.sh [--scale rocm|small]    (ROCKPACK=path/to/rockpack, TOOLCHAIN_MB=1000)
# Needs root (the Debian base keeps its owners), debootstrap once (cached), docker-registry, GNU
# time, build/bench/gen_tree. The index is cached in ${ROCKPACK_BENCH_CACHE:-~/.cache/rockpack-bench}.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
ROCKPACK=${ROCKPACK:-$root/build/rockpack}
GEN_TREE=${GEN_TREE:-$root/build/bench/gen_tree}
TOOLCHAIN_MB=${TOOLCHAIN_MB:-1000}
scale=rocm
while [ $# -gt 0 ]; do
  case "$1" in
    --scale) scale=${2:?--scale takes rocm or small}; shift 2 ;;
    --scale=*) scale=${1#--scale=}; shift ;;
    -h | --help) sed -n '2,21p' "$0"; exit 0 ;;
    *) echo "cache_bench: unknown argument $1" >&2; exit 2 ;;
  esac
done
case "$scale" in rocm | small) ;; *) echo "cache_bench: --scale is rocm or small" >&2; exit 2 ;; esac
[ -x "$ROCKPACK" ] || { echo "cache_bench: build rockpack first ($ROCKPACK)" >&2; exit 2; }
[ -x "$GEN_TREE" ] || { echo "cache_bench: build gen_tree first (cmake --build build --target gen_tree)" >&2; exit 2; }
for t in docker-registry python3 curl /usr/bin/time; do
  command -v "$t" >/dev/null || { echo "cache_bench: $t is missing (tools/install-deps.sh)" >&2; exit 2; }
done
family=gfx94X-dcgpu
v1=7.10.0a20251120
v2=7.10.0a20251121

# shellcheck source=lib.sh
source "$root/bench/lib.sh"
bench_setup cachebench
export XDG_CACHE_HOME="$work/xdg"

gen=$root/tests/tools/make_therock_index.py
# shellcheck source=../tests/integration/lib/debian_base.sh
source "$root/tests/integration/lib/debian_base.sh"
pyver=$(sed -n 's/^PYVER=//p' "$root/tests/integration/lib/debian_base.sh")
cache=${ROCKPACK_BENCH_CACHE:-$HOME/.cache/rockpack-bench}
key=$(sha256sum <"$gen" | cut -c1-12)
index_dir=$cache/therock-$scale-$family-$v1-$v2-py$pyver-$key
mkdir -p "$cache"
if [ ! -d "$index_dir" ]; then
  echo "generating the $scale-scale mock TheRock index with two nightlies (once; cached in $index_dir)..." >&2
  rm -rf "$index_dir.tmp"
  python3 "$gen" "$index_dir.tmp" --family "$family" --versions "$v1,$v2" --python "$pyver" --scale "$scale" >&2
  mv "$index_dir.tmp" "$index_dir"
fi
echo "preparing the Debian python3 base (cached after the first run)..." >&2
rc=0
ROCKPACK=$ROCKPACK debian_python_base "$work/base" || rc=$?
[ "$rc" -eq 0 ] || { echo "cache_bench: no Debian python3 base (exit $rc; needs root and debootstrap)" >&2; exit 2; }
"$GEN_TREE" "$work/toolchain" "$TOOLCHAIN_MB" 8000 >/dev/null

python3 "$root/tests/tools/static_server.py" "$index_dir" --port 0 --port-file "$work/port" >"$work/server.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 1 100); do [ -s "$work/port" ] && break; sleep 0.1; done
[ -s "$work/port" ] || { echo "cache_bench: the index server did not start: $(cat "$work/server.log")" >&2; exit 1; }
index_url="http://127.0.0.1:$(cat "$work/port")"

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
mkdir -p "$work/registry"
cat >"$work/registry/config.yml" <<YAML
version: 0.1
log: {level: error, accesslog: {disabled: true}}
storage: {filesystem: {rootdirectory: $work/registry/data}}
http: {addr: 127.0.0.1:$port, secret: bench}
YAML
docker-registry serve "$work/registry/config.yml" >"$work/registry/log" 2>&1 &
PIDS+=($!)
for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$port/v2/" && break; sleep 0.1; done
reg=127.0.0.1:$port

cat >"$work/recipe.yaml" <<EOF
name: cachebench
base: oci:$work/base:base
args: {ROCM_VERSION: latest}
files:
  - {src: toolchain, dest: /opt/toolchain, layer: toolchain}
python:
  interpreter: /usr/bin/python3
  venv: /opt/venv
  packages: [torch]
rocm:
  source: therock
  index: "$index_url/{family}/"
  targets: gfx942
  components: [libraries, devel]
  version: "\${ROCM_VERSION}"
tags: [v]
EOF
cat "$index_dir/$family"/* >/dev/null 2>&1 || true  # the page cache, the same for every run
find "$work/toolchain" -type f -exec cat {} + >/dev/null
export SOURCE_DATE_EPOCH=1700000000
cd "$work"
build() {  # NAME STORE VERSION ARGS...
  local name=$1 store=$2 version=$3
  shift 3
  measure "$name" "$ROCKPACK" --log-format json build recipe.yaml --cache-dir "$store" --set "ROCM_VERSION=$version" "$@"
}
echo "seed: V1 on an empty store, with --cache-to..." >&2
build seed "$work/s1" "$v1" --push "$reg/bench/seed" --cache-to "$reg/bench/cache:buildcache"
echo "(a) V2, cold, no cache..." >&2
build cold "$work/s-cold" "$v2" --push "$reg/bench/cold"
cold_wall=$WALL cold_rss=$RSS
echo "(b) V2, warm store (V1)..." >&2
build warm "$work/s1" "$v2" --push "$reg/bench/warm"
warm_wall=$WALL warm_rss=$RSS
echo "(c) V2, empty store, --cache-from..." >&2
build cached "$work/s-cached" "$v2" --push "$reg/bench/cached" --cache-from "$reg/bench/cache:buildcache"
cached_wall=$WALL cached_rss=$RSS

python3 - "$work" <<P
import json, sys
work = sys.argv[1]
def events(name):
    out = {}
    for line in open(f"{work}/{name}.out"):
        try:
            j = json.loads(line)
        except ValueError:
            continue
        if isinstance(j, dict) and "event" in j:
            out[j["event"]] = j
    return out
def digest(name):
    return open(f"{work}/{name}.out").read().strip().splitlines()[-1]
d = {n: digest(n) for n in ("cold", "warm", "cached")}
if len(set(d.values())) != 1:
    sys.exit(f"cache_bench: the three builds differ: {d}")
print(f"mock TheRock index ($scale scale), V1 -> V2 (rocm + torch changed), toolchain tree $TOOLCHAIN_MB MB; "
      f"loopback registry; $(nproc) cores; load {open('/proc/loadavg').read().split()[0]}")
row = "{:<40} {:>8} {:>6} {:>6} {:>9} {:>14} {:>9}"
print(row.format("build (V2, --push)", "wall s", "built", "store", "registry", "compressed MB", "peak RSS"))
for name, label, wall, rss in (("cold", "(a) empty store, no cache", $cold_wall, $cold_rss),
                               ("warm", "(b) warm store (V1 built before)", $warm_wall, $warm_rss),
                               ("cached", "(c) empty store, --cache-from", $cached_wall, $cached_rss)):
    l = events(name)["build.layers"]
    print(row.format(label, f"{wall:.2f}", l["built"], l["from_store"], l["from_registry_cache"],
                     f"{l['bytes_compressed'] / 1e6:.1f}", f"{rss} MiB"))
print(f"digest {d['cold']} (all three)")
print(f"(c) / (b) = {$cached_wall / $warm_wall:.2f} (target <= 1.10); (c) / (a) = {$cached_wall / $cold_wall:.2f}")
P
