#!/usr/bin/env bash
# ROCm image benchmark (not a test): the job PyTorch's CI images do with pip, side by side with
# rockpack, from a mock TheRock per-family index (tests/tools/make_therock_index.py; `--scale rocm`
# is about 1 GB of wheels for one nightly, a third of the real download, 43% of it the devel wheel)
# served on loopback by tests/tools/static_server.py.
# In one run:
#   (a) rockpack, cold (empty store): `rocm: {targets: gfx942, components: [libraries, devel]}` on a
#       Debian python3 base (tests/integration/lib/debian_base.sh), venv /opt/venv, gzip at the
#       default level, to an oci: layout; then the same with `--compression zstd` (level 3);
#   (b) the peer: a fresh venv, `pip install --index-url URL --no-build-isolation "rocm[libraries,devel]"`,
#       `rocm-sdk init` (expands the devel tree), `tar -C VENV -cf - . | pigz -p$(nproc) -6` and
#       `skopeo copy tarball:LAYER oci:DIR` (an OCI layout, as rockpack writes); for zstd,
#       `tar | zstd -T0 -3` and the same skopeo copy;
#   (c) rockpack again with nothing changed (warm rebuild);
#   (d) peak RSS (GNU time) of each step, and the size of rockpack's layers above the base next to
#       the peer's tarball.
# Prints a table with the speedups. With --runs N, (a) and (b) run N times in turn (rockpack, then
# the peer, each round from an empty store and a new venv), the table shows the last round, and the
# speedups of each round and of the medians follow: on a noisy machine one round can mislead.
# With --perf, two more cold builds (gzip, zstd; not timed) run under `perf record`, and
# bench/stage_breakdown.py says where their CPU went, stage by stage.
# With --scaling, only rockpack runs: the same cold builds (gzip, zstd) under `taskset` on 1 core
# and on 2 cores (--runs N rounds, medians), with wall time, CPU seconds and peak RSS of each and
# of its stages (plan: base, resolution, downloads, installs, devel expansion; layers; output), the
# 1 -> 2-core speed-up and the parallel efficiency (CPU seconds / (cores x wall)).
# With --layout whl-next the index is TheRock's current layout instead (routed per product, no
# hashes: the recipe says `verify: tls-only`; arch-neutral rocm-sdk-libraries plus
# rocm-sdk-device-gfx942 and -gfx950 on the index, gfx942 installed), and the peer installs
# "rocm[libraries,devel,device-gfx942]" from it.
#   bench/rocm_bench.sh [--scale rocm|small] [--layout per-family|whl-next] [--runs N] [--perf] [--scaling]
#   (ROCKPACK=path/to/rockpack, default build/rockpack)
# `--scale small` (a few MB) is a smoke run of the script itself. Needs root (the Debian base keeps
# its owners), debootstrap once (cached), pigz, GNU time, and python3 with venv/ensurepip (3.11 or
# older: the peer builds the rocm sdist without build isolation, so its venv needs setuptools).
# The index is cached in ${ROCKPACK_BENCH_CACHE:-~/.cache/rockpack-bench}, keyed by the generator.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
ROCKPACK=${ROCKPACK:-$root/build/rockpack}
scale=rocm
profile=0
runs=1
scaling=0
layout=per-family
while [ $# -gt 0 ]; do
  case "$1" in
    --layout) layout=${2:?--layout takes per-family or whl-next}; shift 2 ;;
    --layout=*) layout=${1#--layout=}; shift ;;
    --scale) scale=${2:?--scale takes rocm or small}; shift 2 ;;
    --scale=*) scale=${1#--scale=}; shift ;;
    --perf) profile=1; shift ;;
    --scaling) scaling=1; shift ;;
    --runs) runs=${2:?--runs takes a number}; shift 2 ;;
    --runs=*) runs=${1#--runs=}; shift ;;
    -h | --help) sed -n '2,30p' "$0"; exit 0 ;;
    *) echo "rocm_bench: unknown argument $1" >&2; exit 2 ;;
  esac
