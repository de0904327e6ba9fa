#!/usr/bin/env bash
# apt: against Debian's real archive (the mirror of this machine's apt configuration, bookworm,
# verified with the host's debian-archive-keyring):
#  - `base: scratch` + ?essential + ?priority(required) + python3 + ca-certificates — what
#    `debootstrap --variant=minbase` installs, plus two packages. In a chroot of the unpacked image:
#    /bin/sh runs, dpkg -l lists every package, dpkg --verify is clean, apt-get check succeeds,
#    python3 imports ssl and finds the CA bundle. The package set is compared with the debootstrap
#    minbase + python3 tree the Python tests use (tests/integration/lib/debian_base.sh): the same
#    packages plus the two asked for.
#  - that Debian base (from a layout) + build-essential, cmake, git: cc compiles and runs a C
#    program, c++ and cmake and git work (alternatives made natively: cc, c++).
# Skips (77) when the machine has no Debian mirror or cannot run debootstrap.
source "$(dirname "$0")/lib/common.sh"
source "$ROCKPACK_SOURCE_DIR/tests/integration/lib/python_fixtures.sh"
need umoci; need skopeo
[ "$(id -u)" -eq 0 ] || skip "chroot needs root"
debian_archive
export SOURCE_DATE_EPOCH=1700000000
cd "$WORK"

# --- minbase from nothing -------------------------------------------------------------------------------
cat >"$WORK/minbase.yaml" <<EOF
name: minbase
base: scratch
apt:
  sources: [{url: "$MIRROR", suite: bookworm, components: [main], signed_by: "$KEYRING"}]
  packages: ["?essential", "?priority(required)", python3, ca-certificates]
cmd: [/bin/bash]
EOF
d1=$("$ROCKPACK" build "$WORK/minbase.yaml" --cache-dir "$WORK/c" -o "oci:$WORK/img:minbase" 2>"$WORK/minbase.log" | tail -n 1) \
  || fail "minbase build failed: $(cat "$WORK/minbase.log")"
umoci unpack --image "$WORK/img:minbase" "$WORK/m" >/dev/null
R="$WORK/m/rootfs"
assert_eq "$(chroot "$R" /bin/sh -c 'echo ok')" "ok" "/bin/sh runs"
[ -L "$R/bin" ] && [ -L "$R/lib" ] || fail "the scratch root is not merged-/usr"
chroot "$R" dpkg -l >"$WORK/dpkg-l.txt" || fail "dpkg -l fails"
for p in dpkg apt bash coreutils libc6 python3 python3.11 ca-certificates usr-is-merged; do
  grep -q "^ii  $p[: ]" "$WORK/dpkg-l.txt" || fail "dpkg -l does not list $p as installed"
done
! grep -q '^ii  usrmerge ' "$WORK/dpkg-l.txt" || fail "usrmerge was installed on a root that is merged already"
verify=$(chroot "$R" dpkg --verify 2>&1) || fail "dpkg --verify fails: $verify"
[ -z "$verify" ] || fail "dpkg --verify reports changes: $verify"
chroot "$R" apt-get check >"$WORK/check.log" 2>&1 || fail "apt-get check fails: $(cat "$WORK/check.log")"
[ -s "$R/etc/ssl/certs/ca-certificates.crt" ] || fail "no CA bundle"
out=$(chroot "$R" python3 -c 'import ssl; c = ssl.create_default_context(); print(c.cert_store_stats()["x509_ca"] > 100)') \
  || fail "python3 -c 'import ssl' fails: $out"
assert_eq "$out" "True" "python3 loads the CA bundle"
assert_eq "$(chroot "$R" which bash)" "/usr/bin/bash" "which (an alternative made natively) works"
grep -q '^root:' "$R/etc/passwd" || fail "no root in /etc/passwd (base-passwd)"
grep -qx '/bin/bash' "$R/etc/shells" || fail "/etc/shells lacks /bin/bash"

# The package set of debootstrap --variant=minbase --include=python3 for the same suite.
tarball=$(debian_python_rootfs_tarball 2>/dev/null) || true
if [ -n "$tarball" ] && [ -f "$tarball" ]; then
  tar -xzOf "$tarball" ./var/lib/dpkg/status | sed -n 's/^Package: //p' | sort >"$WORK/debootstrap.txt"
  sed -n 's/^Package: //p' "$R/var/lib/dpkg/status" | sort >"$WORK/ours.txt"
  missing=$(comm -23 "$WORK/debootstrap.txt" "$WORK/ours.txt")
  [ -z "$missing" ] || fail "packages debootstrap installs that this build lacks: $missing"
  extra=$(comm -13 "$WORK/debootstrap.txt" "$WORK/ours.txt" | tr '\n' ' ')
  assert_eq "$extra" "ca-certificates openssl " "the only extra packages are the CA certificates asked for"
fi

d2=$("$ROCKPACK" --quiet build "$WORK/minbase.yaml" --cache-dir "$WORK/c" -o "oci:$WORK/img:minbase2" 2>/dev/null | tail -n 1)
assert_eq "$d2" "$d1" "the warm rebuild gives the same digest"

# --- a Debian base + build-essential, cmake, git ------------------------------------------------------
BASE="$WORK/base"
python_base
cat >"$WORK/dev.yaml" <<EOF
name: dev
base: oci:$BASE:base
apt:
  sources: [{url: "$MIRROR", suite: bookworm, components: [main], signed_by: "$KEYRING"}]
  packages: [build-essential, cmake, git]
EOF
"$ROCKPACK" --quiet build "$WORK/dev.yaml" --cache-dir "$WORK/c" -o "oci:$WORK/img:dev" >/dev/null 2>"$WORK/dev.log" \
  || fail "build-essential build failed: $(cat "$WORK/dev.log")"
umoci unpack --image "$WORK/img:dev" "$WORK/d" >/dev/null
D="$WORK/d/rootfs"
printf '#include <stdio.h>\nint main(void) { printf("compiled %%d\\n", 6 * 7); return 0; }\n' >"$D/tmp/hello.c"
chroot "$D" cc -o /tmp/hello /tmp/hello.c || fail "cc cannot compile in the image"
assert_eq "$(chroot "$D" /tmp/hello)" "compiled 42" "the compiled program runs"
printf '#include <iostream>\nint main() { std::cout << "c++ ok" << std::endl; }\n' >"$D/tmp/hello.cc"
chroot "$D" c++ -o /tmp/hellocc /tmp/hello.cc || fail "c++ cannot compile in the image"
assert_eq "$(chroot "$D" /tmp/hellocc)" "c++ ok" "the C++ program runs"
assert_contains "$(chroot "$D" cmake --version)" "cmake version 3." "cmake runs"
# git opens /dev/null, which a container runtime provides and a bare chroot lacks.
[ -e "$D/dev/null" ] || { mkdir -p "$D/dev" && mknod -m 666 "$D/dev/null" c 1 3; }
assert_contains "$(chroot "$D" git --version)" "git version 2." "git runs"
verify=$(chroot "$D" dpkg --verify 2>&1) || fail "dpkg --verify fails on the dev image: $verify"
[ -z "$verify" ] || fail "dpkg --verify reports changes on the dev image: $verify"
chroot "$D" apt-get check >"$WORK/check2.log" 2>&1 || fail "apt-get check fails on the dev image: $(cat "$WORK/check2.log")"
echo "PASS"
