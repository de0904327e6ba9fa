#!/usr/bin/env bash
# Python wheels benchmark (not a test): installing about WHEEL_MB of wheels (default 2048: a
# torch-sized wheel of half that, two ROCm-SDK-sized ones, 32 small ones; bench/make_wheel_set.sh)
# served on loopback by tests/tools/index_server.py, in one run:
#   1. rockpack, cold (empty store): resolve + download + verify + install + layer, into a venv of a
#      Debian python3 base image (tests/integration/lib/debian_base.sh);
#   2. the peer: `pip install --no-deps --target DIR pkg==ver...` from the same index, then
#      `tar -C DIR -cf - . | pigz -p$(nproc) -6` (the same gzip level as rockpack's default);
#   3. rockpack again with nothing changed (warm rebuild);
#   4. resolution of the torch-sized wheel from an index WITHOUT .metadata files, with the wheel
#      already in the store and the metadata cache deleted: the bytes of that wheel the index served
#      (/__stats) are what resolving it transferred.
# Prints wall time, peak RSS (GNU time) and output sizes side by side, then the targets.
#   bench/python_bench.sh [WHEEL_MB=2048]      (ROCKPACK=path/to/rockpack, default build/rockpack)
# Needs root (the Debian base keeps its owners), debootstrap once (cached), pigz, GNU time, and pip
# for the host's python3. The wheel set is cached in ${ROCKPACK_BENCH_CACHE:-~/.cache/rockpack-bench}.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
ROCKPACK=${ROCKPACK:-$root/build/rockpack}
wheel_mb=${1:-2048}
[ -x "$ROCKPACK" ] || { echo "python_bench: build rockpack first ($ROCKPACK)" >&2; exit 2; }
for t in pigz python3 curl /usr/bin/time; do
  command -v "$t" >/dev/null || { echo "python_bench: $t is missing (tools/install-deps.sh)" >&2; exit 2; }
done
python3 -m pip --version >/dev/null 2>&1 || { echo "python_bench: python3 has no pip" >&2; exit 2; }
cores=$(nproc)

# shellcheck source=lib.sh
source "$root/bench/lib.sh"
bench_setup pybench

# The wheels (installed size = 2 x wheel size: the content is about 2:1 compressible) and the base.
cache=${ROCKPACK_BENCH_CACHE:-$HOME/.cache/rockpack-bench}
mkdir -p "$cache"
echo "preparing ${wheel_mb} MB of wheels and the Debian python3 base (cached after the first run)..." >&2
wheels=$(bash "$root/bench/make_wheel_set.sh" "$cache/wheels-$((2 * wheel_mb))" "$((2 * wheel_mb))")
# shellcheck source=../tests/integration/lib/debian_base.sh
source "$root/tests/integration/lib/debian_base.sh"
rc=0
ROCKPACK=$ROCKPACK debian_python_base "$work/base" || rc=$?
[ "$rc" -eq 0 ] || { echo "python_bench: no Debian python3 base (exit $rc; needs root and debootstrap)" >&2; exit 2; }

# start_index NAME ARGS...: an index over the wheel set; sets PORT. (Not in $(...): PIDS must grow here.)
start_index() {
  local name=$1
  shift
  python3 "$root/tests/tools/index_server.py" --port 0 --port-file "$work/$name.port" "$@" "$wheels" \
    >"$work/$name.log" 2>&1 &
  PIDS+=($!)
  for _ in $(seq 1 100); do [ -s "$work/$name.port" ] && break; sleep 0.1; done
  PORT=$(cat "$work/$name.port")
}
start_index meta
meta_port=$PORT
start_index nometa --no-metadata
nometa_port=$PORT

