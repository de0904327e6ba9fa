#!/usr/bin/env bash
# Push and pull against a real registry (Debian's docker-registry on loopback), checked with skopeo:
# digests survive push -> registry -> pull; a second push sends nothing; several tags and a second
# repository (cross-repository mount); a base pulled from the registry (OCI and Docker schema 2)
# with its layers reused unchanged, its config inherited and the base annotations set.
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/registry.sh"
need skopeo
cd "$WORK"

start_registry anon
digest=$(make_image "$WORK/img:v1" 3 2 "first")

# Push to two tags of one repository: skopeo sees our digest under both.
out=$("$ROCKPACK" push "oci:$WORK/img:v1" "$REG/test/app:v1" "$REG/test/app:v2" 2>&1)
assert_contains "$out" "pushed 4 blobs" "first push uploads config + 3 layers"
assert_eq "$(skopeo_digest "docker://$REG/test/app:v1")" "$digest" "skopeo digest of :v1"
assert_eq "$(skopeo_digest "docker://$REG/test/app:v2")" "$digest" "skopeo digest of :v2"
skopeo copy -q --src-tls-verify=false "docker://$REG/test/app:v1" "oci:$WORK/skopeo-copy:v1"
assert_eq "$(skopeo inspect "oci:$WORK/skopeo-copy:v1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["Digest"])')" \
  "$digest" "skopeo copies what we pushed without changing it"

# Second push: everything is there already.
out=$("$ROCKPACK" push "oci:$WORK/img:v1" "$REG/test/app:v1" 2>&1)
assert_contains "$out" "pushed 0 blobs (0.0 MiB), 4 already there" "second push sends nothing"

# Another repository of the same registry: blobs are mounted, not uploaded.
out=$("$ROCKPACK" push "oci:$WORK/img:v1" "$REG/other/app:v1" 2>&1)
assert_contains "$out" "4 mounted" "cross-repository mount"
assert_eq "$(skopeo_digest "docker://$REG/other/app:v1")" "$digest" "mounted image digest"

# Pull back into an OCI layout: same digest, skopeo reads it, layers identical.
pulled=$("$ROCKPACK" --quiet pull "$REG/test/app:v2" "oci:$WORK/pulled")
assert_eq "$pulled" "$digest" "pull prints the manifest digest"
assert_eq "$(skopeo inspect "oci:$WORK/pulled:v2" | python3 -c 'import json,sys; print(json.load(sys.stdin)["Digest"])')" \
  "$digest" "pulled layout has the pushed digest"
# By digest, too.
"$ROCKPACK" --quiet pull "$REG/test/app@$digest" "oci:$WORK/bydigest:x" >/dev/null
cmp -s "$WORK/bydigest/blobs/sha256/${digest#sha256:}" "$WORK/img/blobs/sha256/${digest#sha256:}" || fail "pull by digest"

# A missing tag: a message naming the tag and repository, exit code 1.
set +e
err=$("$ROCKPACK" pull "$REG/test/app:nope" "oci:$WORK/none" 2>&1); rc=$?
set -e
assert_eq "$rc" "1" "exit code of a failed pull"
assert_contains "$err" "manifest nope of $REG/test/app" "error names what was fetched"
assert_contains "$err" "MANIFEST_UNKNOWN" "error carries the registry's code"
assert_contains "$err" "hint:" "error has a hint"

# A bad reference is an input error (exit 2).
set +e
"$ROCKPACK" push "oci:$WORK/img:v1" "$REG/Test/App:v1" 2>/dev/null; rc=$?
set -e
assert_eq "$rc" "2" "exit code of an invalid reference"

# --- A multi-platform index: children by digest first, then the index by tag ----------------------
mkdir -p "$WORK/multi-src"
for arch in amd64 arm64; do
  printf 'name: multi\nplatform: linux/%s\nfiles:\n  - content: "%s"\n    dest: /arch\ntags: [%s]\n' "$arch" "$arch" "$arch" \
    > "$WORK/multi-src/$arch.yaml"
  "$ROCKPACK" --quiet build "$WORK/multi-src/$arch.yaml" -o "oci:$WORK/multi:$arch" > "$WORK/multi-src/$arch.digest"
