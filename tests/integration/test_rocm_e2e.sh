#!/usr/bin/env bash
# The rocm: section end to end, checked inside the image by the image's own tools:
#  - a mock TheRock per-family index (tests/tools/make_therock_index.py, nightlies V1 < V2, torch
#    wheels for the Debian base's Python) served on loopback as static files, URL with {family};
#  - `packages: [torch]` + `rocm: {targets: gfx942, components: [libraries, devel], version: latest}`
#    on the Debian 12 python base, venv /opt/venv;
#  - umoci unpack + chroot: `rocm-sdk version/targets/path --root` (the devel tree is expanded at
#    build time: no tarball before or after), hardlinks shared with _rocm_sdk_core, launcher and
#    directory symlinks kept, `pip list` versions, `pip check` clean, ROCM_PATH from the login and the
#    interactive shell's startup files;
#  - the image config: Env (ROCM_PATH, PATH, PYTORCH_ROCM_ARCH, ROCM_SDK_TARGET_FAMILY), labels;
#  - a rebuild downloads nothing and gives the same digest; a pin `version: V1` gives V1 everywhere.
source "$(dirname "$0")/lib/common.sh"
source "$ROCKPACK_SOURCE_DIR/tests/integration/lib/python_fixtures.sh"
source "$ROCKPACK_SOURCE_DIR/tests/integration/lib/rocm_fixtures.sh"
need umoci; need skopeo
[ "$(id -u)" -eq 0 ] || skip "chroot needs root"
export SOURCE_DATE_EPOCH=1700000000

python_base

therock_index "$WORK/idx" --family "$FAMILY" --versions "$V1,$V2"
start_static idx "$WORK/idx"
URL_TEMPLATE="$(static_url idx)/{family}/"

write_recipe() {  # FILE VERSION
  rocm_recipe "$1" rocm-e2e <<EOF
  packages: [torch]
rocm:
  source: therock
  index: "$URL_TEMPLATE"
  targets: gfx942
  components: [libraries, devel]
  version: $2
tags: [latest]
EOF
}
write_recipe "$WORK/rocm.yaml" latest
IMG="oci:$WORK/out:latest"
digest1=$(build_digest "$WORK/rocm.yaml" -o "$IMG" --resolved "$WORK/resolved.json") \
  || fail "the rocm build failed"
[ -n "$digest1" ] || fail "the build printed no digest"
# Each rocm wheel was downloaded once: those prefetched while the base was read (the sdist pins
# them) are not fetched again by the resolution's downloads, which wait for the prefetch. (Two
# requests: the resolver's range read of the metadata, which the small mock wheels answer whole,
# and the download.)
static_stats idx | python3 -c '
import json, sys
s = json.load(sys.stdin)
wheels = {p: n for p, n in s["requests"].items() if p.endswith(".whl") and "rocm_sdk" in p}
assert len(wheels) == 3 and all(n <= 2 for n in wheels.values()), wheels' || fail "a rocm wheel was not downloaded exactly once: $(static_stats idx)"

# --- inside the image ---------------------------------------------------------------------------
unpack "$WORK/out:latest" "$WORK/bundle"
ROOT="$WORK/bundle/rootfs"
SITE="$ROOT/$SITE_REL"
DEVEL="$ROOT$DEVEL_ROOT"

# Expanded at build time: the tarball is gone before anything runs, and stays gone after.
[ ! -e "$SITE/rocm_sdk_devel/_devel.tar" ] || fail "the image still has rocm_sdk_devel/_devel.tar"
[ -f "$DEVEL/__init__.py" ] || fail "no expanded devel tree at $DEVEL_ROOT"
assert_eq "$(in_root "$ROOT" rocm-sdk version)" "$V2" "rocm-sdk version"
assert_eq "$(in_root "$ROOT" rocm-sdk targets)" "gfx942" "rocm-sdk targets"
assert_eq "$(in_root "$ROOT" rocm-sdk path --root)" "$DEVEL_ROOT" "rocm-sdk path --root"
[ ! -e "$SITE/rocm_sdk_devel/_devel.tar" ] || fail "rocm-sdk found something to expand at run time"