# Every wheel pinned by name==version (both tools resolve nothing beyond that: --no-deps for pip,
# and the set is closed under its dependencies for rockpack).
specs=()
torch_file="" torch_spec=""
for f in "$wheels"/*.whl; do
  b=$(basename "$f")
  name=${b%%-*}
  version=$(echo "$b" | cut -d- -f2)
  specs+=("${name//_/-}==$version")
  case "$b" in rp_bench_torch-*) torch_file=$b torch_spec=${specs[-1]} ;; esac
done
write_recipe() {  # PORT PACKAGES... > recipe
  local port=$1
  shift
  printf 'name: pybench\nbase: oci:%s:base\npython:\n  interpreter: /usr/bin/python3\n  venv: /opt/venv\n' "$work/base"
  printf '  indexes:\n    - url: http://127.0.0.1:%s/simple/\n  packages:\n' "$port"
  for s in "$@"; do printf '    - "%s"\n' "$s"; done
}
write_recipe "$meta_port" "${specs[@]}" >"$work/recipe.yaml"
write_recipe "$nometa_port" "$torch_spec" >"$work/recipe-nometa.yaml"

wheel_bytes=$(cat "$wheels"/*.whl | wc -c)
cat "$wheels"/*.whl >/dev/null  # the page cache holds the wheels for both tools
sync

# The sum of the image's layers above the base (the venv skeleton and the wheels).
layers_above_base() {
  python3 - "$1" "$work/base" <<'P'
import json, os, sys
def layers(d):
    idx = json.load(open(os.path.join(d, "index.json")))
    m = json.load(open(os.path.join(d, "blobs/sha256", idx["manifests"][0]["digest"][7:])))
    return m["layers"]
base = {l["digest"] for l in layers(sys.argv[2])}
print(sum(l["size"] for l in layers(sys.argv[1]) if l["digest"] not in base))
P
}

cd "$work"
echo "measuring (one run, $cores cores)..." >&2
measure rp_cold "$ROCKPACK" build recipe.yaml -o "oci:$work/img1:t" --cache-dir "$work/store" --resolved "$work/resolved.json"
rp_wall=$WALL rp_rss=$RSS
rp_size=$(layers_above_base "$work/img1")
rp_layer_log=$(grep -E 'layer python.*->' "$work/rp_cold.out" | sed 's/^info: //' | paste -sd ';' -)

measure pip python3 -m pip install --no-deps --no-cache-dir --disable-pip-version-check --no-compile -q \
  --index-url "http://127.0.0.1:$meta_port/simple/" --target "$work/pip-target" "${specs[@]}"
pip_wall=$WALL pip_rss=$RSS
measure pigz sh -c "tar -C '$work/pip-target' -cf - . | pigz -p$cores -6 > '$work/pip.tar.gz'"
pigz_wall=$WALL pigz_rss=$RSS
pigz_size=$(stat -c %s "$work/pip.tar.gz")
installed_bytes=$(du -sb --apparent-size "$work/pip-target" | cut -f1)
rm -rf "$work/pip-target"

measure rp_warm "$ROCKPACK" build recipe.yaml -o "oci:$work/img2:t" --cache-dir "$work/store" --resolved "$work/resolved2.json"
warm_wall=$WALL warm_rss=$RSS

# Resolution without .metadata files: the store (hard-linked copy) holds every wheel, so the build
# downloads nothing; without the cached metadata records, resolving must read the remote wheel.
cp -al "$work/store" "$work/store-nometa"
rm -rf "$work/store-nometa/records/wheel-metadata"
curl -fsS "http://127.0.0.1:$nometa_port/__stats?reset=1" >/dev/null
measure rp_nometa "$ROCKPACK" build recipe-nometa.yaml -o "oci:$work/img3:t" --cache-dir "$work/store-nometa"
nometa_wall=$WALL nometa_rss=$RSS
curl -fsS "http://127.0.0.1:$nometa_port/__stats" >"$work/stats.json"
read -r torch_bytes torch_requests < <(python3 - "$work/stats.json" "$torch_file" <<'P'
import json, sys, urllib.parse
stats, name = json.load(open(sys.argv[1])), sys.argv[2]
def ours(path):
    return urllib.parse.unquote(path) == "/files/" + name
print(sum(v for k, v in stats["bytes"].items() if ours(k)), sum(v for k, v in stats["requests"].items() if ours(k)))
P
)
torch_size=$(stat -c %s "$wheels/$torch_file")

python3 - <<P
mb = 1e6
wheel, installed = $wheel_bytes, $installed_bytes
rp, pip, pigz = $rp_wall, $pip_wall, $pigz_wall
rp_size, pigz_size = $rp_size, $pigz_size
peer = pip + pigz
print(f"wheels: {wheel / mb:.0f} MB in $(ls "$wheels"/*.whl | wc -l) files ({installed / mb:.0f} MB installed), loopback index, $cores cores, load {open('/proc/loadavg').read().split()[0]}")
print(f"{'rockpack build, cold store':<44} {rp:8.2f} s  {wheel / mb / rp:7.1f} MB/s  {$rp_rss:5d} MiB RSS  {rp_size / mb:9.1f} MB layers")
print(f"{'pip install --no-deps --target':<44} {pip:8.2f} s  {'':>12}  {$pip_rss:5d} MiB RSS")
print(f"{'tar | pigz -p$cores -6':<44} {pigz:8.2f} s  {'':>12}  {$pigz_rss:5d} MiB RSS  {pigz_size / mb:9.1f} MB")
print(f"{'pip + tar|pigz':<44} {peer:8.2f} s  {wheel / mb / peer:7.1f} MB/s")
print(f"{'rockpack rebuild, nothing changed':<44} {$warm_wall:8.2f} s  {'':>12}  {$warm_rss:5d} MiB RSS")
print(f"{'rockpack resolve (no .metadata), cached whl':<44} {$nometa_wall:8.2f} s  {'':>12}  {$nometa_rss:5d} MiB RSS")
print(f"rockpack layer log: $rp_layer_log")
print()
speed = peer / rp
print(f"speed: rockpack {speed:.2f}x pip + tar|pigz (target >= 2)  -> {'met' if speed >= 2 else 'SHORT'}")
d = rp_size / pigz_size * 100 - 100
print(f"size: rockpack layers {d:+.1f}% vs pigz -6 (target <= +5%)  -> {'met' if d <= 5 else 'SHORT'}")
print(f"warm rebuild: {$warm_wall:.2f} s (target < 2 s)  -> {'met' if $warm_wall < 2 else 'SHORT'}")
print(f"resolving $torch_file ({$torch_size / mb:.0f} MB) without .metadata: {$torch_bytes} bytes in {$torch_requests} requests (target < 1 MB)  -> {'met' if $torch_bytes < 1e6 and $torch_requests > 0 else 'SHORT' if $torch_requests > 0 else 'NOT MEASURED (no request)'}")
rss = max($rp_rss, $warm_rss, $nometa_rss)
print(f"peak RSS: {rss} MiB (target < 200 MB)  -> {'met' if rss * 1.048576 < 200 else 'SHORT'}")
P
