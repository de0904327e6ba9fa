#!/usr/bin/env bash
# The quickstart image, checked by clients nobody here wrote: umoci unpacks it and busybox runs in a
# chroot of the rootfs; skopeo reads the OCI layout and the docker archive; oci-image-tool validates.
source "$(dirname "$0")/lib/common.sh"
need umoci; need skopeo; need oci-image-tool; need file
BUSYBOX=$(static_busybox)
[ "$(id -u)" -eq 0 ] || skip "chroot needs root"

cd "$WORK"
export SOURCE_DATE_EPOCH=1700000000
digest=$(build_digest "$ROCKPACK_SOURCE_DIR/examples/quickstart/recipe.yaml" --set BUSYBOX="$BUSYBOX" \
  -o oci:"$WORK/oci:v1" -o docker-archive:"$WORK/image.tar:example.test/quickstart:v1")
[[ "$digest" == sha256:* ]] || fail "build did not print a digest: $digest"

# umoci + chroot: the shell, the files, the modes and the links are all there.
umoci unpack --image "$WORK/oci:v1" "$WORK/bundle" >/dev/null
rootfs="$WORK/bundle/rootfs"
out=$(chroot "$rootfs" /bin/sh -c 'cat /etc/motd; id -u; stat -c "%a %U" /bin/busybox; ls /bin')
assert_contains "$out" "Hello from rockpack! Built from examples/quickstart (SOURCE_DATE_EPOCH=1700000000)." "motd"
assert_contains "$out" "755 root" "busybox mode and owner"
assert_contains "$out" "sh" "applet links"
assert_eq "$(readlink "$rootfs/bin/sh")" "busybox" "symlink target"
assert_contains "$(cat "$rootfs/etc/os-release")" "rockpack quickstart" "directory tree copied"
# umoci's runtime config carries our Env/Entrypoint/Cmd.
config=$(cat "$WORK/bundle/config.json")
assert_contains "$config" '"PATH=/bin"' "runtime env"
assert_contains "$config" '"cat /etc/motd"' "runtime args"

# skopeo reads both outputs.
oci_json=$(skopeo inspect oci:"$WORK/oci:v1")
assert_contains "$oci_json" "\"Digest\": \"$digest\"" "skopeo sees our manifest digest"
assert_contains "$oci_json" '"Created": "2023-11-14T22:13:20Z"' "created from SOURCE_DATE_EPOCH"
assert_contains "$oci_json" "org.opencontainers.image.description" "labels"
archive_json=$(skopeo inspect docker-archive:"$WORK/image.tar")
assert_contains "$archive_json" '"Architecture": "amd64"' "skopeo reads the docker archive"
# Selecting the image by its RepoTag works only if manifest.json names it.
skopeo inspect docker-archive:"$WORK/image.tar:example.test/quickstart:v1" >/dev/null \
  || fail "skopeo cannot find example.test/quickstart:v1 in the archive's RepoTags"
# skopeo can copy the archive to another OCI layout: the layers decompress to the same diff_ids.
skopeo copy -q docker-archive:"$WORK/image.tar" oci:"$WORK/copied:v1"
ours=$(skopeo inspect --config oci:"$WORK/oci:v1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["rootfs"]["diff_ids"])')
theirs=$(skopeo inspect --config oci:"$WORK/copied:v1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["rootfs"]["diff_ids"])')
assert_eq "$theirs" "$ours" "diff_ids after skopeo copy"

# oci-image-tool validates the layout, the manifest and the config against the spec's schemas.
oci-image-tool validate --type image --ref name=v1 "$WORK/oci" >/dev/null || fail "oci-image-tool rejected the layout"

# rockpack inspect reads both, as text and JSON.
text=$("$ROCKPACK" inspect oci:"$WORK/oci:v1")
assert_contains "$text" "Digest:       $digest" "inspect text"
assert_contains "$text" "rockpack busybox:" "history per layer"
json=$("$ROCKPACK" inspect --json docker-archive:"$WORK/image.tar")
assert_eq "$(python3 -c 'import json,sys; d=json.load(sys.stdin); print(len(d["layers"]))' <<<"$json")" "2" "layer count"
echo "ok"