done
case "$scale" in rocm | small) ;; *) echo "rocm_bench: --scale is rocm or small" >&2; exit 2 ;; esac
case "$layout" in per-family | whl-next) ;; *) echo "rocm_bench: --layout is per-family or whl-next" >&2; exit 2 ;; esac
case "$runs" in '' | *[!0-9]* | 0) echo "rocm_bench: --runs takes a number from 1" >&2; exit 2 ;; esac
[ -x "$ROCKPACK" ] || { echo "rocm_bench: build rockpack first ($ROCKPACK)" >&2; exit 2; }
for t in pigz zstd skopeo python3 curl /usr/bin/time; do
  command -v "$t" >/dev/null || { echo "rocm_bench: $t is missing (tools/install-deps.sh)" >&2; exit 2; }
done
python3 -c 'import venv, ensurepip' 2>/dev/null || { echo "rocm_bench: python3 has no venv/ensurepip" >&2; exit 2; }
cores=$(nproc)
family=gfx94X-dcgpu
version=7.10.0a20251121
pyver=$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')

# shellcheck source=lib.sh
source "$root/bench/lib.sh"
bench_setup rocmbench

# The index, generated once per generator revision and scale (it appears by rename when complete).
gen=$root/tests/tools/make_therock_index.py
cache=${ROCKPACK_BENCH_CACHE:-$HOME/.cache/rockpack-bench}
key=$(cat "$gen" | sha256sum | cut -c1-12)
index_dir=$cache/therock-$scale-$layout-$family-$version-py$pyver-$key
mkdir -p "$cache"
if [ ! -d "$index_dir" ]; then
  echo "generating the $scale-scale mock TheRock index (once; cached in $index_dir)..." >&2
  rm -rf "$index_dir.tmp"
  if [ "$layout" = whl-next ]; then
    python3 "$gen" "$index_dir.tmp" --layout whl-next --target gfx942 --target gfx950 --versions "$version" \
      --python "$pyver" --scale "$scale"
  else
    python3 "$gen" "$index_dir.tmp" --family "$family" --versions "$version" --python "$pyver" --scale "$scale"
  fi
  mv "$index_dir.tmp" "$index_dir"
fi
echo "preparing the Debian python3 base (cached after the first run)..." >&2
# shellcheck source=../tests/integration/lib/debian_base.sh
source "$root/tests/integration/lib/debian_base.sh"
rc=0
ROCKPACK=$ROCKPACK debian_python_base "$work/base" || rc=$?
[ "$rc" -eq 0 ] || { echo "rocm_bench: no Debian python3 base (exit $rc; needs root and debootstrap)" >&2; exit 2; }

routes=()
[ "$layout" = whl-next ] && routes=(--routes "$index_dir/routes.json")
python3 "$root/tests/tools/static_server.py" "$index_dir" "${routes[@]}" --port 0 --port-file "$work/port" >"$work/server.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 1 100); do [ -s "$work/port" ] && break; sleep 0.1; done
[ -s "$work/port" ] || { echo "rocm_bench: the index server did not start: $(cat "$work/server.log")" >&2; exit 1; }
base_url="http://127.0.0.1:$(cat "$work/port")"
if [ "$layout" = whl-next ]; then
  index_line="index: \"$base_url/rocm/whl-next/\"
  verify: tls-only"
  pip_url=$base_url/rocm/whl-next/
  pip_req="rocm[libraries,devel,device-gfx942]"
  files_dir=$index_dir/rocm/core/whl-next
else
  index_line="index: \"$base_url/{family}/\""
  pip_url=$base_url/$family/
  pip_req="rocm[libraries,devel]"
  files_dir=$index_dir/$family
fi

cat >"$work/recipe.yaml" <<EOF
name: rocmbench
base: oci:$work/base:base
python:
  interpreter: /usr/bin/python3
  venv: /opt/venv
