#!/usr/bin/env bash
# apt as `apt-get install` does it, against Debian's real archive, compared with apt-get install in a
# chroot of the same base. The base is the Debian 12 test base (debootstrap bookworm, so older than
# the archive's updates) plus what a Docker base carries:
#  - sources bookworm + bookworm-updates + bookworm-security + bookworm-backports (its Release says
#    NotAutomatic + ButAutomaticUpgrades: priority 100, so systemd stays at bookworm's 252, not the
#    backport) and a preferences.d pin that takes libbtrfs0 from backports;
#  - a minimized image's /etc/dpkg/dpkg.cfg.d/excludes (no man pages, docs but copyright, locales);
#  - the recipe names libssl3, which the base has at an older version: it goes to the candidate;
#  - systemd, systemd-sysv, dbus and uuid-runtime with scripts: run, in apt-get's sequence: libssl3
#    configured before systemd is unpacked (systemd Pre-Depends on it), systemd and its new
#    libraries before systemd-sysv is (it Pre-Depends on systemd), the rest at the end; the system
#    users and groups get apt's ids, and two cold builds in two stores give one digest (machine-id
#    normalised: empty, dbus's a link to it).
# Compared: dpkg-query -W, users and groups with their ids, the file list (modes, owners), apart from
# documented differences (docs/apt.md): the machine ids and apt's litter.
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
SECURITY="${MIRROR%/debian}/debian-security"
curl -fsS -o /dev/null --max-time 20 "$MIRROR/dists/bookworm-backports/InRelease" || skip "the mirror has no bookworm-backports"
curl -fsS -o /dev/null --max-time 20 "$SECURITY/dists/bookworm-security/InRelease" || skip "no bookworm-security next to the mirror"

# The Docker-like base: more sources, a pin, dpkg excludes.
mkdir -p etc/apt/sources.list.d etc/apt/preferences.d etc/dpkg/dpkg.cfg.d
cat >etc/apt/sources.list.d/more.sources <<EOF
Types: deb
URIs: $MIRROR
Suites: bookworm-updates bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: $SECURITY
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
cat >etc/apt/preferences.d/btrfs <<'EOF'
Explanation: the newer btrfs library from backports
Package: libbtrfs0
Pin: release n=bookworm-backports
Pin-Priority: 990
EOF
cat >etc/dpkg/dpkg.cfg.d/excludes <<'EOF'
# Drop all man pages
path-exclude=/usr/share/man/*
# Drop all translations
path-exclude=/usr/share/locale/*/LC_MESSAGES/*.mo
# Drop all documentation ...
path-exclude=/usr/share/doc/*
# ... except copyright files ...
path-include=/usr/share/doc/*/copyright
# ... and Debian changelogs
path-include=/usr/share/doc/*/changelog.Debian.*
path-exclude=/usr/share/info/*
EOF
cat >base2.yaml <<EOF
name: base2
base: oci:$BASE:base
files:
  - {src: etc, dest: /etc, layer: docker-like}
EOF
"$ROCKPACK" --quiet build base2.yaml --cache-dir "$WORK/c" -o "oci:$WORK/base2:base" >/dev/null 2>base2.log || fail "base2: $(cat base2.log)"
umoci unpack --image "$WORK/base2:base" b2 >/dev/null
OLD_SSL=$(chroot b2/rootfs dpkg-query -W -f '${Version}' libssl3)

PACKAGES="systemd systemd-sysv dbus uuid-runtime libssl3 libbtrfs0 libcext0"
cat >img.yaml <<EOF
name: img
base: oci:$WORK/base2:base
apt:
  packages: [$(echo $PACKAGES | sed 's/ /, /g')]
  scripts: run
EOF
start=$SECONDS
"$ROCKPACK" build img.yaml --cache-dir "$WORK/c1" -o "oci:$WORK/img:one" >d1.txt 2>cold1.log || fail "build failed: $(tail -n 30 cold1.log)"
echo "rockpack, cold: $((SECONDS - start)) s"
D1=$(tail -n 1 d1.txt)
# apt-get's configure points (its Debug::pkgDPkgPM on this base: `dpkg --configure libssl3`, then
# after unpacking systemd `dpkg --configure libargon2-1 ... libsystemd-shared systemd`).
early=$(grep -o "configured before the end, as apt-get does: .*" cold1.log) || fail "no early configuration logged: $(grep 'apt:' cold1.log)"
case "$early" in *": libssl3; "*" systemd") ;; *) fail "not apt-get's configure points: $early";; esac
grep -q "configuring them with the rest" cold1.log && fail "dpkg refused an early configuration: $(grep -B5 'configuring them with the rest' cold1.log)"
umoci unpack --image "$WORK/img:one" ours >/dev/null
O=ours/rootfs

# apt-get install of the same names in a chroot of the same base.
umoci unpack --image "$WORK/base2:base" theirs >/dev/null
T=theirs/rootfs
cp /etc/resolv.conf "$T/etc/resolv.conf" 2>/dev/null || true
mkdir -p "$T/dev" && for n in null:1:3 zero:1:5 urandom:1:9 random:1:8; do IFS=: read -r name ma mi <<<"$n"; [ -e "$T/dev/$name" ] || mknod -m 666 "$T/dev/$name" c "$ma" "$mi"; done
printf '#!/bin/sh\nexit 101\n' >"$T/usr/sbin/policy-rc.d"; chmod 755 "$T/usr/sbin/policy-rc.d"
# With /proc, as a container (and rockpack's sandbox) has it: systemd's postinst runs systemd-tmpfiles.
apt_get() {  # LOG ARGS...: apt-get in the chroot, /proc mounted only meanwhile
  local log=$1 rc=0
  shift
  mount -t proc proc "$T/proc"
  chroot "$T" env DEBIAN_FRONTEND=noninteractive apt-get -q "$@" >"$log" 2>&1 || rc=$?
  umount "$T/proc"
  [ "$rc" -eq 0 ] || fail "apt-get $1 in the chroot failed: $(tail "$log")"
}
start=$SECONDS
apt_get apt-update.log update
apt_get apt-install.log -y --no-install-recommends install $PACKAGES
echo "apt-get update + install in the chroot: $((SECONDS - start)) s"
# The packages apt-get configured before its last unpack are the ones rockpack configured early.
apt_early=$(awk '/^Unpacking /{last=NR} {line[NR]=$0} END{for(i=1;i<=last;i++) if (line[i] ~ /^Setting up /) print line[i]}' apt-install.log |
  awk '{sub(/:.*/, "", $3); print $3}' | sort | tr '\n' ' ')