done
index_digest=$(python3 - "$WORK/multi" <<'PY'
import hashlib, json, sys
d = sys.argv[1]
idx = json.load(open(f"{d}/index.json"))
children = []
for m in idx["manifests"]:
    cfg_digest = json.load(open(f"{d}/blobs/sha256/{m['digest'][7:]}"))["config"]["digest"]
    cfg = json.load(open(f"{d}/blobs/sha256/{cfg_digest[7:]}"))
    children.append({"mediaType": m["mediaType"], "digest": m["digest"], "size": m["size"],
                     "platform": {"os": cfg["os"], "architecture": cfg["architecture"]}})
body = json.dumps({"schemaVersion": 2, "mediaType": "application/vnd.oci.image.index.v1+json",
                   "manifests": children}).encode()
digest = hashlib.sha256(body).hexdigest()
open(f"{d}/blobs/sha256/{digest}", "wb").write(body)
idx["manifests"].append({"mediaType": "application/vnd.oci.image.index.v1+json", "digest": "sha256:" + digest,
                         "size": len(body), "annotations": {"org.opencontainers.image.ref.name": "multi"}})
json.dump(idx, open(f"{d}/index.json", "w"))
print("sha256:" + digest)
PY
)
pushed_index=$("$ROCKPACK" --quiet push "oci:$WORK/multi:multi" "$REG/test/multi:v1")
assert_eq "$pushed_index" "$index_digest" "push of an index prints its digest"
raw_digest=$(skopeo inspect --raw --tls-verify=false "docker://$REG/test/multi:v1" | sha256sum | cut -d' ' -f1)
assert_eq "sha256:$raw_digest" "$index_digest" "the registry serves our index bytes"
arm=$("$ROCKPACK" --quiet pull --platform linux/arm64 "$REG/test/multi:v1" "oci:$WORK/multi-arm:x")
assert_eq "$arm" "$(cat "$WORK/multi-src/arm64.digest")" "pull picks the arm64 child of the index"
assert_eq "$(skopeo inspect --tls-verify=false --override-arch arm64 "docker://$REG/test/multi:v1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["Architecture"])')" \
  "arm64" "skopeo resolves the index"

# --- Bases from the registry --------------------------------------------------------------------
# skopeo puts a base there (once as OCI, once converted to Docker schema 2).
base_digest=$(make_image "$WORK/base:v1" 2 1 "from-base")
skopeo copy -q --dest-tls-verify=false "oci:$WORK/base:v1" "docker://$REG/lib/base:oci"
skopeo copy -q --dest-tls-verify=false --format v2s2 "oci:$WORK/base:v1" "docker://$REG/lib/base:v2s2"
base_layers=$(python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); print(" ".join(l["digest"] for l in m["layers"]))' \
  "$WORK/base/blobs/sha256/${base_digest#sha256:}")

for flavour in oci v2s2; do
  mkdir -p "$WORK/app-$flavour"
  echo "hello" > "$WORK/app-$flavour/hello.txt"
  cat > "$WORK/app-$flavour/recipe.yaml" <<YAML
name: app
base: $REG/lib/base:$flavour
files:
  - src: hello.txt
    dest: /app/hello.txt
env: {APP: "1"}
labels: {org.example.app: "yes"}
tags: [t1, t2]
YAML
  registry_base_digest=$(skopeo_digest "docker://$REG/lib/base:$flavour")
  app_digest=$("$ROCKPACK" --quiet build "$WORK/app-$flavour/recipe.yaml" --push "$REG/test/app-$flavour" \
    -o "oci:$WORK/app-$flavour-out" --metadata-file "$WORK/app-$flavour/meta.json" | tail -n 1)
  # Every recipe tag was pushed, and skopeo agrees on the digest.
  assert_eq "$(skopeo_digest "docker://$REG/test/app-$flavour:t1")" "$app_digest" "$flavour: pushed :t1"
  assert_eq "$(skopeo_digest "docker://$REG/test/app-$flavour:t2")" "$app_digest" "$flavour: pushed :t2"
  # Base layers unchanged and first; config inherited with the recipe on top; base annotations.
  skopeo inspect --raw --tls-verify=false "docker://$REG/test/app-$flavour:t1" > "$WORK/m.json"
  skopeo inspect --config --tls-verify=false "docker://$REG/test/app-$flavour:t1" > "$WORK/c.json"
  python3 - "$WORK/m.json" "$WORK/c.json" "$base_layers" "$REG/lib/base:$flavour" "$registry_base_digest" <<'PY' || fail "$flavour: base not inherited"