rocm:
  source: therock
  $index_line
  targets: gfx942
  components: [libraries, devel]
  version: latest
EOF

# What both tools download: rocm, rocm-sdk-core, rocm-sdk-libraries(-<family>), rocm-sdk-devel
# (and rocm-sdk-device-gfx942 on whl-next).
download_bytes=$(find "$files_dir" \( -name "rocm-$version.tar.gz" -o -name "rocm_sdk_core-$version-*.whl" \
  -o -name "rocm_sdk_libraries*-$version-*.whl" -o -name "rocm_sdk_devel-$version-*.whl" \
  -o -name "rocm_sdk_device_gfx942-$version-*.whl" \) -exec cat {} + | wc -c)
find "$index_dir" -name '*.whl' -exec cat {} + >/dev/null  # page cache, for both tools
sync

if [ "$scaling" = 1 ]; then
  cd "$work"
  : >"$work/scaling"
  cpu_sets="0"
  [ "$(nproc)" -ge 2 ] && cpu_sets="0 0,1"
  for round in $(seq 1 "$runs"); do
    for c in gzip zstd; do
      for set in $cpu_sets; do
        echo "scaling: round $round, $c on CPUs $set..." >&2
        rm -rf "$work/store-s" "$work/img-s"
        measure "scale_${c}_$set" taskset -c "$set" "$ROCKPACK" -v build recipe.yaml --compression "$c" \
          -o "oci:$work/img-s:t" --cache-dir "$work/store-s"
        stages=$(sed -n 's/^debug: stage \([a-z]*\): \([0-9.]*\) s wall, \([0-9.]*\) s CPU.*/\1=\2\/\3/p' "$work/scale_${c}_$set.out" | paste -sd ' ' -)
        # The plan's phases, one after the other (util/phase_clock.hpp): "phase-downloads=1.02/1.60".
        stages+=" $(sed -n 's/^debug: phase plan\.\(python\|rocm\)\.\([a-z-]*\): \([0-9.]*\) s wall, \([0-9.]*\) s CPU.*/phase-\2=\3\/\4/p' "$work/scale_${c}_$set.out" | paste -sd ' ' -)"
        workers=$(sed -n 's/^debug: workers: \([0-9]*\) worker.*/\1/p' "$work/scale_${c}_$set.out" | head -n 1)
        echo "$c $set $WALL $USR $SYS $RSS $workers $stages" >>"$work/scaling"
      done
    done
  done
  rm -rf "$work/store-s" "$work/img-s"
  python3 - "$work/scaling" "$download_bytes" <<'P'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
print(f"scaling of the cold build (mock TheRock index, {int(sys.argv[2]) / 1e6:.0f} MB of wheels; medians of "
      f"{len(rows) // 4 if len(rows) >= 4 else len(rows)} rounds; load {open('/proc/loadavg').read().split()[0]})")
print()
print("| compression | CPUs | workers | wall | CPU (user+sys) | efficiency | peak RSS | plan wall/CPU | layers wall/CPU | output wall/CPU |")
print("|---|---|---|---|---|---|---|---|---|---|")
summary = {}
for c in ("gzip", "zstd"):
    for cpus in sorted({r[1] for r in rows if r[0] == c}):
        rs = [r for r in rows if r[0] == c and r[1] == cpus]
        n = len(cpus.split(","))
        wall = statistics.median(float(r[2]) for r in rs)
        cpu = statistics.median(float(r[3]) + float(r[4]) for r in rs)
        rss = max(int(r[5]) for r in rs)
        stage = {}
        for r in rs:
            for kv in r[7:]:
                k, v = kv.split("=")
                w, u = v.split("/")
                stage.setdefault(k, []).append((float(w), float(u)))
        def st(k):
            if k not in stage:
                return ""
            return f"{statistics.median(w for w, _ in stage[k]):.2f} / {statistics.median(u for _, u in stage[k]):.2f} s"
        summary[(c, n)] = wall
        print(f"| {c} | {cpus} | {rs[0][6]} | {wall:.2f} s | {cpu:.2f} s | {cpu / (n * wall):.2f} | {rss} MiB | "
              f"{st('plan')} | {st('layers')} | {st('output')} |")
