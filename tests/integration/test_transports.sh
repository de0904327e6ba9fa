#!/usr/bin/env bash
# Transports and registry commands a skopeo/podman user reaches for (issue 14), against Debian's
# docker-registry on loopback, checked with skopeo:
#  - pull into oci:, oci-archive: and docker-archive:; push from each, keeping the digest where the
#    source has a manifest; push to a local destination copies;
#  - inspect of a registry reference without its layers: text, --json, --raw, the platforms of an index;
#  - pull --platform of a single-platform image of another platform fails and names the one it has;
#  - build --platform overrides the recipe's, and a base without that platform is a clear error;
#  - a host that does not resolve is not told to use --insecure-registry;
#  - login (no echo prompt is not testable here; --password-stdin) and logout.
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/registry.sh"
need skopeo
cd "$WORK"
export DOCKER_CONFIG="$WORK/docker-config"

start_registry anon
digest=$(make_image "$WORK/img:v1" 2 1 "transports")
"$ROCKPACK" --quiet push "oci:$WORK/img:v1" "$REG/t/app:v1" >/dev/null

# pull into each local transport: skopeo reads each, the layouts keep the registry's digest.
for dest in "oci:$WORK/p-oci" "oci-archive:$WORK/p.oci.tar" "docker-archive:$WORK/p.docker.tar"; do
  got=$("$ROCKPACK" --quiet pull "$REG/t/app:v1" "$dest") || fail "pull into $dest failed"
  assert_eq "$got" "$digest" "pull into $dest prints the digest"
done
assert_eq "$(skopeo inspect "oci:$WORK/p-oci:v1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["Digest"])')" "$digest" "oci: pull"
assert_eq "$(skopeo inspect "oci-archive:$WORK/p.oci.tar:v1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["Digest"])')" "$digest" "oci-archive: pull"
assert_contains "$(skopeo inspect "docker-archive:$WORK/p.docker.tar:$REG/t/app:v1")" '"LABELLED=transports"' "docker-archive: pull is named after the reference"

# push from an oci-archive keeps the digest; from a docker archive the image arrives (new manifest).
got=$("$ROCKPACK" --quiet push "oci-archive:$WORK/p.oci.tar:v1" "$REG/t/from-archive:v1")
assert_eq "$got" "$digest" "push from oci-archive keeps the digest"
assert_eq "$(skopeo_digest "docker://$REG/t/from-archive:v1")" "$digest" "skopeo sees it"
"$ROCKPACK" --quiet push "docker-archive:$WORK/p.docker.tar" "$REG/t/from-docker:v1" >/dev/null
assert_contains "$(skopeo inspect --tls-verify=false "docker://$REG/t/from-docker:v1")" '"LABELLED=transports"' "push from docker-archive"
# push to a local destination copies: oci -> oci-archive, same digest.
got=$("$ROCKPACK" --quiet push "oci:$WORK/img:v1" "oci-archive:$WORK/copy.tar:c1")
assert_eq "$got" "$digest" "local copy prints the digest"
assert_eq "$(skopeo inspect "oci-archive:$WORK/copy.tar:c1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["Digest"])')" "$digest" "local copy keeps the digest"

# inspect a registry image without pulling its layers.
text=$("$ROCKPACK" inspect --cache-dir "$WORK/inspect-cache" "$REG/t/app:v1")
assert_contains "$text" "Digest:       $digest" "inspect of a registry reference"
assert_contains "$text" "LABELLED=transports" "its config"
assert_contains "$text" "in 2 layers" "its layers are listed"
[ "$(find "$WORK/inspect-cache" -type f -size +512k | wc -l)" -eq 0 ] || fail "inspect fetched layer blobs"
raw=$("$ROCKPACK" inspect --raw "docker://$REG/t/app:v1")
assert_eq "$(printf '%s' "$raw" | sha256sum | cut -d' ' -f1)" "${digest#sha256:}" "--raw prints the manifest bytes"

