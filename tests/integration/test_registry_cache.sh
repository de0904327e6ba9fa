#!/usr/bin/env bash
# The registry layer cache (build --cache-to / --cache-from), against Debian's docker-registry on
# loopback behind a counting proxy (tests/tools/fault_proxy.py --log-requests --max-faults 0):
#  - build + push image A with --cache-to: the cache is an OCI artifact (skopeo reads it) whose
#    config lists every layer by content key and whose layers are the image's layer blobs;
#  - an EMPTY store with --cache-from and --push to the same registry: the same digest, no layer
#    built or compressed (the build.layers event), every layer mounted (build.push event, and the
#    proxy saw a mount POST for each, no layer GET and only the config's upload);
#  - an empty store with --cache-from and an oci: output: the layers are downloaded instead of built,
#    same digest, skopeo and umoci read the layout;
#  - one input changed: only its layer is built and uploaded;
#  - --cache-from a missing tag, a corrupt cache config, an image instead of a cache: a warning and a
#    normal build with the right digest; a listed layer whose blob the cache repository lost is
#    skipped (built), with a warning.
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/registry.sh"
need skopeo; need umoci
cd "$WORK"
export SOURCE_DATE_EPOCH=1700000000

start_registry reg
start_fault_proxy "$REG" --max-faults 0 --log-requests
R=$PROXY
REQS="$WORK/faults.log"

# A recipe with three layers of host files (random, so compression has work to do).
mkdir -p src/l1 src/l2 src/l3
head -c $((3 * 1024 * 1024)) /dev/urandom > src/l1/one.bin
head -c $((2 * 1024 * 1024)) /dev/urandom > src/l2/two.bin
echo "three" > src/l3/three.txt
cat > src/recipe.yaml <<'YAML'
name: cached
files:
  - {src: l1, dest: /data/l1, layer: one}
  - {src: l2, dest: /data/l2, layer: two}
  - {src: l3, dest: /data/l3, layer: three}
env: {PATH: /bin}
tags: [v1]
YAML

# event FILE NAME KEY: the value of KEY in the last --log-format json event NAME of FILE.
event() {
  python3 - "$@" <<'PY'
import json, sys
path, name, key = sys.argv[1:4]
value = None
for line in open(path):
    try:
        j = json.loads(line)
    except ValueError:
        continue
    if j.get("event") == name:
        value = j.get(key)
print(value)
PY
}
# requests PATTERN: how many proxied requests (since the last reset) match the extended regex.
requests() { grep -cE "^pass $1" "$REQS" || true; }
reset_requests() { : > "$REQS"; }
layer_digests() {  # the layer digests of a registry image
  skopeo inspect --raw --tls-verify=false "docker://$1" | python3 -c 'import json,sys; print(" ".join(l["digest"] for l in json.load(sys.stdin)["layers"]))'
}
build() {  # LOG ARGS...: a build with JSON logs into LOG; prints the digest
  local log=$1
  shift
  "$ROCKPACK" --log-format json build src/recipe.yaml "$@" 2>"$log" | tail -n 1 || fail "build $* failed: $(cat "$log")"
}

# --- 1. image A, and its cache -----------------------------------------------------------------
A=$(build a.log --cache-dir store-a --push "$R/test/app" --cache-to "$R/test/cache:buildcache")
assert_eq "$(skopeo_digest "docker://$R/test/app:v1")" "$A" "skopeo sees image A"
assert_eq "$(event a.log build.layers built)" "3" "A: every layer built"
A_LAYERS=$(layer_digests "$R/test/app:v1")
skopeo inspect --raw --tls-verify=false "docker://$R/test/cache:buildcache" > cache-manifest.json
python3 - cache-manifest.json "$A_LAYERS" <<'PY' || fail "the cache manifest is not the expected artifact"
import json, sys
m = json.load(open(sys.argv[1]))
assert m["mediaType"] == "application/vnd.oci.image.manifest.v1+json", m
assert m["artifactType"] == "application/vnd.rockpack.layer-cache.v1+json", m
assert m["config"]["mediaType"] == "application/vnd.rockpack.layer-cache.config.v1+json", m
assert sorted(l["digest"] for l in m["layers"]) == sorted(sys.argv[2].split()), m
PY
CONFIG_DIGEST=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["config"]["digest"])' cache-manifest.json)
curl -fsS "http://$REG/v2/test/cache/blobs/$CONFIG_DIGEST" > cache-config.json
python3 - cache-config.json "$A_LAYERS" <<'PY' || fail "the cache config does not list A's layers"
import json, sys
c = json.load(open(sys.argv[1]))
assert c["rockpack_layer_cache"] == 1, c
assert sorted(l["digest"] for l in c["layers"]) == sorted(sys.argv[2].split()), c
for l in c["layers"]:
    assert l["key"].startswith("sha256:") and l["diff_id"].startswith("sha256:") and l["size"] > 0, l