print()
# The plan stage's phases, one after the other on its thread (each one's CPU is every thread's).
phases = ["interpreter", "resolution", "downloads", "devel-expansion"]
print("| compression | CPUs | plan: " + " | ".join(f"{p} wall/CPU" for p in phases) + " |")
print("|---|---|" + "---|" * len(phases))
for c in ("gzip", "zstd"):
    for cpus in sorted({r[1] for r in rows if r[0] == c}):
        rs = [r for r in rows if r[0] == c and r[1] == cpus]
        cells = []
        for p in phases:
            vals = [tuple(map(float, kv.split("=")[1].split("/"))) for r in rs for kv in r[7:] if kv.startswith("phase-" + p + "=")]
            cells.append(f"{statistics.median(w for w, _ in vals):.2f} / {statistics.median(u for _, u in vals):.2f} s" if vals else "")
        print(f"| {c} | {cpus} | " + " | ".join(cells) + " |")
print()
for c in ("gzip", "zstd"):
    if (c, 1) in summary and (c, 2) in summary:
        # Each round's own ratio and efficiency too: on a noisy machine the medians hide the spread.
        one = [r for r in rows if r[0] == c and len(r[1].split(",")) == 1]
        two = [r for r in rows if r[0] == c and len(r[1].split(",")) == 2]
        rounds = ", ".join(f"{float(a[2]) / float(b[2]):.2f}x / {(float(b[3]) + float(b[4])) / (2 * float(b[2])):.2f}"
                           for a, b in zip(one, two))
        print(f"{c}: 1 -> 2 cores speed-up {summary[(c, 1)] / summary[(c, 2)]:.2f}x "
              f"(each round's speed-up / 2-core efficiency: {rounds})")
P
  exit 0
fi

# The sizes of the image's layers above the base: "total" and one line per layer.
layers_above_base() {
  python3 - "$1" "$work/base" <<'P'
import json, os, sys
def image(d):
    idx = json.load(open(os.path.join(d, "index.json")))
    m = json.load(open(os.path.join(d, "blobs/sha256", idx["manifests"][0]["digest"][7:])))
    c = json.load(open(os.path.join(d, "blobs/sha256", m["config"]["digest"][7:])))
    return m["layers"], [h for h in c.get("history", []) if not h.get("empty_layer")]
base_layers, _ = image(sys.argv[2])
base = {l["digest"] for l in base_layers}
layers, history = image(sys.argv[1])
ours = [(l, history[i] if i < len(history) else {}) for i, l in enumerate(layers) if l["digest"] not in base]
print(sum(l["size"] for l, _ in ours))
for l, h in ours:
    print(l["size"], (h.get("created_by") or h.get("comment") or l["digest"][:19]).replace(" ", "_"))
P
}