# An index of two platforms (amd64 + arm64 of one image), pushed from a layout.
amd=$(make_image "$WORK/multi:amd" 1 1 "amd")
python3 - "$WORK/multi" "$amd" <<'PY'
import hashlib, json, os, sys
d, amd = sys.argv[1], sys.argv[2]
blob = lambda h: os.path.join(d, "blobs/sha256", h)
man = json.load(open(blob(amd.split(":")[1])))
cfg = json.load(open(blob(man["config"]["digest"].split(":")[1])))
cfg["architecture"] = "arm64"
def put(b):
    h = hashlib.sha256(b).hexdigest()
    open(blob(h), "wb").write(b)
    return "sha256:" + h, len(b)
cd, cs = put(json.dumps(cfg, separators=(",", ":")).encode())
man["config"]["digest"], man["config"]["size"] = cd, cs
md, ms = put(json.dumps(man, separators=(",", ":")).encode())
amd_size = os.path.getsize(blob(amd.split(":")[1]))
index = {"schemaVersion": 2, "mediaType": "application/vnd.oci.image.index.v1+json", "manifests": [
    {"mediaType": "application/vnd.oci.image.manifest.v1+json", "digest": amd, "size": amd_size,
     "platform": {"os": "linux", "architecture": "amd64"}},
    {"mediaType": "application/vnd.oci.image.manifest.v1+json", "digest": md, "size": ms,
     "platform": {"os": "linux", "architecture": "arm64"}}]}
xd, xs = put(json.dumps(index, separators=(",", ":")).encode())
top = json.load(open(os.path.join(d, "index.json")))
top["manifests"].append({"mediaType": "application/vnd.oci.image.index.v1+json", "digest": xd, "size": xs,
                         "annotations": {"org.opencontainers.image.ref.name": "multi"}})
json.dump(top, open(os.path.join(d, "index.json"), "w"))
PY
"$ROCKPACK" --quiet push "oci:$WORK/multi:multi" "$REG/t/multi:v1" >/dev/null
text=$("$ROCKPACK" inspect "$REG/t/multi:v1")
assert_contains "$text" "linux/amd64" "the index's platforms are listed"
assert_contains "$text" "linux/arm64" "the index's platforms are listed"
assert_contains "$text" "Digest:       $amd" "the amd64 image is shown by default"
json=$("$ROCKPACK" inspect --json --platform linux/arm64 "$REG/t/multi:v1")
assert_eq "$(python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["architecture"], len(d["platforms"]))' <<<"$json")" "arm64 2" "inspect --platform"
assert_contains "$("$ROCKPACK" inspect --raw "$REG/t/multi:v1")" "application/vnd.oci.image.index.v1+json" "--raw shows the index"

# pull --platform of a single-platform image of another platform fails and says what it has.
rc=0
out=$("$ROCKPACK" pull --platform linux/arm64 "$REG/t/app:v1" "oci:$WORK/arm" 2>&1) || rc=$?
assert_ne "$rc" 0 "pull of a missing platform must fail"
assert_contains "$out" "has no image for linux/arm64 (it has: linux/amd64)" "the platforms are listed"
[ ! -e "$WORK/arm" ] || fail "nothing may be written for a missing platform"

