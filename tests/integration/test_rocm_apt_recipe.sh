#!/usr/bin/env bash
# recipes/pytorch-rocm-apt-ci.yaml, the traditional ROCm apt path (PyTorch's install_rocm.sh), built
# against a fake, signed copy of repo.radeon.com/rocm/apt/<ver> (tests/tools/make_fake_rocm_repo.sh:
# the real packages' names, dependencies and /opt/rocm-<ver> layout) served on loopback, on the
# Debian 12 test base (lib/debian_base.sh), whose own sources (the machine's Debian mirror) give the
# ROCm packages' python3-yaml, libnuma1, libdrm-amdgpu1, ... (the recipe's source is added to them):
#  - `validate` accepts the recipe with the test's --set values;
#  - the build verifies the fake repository's signature; in a chroot of the unpacked image (umoci):
#    /opt/rocm -> /etc/alternatives/rocm -> /opt/rocm-<ver> (rocm-core's postinst, run in the sandbox), /opt/rocm/bin/hipcc --version runs, dpkg-query lists every fake
#    package at its generated version (and the distribution packages they need), dpkg --verify is
#    clean, apt-get check passes, /etc/rocm_env.sh puts hipcc on PATH, jenkins is uid/gid 1000 with
#    home /var/lib/jenkins; the image config has User jenkins and ROCM_PATH, LANG, LC_ALL,
#    PYTORCH_ROCM_ARCH in Env; a warm rebuild gives the same digest;
#  - the same build with the wrong key as ROCM_APT_KEY fails (exit 1) naming the signature, the
#    source and the key file, and writes nothing.
# Skips (77) without root, umoci, gpg/dpkg-deb/apt-ftparchive, or a reachable Debian mirror.
source "$(dirname "$0")/lib/common.sh"
source "$ROCKPACK_SOURCE_DIR/tests/integration/lib/python_fixtures.sh"
source "$ROCKPACK_SOURCE_DIR/tests/integration/lib/apt_repo.sh"
need umoci; need gpg; need dpkg-deb; need dpkg-scanpackages; need apt-ftparchive
[ "$(id -u)" -eq 0 ] || skip "the Debian fixture and the chroot need root"
need_sandbox
debian_archive
export SOURCE_DATE_EPOCH=1700000000
VER=${ROCKPACK_TEST_ROCM_VERSION:-6.4.1}  # the fake repository's ROCm version
HIP="${VER%.*}.43483"                  # the HIP version make_fake_rocm_repo.sh gives it
RECIPE="$ROCKPACK_SOURCE_DIR/recipes/pytorch-rocm-apt-ci.yaml"
cd "$WORK" || exit 1

BASE="$WORK/base"
python_base
rc=0; bash "$ROCKPACK_SOURCE_DIR/tests/tools/make_fake_rocm_repo.sh" "$WORK/r" "$VER" >/dev/null || rc=$?
[ "$rc" -eq 77 ] && skip "make_fake_rocm_repo.sh cannot run here"
[ "$rc" -eq 0 ] || fail "make_fake_rocm_repo.sh failed (exit $rc)"
apt_repo_serve "$WORK/r" >/dev/null
ROCM_URL="$APT_REPO_URL/rocm/apt/$VER"

# The recipe as it is in the repository; only args change.
sets() {  # ROCM_KEY_FILE
  echo --set "BASE_IMAGE=oci:$BASE:base" --set "ROCM_VERSION=$VER" --set "ROCM_APT_URL=$ROCM_URL" \
    --set "ROCM_APT_KEY=$1" --set UBUNTU_VERSION=debian12-test
}
# shellcheck disable=SC2207 # no value has a space
GOOD=($(sets "$WORK/r/keys/test.asc"))
"$ROCKPACK" validate "$RECIPE" "${GOOD[@]}" >"$WORK/validate.log" 2>&1 \
  || fail "validate rejects the recipe: $(cat "$WORK/validate.log")"

