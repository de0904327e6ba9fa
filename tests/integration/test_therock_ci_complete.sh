#!/usr/bin/env bash
# layers/therock-pytorch-ci.yaml — the body of recipes/pytorch-therock-rocm-ci.yaml and the family
# recipes — built complete and offline: the PyTorch CI image in which PyTorch's CI job installs nothing.
#  - the fragment is included unchanged by a test recipe that swaps only what must be local: the base
#    (the Debian 12 test base, lib/debian_base.sh), the apt sources (this machine's Debian mirror,
#    bookworm, instead of the base's own), and, through the fragment's args, the TheRock index (a mock
#    one, tests/tools/make_therock_index.py, on loopback), the standalone CPython (made from the
#    Debian base), the index of pip/setuptools/wheel (Debian's real wheels, /usr/share/python-wheels,
#    on loopback) and the cmake pin (CMAKE_APT_VERSION: install_base.sh's 3.22* is Ubuntu 22.04's;
#    bookworm has 3.25). Every other package name of the list exists in bookworm as in jammy.
#  - maintainer scripts run (APT_SCRIPTS=run, the fragment's default; this needs root here);
#  - in a chroot of the unpacked image (umoci): cc and g++ compile and the programs run; cmake,
#    ninja, git, gfortran, ccache, make run; dpkg --audit and apt-get check are clean; the jenkins user
#    is uid/gid 1000 with home /var/lib/jenkins and bash; /etc/sudoers.d/jenkins is 0440 root,
#    `visudo -c` accepts it (and /etc/sudoers, 0440 by sudo's postinst) and jenkins runs `sudo -n`
#    without a password; the venv has pip
#    (`python -m pip --version`), setuptools and wheel; ROCm and torch are still there (rocm-sdk);
#  - the image config: User jenkins, Env LANG and LC_ALL C.UTF-8, DEBIAN_FRONTEND;
#  - with APT_SCRIPTS=native (the nightly workflow's unprivileged container) it builds too, and cc,
#    cmake, git and jenkins' sudo work.
# Skips (77) without root, umoci, the Debian keyring, a reachable Debian mirror or Debian's pip wheels.
source "$(dirname "$0")/lib/common.sh"
source "$ROCKPACK_SOURCE_DIR/tests/integration/lib/python_fixtures.sh"
source "$ROCKPACK_SOURCE_DIR/tests/integration/lib/rocm_fixtures.sh"
need umoci
[ "$(id -u)" -eq 0 ] || skip "the Debian fixture and the chroot need root"
need_sandbox
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
[ -r "$KEYRING" ] || skip "no $KEYRING on this machine (package debian-archive-keyring)"
WHEELS=()
for w in pip setuptools wheel; do
  f=$(ls /usr/share/python-wheels/"$w"-*-py3-none-any.whl 2>/dev/null | head -n 1 || true)
  [ -n "$f" ] || skip "no $w wheel in /usr/share/python-wheels (python3-pip-whl, python3-setuptools-whl, python3-wheel-whl)"
  WHEELS+=("$f")
done
rc=0; MIRROR=$(debian_apt_mirror) || rc=$?
[ "$rc" -eq 77 ] && skip "no reachable Debian mirror in the apt configuration"
[ "$rc" -eq 0 ] || fail "debian_apt_mirror failed"
export SOURCE_DATE_EPOCH=1700000000
cd "$WORK" || exit 1

python_base
debian_python_standalone_archive "$WORK/python.tar.gz" || fail "no standalone archive"
therock_index "$WORK/idx" --family "$FAMILY" --versions "$V1,$V2"
start_static idx "$WORK/idx"
mkdir -p "$WORK/pypi"
cp "${WHEELS[@]}" "$WORK/pypi/"
start_index pypi "$WORK/pypi"
PIP_V=$(basename "${WHEELS[0]}" | cut -d- -f2)

# The fragment as it is in the repository; the test recipe adds only the base and the apt source.
cat >"$WORK/ci.yaml" <<EOF
name: therock-ci-complete
include: [$ROCKPACK_SOURCE_DIR/layers/therock-pytorch-ci.yaml]
args:
  PYTORCH_ROCM_ARCH: gfx942
base: oci:$BASE:base
apt:
  sources:
    - {url: "$MIRROR", suite: bookworm, components: [main], signed_by: $KEYRING}
EOF
ARGS=(--set "PYTHON_STANDALONE_URL=file://$WORK/python.tar.gz"
      --set "PYTHON_STANDALONE_SHA256=$(sha256_of "$WORK/python.tar.gz")"
      --set "THEROCK_NIGHTLY_INDEX_URL=$(static_url idx)/{family}/"
      --set "PYPI_INDEX_URL=$(index_url pypi)/simple/"
      --set 'CMAKE_APT_VERSION=3.25*')