cd "$work"
# One round: rockpack's two cold builds, then the peer's chain. The variables of the last round
# stay set for the table; every round adds a line of wall times to $work/rounds. `one_round last`
# also measures the sizes for the table (untimed, and the same in every round).
one_round() {
  rm -rf "$work/store" "$work/img1"
  measure rp_cold "$ROCKPACK" build recipe.yaml -o "oci:$work/img1:t" --cache-dir "$work/store"
  rp_wall=$WALL rp_rss=$RSS rp_cpu="$USR user, $SYS sys"
  layers_above_base "$work/img1" >"$work/rp_layers"
  rp_size=$(head -n 1 "$work/rp_layers")
  rp_layer_log=$(grep -E 'layer .*->' "$work/rp_cold.out" | sed 's/^info: //' | paste -sd ';' - || true)
  measure rp_cold_zstd "$ROCKPACK" build recipe.yaml --compression zstd -o "oci:$work/img1z:t" --cache-dir "$work/store-zstd"
  rpz_wall=$WALL rpz_rss=$RSS rpz_cpu="$USR user, $SYS sys"
  rpz_size=$(layers_above_base "$work/img1z" | head -n 1)
  rm -rf "$work/store-zstd" "$work/img1z"

  export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1 PIP_NO_INPUT=1
  measure venv python3 -m venv "$work/venv"
  venv_wall=$WALL venv_rss=$RSS
  vpy=$work/venv/bin/python
  # Offline, pip cannot fetch setuptools/wheel into an isolated build environment for the rocm sdist:
  # it builds with the venv's own (as tests/integration/test_therock_mock.sh does).
  "$vpy" -c 'import setuptools' 2>/dev/null || { echo "rocm_bench: the venv has no setuptools (Python >= 3.12)" >&2; exit 2; }
  if ! "$vpy" -c 'import wheel' 2>/dev/null; then
    whl=$(ls /usr/share/python-wheels/wheel-*.whl 2>/dev/null | head -n 1 || true)
    [ -n "$whl" ] || { echo "rocm_bench: no 'wheel' package offline (Debian's python3-wheel-whl)" >&2; exit 2; }
    "$vpy" -m pip install --quiet --no-index "$whl"
  fi
  measure pip "$vpy" -m pip install --index-url "$pip_url" --no-build-isolation "$pip_req"
  pip_wall=$WALL pip_rss=$RSS
  measure init "$work/venv/bin/rocm-sdk" init
  init_wall=$WALL init_rss=$RSS
  [ -f "$work/venv/lib/python$pyver/site-packages/_rocm_sdk_devel/__init__.py" ] \
    || { echo "rocm_bench: rocm-sdk init did not expand the devel tree" >&2; exit 1; }
  measure pigz sh -c "tar -C '$work/venv' -cf - . | pigz -p$cores -6 > '$work/layer.tar.gz'"
  pigz_wall=$WALL pigz_rss=$RSS
  pigz_size=$(stat -c %s "$work/layer.tar.gz")
  measure skopeo_gzip skopeo copy -q "tarball:$work/layer.tar.gz" "oci:$work/peer-gzip:t"
  skopeo_g_wall=$WALL
  rm -rf "$work/peer-gzip"
  measure zstd sh -c "tar -C '$work/venv' -cf - . | zstd -q -T0 -3 > '$work/layer.tar.zst'"
  zstd_wall=$WALL zstd_rss=$RSS
  zstd_size=$(stat -c %s "$work/layer.tar.zst")
  measure skopeo_zstd skopeo copy -q "tarball:$work/layer.tar.zst" "oci:$work/peer-zstd:t"
  skopeo_z_wall=$WALL
  rm -rf "$work/peer-zstd" "$work/layer.tar.zst"
  # For the size comparison only: the peer's venv without the installers rockpack's image does not
  # carry (pip, setuptools, wheel); same tar | pigz -6.
  if [ "${1:-}" = last ]; then
    site=lib/python$pyver/site-packages
    tar -C "$work/venv" --exclude="./$site/pip" --exclude="./$site/pip-*" --exclude="./$site/setuptools" \
      --exclude="./$site/setuptools-*" --exclude="./$site/pkg_resources" --exclude="./$site/_distutils_hack" \
      --exclude="./$site/distutils-precedence.pth" --exclude="./$site/wheel" --exclude="./$site/wheel-*" \
      -cf - . | pigz -p"$cores" -6 >"$work/layer-noinstallers.tar.gz"
    pigz_size_noinst=$(stat -c %s "$work/layer-noinstallers.tar.gz")
    installed_bytes=$(du -sb "$work/venv" | cut -f1)  # hardlinked files once, as tar stores them
  fi
  rm -rf "$work/venv"
  echo "$rp_wall $rpz_wall $venv_wall $pip_wall $init_wall $pigz_wall $skopeo_g_wall $zstd_wall $skopeo_z_wall" >>"$work/rounds"
}
: >"$work/rounds"
for round in $(seq 1 "$runs"); do
  echo "measuring (round $round of $runs, $cores cores)..." >&2
  if [ "$round" = "$runs" ]; then one_round last; else one_round; fi
