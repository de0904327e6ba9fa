#!/usr/bin/env bash
# apt: scripts: run — maintainer scripts run in the sandbox (preinst install, dpkg --configure
# --pending, triggers, ldconfig), against Debian's real archive on the Debian 12 test base:
#  - gcc (its postinst registers the cc alternative), ca-certificates (its postinst runs
#    update-ca-certificates), uuid-runtime (its postinst adds the system user uuidd);
#  - the result is compared with what `apt-get install` of the same packages inside a chroot of the
#    same base gives: dpkg -l (names, versions, states), update-alternatives --get-selections, the
#    users and groups, the CA bundle, and the file list with modes and owners, apart from
#    documented litter (apt's and dpkg's caches, logs and backups; see docs/run.md);
#  - a warm rebuild runs nothing and gives the same digest; a cold one in another store too (useradd
#    gets SOURCE_DATE_EPOCH: shadow's last-change day is the build's);
#  - scripts: auto gives the same image where the sandbox works, and falls back to the native effects
#    (saying so) where it does not (ROCKPACK_SANDBOX=off);
#  - scripts: run on an image without dpkg is refused with a hint.
source "$(dirname "$0")/lib/common.sh"
source "$ROCKPACK_SOURCE_DIR/tests/integration/lib/python_fixtures.sh"
need umoci
[ "$(id -u)" -eq 0 ] || skip "chroot and the sandbox need root"
need_sandbox
debian_archive
export SOURCE_DATE_EPOCH=1700000000
cd "$WORK"
BASE="$WORK/base"
python_base
PACKAGES="gcc ca-certificates uuid-runtime"

cat >scripts.yaml <<EOF
name: scripts
base: oci:$BASE:base
apt:
  sources: [{url: "$MIRROR", suite: bookworm, components: [main], signed_by: "$KEYRING"}]
  packages: [$(echo $PACKAGES | sed 's/ /, /g')]
  scripts: run
EOF
"$ROCKPACK" build scripts.yaml --cache-dir "$WORK/c" -o "oci:$WORK/img:scripts" >d1.txt 2>cold.log || fail "build failed: $(cat cold.log)"
D1=$(tail -n 1 d1.txt)
assert_contains "$(cat cold.log)" "Setting up uuid-runtime" "dpkg configured the packages in the sandbox"
umoci unpack --image "$WORK/img:scripts" ours >/dev/null
O=ours/rootfs

