#!/usr/bin/env bash
# Login shells keep the image's PATH (issue 14). PyTorch's CI runs its build in `bash -l`, where
# Debian's /etc/profile resets PATH; the image gets /etc/profile.d/zz-rockpack-env.sh, written from
# the final Env. Checked in a chroot of a venv + ROCm image (mock TheRock index) on the Debian base:
#  - `bash -lc 'rocm-sdk version; python -V'` works, with the runtime's Env and with none (su -);
#  - every PATH entry of the image's Env is on the login and the interactive shell's PATH, in order;
#  - other Env variables a login shell started without reach it; ones it has are left alone.
source "$(dirname "$0")/lib/common.sh"
source "$ROCKPACK_SOURCE_DIR/tests/integration/lib/python_fixtures.sh"
source "$ROCKPACK_SOURCE_DIR/tests/integration/lib/rocm_fixtures.sh"
need umoci; need skopeo
[ "$(id -u)" -eq 0 ] || skip "chroot needs root"
export SOURCE_DATE_EPOCH=1700000000

python_base
therock_index "$WORK/idx" --family "$FAMILY" --versions "$V1"
start_static idx "$WORK/idx"
rocm_recipe "$WORK/rocm.yaml" login-shell <<EOF
  packages: []
rocm:
  source: therock
  index: "$(static_url idx)/{family}/"
  targets: gfx942
  version: latest
env:
  RP_LOGIN_TEST: "it's kept"
tags: [latest]
EOF
build_digest "$WORK/rocm.yaml" -o "oci:$WORK/out:latest" >/dev/null || fail "the rocm build failed"
unpack "$WORK/out:latest" "$WORK/bundle"
ROOT="$WORK/bundle/rootfs"
[ -f "$ROOT/etc/profile.d/zz-rockpack-env.sh" ] || fail "no /etc/profile.d/zz-rockpack-env.sh in the image"

image_path=$(config_env "oci:$WORK/out:latest" | env_value PATH)
[[ "$image_path" == *"/opt/venv/bin"* ]] || fail "the image PATH has no venv: $image_path"
# What a container runtime does: the image's Env, then the command.
run_env() { chroot "$ROOT" /usr/bin/env -i "PATH=$image_path" HOME=/root TERM=dumb "$@"; }

out=$(run_env bash -lc 'rocm-sdk version; python -V' 2>&1) || fail "bash -lc 'rocm-sdk version; python -V' failed: $out"
assert_contains "$out" "$V1" "rocm-sdk version in a login shell"
assert_contains "$out" "Python $BASE_PY" "python -V in a login shell"
# su - / ssh: a login shell started with no environment at all.
out=$(chroot "$ROOT" /usr/bin/env -i HOME=/root bash -lc 'rocm-sdk version; python -V; echo "$RP_LOGIN_TEST"' 2>&1) \
  || fail "a login shell without the image Env failed: $out"
assert_contains "$out" "$V1" "rocm-sdk version without the runtime's Env"
assert_contains "$out" "it's kept" "an Env variable reaches a login shell that lacked it"
assert_eq "$(chroot "$ROOT" /usr/bin/env -i HOME=/root RP_LOGIN_TEST=mine bash -lc 'echo "$RP_LOGIN_TEST"')" "mine" \
  "a variable the shell has is left alone"

# Every PATH entry survives, in the image's order, in login and interactive shells.
for mode in -lc -ic; do
  shell_path=$(run_env bash "$mode" 'echo "$PATH"' 2>/dev/null | tail -n 1)
  python3 - "$image_path" "$shell_path" "$mode" <<'PY' || fail "PATH in bash $mode"
import sys
image, shell, mode = sys.argv[1].split(":"), sys.argv[2].split(":"), sys.argv[3]
missing = [p for p in image if p not in shell]
if missing:
    sys.exit(f"bash {mode}: {missing} missing from {shell}")
order = [shell.index(p) for p in image]
if order != sorted(order):
    sys.exit(f"bash {mode}: the image's order {image} is not kept in {shell}")
PY
done
echo "ok"
