#!/usr/bin/env bash
# A family of N images (GPU targets) vs one (not a test): a ROCm-shaped mock — a Python base, a large
# wheel every target shares (CORE_MB, like rocm-sdk-core + torch) and one device wheel per target
# (DEVICE_MB, like a per-target kernel package), served by tests/tools/index_server.py, pushed to
# Debian's docker-registry on loopback:
#   1. one target alone (--variant), cold store, pushed to an empty repository;
#   2. all N targets in one `build --all-variants`, cold store, pushed to another empty repository;
#   3. the same N one after the other, each its own process and cold store (N CI jobs without the
#      registry layer cache), for comparison.
# Prints wall time, CPU and bytes uploaded, and the ratios the family must keep:
#   time(N in one build) / time(one) and bytes(N) / (bytes(one) + (N-1) x device layer).
#   bench/variants_bench.sh [N=5] [CORE_MB=400] [DEVICE_MB=40]   (ROCKPACK=path, default build/rockpack)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
ROCKPACK=${ROCKPACK:-$root/build/rockpack}
n=${1:-5}
core_mb=${2:-400}
device_mb=${3:-40}
[ -x "$ROCKPACK" ] || { echo "variants_bench: build rockpack first ($ROCKPACK)" >&2; exit 2; }
for t in python3 curl docker-registry /usr/bin/time; do
  command -v "$t" >/dev/null || { echo "variants_bench: $t is missing (tools/install-deps.sh)" >&2; exit 2; }