PY
echo "ok: --cache-to pushed the cache artifact"

# --- 2. an empty store, --cache-from, --push to the same registry: mounted, nothing built -------
reset_requests
B=$(build b.log --cache-dir store-b --cache-from "$R/test/cache:buildcache" --push "$R/test/app2")
assert_eq "$B" "$A" "same digest from the registry cache"
assert_eq "$(skopeo_digest "docker://$R/test/app2:v1")" "$A" "skopeo sees the same image in test/app2"
assert_eq "$(event b.log build.layers built)" "0" "no layer built"
assert_eq "$(event b.log build.layers bytes_compressed)" "0" "no byte compressed"
assert_eq "$(event b.log build.layers from_registry_cache)" "3" "three layers from the registry cache"
assert_eq "$(event b.log build.layers registry_cache_downloaded)" "0" "no layer downloaded"
assert_eq "$(event b.log build.push blobs_mounted)" "3" "the three layers mounted"
assert_eq "$(event b.log build.push blobs_uploaded)" "1" "only the config uploaded"
for d in $A_LAYERS; do
  assert_eq "$(requests "POST /v2/test/app2/blobs/uploads/\?mount=sha256(:|%3A)${d#sha256:}&from=test(/|%2F)cache")" "1" \
    "a mount request for $d"
  assert_eq "$(requests "GET .*/blobs/$d")" "0" "layer $d not downloaded"
  [ ! -e "store-b/blobs/sha256/${d#sha256:}" ] || fail "layer $d was written into the empty store"
done
assert_eq "$(requests "PUT /v2/test/app2/blobs/")" "1" "one blob PUT: the config"
assert_eq "$(requests "PATCH ")" "0" "no chunked upload"
echo "ok: --cache-from + --push mounts every layer, builds and downloads none"

# --- 3. an empty store, --cache-from, an oci: output: downloaded instead of built ------------------
reset_requests
C=$(build c.log --cache-dir store-c --cache-from "$R/test/cache:buildcache" -o "oci:$WORK/out-c:v1")
assert_eq "$C" "$A" "same digest into an OCI layout"
assert_eq "$(event c.log build.layers built)" "0" "c: no layer built"
assert_eq "$(event c.log build.layers registry_cache_downloaded)" "3" "c: three layers downloaded"
for d in $A_LAYERS; do
  assert_eq "$(requests "GET /v2/test/cache/blobs/$d")" "1" "c: layer $d downloaded once"
done
assert_eq "$(skopeo inspect "oci:$WORK/out-c:v1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["Digest"])')" "$A" \
  "skopeo reads the layout"
umoci unpack --image "$WORK/out-c:v1" "$WORK/bundle-c" >/dev/null 2>&1 || fail "umoci cannot unpack the layout"
cmp -s "$WORK/bundle-c/rootfs/data/l1/one.bin" src/l1/one.bin || fail "c: /data/l1/one.bin differs"
# The store keeps what it downloaded: a second build with it needs no cache.
C2=$(build c2.log --cache-dir store-c -o "oci:$WORK/out-c2:v1")
assert_eq "$C2" "$A" "c: warm store, same digest"
assert_eq "$(event c2.log build.layers from_store)" "3" "c: the downloaded layers are in the store"
echo "ok: --cache-from with a local output downloads the layers"

# --- 4. one input changed: only its layer is built -------------------------------------------------
head -c $((2 * 1024 * 1024)) /dev/urandom > src/l2/two.bin
reset_requests
D=$(build d.log --cache-dir store-d --cache-from "$R/test/cache:buildcache" --push "$R/test/app3" \
  --cache-to "$R/test/cache:buildcache")