"$ROCKPACK" validate "$WORK/ci.yaml" "${ARGS[@]}" >"$WORK/validate.log" 2>&1 \
  || fail "validate rejects the recipe: $(cat "$WORK/validate.log")"

BUILD=(--compression gzip:1 --cache-dir "$WORK/c")
start=$SECONDS
"$ROCKPACK" build "$WORK/ci.yaml" "${ARGS[@]}" "${BUILD[@]}" -o "oci:$WORK/img:ci" --resolved "$WORK/resolved.json" \
  >"$WORK/build.out" 2>"$WORK/build.log" || fail "the fragment does not build: $(tail -n 40 "$WORK/build.log")"
echo "build: $((SECONDS - start)) s"
# The device nodes a container runtime would give (git, gdb and sudo open /dev/null).
devs() {  # ROOT
  mkdir -p "$1/dev"
  mknod -m 666 "$1/dev/null" c 1 3 && mknod -m 666 "$1/dev/zero" c 1 5 && mknod -m 666 "$1/dev/urandom" c 1 9 \
    || fail "cannot make device nodes in $1/dev"
}
unpack "$WORK/img:ci" "$WORK/u"
R="$WORK/u/rootfs"
devs "$R"
# A clean environment with the image's PATH (as a CI step gets it).
PATH_IN=/opt/venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
in_ci() { chroot "$R" /usr/bin/env -i PATH="$PATH_IN" HOME=/root LANG=C.UTF-8 "$@"; }

# --- install_base.sh's tools ------------------------------------------------------------------------
mkdir -p "$R/tmp/t"
printf '#include <stdio.h>\nint main(void) { puts("c ok"); return 0; }\n' >"$R/tmp/t/hello.c"
printf '#include <iostream>\n#include <vector>\nint main() { std::vector<int> v{1, 2}; std::cout << "c++ ok " << v.size() << "\\n"; }\n' \
  >"$R/tmp/t/hello.cpp"
out=$(in_ci sh -c 'cc -O2 -o /tmp/t/c /tmp/t/hello.c && /tmp/t/c') || fail "cc does not compile in the image: $out"
assert_eq "$out" "c ok" "a C program built with cc"
out=$(in_ci sh -c 'g++ -std=c++17 -o /tmp/t/cpp /tmp/t/hello.cpp && /tmp/t/cpp') || fail "g++ does not compile in the image: $out"
assert_eq "$out" "c++ ok 2" "a C++ program built with g++"
for tool in "cmake --version" "ninja --version" "git --version" "gfortran --version" "ccache --version" \
  "make --version" "pkg-config --version" "curl --version" "jq --version" "gdb --version"; do
  out=$(in_ci $tool 2>&1) || fail "'$tool' fails in the image: $out"
done
assert_contains "$(in_ci cmake --version)" "cmake version 3.25" "cmake is the pinned version"
# cmake + ninja configure and build a project.
mkdir -p "$R/tmp/t/proj"
printf 'cmake_minimum_required(VERSION 3.18)\nproject(p C CXX)\nadd_executable(p ../hello.cpp)\n' >"$R/tmp/t/proj/CMakeLists.txt"
out=$(in_ci sh -c 'cd /tmp/t/proj && cmake -G Ninja -S . -B b >/dev/null && cmake --build b >/dev/null && ./b/p' 2>&1) \
  || fail "cmake -G Ninja cannot build a project in the image: $out"
assert_eq "$out" "c++ ok 2" "a cmake/ninja build"
rm -rf "$R/tmp/t"
chroot "$R" dpkg-query -W -f '${Package} ${Status}\n' >"$WORK/dpkg.txt" || fail "dpkg-query fails in the image"
for p in build-essential cmake gfortran libatlas-base-dev libjemalloc2 zlib1g-dev libsndfile1-dev sudo vim \
  software-properties-common libgnutls30 libpciaccess-dev ninja-build ccache libnuma-dev valgrind; do
  grep -qx "$p install ok installed" "$WORK/dpkg.txt" || fail "$p is not installed: $(grep "^$p " "$WORK/dpkg.txt")"
done
audit=$(chroot "$R" dpkg --audit 2>&1) || fail "dpkg --audit fails: $audit"
[ -z "$audit" ] || fail "dpkg --audit reports unconfigured packages: $audit"
chroot "$R" apt-get check >"$WORK/check.log" 2>&1 || fail "apt-get check fails: $(cat "$WORK/check.log")"
assert_contains "$(cat "$WORK/build.log")" "running the maintainer scripts" "the maintainer scripts ran (APT_SCRIPTS=run)"

