#!/usr/bin/env bash
# rockpack diff on real images: two images built on the Debian 12 python base from two wheel sets
# (one package upgraded, one removed, one added, one unchanged) — the diff names exactly those
# packages, the base's layers as shared and the Debian packages as unchanged; an OCI layout and a
# docker archive of the same image (written by skopeo) diff as identical, files included.
source "$(dirname "$0")/lib/common.sh"
source "$ROCKPACK_SOURCE_DIR/tests/integration/lib/python_fixtures.sh"
need skopeo
need umoci

python_base

mkdir -p "$WORK/wa" "$WORK/wb"
wheel "$WORK/wa" rp-same 1.0 >/dev/null
wheel "$WORK/wa" rp-up 1.0 >/dev/null
wheel "$WORK/wa" rp-gone 1.0 >/dev/null
wheel "$WORK/wb" rp-same 1.0 >/dev/null
wheel "$WORK/wb" rp-up 2.0 >/dev/null
wheel "$WORK/wb" rp-new 0.5 >/dev/null
start_index a "$WORK/wa"
start_index b "$WORK/wb"

recipe() {  # recipe FILE INDEX PACKAGE...
  local file=$1 index=$2
  shift 2
  {
    echo "name: diffapp"
    echo "base: oci:$BASE:base"
    echo "python:"
    echo "  interpreter: /usr/bin/python3"
    echo "  venv: /opt/venv"
    echo "  indexes:"
    echo "    - url: $(index_url "$index")/simple/"
    echo "  packages:"
    for p in "$@"; do echo "    - $p"; done
    echo "labels:"
    echo "  org.example.set: $index"
    echo "tags: [latest]"
  } >"$file"
}
recipe "$WORK/a.yaml" a rp-same rp-up rp-gone
recipe "$WORK/b.yaml" b rp-same rp-up rp-new
build_digest "$WORK/a.yaml" -o "oci:$WORK/a:latest" >/dev/null || fail "build of A failed"
build_digest "$WORK/b.yaml" -o "oci:$WORK/b:latest" >/dev/null || fail "build of B failed"

STORE="$WORK/store"
"$ROCKPACK" diff --json --cache-dir "$STORE" "oci:$WORK/a:latest" "oci:$WORK/b:latest" >"$WORK/d.json" ||
  fail "rockpack diff A B failed"
summary() { python3 - "$WORK/d.json" "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); what = sys.argv[2]
p = d["packages"]
if what == "changed": print(" ".join(sorted(f'{c["kind"]}:{c["name"]}:{c["old"]}->{c["new"]}' for c in p["changed"])))
elif what in ("added", "removed"): print(" ".join(sorted(f'{c["kind"]}:{c["name"]}:{c["version"]}' for c in p[what])))
elif what == "config": print(" ".join(sorted(c["field"] for c in d["config"])))
elif what == "identical": print(d["identical"])
elif what == "shared": print(len(d["layers"]["shared"]))
PY
}
assert_eq "$(summary changed)" "python:rp-up:1.0->2.0" "changed packages"
assert_eq "$(summary added)" "python:rp-new:0.5" "added packages"
assert_eq "$(summary removed)" "python:rp-gone:1.0" "removed packages"
assert_eq "$(summary config)" "Labels.org.example.set" "config changes"
assert_eq "$(summary identical)" "False" "identical"
# The base's layers are the same blobs in both images.
base_layers=$(skopeo inspect --format '{{len .Layers}}' "oci:$BASE:base")
[ "$(summary shared)" -ge "$base_layers" ] || fail "the base's $base_layers layers are not all shared: $(summary shared)"

# The Debian packages the base holds are found (dpkg's status file) and unchanged between A and B.
"$ROCKPACK" diff --json --cache-dir "$STORE" "oci:$BASE:base" "oci:$WORK/a:latest" >"$WORK/d.json" ||
  fail "rockpack diff base A failed"
assert_eq "$(summary removed)" "" "nothing removed from the base"
added=$(summary added)
for want in python:rp-same:1.0 python:rp-up:1.0 python:rp-gone:1.0; do assert_contains "$added" "$want" "added over the base"; done
grep -q "deb:" <<<"$added" && fail "Debian packages reported as added over the base: $added"
# Every installed Debian package of the base is counted: dpkg-query reads the same status file.
umoci unpack --image "$BASE:base" "$WORK/basebundle" >/dev/null 2>&1 || fail "umoci cannot unpack the base"
want_debs=$(dpkg-query --admindir="$WORK/basebundle/rootfs/var/lib/dpkg" -W -f '${db:Status-Status}\n' | grep -c '^installed$')
got_debs=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["a"]["packages"].get("deb", 0))' "$WORK/d.json")
[ "$want_debs" -gt 0 ] || fail "dpkg-query finds no packages in the base"
assert_eq "$got_debs" "$want_debs" "Debian packages found in the base"
"$ROCKPACK" diff --json --cache-dir "$STORE" "oci:$BASE:base" "oci:$BASE:base" >"$WORK/d.json" || fail "diff base base"
assert_eq "$(summary identical)" "True" "an image against itself"

# Text output names the changes too.
text=$("$ROCKPACK" diff --cache-dir "$STORE" "oci:$WORK/a:latest" "oci:$WORK/b:latest") || fail "text diff failed"
assert_contains "$text" "rp-up" "text diff"
assert_contains "$text" "1.0 -> 2.0" "text diff"

# The same image as an OCI layout and as a docker archive (uncompressed layers): identical.
skopeo copy -q "oci:$WORK/a:latest" "docker-archive:$WORK/a.tar:diffapp:latest" >/dev/null || fail "skopeo copy failed"
"$ROCKPACK" diff --json --files --cache-dir "$STORE" "oci:$WORK/a:latest" "docker-archive:$WORK/a.tar" >"$WORK/d.json" ||
  fail "rockpack diff oci vs docker-archive failed"
assert_eq "$(summary identical)" "True" "oci layout vs docker archive of the same image: $(head -c 2000 "$WORK/d.json")"

# --files: B's venv has rp_new's files and not rp_gone's.
"$ROCKPACK" diff --json --files --cache-dir "$STORE" "oci:$WORK/a:latest" "oci:$WORK/b:latest" >"$WORK/d.json" || fail "diff --files"
files=$(python3 -c 'import json,sys; f=json.load(open(sys.argv[1]))["files"]; print("\n".join("+"+x["path"] for x in f["added"])); print("\n".join("-"+x["path"] for x in f["removed"]))' "$WORK/d.json")
assert_contains "$files" "+/opt/venv/lib/python3.11/site-packages/rp_new-0.5.dist-info/METADATA" "files added"
assert_contains "$files" "-/opt/venv/lib/python3.11/site-packages/rp_gone-1.0.dist-info/METADATA" "files removed"
grep -q "rp_same" <<<"$files" && fail "unchanged package's files reported: $files"
echo "OK"
