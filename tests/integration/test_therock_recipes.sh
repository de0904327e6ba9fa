#!/usr/bin/env bash
# The shipped TheRock recipes (recipes/*.yaml on layers/therock-pytorch-ci.yaml, examples/therock/mock.yaml)
# stay valid: `rockpack validate` accepts each one, and the arg overrides the docs show fail the way
# docs/nightly.md says (unknown target, unknown APT_SCRIPTS). Validation only: nothing is downloaded.
# tests/integration/test_therock_ci_complete.sh builds the fragment.
source "$(dirname "$0")/lib/common.sh"

# Until the binary implements the rocm section there is nothing to check here.
probe="$WORK/probe.yaml"
printf 'name: probe\npython: {interpreter: /usr/bin/python3, packages: [x]}\nrocm: {source: therock, index: nightly, targets: gfx942}\n' >"$probe"
probe_out=$("$ROCKPACK" validate "$probe" 2>&1 || true)
case "$probe_out" in *"unknown key 'rocm'"*) skip "this rockpack has no rocm section yet" ;; esac

validate() {
  local out rc=0
  out=$("$ROCKPACK" validate "$@" 2>&1) || rc=$?
  printf '%s\n' "$out"
  return "$rc"
}

for recipe in pytorch-therock-rocm-ci therock-gfx950 therock-gfx1100 therock-gfx1151 therock-gfx1201; do
  out=$(validate "$ROCKPACK_SOURCE_DIR/recipes/$recipe.yaml") || fail "recipes/$recipe.yaml does not validate:
$out"
  assert_contains "$out" "image $recipe" "validate names the image of recipes/$recipe.yaml"
  assert_contains "$out" "tags: nightly-" "recipes/$recipe.yaml is tagged nightly-DATE"
done

# The overrides docs/nightly.md and examples/therock/README.md use.
NIGHTLY="$ROCKPACK_SOURCE_DIR/recipes/pytorch-therock-rocm-ci.yaml"
validate "$NIGHTLY" --variant gfx1100 --set THEROCK_VERSION=7.10.0a20251120 \
  --set 'THEROCK_NIGHTLY_INDEX_URL=http://127.0.0.1:8000/rocm/whl-next/' >/dev/null \
  || fail "the nightly recipe with the documented overrides does not validate"
out=$(SOURCE_DATE_EPOCH=1763596800 validate "$NIGHTLY") || fail "the nightly recipe does not validate with SOURCE_DATE_EPOCH"
assert_contains "$out" "nightly-20251120" "the nightly tag comes from SOURCE_DATE_EPOCH"

# The nightly family (the workflow fans it out): one variant per target, gfx942 keeping the
# historical nightly-DATE tag, the others nightly-DATE-<target>; `latest` is no build tag (only
# `rockpack publish` moves it, with latest-<target>).
assert_contains "$out" "5 variants" "the nightly recipe is a family of 5 targets"
for target in gfx942 gfx950 gfx1100 gfx1151 gfx1201; do
  assert_contains "$out" "variant $target: ok" "the nightly family has the variant $target"
done
SOURCE_DATE_EPOCH=1763596800 "$ROCKPACK" matrix "$NIGHTLY" --format json --no-estimate >"$WORK/matrix.json" \
  || fail "rockpack matrix fails on the nightly recipe"
family=$(python3 -c 'import json,sys; print(" ".join(e["name"] + "=" + ",".join(e["tags"]) + "/" + ",".join(e["floating"]) for e in json.load(open(sys.argv[1]))))' "$WORK/matrix.json")
assert_eq "$family" "gfx942=nightly-20251120-gfx942,nightly-20251120/latest-gfx942,latest gfx950=nightly-20251120-gfx950/latest-gfx950 gfx1100=nightly-20251120-gfx1100/latest-gfx1100 gfx1151=nightly-20251120-gfx1151/latest-gfx1151 gfx1201=nightly-20251120-gfx1201/latest-gfx1201" \
  "the nightly family's tags and floating tags"
