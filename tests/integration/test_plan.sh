#!/usr/bin/env bash
# `rockpack plan` (and `build --dry-run`) resolve every step without writing an image:
#  - the quickstart: its files layers with entry counts; after a build, the same plan shows the
#    digests the build made (the layers are in the store);
#  - examples/therock/mock.yaml (the body of every recipes/therock-*.yaml) against a small mock
#    TheRock index, for the GPU target of every shipped recipe: base digest, every layer with its
#    step, and every package with version, URL and sha256 — the sha256 a build then downloads;
#    no layer is built (the resolver reads wheel metadata: PEP 658 files, range requests, or the
#    whole wheel into the store when an index offers neither, as this mock does);
#  - the same recipe on a registry base (loopback docker-registry): the base's manifest digest.
source "$(dirname "$0")/lib/common.sh"
source "$ROCKPACK_SOURCE_DIR/tests/integration/lib/python_fixtures.sh"
source "$ROCKPACK_SOURCE_DIR/tests/integration/lib/rocm_fixtures.sh"
need file; need skopeo
export SOURCE_DATE_EPOCH=1700000000
json() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

# --- the quickstart ---------------------------------------------------------------------------------
BUSYBOX=$(static_busybox)
QUICK="$ROCKPACK_SOURCE_DIR/examples/quickstart/recipe.yaml"
cd "$WORK"
out=$("$ROCKPACK" plan "$QUICK" --set BUSYBOX="$BUSYBOX" --cache-dir "$WORK/c") || fail "plan of the quickstart failed: $out"
assert_contains "$out" "image quickstart" "the plan names the image"
assert_contains "$out" "busybox" "the plan lists the busybox layer"
[ ! -e "$WORK/out" ] || fail "plan wrote an output"
"$ROCKPACK" plan "$QUICK" --set BUSYBOX="$BUSYBOX" --cache-dir "$WORK/c" --json >"$WORK/q.json"
assert_eq "$(json "$WORK/q.json" '[l["step"] for l in d["layers"]]')" "['files', 'files']" "quickstart layer steps"
assert_eq "$(json "$WORK/q.json" '"digest" in d["layers"][0]')" "False" "no digest before a build"
"$ROCKPACK" --quiet build "$QUICK" --set BUSYBOX="$BUSYBOX" --cache-dir "$WORK/c" -o "oci:$WORK/q:latest" >/dev/null
"$ROCKPACK" build --dry-run --json "$QUICK" --set BUSYBOX="$BUSYBOX" --cache-dir "$WORK/c" >"$WORK/q2.json"
built=$(skopeo inspect --config "oci:$WORK/q:latest" | python3 -c 'import json,sys; print(json.load(sys.stdin)["rootfs"]["diff_ids"])')
assert_eq "$(json "$WORK/q2.json" '[l["diff_id"] for l in d["layers"]]')" "$built" "plan after a build: the built layers' diff_ids"

# --- the TheRock body against a mock index, for every shipped recipe's target -------------------------
[ "$(id -u)" -eq 0 ] || skip "the Debian fixture needs root"
python_base
debian_python_standalone_archive "$WORK/python.tar.gz" || fail "no standalone archive"
FAMILIES=()
for recipe in "$ROCKPACK_SOURCE_DIR"/recipes/*.yaml; do
  grep -q 'therock-pytorch-ci' "$recipe" || continue  # the TheRock recipes (not pytorch-rocm-apt-ci.yaml)
  arch=$(sed -n 's/^  PYTORCH_ROCM_ARCH: *//p' "$recipe" | sed 's/ *#.*//; s/"//g' | head -n 1)
  [ -n "$arch" ] || fail "no PYTORCH_ROCM_ARCH in $recipe"
  echo "$(basename "$recipe" .yaml) $arch" >>"$WORK/targets.txt"
done
# The families of those targets (rockpack validate names them in its error for a bad index; the
# table is in tests/tools/make_therock_index.py, which knows them).
for f in gfx94X-dcgpu gfx950-dcgpu gfx110X-all gfx1151 gfx120X-all; do FAMILIES+=(--family "$f"); done
therock_index "$WORK/idx" "${FAMILIES[@]}" --versions "$V1,$V2"
start_static idx "$WORK/idx"
MOCK="$ROCKPACK_SOURCE_DIR/examples/therock/mock.yaml"
mock_args=(--set "PYTHON_STANDALONE_URL=file://$WORK/python.tar.gz"
           --set "PYTHON_STANDALONE_SHA256=$(sha256_of "$WORK/python.tar.gz")"
           --set "THEROCK_NIGHTLY_INDEX_URL=$(static_url idx)/{family}/" --cache-dir "$WORK/c")
