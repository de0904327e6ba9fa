#!/usr/bin/env bash
# Issue 15: the store as a managed cache (`rockpack cache du|prune|verify|path`), concurrent builds
# into a layout that does not exist yet, temporaries of killed builds swept at the next start,
# credentials absent from errors, and files: src confined to the recipe's directory. Small recipes
# of inline content and host files only: no network, seconds.
source "$(dirname "$0")/lib/common.sh"
need umoci
cd "$WORK"
export SOURCE_DATE_EPOCH=1700000000
C="$WORK/store"
mkdir -p proj
head -c $((4 * 1024 * 1024)) /dev/urandom >proj/data.bin
recipe() {  # recipe NAME: a two-layer image whose content depends on NAME
  cat >"proj/$1.yaml" <<YAML
name: $1
files:
  - content: "$1\n"
    dest: /etc/name
  - src: data.bin
    dest: /data/data.bin
    layer: data
YAML
}
for n in a b c; do recipe "$n"; done

# ---- concurrent builds into a layout that does not exist yet (defect 1) -----------------------
for round in 1 2 3; do
  rm -rf "$WORK/new-layout"
  pids=()
  for n in a b c; do
    "$ROCKPACK" --quiet build "proj/$n.yaml" --cache-dir "$C" -o "oci:$WORK/new-layout:$n" >"$WORK/par-$n.log" 2>&1 &
    pids+=($!)
  done
  for i in 0 1 2; do wait "${pids[$i]}" || fail "round $round: a concurrent build failed: $(cat "$WORK"/par-*.log)"; done
  for n in a b c; do
    umoci unpack --rootless --image "$WORK/new-layout:$n" "$WORK/unpacked-$n" >/dev/null 2>&1 \
      || fail "round $round: umoci cannot unpack tag $n"
    assert_eq "$(cat "$WORK/unpacked-$n/rootfs/etc/name")" "$n" "round $round: tag $n holds its image"
    rm -rf "$WORK/unpacked-$n"
  done
  ls -a "$WORK" | grep -q 'new-layout.tmp-' && fail "round $round: a temporary layout was left behind"
done
echo "ok: 3 rounds of 3 concurrent builds into a new layout"

# ---- cache path / du / verify / prune ------------------------------------------------------------
assert_eq "$("$ROCKPACK" cache --cache-dir "$C" path)" "$C" "cache path"
du_out=$("$ROCKPACK" cache --cache-dir "$C" du)
assert_contains "$du_out" "blobs:" "du lists blobs"
assert_contains "$du_out" "total:" "du has a total"
"$ROCKPACK" cache --cache-dir "$C" verify >/dev/null 2>&1 || fail "verify of a sound store failed"

# A blob corrupted in place: verify says so (exit 1), --repair removes it, the next build heals.
blob=$(ls -S "$C/blobs/sha256" | head -n 1)
chmod u+w "$C/blobs/sha256/$blob"
printf 'x' | dd of="$C/blobs/sha256/$blob" bs=1 seek=100 conv=notrunc 2>/dev/null
rc=0; out=$("$ROCKPACK" cache --cache-dir "$C" verify 2>&1) || rc=$?
assert_eq "$rc" "1" "verify exit code with a corrupt blob"
assert_contains "$out" "sha256:$blob" "verify names the bad blob"
"$ROCKPACK" cache --cache-dir "$C" verify --repair >/dev/null 2>&1
[ ! -e "$C/blobs/sha256/$blob" ] || fail "verify --repair kept the bad blob"
"$ROCKPACK" cache --cache-dir "$C" verify >/dev/null 2>&1 || fail "verify after --repair failed"
build_digest proj/a.yaml --cache-dir "$C" -o "oci:$WORK/after-repair" >/dev/null || fail "build after repair"

# prune never runs while a build holds the store (its lock, shared): it waits (here, until timeout
# ends it), and runs once the build is gone.
flock -s -o "$C/store.lock" sleep 30 &
holder=$!
track_pid "$holder"
rc=0; timeout 2 "$ROCKPACK" cache --cache-dir "$C" prune --all >/dev/null 2>&1 || rc=$?
assert_eq "$rc" "124" "prune while a build holds the store (must still be waiting)"
[ -n "$(ls "$C/blobs/sha256")" ] || fail "prune removed blobs while a build held the store"
kill "$holder"; wait "$holder" 2>/dev/null || true
"$ROCKPACK" cache --cache-dir "$C" prune --keep-bytes 1M >/dev/null 2>&1 || fail "prune --keep-bytes"
total=$(du -sb "$C/blobs" | cut -f1)
[ "$total" -le $((1024 * 1024 + 65536)) ] || fail "prune --keep-bytes 1M left $total bytes of blobs"
"$ROCKPACK" cache --cache-dir "$C" prune --keep-days 0 >/dev/null 2>&1 || fail "prune --keep-days"
"$ROCKPACK" cache --cache-dir "$C" prune --all >/dev/null 2>&1 || fail "prune --all"
[ -z "$(find "$C/blobs" "$C/records" -type f)" ] || fail "prune --all left files"
rc=0; "$ROCKPACK" cache --cache-dir "$C" prune >/dev/null 2>&1 || rc=$?
assert_eq "$rc" "2" "prune without a criterion is bad input"
build_digest proj/a.yaml --cache-dir "$C" -o "oci:$WORK/after-prune" >/dev/null || fail "build after prune --all"
echo "ok: cache path, du, verify (--repair), prune (--keep-bytes waits for builds, --keep-days, --all)"

# ---- temporaries of a killed build are swept at the next start (defect 3) -----------------------
sleep 30 &
dead=$!
kill "$dead"; wait "$dead" 2>/dev/null || true
head -c 1000000 /dev/zero >"$C/tmp/blob.tmp-$dead-0123456789abcdef"
build_digest proj/b.yaml --cache-dir "$C" -o "oci:$WORK/swept" >/dev/null
[ ! -e "$C/tmp/blob.tmp-$dead-0123456789abcdef" ] || fail "a dead build's temporary survived the next build"
echo "ok: a dead build's temporary is swept"

# ---- credentials never echoed (defect 8) -------------------------------------------------------
rc=0; out=$("$ROCKPACK" push "oci:$WORK/swept" 'u:S3CRET-pw@127.0.0.1:5000/x:1' 2>&1) || rc=$?
assert_eq "$rc" "2" "push to a reference with credentials"
grep -q S3CRET <<<"$out" && fail "the secret was echoed: $out"
echo "ok: credentials redacted"

# ---- files: src confined (defect 7) ------------------------------------------------------------
mkdir -p outside && echo secret >outside/secret
printf 'name: escape\nfiles:\n  - src: ../outside/secret\n    dest: /x\n' >proj/escape.yaml
rc=0; out=$("$ROCKPACK" build proj/escape.yaml --cache-dir "$C" -o "oci:$WORK/escape" 2>&1) || rc=$?
assert_eq "$rc" "2" "src outside the recipe's directory"
assert_contains "$out" "--allow-path" "the message names --allow-path"
[ ! -e "$WORK/escape" ] || fail "a refused build wrote output"
build_digest proj/escape.yaml --allow-path "$WORK/outside" --cache-dir "$C" -o "oci:$WORK/escape" >/dev/null \
  || fail "--allow-path did not allow the directory"
echo "ok: files: src confined, --allow-path opens a directory"
