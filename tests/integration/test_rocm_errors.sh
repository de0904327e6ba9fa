#!/usr/bin/env bash
# Bad rocm: sections and broken TheRock indexes end with exit 2, a message that says what and where,
# and no output image (nor resolution file):
#  - an unknown GPU target (the message lists the supported ones);
#  - a pinned nightly the index no longer has (the message names the nearest versions it has);
#  - an index missing a dependency (rocm-sdk-core): the message names it and the index;
#  - torch wheels built only for another Python than the image's;
#  - PYTORCH_CUDA_ALLOC_CONF with max_split_size_mb (refused by `rockpack validate`, file:line);
#  - rocm: without a python: section.
source "$(dirname "$0")/lib/common.sh"
source "$ROCKPACK_SOURCE_DIR/tests/integration/lib/python_fixtures.sh"
source "$ROCKPACK_SOURCE_DIR/tests/integration/lib/rocm_fixtures.sh"
[ "$(id -u)" -eq 0 ] || skip "the Debian base needs root"
export SOURCE_DATE_EPOCH=1700000000

python_base

therock_index "$WORK/good" --family "$FAMILY" --versions "$V1,$V2"
start_static good "$WORK/good"
therock_index "$WORK/nocore" --family "$FAMILY" --versions "$V1,$V2" --drop-dep rocm-sdk-core
start_static nocore "$WORK/nocore"
# The image's Python is BASE_PY (3.11); these torch wheels are for another one.
OTHER_PY=3.12
[ "$OTHER_PY" != "$BASE_PY" ] || OTHER_PY=3.13
therock_index "$WORK/otherpy" --family "$FAMILY" --versions "$V1,$V2" --python "$OTHER_PY"
start_static otherpy "$WORK/otherpy"

# recipe NAME INDEX_URL [extra rocm: lines from stdin]: torch + a rocm section on the Debian base.
recipe() {
  local name=$1 url=$2
  { printf '  packages: [torch]\nrocm:\n  source: therock\n  index: "%s"\n' "$url"; cat; } \
    | rocm_recipe "$WORK/$name.yaml" "$name"
}

# expect_failure NAME: builds $WORK/NAME.yaml, which must fail with exit 2, leaving no output image
# and no resolution file; the output is in $OUT.
expect_failure() {
  local name=$1 rc=0
  "$ROCKPACK" build "$WORK/$name.yaml" -o "oci:$WORK/out-$name:latest" \
    --resolved "$WORK/$name.resolved.json" >"$WORK/$name.out" 2>&1 || rc=$?
  OUT=$(cat "$WORK/$name.out")
  [ "$rc" -eq 2 ] || fail "$name: expected exit code 2, got $rc:
$OUT"
  [ ! -e "$WORK/out-$name" ] || fail "$name: the failed build left $WORK/out-$name"
  [ ! -e "$WORK/$name.resolved.json" ] || fail "$name: the failed build wrote a resolution file"
  echo "ok: $name -> exit $rc: $(grep -m1 -i error <<<"$OUT")"
}

GOOD="$(static_url good)/{family}/"

# ---- the control: the same recipe with good inputs builds ---------------------------------------
recipe control "$GOOD" <<EOF
  targets: gfx942
EOF
"$ROCKPACK" --quiet build "$WORK/control.yaml" -o "oci:$WORK/control:latest" >"$WORK/control.out" 2>&1 \
  || fail "the control recipe does not build: $(cat "$WORK/control.out")"

# ---- an unknown GPU target --------------------------------------------------------------------
recipe unknown-target "$GOOD" <<EOF
  targets: gfx9999
EOF
expect_failure unknown-target
assert_contains "$OUT" "unknown GPU target 'gfx9999'" "unknown-target names the target"
assert_contains "$OUT" "gfx942" "unknown-target lists the supported targets"
assert_contains "$OUT" "gfx90a" "unknown-target lists the supported targets"

# ---- a pinned nightly that is gone from the index ---------------------------------------------
recipe vanished-pin "$GOOD" <<EOF
  targets: gfx942
  version: 7.10.0a20251119
EOF
expect_failure vanished-pin
assert_contains "$OUT" "7.10.0a20251119" "vanished-pin names the pin"
assert_contains "$OUT" "is not on" "vanished-pin says it is not on the index"
assert_contains "$OUT" "$(static_url good)/$FAMILY/" "vanished-pin names the index"
assert_contains "$OUT" "nearest versions" "vanished-pin offers the nearest versions"
assert_contains "$OUT" "$V1" "vanished-pin lists the nearest versions"
assert_contains "$OUT" "$V2" "vanished-pin lists the nearest versions"

# ---- a dependency missing from the index -------------------------------------------------------
recipe missing-core "$(static_url nocore)/{family}/" <<EOF
  targets: gfx942
EOF
expect_failure missing-core
assert_contains "$OUT" "rocm-sdk-core" "missing-core names the package"
assert_contains "$OUT" "$(static_url nocore)/$FAMILY/" "missing-core names the index"

# ---- torch only for another Python -------------------------------------------------------------
recipe wrong-python "$(static_url otherpy)/{family}/" <<EOF
  targets: gfx942
EOF
expect_failure wrong-python
assert_contains "$OUT" "torch" "wrong-python names torch"
assert_contains "$OUT" "wheels for Python $OTHER_PY" "wrong-python names the Python the wheels are for"

# ---- PYTORCH_CUDA_ALLOC_CONF with max_split_size_mb --------------------------------------------
recipe alloc-conf "$GOOD" <<EOF
  targets: gfx942
  env:
    HIP_VISIBLE_DEVICES: "0"
    PYTORCH_CUDA_ALLOC_CONF: "max_split_size_mb:128"
EOF
line=$(grep -n 'PYTORCH_CUDA_ALLOC_CONF' "$WORK/alloc-conf.yaml" | cut -d: -f1)
rc=0
"$ROCKPACK" validate "$WORK/alloc-conf.yaml" >"$WORK/alloc-conf.validate" 2>&1 || rc=$?
OUT=$(cat "$WORK/alloc-conf.validate")
assert_eq "$rc" "2" "rockpack validate of max_split_size_mb (output: $OUT)"
assert_contains "$OUT" "max_split_size_mb" "alloc-conf names the setting"
assert_contains "$OUT" "alloc-conf.yaml:$line:" "alloc-conf gives file:line"
expect_failure alloc-conf
# ... and the ROCm-friendly value is accepted.
sed -i 's/max_split_size_mb:128/expandable_segments:True/' "$WORK/alloc-conf.yaml"
"$ROCKPACK" validate "$WORK/alloc-conf.yaml" >"$WORK/alloc-conf.ok" 2>&1 \
  || fail "expandable_segments:True refused: $(cat "$WORK/alloc-conf.ok")"

# ---- rocm: without python: --------------------------------------------------------------------
cat >"$WORK/no-python.yaml" <<EOF
name: no-python
base: oci:$BASE:base
rocm:
  source: therock
  index: "$GOOD"
  targets: gfx942
EOF
rc=0
"$ROCKPACK" validate "$WORK/no-python.yaml" >"$WORK/no-python.validate" 2>&1 || rc=$?
OUT=$(cat "$WORK/no-python.validate")
assert_eq "$rc" "2" "rockpack validate of rocm: without python: (output: $OUT)"
assert_contains "$OUT" "python" "no-python says a python: section is needed"
expect_failure no-python

echo "PASS: test_rocm_errors"