[ -x "$DEVEL/bin/hipcc" ] && [ ! -L "$DEVEL/bin/hipcc" ] || fail "bin/hipcc is not an executable file in the devel tree"
[ ! -L "$DEVEL/lib/libamdhip64.so.7" ] || fail "lib/libamdhip64.so.7 is still a symlink (should be a hardlink)"
assert_eq "$(stat -c %i "$DEVEL/lib/libamdhip64.so.7")" "$(stat -c %i "$SITE/_rocm_sdk_core/lib/libamdhip64.so.7")" \
  "inode of the devel hardlink vs _rocm_sdk_core"
assert_eq "$(stat -c %i "$DEVEL/bin/hipconfig")" "$(stat -c %i "$SITE/_rocm_sdk_core/bin/hipconfig")" \
  "inode of bin/hipconfig vs _rocm_sdk_core"
[ -L "$DEVEL/lib/llvm" ] && [ -d "$DEVEL/lib/llvm" ] || fail "lib/llvm is not a directory symlink"
[ -L "$DEVEL/bin/amdclang++" ] || fail "bin/amdclang++ is not a symlink"
[ -e "$DEVEL/bin/amdclang++" ] || fail "bin/amdclang++ dangles"
[ -f "$DEVEL/include/hip/hip_runtime.h" ] || fail "devel headers missing"
# pip uninstalls the expanded files: they are in rocm-sdk-devel's RECORD.
grep -qF "_rocm_sdk_devel/lib/libamdhip64.so.7," "$SITE/rocm_sdk_devel-$V2.dist-info/RECORD" \
  || fail "the expanded files are not in rocm-sdk-devel's RECORD"
# rocm was installed from its sdist by rockpack.
assert_eq "$(cat "$SITE/rocm-$V2.dist-info/INSTALLER")" "rockpack" "rocm's INSTALLER"
[ -e "$SITE/rocm-$V2.dist-info/REQUESTED" ] || fail "rocm's REQUESTED is missing"
assert_eq "$(in_root "$ROOT" python -c 'import torch; print(torch.version.hip)')" "$V2" "torch.version.hip"

freeze=$(pip_freeze "$ROOT") || fail "pip list fails in the image"
assert_installed "$freeze" "rocm==$V2" "rocm-sdk-core==$V2" "rocm-sdk-devel==$V2" \
  "rocm-sdk-libraries-gfx94x-dcgpu==$V2" "torch==$TORCH_V2"
grep -qi '^rocm-profiler==' <<<"$freeze" && fail "rocm-profiler installed without the profiler component"
check=$(pip_in "$ROOT" check) || fail "pip check is not clean: $check"
assert_contains "$check" "No broken requirements found" "pip check"

# The shells' startup files: login (profile.d) and interactive (bash.bashrc).
assert_eq "$(in_root "$ROOT" bash -lc 'echo $ROCM_PATH')" "$DEVEL_ROOT" "ROCM_PATH in a login shell"
assert_eq "$(in_root "$ROOT" bash -ic 'echo $ROCM_PATH' 2>/dev/null)" "$DEVEL_ROOT" "ROCM_PATH in an interactive shell"
# /etc/rocm_env.sh writes what PyTorch's install_rocm.sh writes (no PYTORCH_ROCM_ARCH: the image Env has it).
assert_eq "$(in_root "$ROOT" bash -ic 'echo ${PYTORCH_ROCM_ARCH:-unset}' 2>/dev/null)" "unset" "PYTORCH_ROCM_ARCH not in /etc/rocm_env.sh"
assert_eq "$(in_root "$ROOT" bash -lc 'command -v hipcc')" "$DEVEL_ROOT/bin/hipcc" "hipcc on the login shell's PATH"
grep -qF "/etc/rocm_env.sh" "$ROOT/etc/bash.bashrc" || fail "/etc/bash.bashrc does not source /etc/rocm_env.sh"
grep -qF "[ -z \"\$PS1\" ] && return" "$ROOT/etc/bash.bashrc" || fail "the base image's bash.bashrc was replaced, not extended"

