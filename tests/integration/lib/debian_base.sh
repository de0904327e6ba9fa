#!/usr/bin/env bash
# Debian 12 (bookworm) fixtures for the "Python in the image" tests and benchmark.
#
# Source this file, then:
#   debian_python_base OUT_OCI_DIR
#       writes an OCI layout (tag "base") of a minimal Debian rootfs with python3, built by rockpack
#       ($ROCKPACK) from `base: scratch` + the rootfs copied to /.
#   debian_python_rootfs OUT_DIR
#       extracts the same rootfs into OUT_DIR (a directory that does not exist yet).
#   debian_python_standalone_archive OUT.tar.gz
#       writes a python-build-standalone-like `install_only` archive made of that rootfs's interpreter
#       (see _standalone_assemble for what it holds and lacks).
# Each returns 0, 77 when the machine cannot do it (not root, no debootstrap, no Debian mirror in the
# apt configuration), or another code on failure. The functions run this file as a separate bash
# process, so `set -e` applies inside them even when a caller writes `f || rc=$?`.
#
# The rootfs is made once with debootstrap and cached as a tarball in
# ${ROCKPACK_TEST_CACHE:-$HOME/.cache/rockpack-tests}, keyed by suite, architecture, variant, packages
# and DEBIAN_FIXTURE_REVISION; concurrent runs wait on a flock and the tarball appears by rename.
# The mirror comes from the machine's apt configuration, or ROCKPACK_DEBIAN_MIRROR; no host name is
# ever written here.

_DEBIAN_BASE_LIB="${BASH_SOURCE[0]}"

debian_python_base() { bash "$_DEBIAN_BASE_LIB" base "$@"; }
debian_python_rootfs() { bash "$_DEBIAN_BASE_LIB" rootfs "$@"; }
debian_python_standalone_archive() { bash "$_DEBIAN_BASE_LIB" standalone "$@"; }
# The path of the cached rootfs tarball everything above is made from (what a test's inputs depend on).
debian_python_rootfs_tarball() { bash "$_DEBIAN_BASE_LIB" tarball; }
# The Debian mirror of this machine's apt configuration (or $ROCKPACK_DEBIAN_MIRROR), without a
# trailing '/', after checking it serves bookworm; exits 77 when there is none.
debian_apt_mirror() { bash "$_DEBIAN_BASE_LIB" mirror; }

# Everything below runs only when the file is executed (by the functions above).
if [ "${BASH_SOURCE[0]}" != "$0" ]; then return 0; fi
set -euo pipefail

SUITE=bookworm
VARIANT=minbase
PACKAGES=python3
PYVER=3.11
# Bump when the cleanup or the layout of the cached tree changes, so old caches are not reused.
DEBIAN_FIXTURE_REVISION=1

log() { echo "debian_base: $*" >&2; }
skip() { log "SKIP: $*"; exit 77; }
die() { log "ERROR: $*"; exit 1; }

# The first plain Debian archive URI of the apt configuration: a deb822 stanza (Types: deb) or a
# one-line `deb` entry whose suite has no '-' (not -security/-updates/-backports).
apt_mirror() {
  if [ -n "${ROCKPACK_DEBIAN_MIRROR:-}" ]; then echo "$ROCKPACK_DEBIAN_MIRROR"; return; fi
  local f
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -r "$f" ] || continue
    awk '
      function flush() {
        if (types ~ /(^| )deb( |$)/ && enabled != "no" && suites ~ /(^| )[a-z]+( |$)/ && uris != "") {
          split(uris, u, " "); print u[1]; found = 1; exit
        }
        types = ""; uris = ""; suites = ""; enabled = ""
      }
      /^[ \t]*#/ { next }
      /^[ \t]*$/ { flush(); next }
      { key = tolower($1); sub(/:$/, "", key); $1 = ""; sub(/^ +/, "")
        if (key == "types") types = $0; else if (key == "uris") uris = $0
        else if (key == "suites") suites = $0; else if (key == "enabled") enabled = tolower($0) }
      END { if (!found) flush() }
    ' "$f" | head -n 1
  done
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -r "$f" ] || continue
    # deb [options] URI SUITE COMPONENTS...
    sed -E -n 's/^[[:space:]]*deb[[:space:]]+(\[[^]]*\][[:space:]]+)?([^[:space:]]+)[[:space:]]+([a-z]+)[[:space:]].*/\2/p' "$f"
  done
}