# build --platform: overrides the recipe's; a base without it is a clear error.
mkdir -p "$WORK/plat"
printf 'name: plat\nfiles:\n  - content: x\n    dest: /x\ntags: [v1]\n' >"$WORK/plat/scratch.yaml"
"$ROCKPACK" --quiet build --platform linux/arm64 "$WORK/plat/scratch.yaml" -o "oci:$WORK/plat/out" >/dev/null
assert_eq "$(skopeo inspect --config "oci:$WORK/plat/out:v1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["architecture"])')" "arm64" "build --platform"
printf 'name: plat\nbase: %s/t/app:v1\nfiles:\n  - content: x\n    dest: /x\n' "$REG" >"$WORK/plat/on-base.yaml"
rc=0
out=$("$ROCKPACK" build --platform linux/arm64 "$WORK/plat/on-base.yaml" -o "oci:$WORK/plat/out2" 2>&1) || rc=$?
assert_ne "$rc" 0 "a base without the platform must fail"
assert_contains "$out" "has no image for linux/arm64 (it has: linux/amd64)" "build --platform names the base's platforms"
printf 'name: plat\nbase: %s/t/multi:v1\nfiles:\n  - content: x\n    dest: /x\ntags: [v1]\n' "$REG" >"$WORK/plat/on-multi.yaml"
"$ROCKPACK" --quiet build --platform linux/arm64 "$WORK/plat/on-multi.yaml" -o "oci:$WORK/plat/multi-out" >/dev/null \
  || fail "build --platform linux/arm64 on a multi-platform base"
assert_eq "$(skopeo inspect --config "oci:$WORK/plat/multi-out:v1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["architecture"])')" "arm64" "the arm64 base was used"

# A host that does not resolve: the hint is about the name, not --insecure-registry.
rc=0
out=$("$ROCKPACK" inspect "no-such-host.invalid/x:1" 2>&1) || rc=$?
assert_eq "$rc" 1 "exit code of an unreachable registry"
assert_contains "$out" "does not resolve" "DNS failure named"
if grep -q -- "--insecure-registry" <<<"$out"; then fail "a DNS failure must not suggest --insecure-registry: $out"; fi

# login stores, logout removes (docker's config.json).
start_registry auth "$(htpasswd_auth alice s3cret)"
echo s3cret | "$ROCKPACK" --quiet login "$REG" -u alice --password-stdin || fail "login failed"
assert_contains "$(cat "$DOCKER_CONFIG/config.json")" "\"$REG\"" "login stored the credentials"
"$ROCKPACK" logout "$REG" 2>"$WORK/logout.log" || fail "logout failed"
assert_contains "$(cat "$WORK/logout.log")" "removed the credentials for $REG" "logout says what it did"
if grep -q "\"$REG\"" "$DOCKER_CONFIG/config.json"; then fail "logout left the credentials"; fi
assert_contains "$("$ROCKPACK" logout "$REG" 2>&1)" "not logged in to $REG" "a second logout"
# On a terminal (a tmux pane), login prompts for the password and does not echo it.
if command -v tmux >/dev/null; then
  session="rockpack-login-$$"
  tmux new-session -d -s "$session" -x 120 -y 10 \
    "DOCKER_CONFIG='$DOCKER_CONFIG' '$ROCKPACK' login '$REG' -u alice; echo \$? >'$WORK/login.rc'; sleep 60"
  for _ in $(seq 1 100); do tmux capture-pane -p -t "$session" | grep -q "Password:" && break; sleep 0.1; done
  tmux send-keys -t "$session" "s3cret" Enter
  for _ in $(seq 1 100); do [ -s "$WORK/login.rc" ] && break; sleep 0.1; done
  pane=$(tmux capture-pane -p -t "$session")
  tmux kill-session -t "$session"
  assert_eq "$(cat "$WORK/login.rc" 2>/dev/null)" "0" "login at a terminal prompt: $pane"
  if grep -q s3cret <<<"$pane"; then fail "the password was echoed: $pane"; fi
  assert_contains "$(cat "$DOCKER_CONFIG/config.json")" "\"$REG\"" "the prompted login stored the credentials"
  "$ROCKPACK" --quiet logout "$REG"
fi
rc=0
out=$("$ROCKPACK" login "$REG" -u alice </dev/null 2>&1) || rc=$?
assert_eq "$rc" 2 "login without a terminal or --password-stdin"
assert_contains "$out" "--password-stdin" "the hint names --password-stdin"
echo "ok"