done
# shellcheck source=lib.sh
source "$root/bench/lib.sh"
bench_setup variants
# shellcheck source=../tests/integration/lib/fake_python_base.sh
source "$root/tests/integration/lib/fake_python_base.sh"
export SOURCE_DATE_EPOCH=1700000000
targets=(gfx942 gfx950 gfx1100 gfx1151 gfx1201 gfx90a gfx908 gfx1030 gfx1200 gfx1101)
[ "$n" -le ${#targets[@]} ] || { echo "variants_bench: at most ${#targets[@]} targets" >&2; exit 2; }
list=$(IFS=,; echo "${targets[*]:0:$n}")

echo "preparing a ${core_mb} MB shared wheel and $n device wheels of ${device_mb} MB..." >&2
fake_python_root "$work/root" 3.12
mkdir -p "$work/wheels"
mw() { python3 "$root/tests/tools/make_wheel.py" "$work/wheels" "$@" >/dev/null; }
mw rp-core 7.10.0 --platlib --tag cp312-cp312-linux_x86_64 --size-mb "$core_mb"
for t in "${targets[@]:0:$n}"; do
  mw "rp-device-$t" 7.10.0 --platlib --tag cp312-cp312-linux_x86_64 --size-mb "$device_mb" --requires "rp-core==7.10.0"
done
port_file="$work/index.port"
python3 "$root/tests/tools/index_server.py" "$work/wheels" --port 0 --port-file "$port_file" >"$work/index.log" 2>&1 &
PIDS+=($!)
reg_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')
mkdir -p "$work/registry"
cat >"$work/registry/config.yml" <<YAML
version: 0.1
log: {level: error, accesslog: {disabled: true}}
storage: {filesystem: {rootdirectory: $work/registry/data}}
http: {addr: 127.0.0.1:$reg_port, secret: bench}
YAML
docker-registry serve "$work/registry/config.yml" >"$work/registry.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 1 100); do [ -s "$port_file" ] && curl -s -o /dev/null "http://127.0.0.1:$reg_port/v2/" && break; sleep 0.1; done
REG=127.0.0.1:$reg_port
index="http://127.0.0.1:$(cat "$port_file")/simple/"

cat >"$work/base.yaml" <<YAML
name: bench-python
files: [{src: root, dest: /}]
env: {PATH: /usr/local/bin:/usr/bin:/bin}
YAML
"$ROCKPACK" --quiet build "$work/base.yaml" -o "oci:$work/base:py" --cache-dir "$work/store-base" >/dev/null
cat >"$work/recipe.yaml" <<YAML
name: bench-family
args: {TARGET: gfx942, INDEX: null}
base: oci:base:py
matrix:
  TARGET: [$list]
  tags: ["nightly-\${DATE}-\${TARGET}"]
python:
  interpreter: /usr/bin/python3
  venv: /opt/venv
  indexes: [{url: "\${INDEX}"}]
  packages: ["rp-device-\${TARGET}"]
  layers: {core: [rp-core], device: ["rp-device-*"]}
YAML
pushed() {  # LOG: bytes uploaded (the build.push event)
  python3 -c 'import json,sys; print([json.loads(l) for l in open(sys.argv[1]) if "\"build.push\"" in l][-1]["bytes_uploaded"])' "$1"
}
device_bytes() {  # the device layer's compressed size, from the family report
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print([l["size"] for l in d["variants"][0]["report"]["layers"] if l.get("name")=="device"][0])' "$1"
}

measure one "$ROCKPACK" --log-format json build "$work/recipe.yaml" --variant "${targets[0]}" --set INDEX="$index" \
  --cache-dir "$work/store-one" --push "$REG/bench/one"
one_wall=$WALL one_cpu=$(python3 -c "print(round($USR + $SYS, 1))") one_rss=$RSS
one_bytes=$(pushed "$work/one.out")
measure family "$ROCKPACK" --log-format json build "$work/recipe.yaml" --all-variants --set INDEX="$index" \
  --cache-dir "$work/store-family" --push "$REG/bench/family" --report "$work/family.json"
fam_wall=$WALL fam_cpu=$(python3 -c "print(round($USR + $SYS, 1))") fam_rss=$RSS
fam_bytes=$(pushed "$work/family.out")
dev=$(device_bytes "$work/family.json")
sep_wall=0 sep_cpu=0 sep_bytes=0
for t in "${targets[@]:0:$n}"; do
  measure "sep-$t" "$ROCKPACK" --log-format json build "$work/recipe.yaml" --variant "$t" --set INDEX="$index" \
    --cache-dir "$work/store-sep-$t" --push "$REG/bench/separate"
  sep_wall=$(python3 -c "print(round($sep_wall + $WALL, 2))")
  sep_cpu=$(python3 -c "print(round($sep_cpu + $USR + $SYS, 1))")
  sep_bytes=$((sep_bytes + $(pushed "$work/sep-$t.out")))
done

mb() { python3 -c "print(round($1 / 1e6, 1))"; }
printf '%-34s %9s %9s %9s %12s\n' "$n targets, core ${core_mb} MB, device ${device_mb} MB" "wall s" "CPU s" "RSS MiB" "pushed MB"
printf '%-34s %9s %9s %9s %12s\n' "one target (--variant)" "$one_wall" "$one_cpu" "$one_rss" "$(mb "$one_bytes")"
printf '%-34s %9s %9s %9s %12s\n' "all $n (--all-variants)" "$fam_wall" "$fam_cpu" "$fam_rss" "$(mb "$fam_bytes")"
printf '%-34s %9s %9s %9s %12s\n' "$n separate builds, cold stores" "$sep_wall" "$sep_cpu" "-" "$(mb "$sep_bytes")"
python3 - "$one_wall" "$fam_wall" "$one_bytes" "$fam_bytes" "$dev" "$n" <<'PY'
import sys
one_wall, fam_wall = float(sys.argv[1]), float(sys.argv[2])
one_b, fam_b, dev, n = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
t = fam_wall / one_wall
b = fam_b / (one_b + (n - 1) * dev)
print(f"time(all {n}) / time(one) = {t:.2f} (target <= 1.5)")
print(f"bytes pushed(all {n}) / (one image + {n - 1} device layers) = {b:.3f} (target <= 1.2)")
PY