# Skips unless debootstrap can run here: root, the tool, and a mirror that serves $SUITE.
check_can_debootstrap() {
  [ "$(id -u)" -eq 0 ] || skip "debootstrap needs root"
  command -v debootstrap >/dev/null || skip "debootstrap is not installed (tools/install-deps.sh installs it)"
  MIRROR=$(apt_mirror | head -n 1)
  [ -n "$MIRROR" ] || skip "no Debian mirror in the apt configuration (set ROCKPACK_DEBIAN_MIRROR)"
  MIRROR=${MIRROR%/}
  case "$MIRROR" in
    file:*) [ -f "${MIRROR#file:}/dists/$SUITE/Release" ] || skip "$MIRROR has no $SUITE suite" ;;
    http://* | https://*)
      curl -fsS -o /dev/null --max-time 20 "$MIRROR/dists/$SUITE/Release" \
        || skip "the apt mirror $MIRROR does not answer for $SUITE" ;;
    *) skip "apt mirror '$MIRROR' is not http(s) or file" ;;
  esac
}

cache_dir() { echo "${ROCKPACK_TEST_CACHE:-$HOME/.cache/rockpack-tests}"; }

# Unmounts whatever debootstrap left mounted under $1 (it mounts proc/sys, and in LXC binds host
# devices into dev/): deleting the tree with a host mount inside would delete host files.
unmount_under() {
  local root mounts m
  root=$(realpath "$1")
  mounts=$(findmnt -rn -o TARGET | awk -v p="$root" 'index($0, p "/") == 1 || $0 == p' | sort -r)
  for m in $mounts; do umount -l "$m" 2>/dev/null || true; done
  mounts=$(findmnt -rn -o TARGET | awk -v p="$root" 'index($0, p "/") == 1 || $0 == p')
  [ -z "$mounts" ] || die "still mounted under $root: $mounts"
}