assert_ne "$D" "$A" "a changed input changes the image"
assert_eq "$(skopeo_digest "docker://$R/test/app3:v1")" "$D" "skopeo sees D"
assert_eq "$(event d.log build.layers built)" "1" "d: only the changed layer built"
assert_eq "$(event d.log build.layers from_registry_cache)" "2" "d: two layers from the cache"
assert_eq "$(event d.log build.push blobs_uploaded)" "2" "d: the new layer and the config uploaded"
assert_eq "$(event d.log build.push blobs_mounted)" "2" "d: the two unchanged layers mounted"
# The cache now lists D's layers, the new one included.
D_LAYERS=$(layer_digests "$R/test/app3:v1")
assert_eq "$(layer_digests "$R/test/cache:buildcache" | tr ' ' '\n' | sort | tr '\n' ' ')" \
  "$(tr ' ' '\n' <<<"$D_LAYERS" | sort | tr '\n' ' ')" "d: --cache-to replaced the cache with D's layers"
echo "ok: one changed input, one layer built"

# --- 5. a missing cache, a corrupt one, an image instead of a cache: warnings, normal builds -----
E=$(build e.log --cache-dir store-e --cache-from "$R/test/nocache:none" -o "oci:$WORK/out-e:v1")
assert_eq "$E" "$D" "e: a missing cache, a normal build, the same digest"
assert_contains "$(cat e.log)" "cannot be used, building without it" "e: the warning"
grep -qE "MANIFEST_UNKNOWN|NAME_UNKNOWN" e.log || fail "e: the warning does not say why: $(cat e.log)"
assert_eq "$(event e.log build.layers built)" "3" "e: every layer built"

# A cache manifest whose config is not JSON (pushed with curl, as a broken writer would).
python3 - "http://$REG" <<'PY' || fail "cannot push the corrupt cache"
import hashlib, json, sys, urllib.request
base = sys.argv[1]
def put_blob(repo, data):
    digest = "sha256:" + hashlib.sha256(data).hexdigest()
    r = urllib.request.urlopen(urllib.request.Request(f"{base}/v2/{repo}/blobs/uploads/", method="POST"))
    loc = r.headers["Location"]
    loc = loc if loc.startswith("http") else base + loc
    sep = "&" if "?" in loc else "?"
    urllib.request.urlopen(urllib.request.Request(f"{loc}{sep}digest={digest}", data=data, method="PUT",
                                                  headers={"Content-Type": "application/octet-stream"}))
    return digest
config = b"{this is not json"
manifest = json.dumps({"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
                       "artifactType": "application/vnd.rockpack.layer-cache.v1+json",
                       "config": {"mediaType": "application/vnd.rockpack.layer-cache.config.v1+json",
                                  "digest": put_blob("test/broken", config), "size": len(config)},
                       "layers": []}).encode()
urllib.request.urlopen(urllib.request.Request(f"{base}/v2/test/broken/manifests/buildcache", data=manifest, method="PUT",
                                              headers={"Content-Type": "application/vnd.oci.image.manifest.v1+json"}))
PY
F=$(build f.log --cache-dir store-f --cache-from "$R/test/broken:buildcache" --push "$R/test/app4")
assert_eq "$F" "$D" "f: a corrupt cache, a normal build, the same digest"
assert_contains "$(cat f.log)" "cannot be used, building without it" "f: the warning"
assert_contains "$(cat f.log)" "config is not a JSON object" "f: the warning says what is wrong"
assert_eq "$(event f.log build.layers built)" "3" "f: every layer built"

G=$(build g.log --cache-dir store-g --cache-from "$R/test/app:v1" -o "oci:$WORK/out-g:v1")
assert_eq "$G" "$D" "g: an image as cache, a normal build"
assert_contains "$(cat g.log)" "not a rockpack layer cache" "g: the warning names the problem"

# A listed layer whose blob the cache repository lost (deleted from test/cache only): skipped, built.
LOST=$(python3 -c 'import json,sys; c=json.load(open(sys.argv[1])); print(c["layers"][0]["digest"])' \
  <(curl -fsS "http://$REG/v2/test/cache/blobs/$(skopeo inspect --raw --tls-verify=false "docker://$R/test/cache:buildcache" \
      | python3 -c 'import json,sys; print(json.load(sys.stdin)["config"]["digest"])')"))
curl -fsS -X DELETE "http://$REG/v2/test/cache/blobs/$LOST" -o /dev/null || fail "cannot delete $LOST from test/cache"
H=$(build h.log --cache-dir store-h --cache-from "$R/test/cache:buildcache" --push "$R/test/app5")
assert_eq "$H" "$D" "h: a lost blob, the same digest"
assert_eq "$(event h.log build.layers built)" "1" "h: the lost layer built"
assert_eq "$(event h.log build.layers registry_cache_skipped)" "1" "h: one entry skipped"
assert_contains "$(cat h.log)" "building the layer instead" "h: the warning"
echo "ok: missing, corrupt and wrong caches are warnings"
