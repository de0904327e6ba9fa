#!/usr/bin/env bash
# The rocm: section's other shapes, each built from a mock TheRock index on loopback and checked in
# the unpacked image (pip run by the image's Python in a chroot):
#  - two targets of two families on per-family indexes ("gfx90a;gfx942"): both libraries packages,
#    each downloaded from its own family's index;
#  - a multi-arch index (URL without {family}): rocm-sdk-libraries + rocm-sdk-device-gfx942, torch
#    gets amd-torch-device-gfx942, the device wheel's .devel_links are expanded as hardlinks;
#  - expand_devel: false: the devel tarball is kept, no _rocm_sdk_devel tree (and `rocm-sdk init`
#    can still expand it at run time);
#  - components [libraries, devel, profiler]: rocm-profiler is installed.
source "$(dirname "$0")/lib/common.sh"
source "$ROCKPACK_SOURCE_DIR/tests/integration/lib/python_fixtures.sh"
source "$ROCKPACK_SOURCE_DIR/tests/integration/lib/rocm_fixtures.sh"
need umoci; need skopeo
[ "$(id -u)" -eq 0 ] || skip "chroot needs root"
export SOURCE_DATE_EPOCH=1700000000

python_base

# build_image NAME: builds $WORK/NAME.yaml into oci:$WORK/NAME:latest and unpacks it; sets ROOT, SITE.
build_image() {
  local name=$1
  "$ROCKPACK" --quiet build "$WORK/$name.yaml" -o "oci:$WORK/$name:latest" --resolved "$WORK/$name.resolved.json" \
    >"$WORK/$name.out" 2>&1 || fail "$name: the build failed:
$(cat "$WORK/$name.out")"
  unpack "$WORK/$name:latest" "$WORK/$name-bundle"
  ROOT="$WORK/$name-bundle/rootfs"
  SITE="$ROOT/$SITE_REL"
}

# ---- two families on per-family indexes -----------------------------------------------------
therock_index "$WORK/pf" --family "$FAMILY" --family gfx90a --versions "$V1,$V2"
start_static pf "$WORK/pf"
rocm_recipe "$WORK/multi-family.yaml" multi-family <<EOF
  packages: [torch]
rocm:
  source: therock
  index: "$(static_url pf)/{family}/"
  targets: "gfx90a;gfx942"
EOF
build_image multi-family
freeze=$(pip_freeze "$ROOT") || fail "multi-family: pip list fails"
assert_installed "$freeze" "rocm==$V2" "rocm-sdk-core==$V2" "rocm-sdk-devel==$V2" \
  "rocm-sdk-libraries-gfx94x-dcgpu==$V2" "rocm-sdk-libraries-gfx90a==$V2" "torch==$TORCH_V2"
[ -d "$SITE/_rocm_sdk_libraries_gfx94X_dcgpu" ] || fail "multi-family: no _rocm_sdk_libraries_gfx94X_dcgpu"
[ -d "$SITE/_rocm_sdk_libraries_gfx90a" ] || fail "multi-family: no _rocm_sdk_libraries_gfx90a"
# Each family's libraries came from that family's index, and not from the other one.
n=$(requests_of pf "/gfx90a/rocm_sdk_libraries_gfx90a-$V2-py3-none-linux_x86_64.whl")
[ "$n" -ge 1 ] || fail "multi-family: the gfx90a libraries were not downloaded from the gfx90a index"
n=$(requests_of pf "/$FAMILY/rocm_sdk_libraries_gfx94x_dcgpu-$V2-py3-none-linux_x86_64.whl")
[ "$n" -ge 1 ] || fail "multi-family: the gfx94X libraries were not downloaded from the $FAMILY index"
python3 - "$WORK/multi-family.resolved.json" "$(static_url pf)" "$FAMILY" <<'PY' || fail "multi-family: --resolved names the wrong indexes"
import json, sys
r, url, family = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
pkgs = {p["name"]: p for p in r["python"]["packages"]}
assert pkgs["rocm-sdk-libraries-gfx90a"]["index"] == url + "/gfx90a/", pkgs["rocm-sdk-libraries-gfx90a"]
assert pkgs["rocm-sdk-libraries-gfx94x-dcgpu"]["index"] == url + "/" + family + "/", pkgs["rocm-sdk-libraries-gfx94x-dcgpu"]
PY
check=$(pip_in "$ROOT" check) || fail "multi-family: pip check is not clean: $check"
env=$(config_env "oci:$WORK/multi-family:latest")
assert_eq "$(env_value PYTORCH_ROCM_ARCH <<<"$env")" "gfx90a;gfx942" "multi-family: Env PYTORCH_ROCM_ARCH"
assert_eq "$(env_value ROCM_SDK_TARGET_FAMILY <<<"$env")" "gfx90a" "multi-family: Env ROCM_SDK_TARGET_FAMILY (first target's)"
fam=$(config_label "oci:$WORK/multi-family:latest" org.rockpack.rocm.family)
assert_contains "$fam" "gfx90a" "multi-family: label org.rockpack.rocm.family"
assert_contains "$fam" "$FAMILY" "multi-family: label org.rockpack.rocm.family"
echo "ok: multi-family"