# Makes a debootstrap tree look like Docker's debian images: empty /dev, /proc, /sys (the runtime
# mounts them), no apt lists or package caches, no logs, no host identity (hostname, resolv.conf),
# no special files (rockpack copies only files, directories and links; an image has no devices).
clean_rootfs() {
  local r=$1
  find "$r/dev" "$r/proc" "$r/sys" "$r/tmp" -xdev -mindepth 1 -delete
  find "$r/var/lib/apt/lists" -xdev -type f -delete
  rm -f "$r"/var/cache/apt/*.bin "$r"/var/cache/apt/archives/*.deb "$r"/var/cache/ldconfig/aux-cache
  find "$r/var/cache/apt/archives/partial" -xdev -mindepth 1 -delete 2>/dev/null || true
  find "$r/var/log" -xdev -type f -delete
  rm -f "$r"/var/lib/dpkg/*-old "$r"/var/cache/debconf/*-old "$r/etc/hostname" "$r/etc/resolv.conf"
  local special
  special=$(find "$r" -xdev \( -type s -o -type p -o -type b -o -type c \) -print)
  if [ -n "$special" ]; then
    log "removing special files rockpack cannot copy: $special"
    find "$r" -xdev \( -type s -o -type p -o -type b -o -type c \) -delete
  fi
}

# Prints the path of the cached rootfs tarball, building it first when missing.
rootfs_tarball() {
  local arch dir key tarball lock_fd tmp
  arch=$(dpkg --print-architecture 2>/dev/null || echo amd64)
  dir=$(cache_dir)
  key="debian-$SUITE-$arch-$VARIANT-${PACKAGES//,/+}-r$DEBIAN_FIXTURE_REVISION"
  tarball="$dir/$key.tar.gz"
  if [ -f "$tarball" ]; then echo "$tarball"; return; fi
  check_can_debootstrap
  mkdir -p "$dir"
  exec {lock_fd}>"$dir/$key.lock"
  flock "$lock_fd"
  if [ ! -f "$tarball" ]; then  # another run may have built it while we waited
    # Only the lock holder builds, so any build directory here was left by a killed run.
    local stale
    for stale in "$dir/.build-$key-"*; do
      [ -d "$stale" ] || continue
      unmount_under "$stale"
      rm -rf --one-file-system "$stale"
    done
    tmp=$(mktemp -d "$dir/.build-$key-XXXXXX")
    # shellcheck disable=SC2064 # expand now: the trap must remove this build's directory
    trap "unmount_under '$tmp'; rm -rf --one-file-system '$tmp'" EXIT
    log "debootstrap $SUITE ($VARIANT, $PACKAGES) from $MIRROR: a few minutes, once"
    local start=$SECONDS
    if ! debootstrap --variant="$VARIANT" --include="$PACKAGES" --arch="$arch" "$SUITE" "$tmp/rootfs" "$MIRROR" \
      >"$tmp/debootstrap.log" 2>&1; then
      unmount_under "$tmp"
      tail -n 30 "$tmp/debootstrap.log" >&2
      die "debootstrap failed (log above)"
    fi
    unmount_under "$tmp"
    clean_rootfs "$tmp/rootfs"
    tar --numeric-owner -C "$tmp/rootfs" -cf - . | gzip -1 >"$tmp/rootfs.tar.gz"
    mv -f "$tmp/rootfs.tar.gz" "$tarball"
    log "cached $tarball after $((SECONDS - start)) s"
  fi
  exec {lock_fd}>&-
  echo "$tarball"
}

extract_rootfs() {  # OUT_DIR
  local out=$1 tarball
  tarball=$(rootfs_tarball)
  [ ! -e "$out" ] || die "$out already exists"
  mkdir -p "$out"
  tar --numeric-owner -xpzf "$tarball" -C "$out"
}

cmd_rootfs() {
  [ $# -eq 1 ] || die "usage: debian_python_rootfs OUT_DIR"
  [ "$(id -u)" -eq 0 ] || skip "a rootfs with its owners and setuid bits needs root"
  extract_rootfs "$1"
}

cmd_base() {
  [ $# -eq 1 ] || die "usage: debian_python_base OUT_OCI_DIR"
  : "${ROCKPACK:?set ROCKPACK to the rockpack binary}"
  [ "$(id -u)" -eq 0 ] || skip "a rootfs with its owners and setuid bits needs root"
  local out=$1 tmp
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/rockpack-debian-base-XXXXXX")
  # shellcheck disable=SC2064
  trap "rm -rf '$tmp'" EXIT
  extract_rootfs "$tmp/rootfs"
  # rockpack's host walker gives every entry the item's uid/gid (0 here), so the few files Debian
  # owns by another group (/etc/shadow and chage/expiry by 'shadow', /var/mail by 'mail', ...) come
  # out root-owned; nothing Python needs is affected.
  cat >"$tmp/recipe.yaml" <<EOF
name: debian-python-base
base: scratch
files:
  - src: rootfs
    dest: /
    layer: debian
env:
  PATH: /usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
cmd: ["bash"]
labels:
  org.opencontainers.image.description: "Debian $SUITE $VARIANT with $PACKAGES (rockpack test fixture)"
EOF
  SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-1700000000} "$ROCKPACK" --quiet build "$tmp/recipe.yaml" -o "oci:$out:base" >/dev/null
}

# A python-build-standalone `install_only`-like tree under $1/python, from the Debian rootfs $2:
#   python/bin/python3.11            Debian's interpreter (libpython linked in: no libpython3.11.so needed)
#   python/bin/python3 -> python3.11
#   python/lib/python3.11/           Debian's stdlib, lib-dynload, _sysconfigdata__<arch>-linux-gnu.py,
#                                    precompiled __pycache__; site-packages/ (empty)
# The interpreter finds its stdlib from the landmark lib/python3.11/os.py next to bin/, so the tree
# works from any prefix (/opt/python in the tests).
# Compared with a real python-build-standalone archive it lacks:
#   - self-containment: lib-dynload modules and the interpreter link the Debian image's shared libs
#     (libexpat, zlib, libssl3, libffi8, libmpdec3, libsqlite3, ...); PBS bundles or links them
#     statically. The archive works only inside a Debian 12 rootfs like the one it came from.
#   - include/python3.11 and python3-config (Debian ships them in -dev packages, not installed),
#     lib/libpython3.11.so, pip/setuptools in site-packages, ensurepip, distutils, lib2to3, tkinter,
#     idle, pydoc3 scripts, PYTHON.json / build metadata.
#   - vanilla sysconfig: _sysconfigdata still says prefix '/usr' (PBS says '/install'), and Debian's
#     sysconfig keeps its 'posix_local'/'deb_system' schemes.
# Debian's site module puts only dist-packages directories on sys.path (site-packages only in a venv);
# a standalone interpreter uses lib/python3.11/site-packages, so the archive's own sitecustomize.py
# adds it, as PBS has it. Dropped: Debian's sitecustomize.py (a symlink to /etc; the archive must not
# point outside itself) and its EXTERNALLY-MANAGED marker (it belongs to the system python).
# Debian's sysconfig still names local/lib/python3.11/dist-packages as the default purelib, which pip
# would use; rockpack decides the layout itself.
_standalone_assemble() {
  local p=$1/python rootfs=$2
  mkdir -p "$p/bin" "$p/lib"
  cp -a "$rootfs/usr/bin/python$PYVER" "$p/bin/python$PYVER"
  ln -s "python$PYVER" "$p/bin/python3"
  cp -a "$rootfs/usr/lib/python$PYVER" "$p/lib/python$PYVER"
  # Links leaving the tree (absolute ones) would dangle or reach the host: drop them.
  find "$p" -type l -lname '/*' -delete
  # Debian's PEP 668 marker belongs to the system python; a standalone interpreter has none.
  rm -f "$p/lib/python$PYVER/EXTERNALLY-MANAGED"
  mkdir -p "$p/lib/python$PYVER/site-packages"
  cat >"$p/lib/python$PYVER/sitecustomize.py" <<'PY'
# rockpack test fixture: a standalone interpreter imports from its own lib/python3.X/site-packages,
# as python-build-standalone does. Debian's site module (frozen into the binary, so it cannot be
# patched) only adds that directory inside a venv; site imports this file right after.
import os
import site
import sys

site.addsitedir(os.path.join(sys.prefix, "lib", "python%d.%d" % sys.version_info[:2], "site-packages"))
PY
}

cmd_standalone() {
  [ $# -eq 1 ] || die "usage: debian_python_standalone_archive OUT.tar.gz"
  [ "$(id -u)" -eq 0 ] || skip "extracting the Debian rootfs needs root"
  local out=$1 tmp
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/rockpack-standalone-XXXXXX")
  # shellcheck disable=SC2064
  trap "rm -rf '$tmp'" EXIT
  mkdir -p "$tmp/rootfs" "$tmp/stage"
  local tarball
  tarball=$(rootfs_tarball)
  tar --numeric-owner -xpzf "$tarball" -C "$tmp/rootfs" "./usr/bin/python$PYVER" "./usr/lib/python$PYVER"
  _standalone_assemble "$tmp/stage" "$tmp/rootfs"
  # Deterministic: sorted names, fixed mtime and owners, no gzip timestamp.
  tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$tmp/stage" -cf - python \
    | gzip -n -6 >"$tmp/out.tar.gz"
  mv -f "$tmp/out.tar.gz" "$out"
}

case "${1:-}" in
  base) shift; cmd_base "$@" ;;
  rootfs) shift; cmd_rootfs "$@" ;;
  standalone) shift; cmd_standalone "$@" ;;
  tarball) rootfs_tarball ;;
  mirror)
    MIRROR=$(apt_mirror | head -n 1)
    [ -n "$MIRROR" ] || skip "no Debian mirror in the apt configuration (set ROCKPACK_DEBIAN_MIRROR)"
    MIRROR=${MIRROR%/}
    case "$MIRROR" in
      http://* | https://*) curl -fsS -o /dev/null --max-time 20 "$MIRROR/dists/$SUITE/InRelease" \
        || skip "the apt mirror $MIRROR does not answer for $SUITE" ;;
      *) skip "apt mirror '$MIRROR' is not http(s)" ;;
    esac
    echo "$MIRROR" ;;
  *) die "usage: source this file and call debian_python_base / debian_python_rootfs / debian_python_standalone_archive" ;;
esac