done

measure rp_warm "$ROCKPACK" build recipe.yaml -o "oci:$work/img2:t" --cache-dir "$work/store"
warm_wall=$WALL warm_rss=$RSS
d1=$(tail -n 1 "$work/rp_cold.out") d2=$(tail -n 1 "$work/rp_warm.out")
[ "$d1" = "$d2" ] || echo "rocm_bench: WARNING: the warm rebuild gave another digest ($d1 vs $d2)" >&2

if [ "$profile" = 1 ]; then
  command -v perf >/dev/null || { echo "rocm_bench: --perf needs perf (linux-perf)" >&2; exit 2; }
  for c in gzip zstd; do
    rm -rf "$work/store-perf" "$work/img-perf"
    perf record -q -F 499 -o "$work/perf-$c.data" -- "$ROCKPACK" --quiet build recipe.yaml --compression "$c" \
      -o "oci:$work/img-perf:t" --cache-dir "$work/store-perf" >/dev/null 2>"$work/perf-$c.err" \
      || { cat "$work/perf-$c.err" >&2; exit 1; }
  done
  rm -rf "$work/store-perf" "$work/img-perf"
fi

python3 - "$work/rp_layers" <<P
import sys
mb = 1e6
dl, installed = $download_bytes, $installed_bytes
rp, venv, pip, init, pigz = $rp_wall, $venv_wall, $pip_wall, $init_wall, $pigz_wall
rpz, zstd, skopeo_g, skopeo_z = $rpz_wall, $zstd_wall, $skopeo_g_wall, $skopeo_z_wall
rp_size, pigz_size, pigz_noinst = $rp_size, $pigz_size, $pigz_size_noinst
rpz_size, zstd_size = $rpz_size, $zstd_size
peer = venv + pip + init + pigz + skopeo_g
peer_z = venv + pip + init + zstd + skopeo_z
layers = open(sys.argv[1]).read().split("\n")[1:]
print(f"mock TheRock index ($scale scale): $pip_req {dl / mb:.1f} MB to download, "
      f"{installed / mb:.0f} MB installed (peer venv); loopback; $cores cores; load {open('/proc/loadavg').read().split()[0]}")
row = "{:<46} {:>9} {:>9} {:>10} {:>12}"
print(row.format("step", "wall s", "MB/s", "peak RSS", "output MB"))
print(row.format("(a) rockpack build, cold store", f"{rp:.2f}", f"{dl / mb / rp:.1f}", f"{$rp_rss} MiB", f"{rp_size / mb:.2f}"))
print(row.format("    the same, --compression zstd", f"{rpz:.2f}", f"{dl / mb / rpz:.1f}", f"{$rpz_rss} MiB", f"{rpz_size / mb:.2f}"))
print(row.format("(b) python3 -m venv", f"{venv:.2f}", "", f"{$venv_rss} MiB", ""))
print(row.format("    pip install $pip_req", f"{pip:.2f}", "", f"{$pip_rss} MiB", ""))
print(row.format("    rocm-sdk init", f"{init:.2f}", "", f"{$init_rss} MiB", ""))
print(row.format("    tar | pigz -p$cores -6", f"{pigz:.2f}", "", f"{$pigz_rss} MiB", f"{pigz_size / mb:.2f}"))
print(row.format("    skopeo copy tarball: oci: (gzip layer)", f"{skopeo_g:.2f}", "", "", ""))
print(row.format("    peer total, gzip", f"{peer:.2f}", f"{dl / mb / peer:.1f}", f"{max($venv_rss, $pip_rss, $init_rss, $pigz_rss)} MiB", f"{pigz_size / mb:.2f}"))
print(row.format("    tar | zstd -T0 -3", f"{zstd:.2f}", "", f"{$zstd_rss} MiB", f"{zstd_size / mb:.2f}"))
print(row.format("    skopeo copy tarball: oci: (zstd layer)", f"{skopeo_z:.2f}", "", "", ""))
print(row.format("    peer total, zstd", f"{peer_z:.2f}", f"{dl / mb / peer_z:.1f}", "", f"{zstd_size / mb:.2f}"))
print(row.format("(c) rockpack rebuild, nothing changed", f"{$warm_wall:.2f}", "", f"{$warm_rss} MiB", ""))
print()
print("rockpack layers above the base:")
for line in layers:
    if line.strip():
        size, what = line.split(" ", 1)
        print(f"  {int(size) / mb:10.1f} MB  {what}")