# --- the build ----------------------------------------------------------------------------------------
"$ROCKPACK" build "$RECIPE" "${GOOD[@]}" --cache-dir "$WORK/c" -o "oci:$WORK/img:rocm" >"$WORK/build.out" 2>"$WORK/build.log" \
  || fail "the recipe does not build: $(tail -n 40 "$WORK/build.log")"
assert_contains "$(cat "$WORK/build.log")" "signed by $(cat "$WORK/r/keys/test.fpr")" "the log names the key that signed the ROCm Release"
umoci unpack --image "$WORK/img:rocm" "$WORK/u" >/dev/null
R="$WORK/u/rootfs"

# /opt/rocm -> /etc/alternatives/rocm -> /opt/rocm-<ver>: made by rocm-core's postinst, which ran in
# the sandbox (apt: scripts: run, the recipe's default).
[ -L "$R/opt/rocm" ] || fail "/opt/rocm is not a symlink (rocm-core's postinst did not run)"
assert_eq "$(readlink "$R/opt/rocm")" "/etc/alternatives/rocm" "/opt/rocm is an alternative"
assert_eq "$(readlink "$R/etc/alternatives/rocm")" "/opt/rocm-$VER" "the rocm alternative points at the versioned tree"
assert_contains "$(chroot "$R" update-alternatives --display rocm)" "link currently points to /opt/rocm-$VER" "update-alternatives knows rocm"
assert_eq "$(chroot "$R" readlink -f /opt/rocm/bin/hipcc)" "/opt/rocm-$VER/bin/hipcc" "hipcc resolves into /opt/rocm-$VER"
assert_eq "$(cat "$R/opt/rocm-$VER/.info/version")" "$VER-83~22.04" ".info/version"
for f in lib/libamdhip64.so lib/librocblas.so lib/librccl.so lib/libroctracer64.so lib/librocprofiler64.so \
  lib/libamd_smi.so lib/llvm/bin/clang include/hip/hip_runtime.h amdgcn/bitcode/ocml.bc; do
  [ -e "$R/opt/rocm-$VER/$f" ] || fail "/opt/rocm-$VER/$f is missing"
done
out=$(chroot "$R" /opt/rocm/bin/hipcc --version) || fail "hipcc --version fails in the image: $out"
assert_contains "$out" "HIP version: $HIP" "hipcc --version: the HIP version"
assert_contains "$out" "roc-$VER" "hipcc --version: the clang it drives"

# The dpkg database: every fake package at the generated version, installed, plus the distribution
# packages they need (from the second source).
chroot "$R" dpkg-query -W -f '${Package}=${Version} ${Status}\n' >"$WORK/dpkg.txt" || fail "dpkg-query fails in the image"
n=0
while read -r pv; do
  grep -qxF "$pv install ok installed" "$WORK/dpkg.txt" || fail "dpkg-query does not list $pv as installed: $(grep "^${pv%%=*}=" "$WORK/dpkg.txt")"
  n=$((n + 1))
done <"$WORK/r/packages.txt"
[ "$n" -ge 20 ] || fail "only $n packages in the fake repository"
for p in python3-yaml libnuma1 libelf1 libdrm-amdgpu1 kmod; do
  grep -q "^$p=.* install ok installed$" "$WORK/dpkg.txt" || fail "the distribution dependency $p is not installed"
done
verify=$(chroot "$R" dpkg --verify 2>&1) || fail "dpkg --verify fails: $verify"
[ -z "$verify" ] || fail "dpkg --verify reports changes: $verify"
chroot "$R" apt-get check >"$WORK/check.log" 2>&1 || fail "apt-get check fails: $(cat "$WORK/check.log")"
assert_eq "$(chroot "$R" dpkg -S /opt/rocm-$VER/bin/hipcc | cut -d: -f1)" "hipcc" "dpkg -S knows hipcc's file"

