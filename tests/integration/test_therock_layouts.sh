#!/usr/bin/env bash
# Every TheRock index layout, installed twice from the same mock (tests/tools/make_therock_index.py):
# by rockpack into an image (`rocm:` with targets, torch), and by real pip + `rocm-sdk init` into a
# venv on the host. The two site-packages trees must be the same (tests/tools/compare_site_trees.py:
# paths, modes, symlink targets, hardlink groups, RECORD rows; its docstring lists the documented
# differences), and so must `rocm-sdk version/targets/path --root`, which in the image must change
# nothing (the expansion and the device links were done at build time).
#   whl-next   structured: aggregate root routed per product (302s), same-directory links, no hashes
#              (accepted with `verify: tls-only`), torch split into device wheels
#   multi-arch flat whl-multi-arch: ../ links with #sha256
#   per-family legacy: {family} in the URL; still builds, with a warning
source "$(dirname "$0")/lib/common.sh"
source "$ROCKPACK_SOURCE_DIR/tests/integration/lib/python_fixtures.sh"
source "$ROCKPACK_SOURCE_DIR/tests/integration/lib/rocm_fixtures.sh"
need umoci
[ "$(id -u)" -eq 0 ] || skip "chroot needs root"
python3 -c 'import venv, ensurepip' 2>/dev/null || skip "python3 has no venv/ensurepip module"
[ "$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')" = "$BASE_PY" ] \
  || skip "the host's python3 is not $BASE_PY (the mock's torch wheels are built for the image's Python)"
export SOURCE_DATE_EPOCH=1700000000
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1 PIP_NO_INPUT=1
COMPARE="$ROCKPACK_SOURCE_DIR/tests/tools/compare_site_trees.py"
V=10.1.0a20260822

python_base

therock_index "$WORK/wn" --layout whl-next --target gfx942 --target gfx950 --target gfx1100 --versions "$V"
therock_index "$WORK/ma" --layout multi-arch --target gfx942 --target gfx950 --versions "$V"
therock_index "$WORK/pf" --family "$FAMILY" --versions "$V"
start_loopback_server wn "$ROCKPACK_SOURCE_DIR/tests/tools/static_server.py" "$WORK/wn" --routes "$WORK/wn/routes.json"
start_static ma "$WORK/ma"
start_static pf "$WORK/pf"

# pip_reference NAME INDEX_URL REQUIREMENTS...: a host venv with pip's install and `rocm-sdk init`.
pip_reference() {
  local name=$1 url=$2
  shift 2
  python3 -m venv "$WORK/$name-venv"
  local py="$WORK/$name-venv/bin/python"
  "$py" -c 'import setuptools' 2>/dev/null || skip "the venv has no setuptools (the rocm sdist is built with it)"
  if ! "$py" -c 'import wheel' 2>/dev/null; then
    local whl
    whl=$(ls /usr/share/python-wheels/wheel-*.whl 2>/dev/null | head -n 1 || true)
    [ -n "$whl" ] || skip "no 'wheel' package available offline (Debian's python3-wheel-whl ships it)"
    "$py" -m pip install --quiet --no-index "$whl" || skip "cannot install $whl"
  fi
  "$py" -m pip install --quiet --index-url "$url" --no-build-isolation "$@" >"$WORK/$name-pip.log" 2>&1 \
    || fail "$name: pip install $* failed: $(cat "$WORK/$name-pip.log")"
  "$WORK/$name-venv/bin/rocm-sdk" init --quiet || fail "$name: rocm-sdk init failed"
}

# The pip references are independent of rockpack's builds: all three run in the background while
# rockpack builds (pip is one busy process; rockpack's downloads and layers use the other core).
# Each runs in a process group of its own (set -m), which the exit trap ends with everything in it.
declare -A REF_PID
start_reference() {  # NAME INDEX_URL REQUIREMENTS...
  set -m
  ( pip_reference "$@" ) >"$WORK/$1-reference.out" 2>&1 &
  REF_PID[$1]=$!
  set +m
}
stop_references() {
  local p
  for p in "${REF_PID[@]}"; do kill -- "-$p" 2>/dev/null || true; done
  for p in "${REF_PID[@]}"; do wait "$p" 2>/dev/null || true; done
}
trap 'stop_references; cleanup' EXIT
wait_reference() {  # NAME: pip_reference's own skip or fail, as if it had run here
  local rc=0
  wait "${REF_PID[$1]}" || rc=$?
  [ "$rc" -eq 77 ] && skip "$1: $(cat "$WORK/$1-reference.out")"
  [ "$rc" -eq 0 ] || fail "$1: the pip reference failed (exit $rc): $(cat "$WORK/$1-reference.out")"
}

