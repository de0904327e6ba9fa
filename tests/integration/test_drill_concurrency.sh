#!/usr/bin/env bash
# Drill (issue 15): rockpack processes sharing a store, a layout and a registry at the same time.
#  - 3 builds at once, one store, into one `oci:` layout that does not exist yet (5 rounds, cold store);
#  - 2 pushes at once of images that share layers, to one registry (3 rounds, fresh repositories);
#  - `cache prune --all` started while builds run (repeatedly): the builds and the prunes all succeed,
#    and what the builds wrote is whole (each tag unpacks with umoci; every store and layout blob
#    hashes to its name, checked with sha256sum).
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/registry.sh"
need umoci; need skopeo; need sha256sum
cd "$WORK"
export SOURCE_DATE_EPOCH=1700000000
C="$WORK/store"

mkdir -p proj
head -c $((24 * 1024 * 1024)) /dev/urandom >proj/shared.bin
for n in a b c; do
  head -c $((4 * 1024 * 1024)) /dev/urandom >"proj/own-$n.bin"
  cat >"proj/$n.yaml" <<YAML
name: $n
files:
  - {content: "$n\n", dest: /etc/name}
  - {src: shared.bin, dest: /data/shared.bin, layer: shared}
  - {src: own-$n.bin, dest: /data/own.bin, layer: own}
YAML
done

check_blobs() {
  local dir=$1 what=$2 f
  for f in "$dir"/*; do
    [ -e "$f" ] || continue
    [ "$(sha256sum "$f" | cut -d' ' -f1)" = "$(basename "$f")" ] || fail "$what: $(basename "$f") does not hash to its name"
  done
}
unpack_check() {  # unpack_check LAYOUT:TAG NAME
  rm -rf "$WORK/unpacked"
  umoci unpack --rootless --image "$1" "$WORK/unpacked" >/dev/null 2>&1 || fail "umoci cannot unpack $1"
  assert_eq "$(cat "$WORK/unpacked/rootfs/etc/name")" "$2" "$1 holds its own image"
  cmp -s "$WORK/unpacked/rootfs/data/shared.bin" proj/shared.bin || fail "$1: the shared layer's data differs"
  cmp -s "$WORK/unpacked/rootfs/data/own.bin" "proj/own-$2.bin" || fail "$1: its own layer's data differs"
  rm -rf "$WORK/unpacked"
}

# ---- 3 builds at once, one cold store, one new layout ---------------------------------------------
for round in 1 2 3 4 5; do
  "$ROCKPACK" cache --cache-dir "$C" prune --all >/dev/null
  rm -rf "$WORK/layout"
  pids=()
  for n in a b c; do
    "$ROCKPACK" --quiet build "proj/$n.yaml" --cache-dir "$C" -o "oci:$WORK/layout:$n" >"$WORK/build-$n.log" 2>&1 &
    pids+=($!)
  done
  for i in 0 1 2; do wait "${pids[$i]}" || fail "round $round: a concurrent build failed: $(cat "$WORK"/build-*.log)"; done
  for n in a b c; do unpack_check "$WORK/layout:$n" "$n"; done
  check_blobs "$C/blobs/sha256" "round $round: store"
  check_blobs "$WORK/layout/blobs/sha256" "round $round: layout"
done
echo "ok: 5 rounds of 3 builds at once into one new layout from one cold store"

# ---- 2 pushes at once of images sharing a layer ---------------------------------------------------
start_registry concurrency
for round in 1 2 3; do
  pids=()
  for n in a b; do
    "$ROCKPACK" --quiet push "oci:$WORK/layout:$n" "$REG/drill$round/$n:v1" >"$WORK/push-$n.log" 2>&1 &
    pids+=($!)
  done
  for i in 0 1; do wait "${pids[$i]}" || fail "round $round: a concurrent push failed: $(cat "$WORK"/push-*.log)"; done
  for n in a b; do
    assert_eq "$(skopeo inspect --tls-verify=false --raw "docker://$REG/drill$round/$n:v1" | sha256sum | cut -d' ' -f1)" \
      "$(skopeo inspect --raw "oci:$WORK/layout:$n" | sha256sum | cut -d' ' -f1)" "round $round: pushed manifest of $n"
    rm -rf "$WORK/pulled"
    skopeo copy --src-tls-verify=false "docker://$REG/drill$round/$n:v1" "oci:$WORK/pulled:$n" >/dev/null 2>&1 \
      || fail "round $round: skopeo cannot pull $n back (a blob is missing or wrong)"
    unpack_check "$WORK/pulled:$n" "$n"
  done
done
echo "ok: 3 rounds of 2 pushes at once of images sharing a layer"

# ---- cache prune --all while builds run -----------------------------------------------------------
# Builds (cold: each one after a prune) and prunes run side by side; prune waits for a running build's
# shared lock and a build waits for a running prune, so both always succeed and nothing a build uses
# disappears under it.
rm -rf "$WORK/layout2"
builds_ok=0
for i in 1 2 3 4 5 6; do
  n=$(printf 'abc' | cut -c$(( (i - 1) % 3 + 1 )))
  "$ROCKPACK" --quiet build "proj/$n.yaml" --cache-dir "$C" -o "oci:$WORK/layout2:$n$i" >"$WORK/pb-$i.log" 2>&1 &
  bpid=$!
  sleep "0.$((RANDOM % 10))"
  "$ROCKPACK" cache --cache-dir "$C" prune --all >"$WORK/prune-$i.log" 2>&1 || fail "prune $i failed: $(cat "$WORK/prune-$i.log")"
  wait "$bpid" || fail "build $i (prune running beside it) failed: $(cat "$WORK/pb-$i.log")"
  unpack_check "$WORK/layout2:$n$i" "$n"
  builds_ok=$((builds_ok + 1))
done
check_blobs "$WORK/layout2/blobs/sha256" "layout after builds with prunes"
"$ROCKPACK" cache --cache-dir "$C" verify >/dev/null 2>&1 || fail "the store is not sound after builds with prunes"
echo "ok: $builds_ok builds each with a prune --all beside it"