# --- image config --------------------------------------------------------------------------------
env=$(config_env "$IMG")
assert_eq "$(env_value ROCM_PATH <<<"$env")" "$DEVEL_ROOT" "Env ROCM_PATH"
assert_eq "$(env_value PYTORCH_ROCM_ARCH <<<"$env")" "gfx942" "Env PYTORCH_ROCM_ARCH"
assert_eq "$(env_value ROCM_SDK_TARGET_FAMILY <<<"$env")" "$FAMILY" "Env ROCM_SDK_TARGET_FAMILY"
assert_contains "$(env_value PATH <<<"$env")" "$DEVEL_ROOT/bin:/opt/venv/bin:" "Env PATH"
assert_eq "$(config_label "$IMG" org.rockpack.rocm.version)" "$V2" "label org.rockpack.rocm.version"
assert_eq "$(config_label "$IMG" org.rockpack.torch.version)" "$TORCH_V2" "label org.rockpack.torch.version"
assert_eq "$(config_label "$IMG" org.rockpack.rocm.targets)" "gfx942" "label org.rockpack.rocm.targets"
assert_eq "$(config_label "$IMG" org.rockpack.rocm.family)" "$FAMILY" "label org.rockpack.rocm.family"
assert_eq "$(config_label "$IMG" org.rockpack.rocm.layout)" "per-family" "label org.rockpack.rocm.layout"
# The index label names the URL the packages came from ({family} substituted; the spec said "as given").
assert_eq "$(config_label "$IMG" org.rockpack.rocm.index)" "$(static_url idx)/$FAMILY/" "label org.rockpack.rocm.index"

# --resolved records the rocm choice next to the python packages.
python3 - "$WORK/resolved.json" "$V2" "$FAMILY" <<'PY' || fail "resolved.json lacks the rocm section: $(cat "$WORK/resolved.json")"
import json, sys
r = json.load(open(sys.argv[1]))
rocm = r["rocm"]
assert rocm["version"] == sys.argv[2], rocm
assert rocm["layout"] == "per-family", rocm
assert sys.argv[3] in json.dumps(rocm["families"]), rocm
assert "gfx942" in json.dumps(rocm["targets"]), rocm
names = {p["name"] for p in r["python"]["packages"]}
assert {"torch", "rocm-sdk-core", "rocm-sdk-devel"} <= names, names
PY

# --- a rebuild: nothing downloaded, same image ------------------------------------------------
reset_static idx
digest2=$(build_digest "$WORK/rocm.yaml" -o "oci:$WORK/out2:latest") || fail "the rebuild failed"
assert_eq "$digest2" "$digest1" "rebuild digest"
assert_eq "$(file_downloads idx)" "" "files downloaded by the rebuild"

# --- a pinned older nightly ------------------------------------------------------------------
write_recipe "$WORK/pinned.yaml" "$V1"
PIN="oci:$WORK/pinned:latest"
build_digest "$WORK/pinned.yaml" -o "$PIN" >/dev/null || fail "the pinned build failed"
unpack "$WORK/pinned:latest" "$WORK/pinned-bundle"
PROOT="$WORK/pinned-bundle/rootfs"
assert_eq "$(in_root "$PROOT" rocm-sdk version)" "$V1" "pinned: rocm-sdk version"
freeze=$(pip_freeze "$PROOT") || fail "pip list fails in the pinned image"
assert_installed "$freeze" "rocm==$V1" "rocm-sdk-core==$V1" "rocm-sdk-devel==$V1" \
  "rocm-sdk-libraries-gfx94x-dcgpu==$V1" "torch==$TORCH_V1"
grep -q "$V2" <<<"$freeze" && fail "pinned image has a $V2 package: $freeze"
assert_eq "$(config_label "$PIN" org.rockpack.rocm.version)" "$V1" "pinned: label org.rockpack.rocm.version"
assert_eq "$(config_label "$PIN" org.rockpack.torch.version)" "$TORCH_V1" "pinned: label org.rockpack.torch.version"
assert_eq "$(in_root "$PROOT" bash -lc 'echo $ROCM_PATH')" "$DEVEL_ROOT" "pinned: ROCM_PATH"

echo "PASS: test_rocm_e2e"
