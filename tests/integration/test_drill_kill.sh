#!/usr/bin/env bash
# Drill (issue 15): builds killed at random moments. A 300 MB image (three layers of semi-compressible
# data) is built into an existing `oci:` layout and into one that does not exist yet, and killed
# (SIGKILL in most rounds, SIGTERM or SIGINT in the others) at a random moment of a cold build. After
# every kill:
#  - the layout's existing tag still names the same manifest, and every blob it names is whole;
#  - after SIGTERM/SIGINT no temporary is left at all (the signal handler removed them);
#  - the next build succeeds, leaves no temporary in the store or beside/inside either layout,
#    and every blob of the store and of the layouts hashes to its name (checked with sha256sum,
#    not with rockpack's own code).
# DRILL_ROUNDS (default 20) sets the number of kills.
source "$(dirname "$0")/lib/common.sh"
need skopeo; need sha256sum
cd "$WORK"
export SOURCE_DATE_EPOCH=1700000000
ROUNDS=${DRILL_ROUNDS:-20}
C="$WORK/store"

mkdir -p proj
# 6 files of 50 MiB (base64 of 37.5 MiB): base64 of random bytes deflates to about 3/4, so compression does real work.
for i in 1 2 3 4 5 6; do head -c 39321600 /dev/urandom | base64 -w 0 >"proj/d$i"; done
cat >proj/big.yaml <<'YAML'
name: big
args:
  ROUND: "0"
files:
  - {content: "round ${ROUND}\n", dest: /etc/round}
  - {src: d1, dest: /data/d1, layer: one}
  - {src: d2, dest: /data/d2, layer: one}
  - {src: d3, dest: /data/d3, layer: two}
  - {src: d4, dest: /data/d4, layer: two}
  - {src: d5, dest: /data/d5, layer: three}
  - {src: d6, dest: /data/d6, layer: three}
YAML
build() { "$ROCKPACK" --quiet build proj/big.yaml --cache-dir "$C" --compression gzip:1 "$@"; }

# Every blob in a directory of blobs hashes to its name.
check_blobs() {
  local dir=$1 what=$2 f
  [ -d "$dir" ] || return 0
  for f in "$dir"/*; do
    [ -e "$f" ] || continue
    [ "$(sha256sum "$f" | cut -d' ' -f1)" = "$(basename "$f")" ] || fail "$what: $(basename "$f") does not hash to its name"
  done
}
# No temporary of any rockpack process: store tmp/, layout temporaries, never-renamed new layouts.
check_no_temporaries() {
  local when=$1 left
  left=$( { find "$C/tmp" -mindepth 1 2>/dev/null; find "$WORK/layouts" -name '*.tmp-*' 2>/dev/null; } | head -n 5)
  [ -z "$left" ] || fail "$when: temporaries left: $left"
}

# The existing layout and its tag, built once without interruption.
mkdir -p layouts
build -o "oci:$WORK/layouts/existing:old" >/dev/null || fail "the first build failed"
old_digest=$(skopeo inspect --raw "oci:$WORK/layouts/existing:old" | sha256sum | cut -d' ' -f1)

# How long a cold build takes here, to pick kill moments inside it (not a pass/fail figure).
"$ROCKPACK" cache --cache-dir "$C" prune --all >/dev/null
t0=$(date +%s%N)
build --set ROUND=probe -o "oci:$WORK/layouts/probe:x" >/dev/null || fail "the timing build failed"
cold_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
rm -rf "$WORK/layouts/probe"
echo "a cold build takes ${cold_ms} ms here; $ROUNDS kills within it"

killed_mid=0
for round in $(seq 1 "$ROUNDS"); do
  case $((round % 5)) in 1) sig=TERM ;; 3) sig=INT ;; *) sig=KILL ;; esac
  if [ $((round % 2)) -eq 0 ]; then target="$WORK/layouts/existing:r$round"; else target="$WORK/layouts/new$round:x"; fi
  # A cold store each round, so that the kill lands in real work (download, compression, layout write).
  "$ROCKPACK" cache --cache-dir "$C" prune --all >/dev/null
  delay_ms=$(( (RANDOM * 32768 + RANDOM) % (cold_ms + 1) ))
  # exec: $! must be rockpack itself, not a subshell running the function (killing that would leave
  # rockpack running on).
  (exec "$ROCKPACK" build proj/big.yaml --cache-dir "$C" --compression gzip:1 --set ROUND="$round" -o "oci:$target" \
    >"$WORK/kill.log" 2>&1) &
  pid=$!
  sleep "$(printf '%d.%03d' $((delay_ms / 1000)) $((delay_ms % 1000)))"
  if kill -0 "$pid" 2>/dev/null; then
    kill -s "$sig" "$pid" 2>/dev/null && killed_mid=$((killed_mid + 1))
  fi
  rc=0; wait "$pid" || rc=$?

  # The existing tag is intact, whatever happened.
  now=$(skopeo inspect --raw "oci:$WORK/layouts/existing:old" | sha256sum | cut -d' ' -f1) \
    || fail "round $round (SIG$sig after ${delay_ms} ms): the existing tag cannot be read"
  assert_eq "$now" "$old_digest" "round $round: the existing tag's manifest"
  if [ "$sig" != KILL ] && [ "$rc" -ne 0 ]; then
    check_no_temporaries "round $round, right after SIG$sig to pid $pid at ${delay_ms} ms (exit $rc; $(tail -c 300 "$WORK/kill.log"))"
  fi

  # The next build succeeds and leaves nothing behind; everything hashes to its name.
  build --set ROUND="$round" -o "oci:$target" >"$WORK/next.log" 2>&1 \
    || fail "round $round: the build after SIG$sig at ${delay_ms} ms failed: $(cat "$WORK/next.log")"
  check_no_temporaries "round $round, after the next build"
  check_blobs "$C/blobs/sha256" "round $round: store"
  for layout in "$WORK"/layouts/*; do check_blobs "$layout/blobs/sha256" "round $round: layout $(basename "$layout")"; done
  skopeo inspect --raw "oci:$target" >/dev/null || fail "round $round: the rebuilt tag cannot be read"
  if ls "$WORK/layouts" | grep -q '\.tmp-'; then fail "round $round: a never-renamed new layout is left"; fi
  # New layouts are removed again so the scratch space stays at one image's size.
  if [ $((round % 2)) -eq 1 ]; then rm -rf "${target%:*}"; fi
done
echo "ok: $ROUNDS kills ($killed_mid of them while the build ran), existing tag intact, no temporaries, every blob whole"

# The image of the last rebuild is a real image: umoci unpacks it and the data is there.
need umoci
umoci unpack --rootless --image "$WORK/layouts/existing:r$((ROUNDS - ROUNDS % 2))" "$WORK/unpacked" >/dev/null 2>&1 \
  || fail "umoci cannot unpack the last rebuilt image"
cmp "$WORK/unpacked/rootfs/data/d6" proj/d6 || fail "the unpacked image's data differs"
echo "ok: the rebuilt image unpacks with umoci"