# image NAME INDEX TARGETS EXTRA_ROCM_LINES: builds the recipe, unpacks it to $WORK/NAME-bundle.
image() {
  local name=$1 index=$2 targets=$3 extra=$4
  rocm_recipe "$WORK/$name.yaml" "$name" <<YAML
  packages: [torch]
rocm:
  index: "$index"
  targets: [$targets]
  components: [libraries, devel]
$extra
tags: [latest]
YAML
  "$ROCKPACK" build "$WORK/$name.yaml" -o "oci:$WORK/$name-out:latest" >"$WORK/$name.log" 2>&1 \
    || fail "$name: the build failed: $(tail -n 30 "$WORK/$name.log")"
  unpack "$WORK/$name-out:latest" "$WORK/$name-bundle"
}

# compare NAME: the trees, then rocm-sdk's answers, and that asking changed nothing in the image.
compare() {
  local name=$1
  local ref ref_site="$WORK/$name-venv/lib/python$BASE_PY/site-packages" root="$WORK/$name-bundle/rootfs"
  local img_site="$root/$SITE_REL"
  python3 "$COMPARE" "$ref_site" "$img_site" >"$WORK/$name-compare.txt" || fail "$name: $(cat "$WORK/$name-compare.txt")"
  local before after
  # (Python's own bytecode cache aside, and so directory times: a root chroot lets it write
  # __pycache__, a read-only image not.)
  before=$(find "$img_site" -name __pycache__ -prune -o -type d -printf '%p %m\n' -o -printf '%p %s %i %T@ %m\n' | sort | sha256sum)
  for cmd in version targets "path --root"; do
    ref=$("$WORK/$name-venv/bin/rocm-sdk" $cmd | sed "s|$ref_site|SITE|")
    assert_eq "$(in_root "$root" rocm-sdk $cmd | sed "s|$SITE_ABS|SITE|")" "$ref" "$name: rocm-sdk $cmd"
  done
  after=$(find "$img_site" -name __pycache__ -prune -o -type d -printf '%p %m\n' -o -printf '%p %s %i %T@ %m\n' | sort | sha256sum)
  assert_eq "$after" "$before" "$name: the image's site-packages after rocm-sdk ran (it must find nothing to do)"
}

WN="$(static_url wn)/rocm/whl-next/"
MA="$(static_url ma)/"
start_reference wn "$WN" "rocm[libraries,devel,device-gfx942]==$V" "torch[device-gfx942]"
start_reference ma "$MA" "rocm[libraries,devel,device-gfx942]==$V" "torch[device-gfx942]"
start_reference pf "$(static_url pf)/$FAMILY/" "rocm[libraries,devel]==$V" torch

# --- whl-next ------------------------------------------------------------------------------------
image wn "$WN" gfx942 "  verify: tls-only"
wait_reference wn
compare wn
assert_eq "$(config_label "oci:$WORK/wn-out:latest" org.rockpack.rocm.layout)" "whl-next" "whl-next: layout label"
assert_contains "$(cat "$WORK/wn.log")" "accepted on TLS alone" "whl-next: the tls-only warning"

# --- flat multi-arch ----------------------------------------------------------------------------
image ma "$MA" gfx942 ""
wait_reference ma
compare ma
assert_eq "$(config_label "oci:$WORK/ma-out:latest" org.rockpack.rocm.layout)" "multi-arch" "multi-arch: layout label"
[ -z "$(config_label "oci:$WORK/ma-out:latest" org.rockpack.python.tls-only-files)" ] \
  || fail "multi-arch: files counted as tls-only on an index with hashes"

# --- legacy per-family --------------------------------------------------------------------------
image pf "$(static_url pf)/{family}/" gfx942 ""
wait_reference pf
compare pf
assert_contains "$(cat "$WORK/pf.log")" "legacy per-family TheRock index" "per-family: the warning"
assert_eq "$(config_label "oci:$WORK/pf-out:latest" org.rockpack.rocm.layout)" "per-family" "per-family: layout label"

echo "PASS: test_therock_layouts"