# ---- a multi-arch index ----------------------------------------------------------------------
therock_index "$WORK/ma" --layout multi-arch --family "$FAMILY" --versions "$V1,$V2"
start_static ma "$WORK/ma"
rocm_recipe "$WORK/multi-arch.yaml" multi-arch <<EOF
  packages: [torch]
rocm:
  source: therock
  index: "$(static_url ma)/"
  targets: gfx942
  components: [libraries, devel]
EOF
build_image multi-arch
freeze=$(pip_freeze "$ROOT") || fail "multi-arch: pip list fails"
assert_installed "$freeze" "rocm==$V2" "rocm-sdk-core==$V2" "rocm-sdk-devel==$V2" "rocm-sdk-libraries==$V2" \
  "rocm-sdk-device-gfx942==$V2" "torch==$TORCH_V2" "amd-torch-device-gfx942==$TORCH_V2"
grep -q '^rocm-sdk-libraries-gfx' <<<"$freeze" && fail "multi-arch: a per-family libraries package was installed: $freeze"
check=$(pip_in "$ROOT" check) || fail "multi-arch: pip check is not clean: $check"
DEVEL="$SITE/_rocm_sdk_devel"
CO=lib/rocblas/library/TensileLibrary_gfx942_0.co
[ -f "$DEVEL/$CO" ] && [ ! -L "$DEVEL/$CO" ] || fail "multi-arch: .devel_links not expanded ($CO)"
assert_eq "$(stat -c %i "$DEVEL/$CO")" "$(stat -c %i "$SITE/_rocm_sdk_libraries/$CO")" \
  "multi-arch: inode of the expanded device link"
grep -qF "_rocm_sdk_devel/$CO," "$SITE/rocm_sdk_device_gfx942-$V2.dist-info/RECORD" \
  || fail "multi-arch: the expanded device links are not in the device wheel's RECORD"
[ ! -e "$SITE/rocm_sdk_devel/_devel.tar" ] || fail "multi-arch: the devel tarball is still there"
assert_eq "$(in_root "$ROOT" rocm-sdk version)" "$V2" "multi-arch: rocm-sdk version"
assert_eq "$(config_label "oci:$WORK/multi-arch:latest" org.rockpack.rocm.layout)" "multi-arch" "multi-arch: layout label"
echo "ok: multi-arch"

# ---- expand_devel: false ----------------------------------------------------------------------
therock_index "$WORK/one" --family "$FAMILY" --versions "$V1,$V2"
start_static one "$WORK/one"
rocm_recipe "$WORK/no-expand.yaml" no-expand <<EOF
rocm:
  source: therock
  index: "$(static_url one)/{family}/"
  targets: gfx942
  expand_devel: false
EOF
build_image no-expand
[ -f "$SITE/rocm_sdk_devel/_devel.tar" ] || fail "no-expand: the devel tarball is missing"
[ ! -e "$SITE/_rocm_sdk_devel" ] || fail "no-expand: _rocm_sdk_devel exists although expand_devel is false"
freeze=$(pip_freeze "$ROOT") || fail "no-expand: pip list fails"
assert_installed "$freeze" "rocm==$V2" "rocm-sdk-devel==$V2" "rocm-sdk-libraries-gfx94x-dcgpu==$V2"
# The tarball kept in the image is the real thing: rocm-sdk expands it at run time.
in_root "$ROOT" rocm-sdk init >/dev/null || fail "no-expand: rocm-sdk init fails in the image"
[ -f "$SITE/_rocm_sdk_devel/__init__.py" ] || fail "no-expand: rocm-sdk init did not expand the tree"
echo "ok: no-expand"

# ---- the profiler component ---------------------------------------------------------------------
rocm_recipe "$WORK/profiler.yaml" profiler <<EOF
rocm:
  source: therock
  index: "$(static_url one)/{family}/"
  targets: gfx942
  components: [libraries, devel, profiler]
EOF
build_image profiler
freeze=$(pip_freeze "$ROOT") || fail "profiler: pip list fails"
assert_installed "$freeze" "rocm==$V2" "rocm-profiler==$V2" "rocm-sdk-devel==$V2" "rocm-sdk-libraries-gfx94x-dcgpu==$V2"
[ -x "$SITE/_rocm_profiler/bin/rocprofv3" ] || fail "profiler: _rocm_profiler/bin/rocprofv3 missing"
check=$(pip_in "$ROOT" check) || fail "profiler: pip check is not clean: $check"
echo "ok: profiler"

echo "PASS: test_rocm_cases"
