#!/usr/bin/env bash
# Same recipe, same image, across rockpack versions: the shipped example recipes (the quickstart,
# and examples/therock/mock.yaml — the body of every recipes/therock-*.yaml — against a small mock
# TheRock index, for a one-family and a two-target build and for the multi-arch layout) give the
# image digests recorded in tests/data/golden_digests.txt.
#
# Two python-only recipes (no rocm:) cover the python step on its own.
#
# Each image is built twice, into two fresh content stores (one with --threads 1); both builds must
# agree before they are compared with the golden file. Digests depend on the inputs too (the host's
# busybox, the Debian fixture the base and the standalone interpreter are made of, the mock index
# generator), so the golden file records a fingerprint of those inputs per image: when the inputs
# differ from the ones the file was generated with, that image's golden comparison is skipped with
# a note (the two-build check still runs).
#
# Regenerate the file (after a deliberate change of the image format, or of a fixture):
#   ROCKPACK_GOLDEN_WRITE=1 ctest --test-dir build -R golden_digests
# and say in the commit why the digests changed.
source "$(dirname "$0")/lib/common.sh"
source "$ROCKPACK_SOURCE_DIR/tests/integration/lib/python_fixtures.sh"
source "$ROCKPACK_SOURCE_DIR/tests/integration/lib/rocm_fixtures.sh"
need file
GOLDEN="$ROCKPACK_SOURCE_DIR/tests/data/golden_digests.txt"
DIGESTS="$ROCKPACK_SOURCE_DIR/tests/tools/image_digests.py"
export SOURCE_DATE_EPOCH=1700000000
# Fixed: by default they come from the recipe's git checkout, which changes with every commit.
FIXED=(--revision golden --source https://example.invalid/rockpack-golden)
: >"$WORK/got.txt"

# build_twice ID RECIPE [build args...] [-- image_digests.py args...]: builds into two fresh stores,
# checks both give the same digest, appends the image's facts to got.txt.
build_twice() {
  local id=$1 recipe=$2
  shift 2
  local args=() extra=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do args+=("$1"); shift; done
  [ $# -gt 0 ] && { shift; extra=("$@"); }
  local a b
  a=$(build_digest "$recipe" "${FIXED[@]}" "${args[@]}" --cache-dir "$WORK/$id-c1" -o "oci:$WORK/$id-a:golden") \
    || fail "$id: the first build failed"
  b=$(build_digest "$recipe" "${FIXED[@]}" "${args[@]}" --cache-dir "$WORK/$id-c2" --threads 1 -o "oci:$WORK/$id-b:golden") \
    || fail "$id: the second build failed"
  assert_eq "$b" "$a" "$id: two builds into fresh stores"
  python3 "$DIGESTS" "$WORK/$id-a" golden "$id" "${extra[@]}" >>"$WORK/got.txt"
}
inputs() {  # ID FILES...: a fingerprint line of the files (or directory trees) an image is made from
  local id=$1
  shift
  echo "$id inputs sha256:$(find "$@" -type f -print0 | sort -z | xargs -0 sha256sum | sed -e "s|$WORK|@WORK@|" -e "s|$ROCKPACK_SOURCE_DIR|@SRC@|" \
    | sha256sum | cut -d' ' -f1)" >>"$WORK/got.txt"
}

# --- the quickstart: scratch + files + symlinks -----------------------------------------------------
BUSYBOX=$(static_busybox)
QUICKSTART="$ROCKPACK_SOURCE_DIR/examples/quickstart"
inputs quickstart "$BUSYBOX" "$QUICKSTART"
(cd "$WORK" && build_twice quickstart "$QUICKSTART/recipe.yaml" --set BUSYBOX="$BUSYBOX")

# --- the TheRock recipes' body (examples/therock/mock.yaml) against mock indexes ---------------------
[ "$(id -u)" -eq 0 ] || skip "the Debian fixture needs root"
python_base
TARBALL=$(debian_python_rootfs_tarball) || fail "no Debian rootfs tarball"
debian_python_standalone_archive "$WORK/python.tar.gz" || fail "no standalone archive"
# Small mock indexes: the per-family layout for two families, and the multi-arch layout.
therock_index "$WORK/idx" --family gfx94X-dcgpu --family gfx110X-all --versions "$V1,$V2"
therock_index "$WORK/idx-multi" --layout multi-arch --family gfx94X-dcgpu --versions "$V1,$V2"
start_static idx "$WORK/idx"
start_static multi "$WORK/idx-multi"
MOCK="$ROCKPACK_SOURCE_DIR/examples/therock/mock.yaml"
mock_args=(--set "BASE_IMAGE=oci:$BASE:base" --set "PYTHON_STANDALONE_URL=file://$WORK/python.tar.gz"
           --set "PYTHON_STANDALONE_SHA256=$(sha256_of "$WORK/python.tar.gz")" --compression gzip:1)
inputs therock-gfx942 "$TARBALL" "$WORK/idx" "$ROCKPACK_SOURCE_DIR/layers/therock-rocm-venv.yaml" "$MOCK"
build_twice therock-gfx942 "$MOCK" "${mock_args[@]}" --set "THEROCK_NIGHTLY_INDEX_URL=$(static_url idx)/{family}/" \
  -- --replace "$WORK=@WORK@" --replace "$(static_url idx)=@INDEX@"
inputs therock-gfx110x "$TARBALL" "$WORK/idx" "$ROCKPACK_SOURCE_DIR/layers/therock-rocm-venv.yaml" "$MOCK"
build_twice therock-gfx110x "$MOCK" "${mock_args[@]}" --set "THEROCK_NIGHTLY_INDEX_URL=$(static_url idx)/{family}/" \
  --set "PYTORCH_ROCM_ARCH=gfx1100;gfx1101" --set THEROCK_VERSION="$V1" \
  -- --replace "$WORK=@WORK@" --replace "$(static_url idx)=@INDEX@"
inputs therock-multi-arch "$TARBALL" "$WORK/idx-multi" "$ROCKPACK_SOURCE_DIR/layers/therock-rocm-venv.yaml" "$MOCK"
build_twice therock-multi-arch "$MOCK" "${mock_args[@]}" --set "THEROCK_NIGHTLY_INDEX_URL=$(static_url multi)/" \
  -- --replace "$WORK=@WORK@" --replace "$(static_url multi)=@INDEX@"

# --- python: without rocm: the image's interpreter without a venv, and a standalone one without a venv
cat >"$WORK/python-system.yaml" <<EOF
name: python-system
base: oci:$BASE:base
python:
  interpreter: /usr/bin/python3
  break_system_packages: true
  indexes: [{url: "$(static_url idx)/gfx94X-dcgpu/"}]
  packages: [filelock, jinja2]
EOF
inputs python-system "$TARBALL" "$WORK/idx/gfx94X-dcgpu"
build_twice python-system "$WORK/python-system.yaml" -- --replace "$WORK=@WORK@" --replace "$(static_url idx)=@INDEX@"
cat >"$WORK/python-standalone.yaml" <<EOF
name: python-standalone
base: oci:$BASE:base
env: {LANG: C.UTF-8}
python:
  standalone: {url: "file://$WORK/python.tar.gz", sha256: $(sha256_of "$WORK/python.tar.gz"), prefix: /opt/python}
  indexes: [{url: "$(static_url idx)/gfx94X-dcgpu/"}]
  packages: [sympy]
  layers: {math: [sympy, mpmath]}
EOF
inputs python-standalone "$TARBALL" "$WORK/idx/gfx94X-dcgpu"
build_twice python-standalone "$WORK/python-standalone.yaml" -- --replace "$WORK=@WORK@" --replace "$(static_url idx)=@INDEX@"

if [ -n "${ROCKPACK_GOLDEN_WRITE:-}" ]; then
  mkdir -p "$(dirname "$GOLDEN")"
  { echo "# Image digests of the golden recipes (tests/integration/test_golden_digests.sh, which says how to"
    echo "# regenerate this file). One fact a line: ID inputs|manifest|config|layer N DIGEST."
    cat "$WORK/got.txt"; } >"$GOLDEN"
  echo "wrote $GOLDEN"
  exit 0
fi

[ -f "$GOLDEN" ] || fail "no $GOLDEN (generate it: ROCKPACK_GOLDEN_WRITE=1)"
compared=0
for id in $(awk '{print $1}' "$WORK/got.txt" | uniq); do
  want_inputs=$(grep "^$id inputs " "$GOLDEN" || true)
  got_inputs=$(grep "^$id inputs " "$WORK/got.txt")
  if [ "$want_inputs" != "$got_inputs" ]; then
    echo "note: $id: its inputs differ from the golden file's (another busybox, Debian fixture or mock index);" \
         "not compared" >&2
    continue
  fi
  diff <(grep "^$id " "$GOLDEN") <(grep "^$id " "$WORK/got.txt") \
    || fail "$id: the image differs from tests/data/golden_digests.txt (see the diff above)"
  compared=$((compared + 1))
done
echo "ok: golden digests ($compared image(s) compared with the golden file)"