ours_early=$(echo "${early#*apt-get does: }" | tr ';' ' ' | tr ' ' '\n' | grep -v '^$' | sort | tr '\n' ' ')
assert_eq "$ours_early" "$apt_early" "the packages configured before the last unpack, as apt-get configured them"
rm -f "$T/usr/sbin/policy-rc.d" "$T/etc/resolv.conf"

# Pins: systemd from bookworm (not the backport), libbtrfs0 from backports (the base's pin),
# libcext0 from bookworm; libssl3 upgraded from the base's version.
ver() { chroot "$1" dpkg-query -W -f '${Version}' "$2"; }
case "$(ver "$O" systemd)" in *bpo*) fail "systemd came from backports: $(ver "$O" systemd)";; esac
case "$(ver "$O" libbtrfs0)" in *bpo*) ;; *) fail "libbtrfs0 is not the backport the base's pin asks for: $(ver "$O" libbtrfs0)";; esac
case "$(ver "$O" libcext0)" in *bpo*) fail "libcext0 came from backports";; esac
assert_ne "$(ver "$O" libssl3)" "$OLD_SSL" "the named libssl3 goes to its candidate (the base has $OLD_SSL)"

same() {  # WHAT COMMAND...: the command's output in both roots must be equal
  local what=$1; shift
  chroot "$O" "$@" >ours.out 2>&1 || fail "$what: '$*' fails in our image: $(cat ours.out)"
  chroot "$T" "$@" >theirs.out 2>&1 || fail "$what: '$*' fails in apt-get's root: $(cat theirs.out)"
  diff -u theirs.out ours.out >diff.out || fail "$what differs from apt-get's (- apt-get, + rockpack):
$(head -n 40 diff.out)"
}
same "dpkg-query -W" dpkg-query -W -f '${Package} ${Version} ${db:Status-Abbrev}\n'
same "the users" sh -c 'cut -d: -f1,3,4,6,7 /etc/passwd | sort'
same "the groups" sh -c 'cut -d: -f1,3 /etc/group | sort'
same "the alternatives" update-alternatives --get-selections
[ -d "$O/usr/share/doc/systemd" ] && [ -f "$O/usr/share/doc/systemd/copyright" ] || fail "the copyright file is missing"
[ -e "$O/usr/share/man/man1/systemctl.1.gz" ] && fail "man pages are installed despite path-exclude"
grep -qx /usr/share/man/man1/systemctl.1.gz "$O/var/lib/dpkg/info/systemd.list" || fail "systemd.list must still list the man page"

# The file lists, modes and owners, apart from apt's litter and the ids rockpack normalises.
litter='^\./(var/cache/(apt|ldconfig|debconf/[a-z.]*-old)|var/lib/apt|var/log|tmp|run|dev|proc|sys|var/lib/dpkg/[a-z.]*-old|usr/sbin/policy-rc\.d|etc/machine-id |var/lib/dbus/machine-id )'
list() { (cd "$1" && find . -printf '%p %M %u:%g\n' | grep -Ev "$litter" | sort); }
list "$T" >theirs.files; list "$O" >ours.files
diff -u theirs.files ours.files >files.diff || fail "the file list differs from apt-get's (- apt-get, + rockpack):
$(head -n 60 files.diff)"
assert_eq "$(stat -c %s "$O/etc/machine-id")" "0" "/etc/machine-id is empty"
assert_eq "$(readlink "$O/var/lib/dbus/machine-id")" "/etc/machine-id" "dbus's machine id is a link to /etc/machine-id"

# Cold again in another store: one digest.
"$ROCKPACK" build img.yaml --cache-dir "$WORK/c2" -o "oci:$WORK/img:two" >d2.txt 2>cold2.log || fail "second cold build failed: $(tail cold2.log)"
if [ "$(tail -n 1 d2.txt)" != "$D1" ]; then
  umoci unpack --image "$WORK/img:two" second >/dev/null
  fail "two cold builds differ: $(diff -r --no-dereference ours/rootfs second/rootfs 2>&1 | head -n 20)"
fi
echo "PASS"