while read -r name arch; do
  reset_static idx
  "$ROCKPACK" plan "$MOCK" "${mock_args[@]}" --set "BASE_IMAGE=oci:$BASE:base" --set "PYTORCH_ROCM_ARCH=$arch" --json \
    >"$WORK/$name.json" 2>"$WORK/$name.log" || fail "plan of the mock recipe for $name ($arch) failed: $(cat "$WORK/$name.log")"
  # Nothing built: no planned layer is in the store.
  assert_eq "$(json "$WORK/$name.json" '[l["name"] for l in d["layers"] if l["step"] != "base" and "digest" in l]')" "[]" \
    "$name: no layer built by plan"
  assert_eq "$(json "$WORK/$name.json" 'd["base"]["name"]')" "oci:$BASE:base" "$name: base name"
  assert_eq "$(json "$WORK/$name.json" 'sorted(set(l["step"] for l in d["layers"]))')" \
    "['base', 'login-env', 'rocm']" "$name: the steps of the layers"
  assert_eq "$(json "$WORK/$name.json" '[c["name"] for c in d["components"] if c["name"] == "rocm"][0]')" "rocm" "$name: rocm resolved"
  assert_eq "$(json "$WORK/$name.json" '[(c["kind"], c["sha256"]) for c in d["components"] if c["layer"] == "python-interpreter"]')" \
    "[('python-interpreter', '$(sha256_of "$WORK/python.tar.gz")')]" "$name: the standalone interpreter is a component"
  assert_eq "$(json "$WORK/$name.json" 'all(len(c["sha256"]) == 64 and c["url"] and c["version"] for c in d["components"])')" \
    "True" "$name: every package has a version, URL and sha256"
  assert_eq "$(json "$WORK/$name.json" 'd["resolution"]["rocm"]["targets"]')" "$(python3 -c 'import sys; print(sys.argv[1].split(";"))' "$arch")" \
    "$name: the targets"
done <"$WORK/targets.txt"
# The table names every layer with its step, and the packages.
table=$("$ROCKPACK" plan "$MOCK" "${mock_args[@]}" --set "BASE_IMAGE=oci:$BASE:base") || fail "plan (table) failed"
assert_contains "$table" "rocm       torch" "the table lists the torch layer of the rocm step"
assert_contains "$table" "rocm-sdk-core" "the table lists rocm-sdk-core"

# A build then downloads exactly what the plan said: the sha256 of every package.
"$ROCKPACK" --quiet build "$MOCK" "${mock_args[@]}" --set "BASE_IMAGE=oci:$BASE:base" --compression gzip:1 \
  -o "oci:$WORK/img:latest" --resolved "$WORK/resolved.json" >/dev/null || fail "the build failed"
assert_eq "$(json "$WORK/resolved.json" 'sorted((p["name"], p["sha256"]) for p in d["python"]["packages"])')" \
  "$(json "$WORK/pytorch-therock-rocm-ci.json" 'sorted((c["name"], c["sha256"]) for c in d["components"] if c["kind"] == "python-package")')" \
  "the packages the build installed are the ones the plan resolved"
# After the build, plan shows the built layers' digests.
"$ROCKPACK" plan "$MOCK" "${mock_args[@]}" --set "BASE_IMAGE=oci:$BASE:base" --compression gzip:1 --json >"$WORK/after.json"
built=$(skopeo inspect --config "oci:$WORK/img:latest" | python3 -c 'import json,sys; print(json.load(sys.stdin)["rootfs"]["diff_ids"])')
assert_eq "$(json "$WORK/after.json" '[l.get("diff_id") for l in d["layers"]]')" "$built" "plan after the build: every layer's diff_id"

# --- a registry base ------------------------------------------------------------------------------
need docker-registry
source "$ROCKPACK_SOURCE_DIR/tests/integration/lib/registry.sh"
start_registry reg
skopeo copy -q --dest-tls-verify=false "oci:$BASE:base" "docker://$REG/lib/debian:base"
want=$(skopeo_digest "docker://$REG/lib/debian:base")
"$ROCKPACK" plan "$MOCK" "${mock_args[@]}" --set "BASE_IMAGE=$REG/lib/debian:base" --json >"$WORK/reg.json" 2>"$WORK/reg.log" \
  || fail "plan on a registry base failed: $(cat "$WORK/reg.log")"
assert_eq "$(json "$WORK/reg.json" 'd["base"]["digest"]')" "$want" "the registry base's manifest digest"
assert_eq "$(json "$WORK/reg.json" 'len(d["components"]) > 0')" "True" "packages resolved on the registry base"
echo "ok: plan"