# Users, environment file, image config.
grep -qx 'jenkins:x:1000:1000::/var/lib/jenkins:/bin/bash' "$R/etc/passwd" || fail "no jenkins:1000 in /etc/passwd: $(grep jenkins "$R/etc/passwd")"
grep -q '^jenkins:x:1000:' "$R/etc/group" || fail "no jenkins group 1000"
[ "$(stat -c %u:%g "$R/var/lib/jenkins")" = "1000:1000" ] || fail "/var/lib/jenkins is not jenkins'"
assert_contains "$(cat "$R/etc/rocm_env.sh")" "export ROCM_PATH=/opt/rocm" "/etc/rocm_env.sh sets ROCM_PATH"
out=$(chroot "$R" env -i /bin/bash -c '. /etc/rocm_env.sh; echo "$ROCM_PATH $LD_LIBRARY_PATH"; hipcc --version | head -n 1') \
  || fail "/etc/rocm_env.sh does not put hipcc on PATH: $out"
assert_eq "$out" "/opt/rocm /opt/rocm/lib
HIP version: $HIP-fake" "a shell that sources /etc/rocm_env.sh"
out=$(chroot "$R" env -i /bin/bash -lc 'echo "$ROCM_PATH"; command -v hipcc') || fail "a login shell fails: $out"
assert_eq "$out" "/opt/rocm
/opt/rocm/bin/hipcc" "a login shell has ROCM_PATH and hipcc"
"$ROCKPACK" inspect --json "oci:$WORK/img:rocm" >"$WORK/inspect.json" || fail "inspect fails"
assert_eq "$(json_get "$WORK/inspect.json" 'd["config"]["User"]')" "jenkins" "config User"
env_lines=$(json_get "$WORK/inspect.json" '"\n".join(d["config"]["Env"])')
for e in ROCM_PATH=/opt/rocm LANG=C.UTF-8 LC_ALL=C.UTF-8 "PYTORCH_ROCM_ARCH=gfx90a;gfx942;gfx950;gfx1100" ROCM_VERSION=$VER; do
  grep -qxF "$e" <<<"$env_lines" || fail "config Env lacks $e: $env_lines"
done
grep -q '^PATH=/opt/rocm/bin:/opt/rocm/llvm/bin:' <<<"$env_lines" || fail "config PATH does not start with /opt/rocm/bin: $env_lines"

# A warm rebuild (the Releases are fetched and verified again) gives the same image.
d2=$("$ROCKPACK" --quiet build "$RECIPE" "${GOOD[@]}" --cache-dir "$WORK/c" -o "oci:$WORK/img2:rocm" 2>"$WORK/build2.log" | tail -n 1) \
  || fail "the rebuild failed: $(cat "$WORK/build2.log")"
[[ $d2 == sha256:* ]] || fail "no digest from the rebuild: '$d2'"
assert_eq "$d2" "$(tail -n 1 "$WORK/build.out")" "the warm rebuild's digest"

# --- the wrong key: refused, nothing written ----------------------------------------------------------
# shellcheck disable=SC2207
BAD=($(sets "$WORK/r/keys/wrong.asc"))
rc=0
out=$("$ROCKPACK" build "$RECIPE" "${BAD[@]}" --cache-dir "$WORK/c" -o "oci:$WORK/bad:x" 2>&1) || rc=$?
assert_eq "$rc" "1" "wrong ROCM_APT_KEY: exit code"
assert_contains "$out" "signature verification failed" "wrong ROCM_APT_KEY: the message names the signature"
assert_contains "$out" "$ROCM_URL jammy/main" "wrong ROCM_APT_KEY: the message names the source"
assert_contains "$out" "wrong.asc" "wrong ROCM_APT_KEY: the message names the key file"
[ ! -e "$WORK/bad" ] || fail "wrong ROCM_APT_KEY: an output was written"
echo "PASS"
