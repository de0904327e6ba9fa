#!/usr/bin/env bash
# `max_layer_size`: a layer bigger than the cap is split into several layers that unpack to the
# same tree as the one layer without the cap (modes of directories, owners, symlinks, hardlink
# groups, contents), no part's tar is over the cap (but for its directory entries), and the split
# is deterministic (the same digest twice).
source "$(dirname "$0")/lib/common.sh"
need umoci; need python3
[ "$(id -u)" -eq 0 ] || skip "umoci unpack keeps owners only as root"
export SOURCE_DATE_EPOCH=1700000000

# A tree of ~60 KB: directories with their own modes, files of 3-9 KB, a hardlink group whose
# members sort far apart, a symlink.
T="$WORK/ctx/tree"
mkdir -p "$T/a/private" "$T/b" "$T/c/empty"
chmod 0700 "$T/a/private"
chmod 0750 "$T/b"
for i in 1 2 3 4 5 6 7 8; do
  head -c $((3000 + i * 700)) /dev/urandom >"$T/a/f$i"
  head -c $((2000 + i * 300)) /dev/urandom >"$T/b/g$i"
done
head -c 5000 /dev/urandom >"$T/a/private/secret"
ln "$T/a/f1" "$T/c/hardlink-to-f1"
ln "$T/a/f1" "$T/b/hardlink-too"
ln -s ../a/f2 "$T/c/sym"

recipe() {  # FILE [CAP]
  { echo "name: capped"
    echo "files:"
    echo "  - {src: ./tree, dest: /opt/tree}"
    [ -z "${2:-}" ] || echo "max_layer_size: $2"
    echo "tags: [latest]"; } >"$1"
}
build() {  # RECIPE OUT
  "$ROCKPACK" build "$1" -o "oci:$2:latest" >"$2.log" 2>&1 || fail "build of $1 failed: $(tail -n 20 "$2.log")"
}
digest() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1] + "/index.json"))["manifests"][0]["digest"])' "$1"; }
# The uncompressed tar size of each layer of an OCI layout, one a line.
layer_sizes() {
  python3 - "$1" <<'PY'
import gzip, json, sys
root = sys.argv[1]
blob = lambda d: open(f"{root}/blobs/{d.replace(':', '/')}", "rb").read()
manifest = json.loads(blob(json.load(open(root + "/index.json"))["manifests"][0]["digest"]))
for layer in manifest["layers"]:
    print(len(gzip.decompress(blob(layer["digest"]))))
PY
}
# Every path of an unpacked rootfs with type, mode, owner, content hash or link target, and its
# hardlink group (the other paths of its inode).
tree_listing() {
  python3 - "$1" <<'PY'
import hashlib, os, stat, sys
root = sys.argv[1]
by_inode = {}
rows = []
for d, dirs, files in os.walk(root):
    for n in sorted(dirs + files):
        p = os.path.join(d, n)
        st = os.lstat(p)
        rel = os.path.relpath(p, root)
        if stat.S_ISLNK(st.st_mode):
            what = "link " + os.readlink(p)
        elif stat.S_ISDIR(st.st_mode):
            what = "dir"
        else:
            what = "file " + hashlib.sha256(open(p, "rb").read()).hexdigest()
            by_inode.setdefault(st.st_ino, []).append(rel)
        rows.append([rel, "%o" % stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid, what, st.st_ino])
groups = {ino: ",".join(sorted(paths)) for ino, paths in by_inode.items() if len(paths) > 1}
for r in sorted(rows):
    print(*r[:5], groups.get(r[5], ""))
PY
}

recipe "$WORK/ctx/plain.yaml"
recipe "$WORK/ctx/capped.yaml" 16K
build "$WORK/ctx/plain.yaml" "$WORK/plain"
build "$WORK/ctx/capped.yaml" "$WORK/capped"
build "$WORK/ctx/capped.yaml" "$WORK/capped2"

assert_eq "$(layer_sizes "$WORK/plain" | wc -l)" 1 "layers without a cap"
n=$(layer_sizes "$WORK/capped" | wc -l)
[ "$n" -ge 4 ] || fail "the 16K cap split the ~80 KB layer into $n layers"
while read -r size; do
  # 16K, plus the copies of the directories above its files and the tar's end (a few 512-byte blocks).
  [ "$size" -le $((16384 + 8192)) ] || fail "a layer of $size bytes under a 16K cap: $(layer_sizes "$WORK/capped")"
done < <(layer_sizes "$WORK/capped")
assert_contains "$(cat "$WORK/capped.log")" "split into $n layers" "the build says it split the layer"
assert_eq "$(digest "$WORK/capped2")" "$(digest "$WORK/capped")" "the split image's digest, built twice"
[ "$(digest "$WORK/capped")" != "$(digest "$WORK/plain")" ] || fail "the cap changed nothing"

umoci unpack --image "$WORK/plain:latest" "$WORK/u-plain" >"$WORK/umoci.log" 2>&1 || fail "umoci: $(cat "$WORK/umoci.log")"
umoci unpack --image "$WORK/capped:latest" "$WORK/u-capped" >"$WORK/umoci.log" 2>&1 || fail "umoci: $(cat "$WORK/umoci.log")"
tree_listing "$WORK/u-plain/rootfs" >"$WORK/plain.tree"
tree_listing "$WORK/u-capped/rootfs" >"$WORK/capped.tree"
grep -q "hardlink-to-f1" "$WORK/plain.tree" || fail "the listing misses the hardlink: $(cat "$WORK/plain.tree")"
grep -q "^opt/tree/a/private 700 " "$WORK/plain.tree" || fail "the 0700 directory: $(cat "$WORK/plain.tree")"
diff -u "$WORK/plain.tree" "$WORK/capped.tree" >"$WORK/tree.diff" || fail "the split image unpacks to another tree:
$(cat "$WORK/tree.diff")"

# A size that is no size is refused when the recipe loads.
recipe "$WORK/ctx/bad.yaml" 10
if "$ROCKPACK" validate "$WORK/ctx/bad.yaml" >"$WORK/bad.log" 2>&1; then fail "max_layer_size: 10 was accepted"; fi
assert_contains "$(cat "$WORK/bad.log")" "max_layer_size" "the refusal names the key"

echo "PASS: test_layer_cap"
