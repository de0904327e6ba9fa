#!/usr/bin/env bash
# The TheRock nightly's fan-out (.github/workflows/therock-nightly.yml, docs/nightly.md), offline:
#  - the workflow's own `matrix` step script (taken from the workflow file, run as the job runs it)
#    lists the family of recipes/pytorch-therock-rocm-ci.yaml, narrowed by the dispatch input, and
#    refuses a target outside the family naming the variants; its `Lock the family` step locks every
#    target of the run (lock --all-variants, or --variant per target of a manual run);
#  - the image jobs' commands (build --variant --locked from the target's lock, with a per-target
#    registry cache and an SBOM; push with the SBOM attached, same digest)
#    and the publish job's (`rockpack publish --matrix matrix.json`) on a loopback registry, with a
#    small recipe whose matrix has the nightly's shape: the floating tags of the variants that were
#    built move (latest to gfx942), those of the others do not; a variant missing from the registry
#    moves nothing.
source "$(dirname "$0")/lib/common.sh"
need python3
WORKFLOW="$ROCKPACK_SOURCE_DIR/.github/workflows/therock-nightly.yml"
NIGHTLY="$ROCKPACK_SOURCE_DIR/recipes/pytorch-therock-rocm-ci.yaml"
cd "$WORK" || exit 1

# The `run: |` block of the step named NAME, unindented (the workflow's YAML is block style).
step_script() {
  python3 - "$WORKFLOW" "$1" <<'PY'
import sys
lines = open(sys.argv[1]).read().split("\n")
start = next(i for i, l in enumerate(lines) if l.strip() == "- name: " + sys.argv[2])
run = next(i for i in range(start, len(lines)) if lines[i].strip() == "run: |")
indent = len(lines[run]) - len(lines[run].lstrip()) + 2
out = []
for l in lines[run + 1:]:
    if l.strip() and len(l) - len(l.lstrip()) < indent:
        break
    out.append(l[indent:])
print("\n".join(out))
PY
}
step_script "The variants" >matrix-step.sh || fail "no 'The variants' step in the workflow"
step_script "Lock the family" >lock-step.sh || fail "no 'Lock the family' step in the workflow"
grep -q 'rockpack lock' lock-step.sh || fail "the lock step does not run rockpack lock: $(cat lock-step.sh)"
grep -q 'rockpack matrix' matrix-step.sh || fail "the matrix step does not run rockpack matrix: $(cat matrix-step.sh)"
mkdir -p build && ln -s "$ROCKPACK" build/rockpack

# run_matrix_step RECIPE INPUT: as the job runs it (bash -e, the job's env), in $WORK.
run_matrix_step() {
  : >gh-output
  GITHUB_OUTPUT=gh-output RECIPE=$1 IN_ARCH=$2 INDEX= SOURCE_DATE_EPOCH=1763596800 bash -e matrix-step.sh >step.log 2>&1
}

# --- the nightly's family, as the matrix job lists it ----------------------------------------------
run_matrix_step "$NIGHTLY" "" || fail "the matrix step fails on the nightly recipe: $(cat step.log)"
assert_eq "$(grep -c '^matrix=' gh-output)" 1 "one matrix= output line"
names() { python3 -c 'import json,sys; d=json.loads(sys.stdin.read().split("=",1)[1]); print(" ".join(e["name"] for e in d["include"]))'; }
assert_eq "$(grep '^matrix=' gh-output | names)" "gfx942 gfx950 gfx1100 gfx1151 gfx1201" "the scheduled run builds the five targets"
assert_eq "$(python3 -c 'import json; print([e["tags"] for e in json.load(open("matrix.json")) if e["name"] == "gfx942"][0])')" \
  "['nightly-20251120-gfx942', 'nightly-20251120']" "gfx942 keeps nightly-YYYYMMDD (from the run's SOURCE_DATE_EPOCH)"
run_matrix_step "$NIGHTLY" "gfx950, gfx1201" || fail "the matrix step fails with an input: $(cat step.log)"
assert_eq "$(grep '^matrix=' gh-output | names)" "gfx950 gfx1201" "the dispatch input narrows the family"
assert_eq "$(python3 -c 'import json; print(len(json.load(open("matrix.json"))))')" 2 "matrix.json holds the narrowed family"
rc=0
run_matrix_step "$NIGHTLY" "gfx90a;gfx942" || rc=$?
[ "$rc" -ne 0 ] || fail "the matrix step accepted a target outside the family"
assert_contains "$(cat step.log)" "no variant gfx90a" "the unknown target is named"
assert_contains "$(cat step.log)" "gfx942, gfx950, gfx1100, gfx1151, gfx1201" "the variants are listed"
echo "ok: the workflow's matrix step lists the nightly family"

# --- the image and publish jobs' commands on a loopback registry ----------------------------------
need docker-registry; need skopeo
source "$ROCKPACK_SOURCE_DIR/tests/integration/lib/registry.sh"
start_registry reg
cat >fam.yaml <<'YAML'
name: fam
args:
  PYTORCH_ROCM_ARCH: gfx942
  BUILD_ENVIRONMENT: ci
files:
  - {content: "shared\n", dest: /etc/shared, layer: shared}
  - {content: "${PYTORCH_ROCM_ARCH} ${BUILD_ENVIRONMENT}\n", dest: /etc/target, layer: device}
tags: ["nightly-${DATE}", latest]
matrix:
  PYTORCH_ROCM_ARCH: [gfx942, gfx950, gfx1100]
  include:
    - {PYTORCH_ROCM_ARCH: gfx942, tags: ["nightly-${DATE}"], floating: [latest]}
    - {PYTORCH_ROCM_ARCH: gfx950, BUILD_ENVIRONMENT: ci-gfx950}
  name: "${PYTORCH_ROCM_ARCH}"
  tags: ["nightly-${DATE}-${PYTORCH_ROCM_ARCH}"]
  floating: ["latest-${PYTORCH_ROCM_ARCH}"]
