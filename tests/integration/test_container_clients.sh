#!/usr/bin/env bash
# The outputs as containerd, podman and skopeo users load them (issue 14):
#  - a docker archive with two tags: `ctr images import` and `podman load` list both, under the
#    normalized name (docker.io/library/NAME:TAG), and `ctr run` works by that name;
#  - an oci-archive: written by build, loaded by ctr, podman and skopeo, read back by rockpack;
#  - inspect of a layout whose tags all name one image; re-tagging leaves no unreferenced blobs.
source "$(dirname "$0")/lib/common.sh"
source "$ROCKPACK_SOURCE_DIR/tests/integration/lib/containerd.sh"
need skopeo; need podman; need runc; need python3
[ "$(id -u)" -eq 0 ] || skip "containerd and podman need root here"
BUSYBOX=$(static_busybox)
export SOURCE_DATE_EPOCH=1700000000
cd "$WORK"
RECIPE="$ROCKPACK_SOURCE_DIR/examples/quickstart/recipe.yaml"

# One build, three outputs: a docker archive with both recipe tags (latest and the date), a
# docker archive named on the command line, and an oci-archive with both tags.
digest=$(build_digest "$RECIPE" --set BUSYBOX="$BUSYBOX" --set GREETING=hi \
  -o docker-archive:"$WORK/plain.tar" -o docker-archive:"$WORK/named.tar:docex:1" \
  -o oci-archive:"$WORK/image.oci.tar" -o oci-archive:"$WORK/one.oci.tar:v1" -o oci:"$WORK/layout")
DATE_TAG=20231114

# index.json of the docker archive: one entry per tag, named as docker save names them.
names=$(tar -xOf "$WORK/plain.tar" index.json | python3 -c '
import json, sys
for m in json.load(sys.stdin)["manifests"]:
    print(m["annotations"]["io.containerd.image.name"], m["annotations"]["org.opencontainers.image.ref.name"])')
assert_eq "$names" "docker.io/library/quickstart:latest latest
docker.io/library/quickstart:$DATE_TAG $DATE_TAG" "index.json names of the docker archive"
assert_contains "$(tar -xOf "$WORK/plain.tar" manifest.json)" '"RepoTags":["quickstart:latest","quickstart:'"$DATE_TAG"'"]' "manifest.json RepoTags"

# containerd: import both archives, run by the normalized name.
start_containerd
ctrd images import --snapshotter native "$WORK/plain.tar" >/dev/null || fail "ctr cannot import the docker archive"
ctrd images import --snapshotter native "$WORK/named.tar" >/dev/null || fail "ctr cannot import the named archive"
list=$(ctrd images ls -q)
assert_contains "$list" "docker.io/library/quickstart:latest" "ctr lists the first tag"
assert_contains "$list" "docker.io/library/quickstart:$DATE_TAG" "ctr lists the second tag"
assert_contains "$list" "docker.io/library/docex:1" "ctr lists the named archive by its normalized name"
out=$(ctrd run --rm --snapshotter native docker.io/library/docex:1 rp-test-1 2>&1) \
  || fail "ctr run docker.io/library/docex:1 failed: $out"
assert_contains "$out" "hi! Built from examples/quickstart" "ctr run prints the motd"
ctrd images import --snapshotter native --index-name oci-archive-import "$WORK/image.oci.tar" >/dev/null \
  || fail "ctr cannot import the oci-archive"
assert_contains "$(ctrd images ls -q)" "oci-archive-import" "ctr imports the oci-archive"

# podman: load both archives (vfs storage in the scratch directory).
pm() { podman --root "$WORK/podman/root" --runroot "$WORK/podman/run" --storage-driver vfs \
  --cgroup-manager cgroupfs --events-backend none "$@"; }
pm load -i "$WORK/plain.tar" >"$WORK/podman-load.log" 2>&1 || fail "podman load failed: $(cat "$WORK/podman-load.log")"
pm images --format '{{.Repository}}:{{.Tag}}' >"$WORK/podman-images"
assert_contains "$(cat "$WORK/podman-images")" "quickstart:latest" "podman lists the first tag"
assert_contains "$(cat "$WORK/podman-images")" "quickstart:$DATE_TAG" "podman lists the second tag"
# podman loads an oci-archive of one entry (it refuses several, whatever they are): -o oci-archive:FILE:TAG.
pm load -i "$WORK/one.oci.tar" >"$WORK/podman-load2.log" 2>&1 || fail "podman cannot load the oci-archive: $(cat "$WORK/podman-load2.log")"
# (podman names an oci-archive entry by its ref.name: localhost/v1:latest.)
assert_contains "$(pm image inspect --format '{{.RepoDigests}}' localhost/v1:latest)" "localhost/v1@$digest" \
  "podman keeps the manifest digest of the oci-archive"

# skopeo reads the oci-archive by tag, with our digest; rockpack reads it back.
assert_contains "$(skopeo inspect oci-archive:"$WORK/image.oci.tar:latest")" "\"Digest\": \"$digest\"" "skopeo reads the oci-archive"
text=$("$ROCKPACK" inspect oci-archive:"$WORK/image.oci.tar:latest")
assert_contains "$text" "Digest:       $digest" "rockpack inspects the oci-archive"
assert_contains "$text" "in 2 layers" "layer count"

# A layout whose tags (latest, the date) all name one image needs no tag to be inspected.
text=$("$ROCKPACK" inspect oci:"$WORK/layout") || fail "inspect of a layout with two tags of one image failed"
assert_contains "$text" "Digest:       $digest" "inspect picks the one image"

# Re-tagging: the old image's blobs go when no tag refers to them any more.
build_digest "$RECIPE" --set BUSYBOX="$BUSYBOX" --set GREETING=second -o oci:"$WORK/layout" >/dev/null
referenced=$(python3 - "$WORK/layout" <<'PY'
import json, os, sys
d = sys.argv[1]
seen = set()
for m in json.load(open(os.path.join(d, "index.json")))["manifests"]:
    h = m["digest"].split(":")[1]
    seen.add(h)
    man = json.load(open(os.path.join(d, "blobs/sha256", h)))
    seen.add(man["config"]["digest"].split(":")[1])
    seen.update(l["digest"].split(":")[1] for l in man["layers"])
print(len(seen))
PY
)
stored=$(ls "$WORK/layout/blobs/sha256" | wc -l)
assert_eq "$stored" "$referenced" "blobs in the layout after re-tagging (stored vs referenced)"
# gc on a layout with garbage someone else left removes exactly that.
cp "$WORK/layout/blobs/sha256/$(ls "$WORK/layout/blobs/sha256" | head -1)" "$WORK/layout/blobs/sha256/$(printf 'a%.0s' $(seq 64))"
"$ROCKPACK" gc oci:"$WORK/layout" 2>"$WORK/gc.log" || fail "gc failed: $(cat "$WORK/gc.log")"
assert_contains "$(cat "$WORK/gc.log")" "removed 1 unreferenced blob" "gc reports what it removed"
assert_eq "$(ls "$WORK/layout/blobs/sha256" | wc -l)" "$referenced" "blobs after gc"
skopeo inspect oci:"$WORK/layout:latest" >/dev/null || fail "the layout is intact after gc"
echo "ok"