assert_eq "$(python3 -c 'import json,sys; print([e["set"] for e in json.load(open(sys.argv[1])) if e["name"] == "gfx1151"][0])' "$WORK/matrix.json")" \
  "['PYTORCH_ROCM_ARCH=gfx1151', 'BUILD_ENVIRONMENT=pytorch-linux-jammy-rocm-n-py3-gfx1151']" \
  "a variant's args are those of its per-target recipe"
# The matrix fixes the target: --set of it is refused (a target outside the family: a per-target recipe).
rc=0
out=$(validate "$NIGHTLY" --set PYTORCH_ROCM_ARCH=gfx1100) || rc=$?
assert_eq "$rc" 2 "exit code of --set PYTORCH_ROCM_ARCH on the nightly family"
assert_contains "$out" "set by the matrix" "the refusal says the matrix sets the target"

# The fragment's apt knobs: APT_SCRIPTS=native (the nightly's unprivileged container) validates, an
# unknown mode is refused at its line; the cmake pin is an apt version glob.
validate "$NIGHTLY" --set APT_SCRIPTS=native --set 'CMAKE_APT_VERSION=3.28*' >/dev/null \
  || fail "the nightly recipe with APT_SCRIPTS=native does not validate"
rc=0
out=$(validate "$NIGHTLY" --set APT_SCRIPTS=sometimes) || rc=$?
assert_eq "$rc" 2 "exit code of an unknown APT_SCRIPTS"
assert_contains "$out" "therock-pytorch-ci.yaml" "the unknown scripts mode is reported in the fragment"
assert_contains "$out" "unknown scripts: 'sometimes'" "the unknown scripts mode is named"

# Something that is no GPU target: exit 2, named, with what targets look like. (Whether a release
# has a gfx target is checked against its rocm sdist at build time: test_therock_targets.sh.)
rc=0
out=$(validate "$ROCKPACK_SOURCE_DIR/recipes/therock-gfx950.yaml" --set PYTORCH_ROCM_ARCH=sm_90) || rc=$?
assert_eq "$rc" 2 "exit code of something that is no GPU target"
assert_contains "$out" "sm_90" "the bad target is named"
assert_contains "$out" "gfx942" "what targets look like"
# A channel name instead of a URL, and the other channels.
for channel in nightly dev rc bkc stable; do
  validate "$NIGHTLY" --set "THEROCK_NIGHTLY_INDEX_URL=$channel" >/dev/null || fail "channel $channel does not validate"
done
rc=0
out=$(validate "$NIGHTLY" --set THEROCK_NIGHTLY_INDEX_URL=nighty) || rc=$?
assert_eq "$rc" 2 "exit code of a misspelt channel"
assert_contains "$out" "nightly" "the misspelt channel gets a suggestion"

# The mock recipe needs its base; with one it validates.
rc=0
out=$(validate "$ROCKPACK_SOURCE_DIR/examples/therock/mock.yaml") || rc=$?
assert_eq "$rc" 2 "exit code of the mock recipe without BASE_IMAGE"
assert_contains "$out" "BASE_IMAGE" "the missing arg is named"
# A local base must exist (validate checks it); any existing path will do for the rest of the checks.
rc=0
out=$(validate "$ROCKPACK_SOURCE_DIR/examples/therock/mock.yaml" --set BASE_IMAGE=oci:/nonexistent:base) || rc=$?
assert_eq "$rc" 2 "exit code of the mock recipe with a missing base"
assert_contains "$out" "/nonexistent" "the missing base is named"
validate "$ROCKPACK_SOURCE_DIR/examples/therock/mock.yaml" --set BASE_IMAGE="oci:$WORK:base" >/dev/null \
  || fail "examples/therock/mock.yaml does not validate with its args set"

echo "ok: therock recipes"
