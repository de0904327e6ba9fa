#!/usr/bin/env bash
# run: steps, end to end through `rockpack build`, side by side with the floor a daemonless peer
# has: the same script in a plain `chroot` of the same unpacked root (no namespaces, no diff, no
# layer). In one run, on a busybox root with 100 directories x 100 files (10,000 files):
#   no-run     the image without a run: item (warm: every layer cached) — the baseline
#   empty      + run: [{shell: "true"}] with a new cache key each time (runs cold)
#   touch10k   + a run: item that appends to each of the 10,000 files (runs cold)
#   chroot     the touch10k script in `chroot DIR /bin/sh -c` — the command's own time
# Reported: the added time of an empty step (empty - no-run), the touch10k step's diff time (from
# rockpack's log: "found and stored in X s") and its total overhead over the chroot.
#
#   sudo bench/run_bench.sh [build/rockpack]      (root: the sandbox and chroot)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ROCKPACK=$(realpath "${1:-$here/../build/rockpack}")
source "$here/lib.sh"
[ "$(id -u)" -eq 0 ] || { echo "run_bench: needs root" >&2; exit 77; }
[ -x /bin/busybox ] || { echo "run_bench: needs /bin/busybox (busybox-static)" >&2; exit 77; }
bench_setup run
export SOURCE_DATE_EPOCH=1700000000
cd "$work"
mkdir -p tree/data
for d in $(seq 100); do mkdir -p "tree/data/d$d"; for f in $(seq 100); do echo x >"tree/data/d$d/f$f"; done; done
cp /bin/busybox tree/busybox
cat >base.yaml <<'EOF'
name: run-bench-base
files:
  - {src: tree/busybox, dest: /bin/busybox, mode: 0755}
  - {src: tree/data, dest: /data}
symlinks: [{path: /bin/sh, target: busybox}]
env: {PATH: /bin}
EOF
"$ROCKPACK" --quiet build base.yaml --cache-dir "$work/c" -o "oci:$work/img:base" >/dev/null
TOUCH='for d in /data/*; do for f in $d/*; do echo y >> $f; done; done'
recipe() {  # NAME [RUN_ITEM_YAML]
  { echo "name: run-bench"; echo "base: oci:$work/img:base"; [ -z "${2:-}" ] || printf 'run:\n  - %s\n' "$2"; } >"$1.yaml"
}
recipe norun
measure warmup "$ROCKPACK" build norun.yaml --cache-dir "$work/c" -o "oci:$work/out:norun"
measure norun "$ROCKPACK" build norun.yaml --cache-dir "$work/c" -o "oci:$work/out:norun"
NORUN=$WALL
recipe empty "{name: empty, shell: \"true\", env: {NONCE: \"$RANDOM$RANDOM\"}}"
measure empty "$ROCKPACK" build empty.yaml --cache-dir "$work/c" -o "oci:$work/out:empty"
EMPTY=$WALL
recipe touch "{name: touch, shell: '$TOUCH', env: {NONCE: \"$RANDOM$RANDOM\"}}"
measure touch "$ROCKPACK" build touch.yaml --cache-dir "$work/c" -o "oci:$work/out:touch"
TOUCH_WALL=$WALL TOUCH_RSS=$RSS
DIFF=$(grep -o 'found and stored in [0-9.]* s' "$work/touch.out" | grep -o '[0-9.]*' | head -n 1)
RUNTIME=$(grep -o 'run touch: done in [0-9.]* s' "$work/touch.out" | grep -o '[0-9.]*' | head -n 1)
PATHS=$(grep -o '[0-9]* paths changed' "$work/touch.out" | head -n 1)
measure touchwarm "$ROCKPACK" build touch.yaml --cache-dir "$work/c" -o "oci:$work/out:touch2"
WARM=$WALL
umoci unpack --image "$work/img:base" chrootdir >/dev/null 2>&1 || { mkdir -p chrootdir/rootfs; cp -a tree/data chrootdir/rootfs/; mkdir -p chrootdir/rootfs/bin; cp tree/busybox chrootdir/rootfs/bin/busybox; ln -s busybox chrootdir/rootfs/bin/sh; }
measure chroot chroot chrootdir/rootfs /bin/sh -c "$TOUCH"
CHROOT=$WALL
echo "| measure | seconds |"
echo "|---|---|"
echo "| build without run: (all cached) | $NORUN |"
echo "| + empty run: item (cold) | $EMPTY (adds $(echo "$EMPTY - $NORUN" | bc)) |"
echo "| + touch-10,000-files item (cold) | $TOUCH_WALL (peak RSS $TOUCH_RSS MiB; $PATHS) |"
echo "|   of which the command in the sandbox | $RUNTIME |"
echo "|   of which the diff (snapshot, compare, files into the store) | $DIFF |"
echo "| the same command in a plain chroot (peer floor) | $CHROOT |"
echo "| touch-10,000 warm rebuild (cached) | $WARM |"