print("rockpack layer log: $rp_layer_log")
print()
print(f"speedup (cold, gzip): rockpack {peer / rp:.2f}x the peer (venv + pip + rocm-sdk init + tar|pigz + skopeo copy)")
print(f"speedup (cold, zstd): rockpack {peer_z / rpz:.2f}x the peer (venv + pip + rocm-sdk init + tar|zstd -T0 + skopeo copy)")
print(f"zstd layers: rockpack {rpz_size / mb:.1f} MB, tar|zstd -3 {zstd_size / mb:.1f} MB")
print(f"size: rockpack layers {rp_size / mb:.1f} MB, {rp_size / pigz_noinst * 100 - 100:+.1f}% vs the peer's venv "
      f"without pip/setuptools/wheel ({pigz_noinst / mb:.1f} MB, pigz -6); {rp_size / pigz_size * 100 - 100:+.1f}% vs "
      f"its whole venv ({pigz_size / mb:.1f} MB)")
print(f"warm rebuild: {$warm_wall:.2f} s ({peer / max($warm_wall, 0.01):.0f}x faster than the peer)")
print(f"peak RSS: rockpack {max($rp_rss, $warm_rss)} MiB, pip {$pip_rss} MiB")
print("rockpack CPU seconds: cold gzip $rp_cpu; cold zstd $rpz_cpu (system time is mostly the kernel's page-cache work for what a build writes; on this VM it varies from minute to minute)")
rounds = [[float(x) for x in line.split()] for line in open("$work/rounds") if line.strip()]
if len(rounds) > 1:
    import statistics
    print()
    print(f"{len(rounds)} rounds (the table above is the last):")
    print("{:<7} {:>9} {:>9} {:>11} {:>11} {:>8} {:>8}".format("round", "rp gzip", "rp zstd", "peer gzip", "peer zstd", "gzip x", "zstd x"))
    def totals(r):
        rp_g, rp_z, venv_, pip_, init_, pigz_, sk_g, zstd_, sk_z = r
        common = venv_ + pip_ + init_
        return rp_g, rp_z, common + pigz_ + sk_g, common + zstd_ + sk_z
    for i, r in enumerate(rounds, 1):
        g, z, pg, pz = totals(r)
        print("{:<7} {:>9.2f} {:>9.2f} {:>11.2f} {:>11.2f} {:>8.2f} {:>8.2f}".format(i, g, z, pg, pz, pg / g, pz / z))
    med = [statistics.median(col) for col in zip(*(totals(r) for r in rounds))]
    print("{:<7} {:>9.2f} {:>9.2f} {:>11.2f} {:>11.2f} {:>8.2f} {:>8.2f}".format("median", *med, med[2] / med[0], med[3] / med[1]))
P
if [ "$profile" = 1 ]; then
  for c in gzip zstd; do
    echo
    echo "where a cold $c build's CPU went (perf, all threads; bench/stage_breakdown.py):"
    python3 "$root/bench/stage_breakdown.py" "$work/perf-$c.data"
  done
fi