# --- jenkins and sudo -----------------------------------------------------------------------------
grep -qx 'jenkins:x:1000:1000::/var/lib/jenkins:/bin/bash' "$R/etc/passwd" || fail "jenkins in /etc/passwd: $(grep jenkins "$R/etc/passwd")"
assert_eq "$(chroot "$R" id jenkins)" "uid=1000(jenkins) gid=1000(jenkins) groups=1000(jenkins)" "id jenkins"
assert_eq "$(stat -c %u:%g:%a "$R/var/lib/jenkins")" "1000:1000:755" "/var/lib/jenkins"
assert_eq "$(stat -c %u:%g:%a "$R/etc/sudoers.d/jenkins")" "0:0:440" "/etc/sudoers.d/jenkins owner and mode"
assert_eq "$(cat "$R/etc/sudoers.d/jenkins")" "jenkins ALL=(ALL) NOPASSWD:ALL" "/etc/sudoers.d/jenkins"
out=$(chroot "$R" visudo -c 2>&1) || fail "visudo -c rejects the sudoers files: $out"
assert_contains "$out" "/etc/sudoers.d/jenkins: parsed OK" "visudo -c"
# (sudo warns on stderr that it cannot resolve the host name: the chroot has no /etc/hosts entry.)
as_jenkins_sudo() {  # ROOT
  chroot --userspec=1000:1000 "$1" /usr/bin/env -i PATH="$PATH_IN" HOME=/var/lib/jenkins sudo -n id -u 2>"$WORK/sudo.err" \
    || fail "jenkins cannot sudo without a password: $(cat "$WORK/sudo.err")"
}
assert_eq "$(as_jenkins_sudo "$R")" "0" "sudo -n as jenkins"
assert_eq "$(chroot "$R" sudo -u jenkins -n id -un 2>/dev/null)" "jenkins" "sudo -u jenkins -n"
# sudo's postinst makes /etc/sudoers 0440 (the package ships it 0644): the scripts ran.
assert_eq "$(stat -c %a "$R/etc/sudoers")" "440" "/etc/sudoers mode (sudo's postinst)"

# --- the venv: pip, setuptools, wheel; ROCm and torch kept ------------------------------------------
out=$(in_ci python -m pip --version) || fail "python -m pip fails in the venv: $out"
assert_contains "$out" "pip $PIP_V from /opt/venv/" "python -m pip --version"
in_ci python -c 'import setuptools, wheel' || fail "setuptools or wheel cannot be imported in the venv"
assert_eq "$(in_ci rocm-sdk version)" "$V2" "rocm-sdk version"
assert_eq "$(in_ci python -c 'import torch; print(torch.version.hip)')" "$V2" "torch.version.hip"
[ -f "$R/etc/rocm_env.sh" ] || fail "no /etc/rocm_env.sh"
assert_eq "$(chroot "$R" env -i /bin/bash -lc 'echo $ROCM_PATH')" "$DEVEL_ROOT" "ROCM_PATH in a login shell"

# --- the image config -----------------------------------------------------------------------------
"$ROCKPACK" inspect --json "oci:$WORK/img:ci" >"$WORK/inspect.json" || fail "inspect fails"
assert_eq "$(json_get "$WORK/inspect.json" 'd["config"]["User"]')" "jenkins" "config User"
env_lines=$(json_get "$WORK/inspect.json" '"\n".join(d["config"]["Env"])')
for e in LANG=C.UTF-8 LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive PYTORCH_ROCM_ARCH=gfx942; do
  grep -qxF "$e" <<<"$env_lines" || fail "config Env lacks $e: $env_lines"
done

# --- rockpack check: the fragment's checks: in the sandbox, as the workflow runs them before a push --
out=$("$ROCKPACK" check "oci:$WORK/img:ci" --recipe "$WORK/ci.yaml" "${ARGS[@]}" --cache-dir "$WORK/c" 2>"$WORK/check.err") ||
  fail "rockpack check fails on the CI image: $out $(tail -n 20 "$WORK/check.err")"
assert_contains "$out" "6 of 6 checks passed" "rockpack check runs the fragment's checks"

# --- APT_SCRIPTS=native: what an unprivileged container builds -------------------------------------
"$ROCKPACK" build "$WORK/ci.yaml" "${ARGS[@]}" "${BUILD[@]}" --set APT_SCRIPTS=native -o "oci:$WORK/native:ci" \
  >"$WORK/native.out" 2>"$WORK/native.log" || fail "the build with APT_SCRIPTS=native fails: $(tail -n 20 "$WORK/native.log")"
assert_contains "$(cat "$WORK/native.log")" "maintainer scripts were not run" "APT_SCRIPTS=native: the log says the scripts did not run"
unpack "$WORK/native:ci" "$WORK/n"
devs "$WORK/n/rootfs"
out=$(chroot "$WORK/n/rootfs" /usr/bin/env -i PATH="$PATH_IN" sh -c 'cc --version && cmake --version && git --version') \
  || fail "APT_SCRIPTS=native: cc, cmake or git fails: $out"
# Without sudo's postinst /etc/sudoers keeps the package's 0644: sudo accepts it (visudo -c would not).
assert_eq "$(as_jenkins_sudo "$WORK/n/rootfs")" "0" "APT_SCRIPTS=native: sudo -n as jenkins"
echo "PASS"
