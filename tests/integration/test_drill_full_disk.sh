#!/usr/bin/env bash
# Drill (issue 15): a full disk. The store and the output live on a small tmpfs that cannot hold the
# image (three layers of 24 MiB of random data on 48 MiB): the build fails with a clear error (exit 1,
# "No space left on device" and the path), leaves no temporary in the store, no partial blob in the
# layout and no tag for the failed image; an existing tag in that layout stays whole. The same happens
# when only the output is short of space (store elsewhere), and for a docker-archive. Once the tmpfs
# is grown, the same build succeeds and umoci unpacks the image.
source "$(dirname "$0")/lib/common.sh"
need umoci; need skopeo; need sha256sum
[ "$(id -u)" -eq 0 ] || skip "mounting a small tmpfs needs root"
cd "$WORK"
export SOURCE_DATE_EPOCH=1700000000

SMALL="$WORK/small"
mkdir -p "$SMALL"
mount -t tmpfs -o size=48m rockpack-drill "$SMALL" 2>/dev/null || skip "cannot mount a tmpfs here"
unmount_small() { umount "$SMALL" 2>/dev/null || true; }
trap 'unmount_small; cleanup' EXIT

mkdir -p proj
for i in 1 2 3; do head -c $((24 * 1024 * 1024)) /dev/urandom >"proj/r$i"; done
cat >proj/big.yaml <<'YAML'
name: big
files:
  - {content: "big\n", dest: /etc/name}
  - {src: r1, dest: /data/r1, layer: one}
  - {src: r2, dest: /data/r2, layer: two}
  - {src: r3, dest: /data/r3, layer: three}
YAML
cat >proj/small.yaml <<'YAML'
name: small
files:
  - {content: "small\n", dest: /etc/name}
YAML

check_blobs() {
  local dir=$1 what=$2 f
  [ -d "$dir" ] || return 0
  for f in "$dir"/*; do
    [ -e "$f" ] || continue
    [ "$(sha256sum "$f" | cut -d' ' -f1)" = "$(basename "$f")" ] || fail "$what: $(basename "$f") does not hash to its name"
  done
}
expect_disk_full() {  # expect_disk_full WHAT STORE OUTPUT
  local what=$1 store=$2 output=$3 rc=0 out
  out=$("$ROCKPACK" build proj/big.yaml --cache-dir "$store" -o "$output" 2>&1) || rc=$?
  assert_eq "$rc" "1" "$what: exit code"
  assert_contains "$out" "No space left on device" "$what: the message says why"
  if grep -qiE 'terminate called|Segmentation|Aborted|sanitizer' <<<"$out"; then fail "$what: crashed: $out"; fi
  left=$(find "$store/tmp" -mindepth 1 2>/dev/null | head -n 3)
  [ -z "$left" ] || fail "$what: temporaries left in the store: $left"
  if find "$SMALL" -name '*.tmp-*' | grep -q .; then fail "$what: temporaries left: $(find "$SMALL" -name '*.tmp-*')"; fi
  echo "ok: $what: $(grep -m1 'No space' <<<"$out")"
}

# An existing tag in the layout on the small disk, built while there is room.
"$ROCKPACK" --quiet build proj/small.yaml --cache-dir "$SMALL/store" -o "oci:$SMALL/layout:small" >/dev/null \
  || fail "the small image does not fit on an empty 48 MiB tmpfs"
small_digest=$(skopeo inspect --raw "oci:$SMALL/layout:small" | sha256sum | cut -d' ' -f1)

# 1. Store and output on the small disk.
expect_disk_full "store and layout on a full disk" "$SMALL/store" "oci:$SMALL/layout:big"
assert_eq "$(skopeo inspect --raw "oci:$SMALL/layout:small" | sha256sum | cut -d' ' -f1)" "$small_digest" \
  "the existing tag after a failed build"
if skopeo inspect --raw "oci:$SMALL/layout:big" >/dev/null 2>&1; then fail "the failed image got a tag"; fi
check_blobs "$SMALL/layout/blobs/sha256" "layout after a full disk"
check_blobs "$SMALL/store/blobs/sha256" "store after a full disk"

# 2. Store on the big disk, output on the small one: a layout, then a docker-archive.
"$ROCKPACK" cache --cache-dir "$SMALL/store" prune --all >/dev/null
expect_disk_full "layout on a full disk" "$WORK/store" "oci:$SMALL/layout:big"
check_blobs "$SMALL/layout/blobs/sha256" "layout after a full disk (store elsewhere)"
expect_disk_full "docker-archive on a full disk" "$WORK/store" "docker-archive:$SMALL/big.tar:big:1"
[ ! -e "$SMALL/big.tar" ] || fail "a partial docker-archive was left"

# 3. Room again: the same build succeeds and the image is whole.
mount -o remount,size=400m "$SMALL" || fail "cannot grow the tmpfs"
"$ROCKPACK" --quiet build proj/big.yaml --cache-dir "$SMALL/store" -o "oci:$SMALL/layout:big" >/dev/null \
  || fail "the build with room again failed"
umoci unpack --rootless --image "$SMALL/layout:big" "$WORK/unpacked" >/dev/null 2>&1 || fail "umoci cannot unpack the image"
cmp -s "$WORK/unpacked/rootfs/data/r3" proj/r3 || fail "the unpacked data differs"
assert_eq "$(skopeo inspect --raw "oci:$SMALL/layout:small" | sha256sum | cut -d' ' -f1)" "$small_digest" "the existing tag at the end"
echo "ok: with room again the build succeeds and the image unpacks"