import json, sys
m, c = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
base_layers, base_name, base_digest = sys.argv[3].split(), sys.argv[4], sys.argv[5]
layers = [l["digest"] for l in m["layers"]]
assert layers[:len(base_layers)] == base_layers, (layers, base_layers)
assert len(layers) == len(base_layers) + 1
assert len(c["rootfs"]["diff_ids"]) == len(layers)
env = c["config"]["Env"]
assert "LABELLED=from-base" in env and "APP=1" in env, env
assert c["config"]["Cmd"] == ["/bin/sh"], c["config"]
labels = c["config"]["Labels"]
assert labels["org.example.test"] == "from-base" and labels["org.example.app"] == "yes", labels
assert len([h for h in c["history"] if not h.get("empty_layer")]) == len(layers)
a = m["annotations"]
assert a["org.opencontainers.image.base.name"] == base_name, a
assert a["org.opencontainers.image.base.digest"] == base_digest, a
PY
  meta_base=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["base"]["digest"])' "$WORK/app-$flavour/meta.json")
  assert_eq "$meta_base" "$registry_base_digest" "$flavour: build output records the base by digest"
  # The local layout built in the same run has the same digest as the pushed image.
  assert_eq "$(skopeo inspect "oci:$WORK/app-$flavour-out:t1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["Digest"])')" \
    "$app_digest" "$flavour: local output equals pushed image"
done

# A Docker schema 2 image pulled into an OCI layout gets an OCI manifest (as skopeo copy does); its
# config and layers stay the same.
v2s2=$("$ROCKPACK" --quiet pull "$REG/lib/base:v2s2" "oci:$WORK/v2s2-pulled")
assert_eq "$(skopeo inspect "oci:$WORK/v2s2-pulled:v2s2" | python3 -c 'import json,sys; print(json.load(sys.stdin)["Digest"])')" \
  "$v2s2" "skopeo reads the pulled schema 2 image from the layout"
config_of() { skopeo inspect --raw "$@" | python3 -c 'import json,sys; print(json.load(sys.stdin)["config"]["digest"])'; }
assert_eq "$(config_of "oci:$WORK/v2s2-pulled:v2s2")" "$(config_of --tls-verify=false "docker://$REG/lib/base:v2s2")" \
  "schema 2 pull keeps the config"
assert_eq "$("$ROCKPACK" --quiet push "oci:$WORK/v2s2-pulled:v2s2" "$REG/copy/base:v2s2")" "$v2s2" "converted image pushed back"

# A base from an OCI layout on disk works the same way.
cat > "$WORK/app-oci/recipe-local.yaml" <<YAML
name: app
base: oci:$WORK/base:v1
files:
  - src: hello.txt
    dest: /app/hello.txt
YAML
"$ROCKPACK" --quiet build "$WORK/app-oci/recipe-local.yaml" -o "oci:$WORK/local-base-out:x" >/dev/null
n=$(skopeo inspect "oci:$WORK/local-base-out:x" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["Layers"]))')
assert_eq "$n" "3" "layers of an image built on an oci: base"
# And from a docker archive (written by skopeo): no manifest there, so base.name only.
skopeo copy -q "oci:$WORK/base:v1" "docker-archive:$WORK/base.tar:example.test/base:v1"
sed "s|base: oci:.*|base: docker-archive:$WORK/base.tar|" "$WORK/app-oci/recipe-local.yaml" > "$WORK/app-oci/recipe-archive.yaml"
"$ROCKPACK" --quiet build "$WORK/app-oci/recipe-archive.yaml" -o "oci:$WORK/archive-base-out:x" >/dev/null
skopeo inspect --raw "oci:$WORK/archive-base-out:x" > "$WORK/am.json"
python3 - "$WORK/am.json" "$WORK/base.tar" <<'PY' || fail "image built on a docker-archive base"
import json, sys
m = json.load(open(sys.argv[1]))
assert len(m["layers"]) == 3, m
assert m["annotations"]["org.opencontainers.image.base.name"] == "docker-archive:" + sys.argv[2], m["annotations"]
assert "org.opencontainers.image.base.digest" not in m["annotations"]
PY
echo "ok"