# The same packages installed by apt-get in a chroot of the same base.
umoci unpack --image "$BASE:base" theirs >/dev/null
T=theirs/rootfs
echo "deb [signed-by=/etc/apt/rp-keyring.gpg] $MIRROR bookworm main" >"$T/etc/apt/sources.list"
rm -f "$T"/etc/apt/sources.list.d/*
cp /etc/resolv.conf "$T/etc/resolv.conf" 2>/dev/null || true  # the mirror's name, as the host resolves it
cp "$KEYRING" "$T/etc/apt/rp-keyring.gpg"
mkdir -p "$T/dev" && for n in null:1:3 zero:1:5 urandom:1:9; do IFS=: read -r name ma mi <<<"$n"; [ -e "$T/dev/$name" ] || mknod -m 666 "$T/dev/$name" c "$ma" "$mi"; done
printf '#!/bin/sh\nexit 101\n' >"$T/usr/sbin/policy-rc.d"; chmod 755 "$T/usr/sbin/policy-rc.d"
chroot "$T" env DEBIAN_FRONTEND=noninteractive apt-get -q update >apt-update.log 2>&1 || fail "apt-get update in the chroot failed: $(tail apt-update.log)"
chroot "$T" env DEBIAN_FRONTEND=noninteractive apt-get -q -y --no-install-recommends install $PACKAGES >apt-install.log 2>&1 ||
  fail "apt-get install in the chroot failed: $(tail apt-install.log)"
rm -f "$T/usr/sbin/policy-rc.d" "$T/etc/apt/rp-keyring.gpg" "$T/etc/resolv.conf"

same() {  # WHAT COMMAND...: the command's output in both roots must be equal
  local what=$1; shift
  chroot "$O" "$@" >ours.out 2>&1 || fail "$what: '$*' fails in our image: $(cat ours.out)"
  chroot "$T" "$@" >theirs.out 2>&1 || fail "$what: '$*' fails in apt-get's root: $(cat theirs.out)"
  diff -u theirs.out ours.out >diff.out || fail "$what differs from apt-get's (- apt-get, + rockpack):
$(head -n 40 diff.out)"
}
same "dpkg -l" dpkg-query -W -f '${Package} ${Version} ${db:Status-Abbrev}\n'
same "the alternatives" update-alternatives --get-selections
same "the cc alternative" update-alternatives --display cc
same "the users" sh -c 'cut -d: -f1,3,4,6,7 /etc/passwd | sort'
same "the groups" sh -c 'cut -d: -f1,3 /etc/group | sort'
same "the CA bundle" sh -c 'ls /etc/ssl/certs | wc -l; sha256sum /etc/ssl/certs/ca-certificates.crt'
grep -q '^uuidd:' "$O/etc/passwd" || fail "uuid-runtime's postinst did not add uuidd"
assert_eq "$(grep '^uuidd:' "$O/etc/shadow" | cut -d: -f3)" "$((SOURCE_DATE_EPOCH / 86400))" \
  "useradd in the sandbox takes SOURCE_DATE_EPOCH for shadow's last-change day"
assert_eq "$(chroot "$O" readlink -f /usr/bin/cc)" "/usr/bin/x86_64-linux-gnu-gcc-12" "cc is gcc through the alternatives"
verify=$(chroot "$O" dpkg --verify 2>&1) || fail "dpkg --verify fails: $verify"
[ -z "$verify" ] || fail "dpkg --verify reports changes: $verify"
chroot "$O" apt-get check >check.log 2>&1 || fail "apt-get check fails: $(cat check.log)"

# The file lists, modes and owners, apart from litter apt-get leaves and rockpack drops.
litter='^\./(var/cache/(apt|ldconfig|debconf/[a-z.]*-old)|var/lib/apt|var/log|tmp|run|dev|proc|sys|var/lib/dpkg/[a-z.]*-old|etc/apt/sources\.list|usr/sbin/policy-rc\.d)'
list() { (cd "$1" && find . -printf '%p %M %u:%g\n' | grep -Ev "$litter" | sort); }
list "$T" >theirs.files; list "$O" >ours.files
diff -u theirs.files ours.files >files.diff || fail "the file list differs from apt-get's (- apt-get, + rockpack):
$(head -n 60 files.diff)"

# Warm: nothing runs, same digest.
"$ROCKPACK" build scripts.yaml --cache-dir "$WORK/c" -o "oci:$WORK/img:warm" >d2.txt 2>warm.log || fail "warm build failed: $(cat warm.log)"
assert_eq "$(tail -n 1 d2.txt)" "$D1" "a warm rebuild gives the same digest"
case "$(cat warm.log)" in *"Setting up"*) fail "the warm build ran the scripts again";; esac

# Cold again in another store: the scripts' layer is reproducible (ld.so.cache, debconf, shadow, ...).
"$ROCKPACK" build scripts.yaml --cache-dir "$WORK/c2" -o "oci:$WORK/img:cold2" >d3.txt 2>cold2.log || fail "second cold build failed: $(cat cold2.log)"
if [ "$(tail -n 1 d3.txt)" != "$D1" ]; then
  umoci unpack --image "$WORK/img:cold2" second >/dev/null
  fail "two cold builds differ: $(diff -r ours/rootfs second/rootfs 2>&1 | head -n 20)"
fi

# scripts: auto runs them where the sandbox works (the same image as run), and falls back to the
# native effects, saying so, where it does not (ROCKPACK_SANDBOX=off stands in for an unprivileged
# container).
sed 's/  scripts: run/  scripts: auto/' scripts.yaml >auto.yaml
"$ROCKPACK" build auto.yaml --cache-dir "$WORK/c" -o "oci:$WORK/img:auto" >d4.txt 2>auto.log || fail "scripts: auto failed: $(cat auto.log)"
assert_eq "$(tail -n 1 d4.txt)" "$D1" "scripts: auto where the sandbox works: the image of scripts: run"
ROCKPACK_SANDBOX=off "$ROCKPACK" build auto.yaml --cache-dir "$WORK/c" -o "oci:$WORK/img:autooff" >d5.txt 2>autooff.log ||
  fail "scripts: auto without a sandbox failed: $(cat autooff.log)"
assert_contains "$(cat autooff.log)" "scripts: auto: the sandbox cannot run here" "scripts: auto says it fell back"
assert_contains "$(cat autooff.log)" "maintainer scripts were not run" "scripts: auto lists the scripts not run"
assert_ne "$(tail -n 1 d5.txt)" "$D1" "scripts: auto without a sandbox: another image (native effects)"

# No dpkg in the image: refused with a hint.
cat >nodpkg.yaml <<EOF
name: nodpkg
base: scratch
apt:
  sources: [{url: "$MIRROR", suite: bookworm, components: [main], signed_by: "$KEYRING"}]
  packages: [libc6]
  scripts: run
EOF
rc=0; out=$("$ROCKPACK" build nodpkg.yaml --cache-dir "$WORK/c" -o "oci:$WORK/nodpkg:x" 2>&1) || rc=$?
assert_eq "$rc" "2" "scripts: run without dpkg: exit code"
assert_contains "$out" "needs dpkg in the image" "scripts: run without dpkg: message"
echo "PASS"