YAML
REPO="$REG/o/fam"
export SOURCE_DATE_EPOCH=1763596800
digest_of() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["manifest_digest"])' "$1"; }
reg_digest() { skopeo inspect --tls-verify=false --format '{{.Digest}}' "docker://$REPO:$1" 2>/dev/null; }

# run_lock_step INPUT: the matrix job's "Lock the family" step, after the matrix step, in $WORK.
run_lock_step() {
  rm -rf locks
  RECIPE=fam.yaml IN_ARCH=$1 INDEX= SOURCE_DATE_EPOCH=1763596800 bash -e lock-step.sh >lock.log 2>&1
}
# A scheduled run locks the whole family (lock --all-variants), one lock per target.
run_matrix_step fam.yaml "" || fail "the matrix step fails on the test family: $(cat step.log)"
run_lock_step "" || fail "the lock step fails on the test family: $(cat lock.log)"
assert_eq "$(ls locks | tr '\n' ' ')" "gfx1100.lock gfx942.lock gfx950.lock " "the scheduled run locks every target"
assert_eq "$(python3 -c 'import json; print(json.load(open("locks/gfx950.lock"))["recipe"]["args"]["BUILD_ENVIRONMENT"])')" "ci-gfx950" "each lock holds its variant's args"

# A manual run for gfx942 and gfx950: the matrix and lock steps, then one image job per variant,
# building --locked from its lock, with its SBOM attached to the pushed image.
run_matrix_step fam.yaml "gfx942,gfx950" || fail "the matrix step fails on the test family: $(cat step.log)"
run_lock_step "gfx942,gfx950" || fail "the lock step fails with an input: $(cat lock.log)"
assert_eq "$(ls locks | tr '\n' ' ')" "gfx942.lock gfx950.lock " "a manual run locks the targets it builds"
for v in gfx942 gfx950; do
  tag=$(python3 -c 'import json,sys; print([e for e in json.load(open("matrix.json")) if e["name"] == sys.argv[1]][0]["tags"][0])' "$v")
  args=(build fam.yaml --variant "$v" --locked --lock "locks/$v.lock" --cache-dir "store-$v" -o "docker-archive:$v.tar:$REPO:$tag")
  "$ROCKPACK" --quiet "${args[@]}" --cache-from "$REPO:buildcache-$v" --metadata-file "$v.json" --sbom "$v.spdx.json" >/dev/null 2>"$v.err" \
    || fail "build of $v failed: $(cat "$v.err")"
  "$ROCKPACK" --quiet "${args[@]}" --metadata-file "$v-pushed.json" --push "$REPO" --cache-to "$REPO:buildcache-$v" \
    --sbom "$v-pushed.spdx.json" >/dev/null 2>"$v.err" || fail "push of $v failed: $(cat "$v.err")"
  assert_eq "$(digest_of "$v-pushed.json")" "$(digest_of "$v.json")" "$v: the pushed digest is the one built"
  d=$(digest_of "$v-pushed.json")
  curl -fsS -H "Accept: application/vnd.oci.image.index.v1+json" "http://$REG/v2/o/fam/manifests/sha256-${d#sha256:}" >"$v-referrers.json" \
    || fail "$v: no SBOM attached to the pushed image"
  assert_contains "$(cat "$v-referrers.json")" "application/spdx+json" "$v: the SBOM is attached to the pushed image"
done
assert_eq "$(reg_digest nightly-20251120)" "$(digest_of gfx942-pushed.json)" "nightly-YYYYMMDD is the gfx942 image"
[ -z "$(reg_digest latest)" ] || fail "a build moved latest"
[ -z "$(reg_digest latest-gfx950)" ] || fail "a build moved latest-gfx950"

# publish with a variant missing from the registry (gfx1100 was never built): nothing moves.
python3 -c 'import json; json.dump(json.load(open("matrix.json")) + [{"name": "gfx1100", "tags": ["nightly-20251120-gfx1100"], "floating": ["latest-gfx1100"]}], open("with-missing.json", "w"))'
if "$ROCKPACK" publish fam.yaml --repository "$REPO" --matrix with-missing.json 2>pub-missing.err; then
  fail "publish moved the floating tags with gfx1100 missing"
fi
assert_contains "$(cat pub-missing.err)" "gfx1100" "publish names the missing variant"
[ -z "$(reg_digest latest)" ] || fail "publish moved latest with a variant missing"

# The publish job: the run's matrix.json (the two variants built).
"$ROCKPACK" publish fam.yaml --repository "$REPO" --matrix matrix.json --summary summary.md >pub.out 2>pub.err \
  || fail "publish failed: $(cat pub.err)"
assert_eq "$(reg_digest latest)" "$(digest_of gfx942-pushed.json)" "latest is the gfx942 image"
assert_eq "$(reg_digest latest-gfx942)" "$(digest_of gfx942-pushed.json)" "latest-gfx942 is the gfx942 image"
assert_eq "$(reg_digest latest-gfx950)" "$(digest_of gfx950-pushed.json)" "latest-gfx950 is the gfx950 image"
[ -z "$(reg_digest latest-gfx1100)" ] || fail "publish moved the floating tag of a variant the run did not build"
assert_contains "$(cat summary.md)" "| gfx950 |" "the family summary lists the variants"
echo "ok: the image and publish jobs' commands move the floating tags of the built variants only"
