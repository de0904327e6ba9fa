#!/usr/bin/env bash
# Same inputs, same digest: across fresh caches, with the cache warm, and for zstd. Another
# SOURCE_DATE_EPOCH or content gives another digest.
source "$(dirname "$0")/lib/common.sh"
need file
BUSYBOX=$(static_busybox)
recipe="$ROCKPACK_SOURCE_DIR/examples/quickstart/recipe.yaml"
cd "$WORK"

export SOURCE_DATE_EPOCH=1700000000
a=$(build_digest "$recipe" --set BUSYBOX="$BUSYBOX" --cache-dir "$WORK/c1" -o oci:"$WORK/a")
b=$(build_digest "$recipe" --set BUSYBOX="$BUSYBOX" --cache-dir "$WORK/c2" -o oci:"$WORK/b" --threads 1)
assert_eq "$b" "$a" "two cold builds (2 threads vs 1)"
cmp -s "$WORK/a/index.json" "$WORK/b/index.json" || fail "index.json differs"

# Warm rebuild: layers come from the cache, nothing is compressed, same digest.
log=$("$ROCKPACK" build "$recipe" --set BUSYBOX="$BUSYBOX" --cache-dir "$WORK/c1" -o oci:"$WORK/c" 2>&1)
assert_contains "$log" "(cached)" "warm rebuild reuses layers"
assert_contains "$log" "$a" "warm rebuild digest"

z1=$(build_digest "$recipe" --set BUSYBOX="$BUSYBOX" --compression zstd --cache-dir "$WORK/c3" -o oci:"$WORK/z1")
z2=$(build_digest "$recipe" --set BUSYBOX="$BUSYBOX" --compression zstd --cache-dir "$WORK/c4" -o oci:"$WORK/z2")
assert_eq "$z2" "$z1" "zstd builds"
assert_ne "$z1" "$a" "zstd vs gzip"

other=$(SOURCE_DATE_EPOCH=1700000001 build_digest "$recipe" --set BUSYBOX="$BUSYBOX" -o oci:"$WORK/d")
assert_ne "$other" "$a" "another SOURCE_DATE_EPOCH"
greet=$(build_digest "$recipe" --set BUSYBOX="$BUSYBOX" --set GREETING=hi -o oci:"$WORK/e")
assert_ne "$greet" "$a" "another arg value"

# docker archives are byte-identical too.
build_digest "$recipe" --set BUSYBOX="$BUSYBOX" -o docker-archive:"$WORK/x.tar" >/dev/null
build_digest "$recipe" --set BUSYBOX="$BUSYBOX" --cache-dir "$WORK/c5" -o docker-archive:"$WORK/y.tar" >/dev/null
cmp -s "$WORK/x.tar" "$WORK/y.tar" || fail "docker archives differ"
echo "ok"
