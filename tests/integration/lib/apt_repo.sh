#!/usr/bin/env bash
# A signed Debian apt test repository, generated at test time (nothing binary is checked in), for the
# tests of rockpack's apt support. Real tools make it: gpg (the keys and signatures), dpkg-deb (the
# packages), dpkg-scanpackages (the indexes), apt-ftparchive (the Release file); real apt-get accepts
# it (tests/integration/lib/apt_repo_selfcheck.sh proves it).
#
# Source this file, then:
#   apt_repo_make OUT_DIR
#       writes into OUT_DIR (created if missing; anything there before is replaced):
#         keys/test.asc  keys/test.gpg     the test key's public key, armored and as a binary keyring
#         keys/wrong.asc keys/wrong.gpg    an unrelated second key (nothing is signed with it in repo/)
#         keys/*.secret.asc               their secret keys (no passphrase), for the variants
#         keys/test.fpr  keys/wrong.fpr    their fingerprints (40 uppercase hex digits, one line)
#         repo/                           a normal repository: suite "testing", codename "rptest",
#                                         component "main", architectures amd64 and all, by-hash:
#           pool/main/r/<package>/<package>_<version without epoch>_<arch>.deb
#           dists/rptest/{Release,InRelease,Release.gpg}
#           dists/rptest/main/binary-amd64/{Packages,Packages.gz,Packages.xz}  (amd64 + all packages)
#           dists/rptest/main/binary-all/{Packages,Packages.gz,Packages.xz}    (all packages only)
#           dists/rptest/main/binary-*/by-hash/SHA256/<sha256 of each of those three files>
#         README                          the packages and what each one exercises
#       sources.list line for it:  deb [signed-by=OUT_DIR/keys/test.gpg] URL/repo/ rptest main
#   apt_repo_variant OUT_DIR NAME
#       after apt_repo_make OUT_DIR: writes OUT_DIR/variants/NAME/, a copy of repo/ (pool hardlinked)
#       broken one way, for negative tests (same sources line with URL/variants/NAME/):
#         tampered-packages  every binary-amd64 Packages file (and its by-hash copies, in place) has
#                            rp-hello 1:2.0-1's SHA256 changed after signing, sizes kept (the new
#                            digest is chosen so that the compressed files keep theirs too); Release
#                            is unchanged, so the index fails its hash check (the .deb would too)
#         tampered-deb       rp-hello_2.0-1_amd64.deb has one byte changed (a copy: the pool file in
#                            repo/ is untouched); indexes and signatures are unchanged and valid
#         unsigned           no InRelease and no Release.gpg
#         expired            Date two years ago, Valid-Until a year ago; properly signed
#         wrong-key          InRelease and Release.gpg signed with keys/wrong.* only
#         bad-signature      InRelease and Release have "Label:" changed after signing
#         missing-index      binary-amd64/Packages.xz (and its by-hash copy) deleted; Release still
#                            lists it (apt itself falls back to Packages.gz)
#   apt_repo_flat OUT_DIR
#       after apt_repo_make OUT_DIR (or alone: then it makes the keys): writes OUT_DIR/flat/, a flat
#       repository: the .debs of rp-base, rp-libfoo1 and rp-hello 1:2.0-1 next to Packages,
#       Packages.gz, Release, InRelease and Release.gpg (Filename: ./<file>.deb), signed by the test key.
#       sources.list line:  deb [signed-by=OUT_DIR/keys/test.gpg] URL/flat/ ./
#   apt_repo_keys OUT_DIR
#       only the keys of apt_repo_make: OUT_DIR/keys/{test,wrong}.{asc,gpg,secret.asc,fpr} (kept when
#       there already), for generators of other repositories (tests/tools/make_fake_rocm_repo.sh)
#   apt_repo_reindex OUT_DIR
#       after apt_repo_make OUT_DIR and a change to OUT_DIR/repo/pool (a .deb added or removed): new
#       indexes and a new Release (dated now) for repo/, signed with the test key, as a repository
#       that moved on would publish them
#   apt_repo_sign DIST_DIR SECRET_KEY_FILE
#       DIST_DIR/InRelease and DIST_DIR/Release.gpg from DIST_DIR/Release, signed with that key
#   apt_repo_serve DIR
#       needs common.sh (sourced first): serves DIR over HTTP on 127.0.0.1 on a free port
#       (tests/tools/static_server.py, with its /__stats request counts), sets APT_REPO_URL to
#       http://127.0.0.1:PORT (no trailing slash) and prints it. Call it directly, not in $(...):
#       the server is stopped by common.sh's cleanup trap only when the calling shell tracks it.
#   apt_repo_apt_config DIR SOURCES_LINE...
#       writes DIR/apt.conf, a throwaway apt configuration for the real apt-get/apt-cache: its own
#       state, cache, lists, empty dpkg status, sources.list (the lines given), no trusted keys
#       (signed-by only), architecture amd64, no proxy, no translations. Use it as
#       APT_CONFIG=DIR/apt.conf apt-get update.
# apt_repo_make, apt_repo_variant and apt_repo_flat return 0, 77 when not root (rp-owners chowns its
# files) or a tool is missing (gpg, dpkg-deb, dpkg-scanpackages, apt-ftparchive, xz, gzip, python3;
# a dpkg-deb without zstd makes the three zstd packages gzip ones), or another code on failure. Like
# debian_base.sh, they run this file as a separate bash process, so `set -e` applies inside them even
# when a caller writes `f || rc=$?`. apt_repo_make takes about a second, each variant less.
#
# The twelve packages (build_packages below says what each one is for; OUT_DIR/README lists them):
#   rp-hello 1:2.0-1 and 0.9-1, rp-base, rp-libfoo1, rp-provider, rp-needs-virtual, rp-conflict-a,
#   rp-conflict-b, rp-replace-old, rp-replace-new, rp-special, rp-owners.
#   `apt-get install rp-needs-virtual` installs rp-needs-virtual, rp-hello 1:2.0-1, rp-provider,
#   rp-base and rp-libfoo1.
#
# Keys are made per call (ed25519, no passphrase; APT_REPO_KEY_ALGO=rsa2048 gives RSA), each gpg run
# in a temporary GNUPGHOME whose agent is stopped afterwards. The .debs are reproducible (files and
# ar members dated SOURCE_DATE_EPOCH, 2024-01-01); indexes and signatures are not (Date is now).

_APT_REPO_LIB="${BASH_SOURCE[0]}"

apt_repo_make() { bash "$_APT_REPO_LIB" make "$@"; }
apt_repo_variant() { bash "$_APT_REPO_LIB" variant "$@"; }
apt_repo_flat() { bash "$_APT_REPO_LIB" flat "$@"; }
apt_repo_apt_config() { bash "$_APT_REPO_LIB" apt-config "$@"; }
apt_repo_keys() { bash "$_APT_REPO_LIB" keys "$@"; }
apt_repo_sign() { bash "$_APT_REPO_LIB" sign "$@"; }
apt_repo_reindex() { bash "$_APT_REPO_LIB" reindex "$@"; }

apt_repo_serve() {
  local dir=$1
  declare -F start_loopback_server >/dev/null || { echo "apt_repo_serve: source common.sh first" >&2; return 1; }
  if [ "${BASH_SUBSHELL:-0}" -gt 0 ]; then
    echo "apt_repo_serve: call it directly (it sets APT_REPO_URL), not in a subshell or \$(...)" >&2
    return 1
  fi
  local name
  name="apt-repo-$((${#_RP_PIDS[@]} + 1))"
  start_loopback_server "$name" "$(dirname "$_APT_REPO_LIB")/../../tools/static_server.py" "$dir"
  APT_REPO_URL="http://127.0.0.1:$(cat "$WORK/$name.port")"
  echo "$APT_REPO_URL"
}

# Everything below runs only when the file is executed (by the functions above).
if [ "${BASH_SOURCE[0]}" != "$0" ]; then return 0; fi
set -euo pipefail
umask 022

log() { echo "apt_repo: $*" >&2; }
skip() { log "SKIP: $*"; exit 77; }
die() { log "ERROR: $*"; exit 1; }
need() { command -v "$1" >/dev/null 2>&1 || skip "$1 is not installed"; }

export LC_ALL=C TZ=UTC
export SOURCE_DATE_EPOCH=1704067200 # 2024-01-01 00:00:00 UTC, for the .debs
KEY_ALGO=${APT_REPO_KEY_ALGO:-ed25519}
ORIGIN="rockpack-test"
LABEL="rockpack test repository"
SUITE=testing
CODENAME=rptest
COMPONENT=main

# RFC 1123 date as Debian's Release files write it: "Mon, 01 Jan 2024 00:00:00 UTC".
rfc_date() { date -u -d "@$1" '+%a, %d %b %Y %H:%M:%S UTC'; }

# ---------------------------------------------------------------------------------------------------
# Keys and signing. Every gpg run gets its own GNUPGHOME (short, under /tmp: the agent's socket path
# is limited to 108 bytes) and stops its agent before the directory goes.

GPG_HOMES=()
stop_gpg_homes() {
  local h
  for h in "${GPG_HOMES[@]}"; do
    gpgconf --homedir "$h" --kill all >/dev/null 2>&1 || true
    rm -rf "$h"
  done
}
trap stop_gpg_homes EXIT
# new_gpg_home: sets GPG_HOME to a fresh directory (not through $(...): the list must be this shell's).
new_gpg_home() {
  GPG_HOME=$(mktemp -d /tmp/rp-gpg-XXXXXX)
  chmod 700 "$GPG_HOME"
  GPG_HOMES+=("$GPG_HOME")
}
gpg_in() { local h=$1; shift; gpg --homedir "$h" --batch --quiet --no-tty --pinentry-mode loopback --passphrase '' "$@"; }
# The fingerprint of the (only) secret key in GNUPGHOME $1.
secret_fpr() { gpg_in "$1" --with-colons --list-secret-keys 2>/dev/null | awk -F: '$1 == "fpr" { print $10; exit }'; }

# make_key KEYS_DIR NAME "USER ID": KEYS_DIR/NAME.{asc,gpg,secret.asc,fpr}.
make_key() {
  local dir=$1 name=$2 uid=$3 h fpr
  new_gpg_home
  h=$GPG_HOME
  gpg_in "$h" --quick-gen-key "$uid" "$KEY_ALGO" sign 2y 2>"$h/gen.log" || die "gpg --quick-gen-key: $(cat "$h/gen.log")"
  fpr=$(secret_fpr "$h")
  [ -n "$fpr" ] || die "gpg made no key for $uid"
  gpg_in "$h" --armor --export "$fpr" >"$dir/$name.asc"
  gpg_in "$h" --export "$fpr" >"$dir/$name.gpg"
  gpg_in "$h" --armor --export-secret-keys "$fpr" >"$dir/$name.secret.asc"
  echo "$fpr" >"$dir/$name.fpr"
}

ensure_keys() {
  local keys=$1/keys
  if [ -s "$keys/test.secret.asc" ] && [ -s "$keys/wrong.secret.asc" ]; then return 0; fi
  rm -rf "$keys"
  mkdir -p "$keys"
  make_key "$keys" test "rockpack test repository <apt-test@rockpack.invalid>"
  make_key "$keys" wrong "rockpack WRONG key <apt-wrong@rockpack.invalid>"
}

# sign_release DIST_DIR SECRET_KEY_FILE: DIST_DIR/InRelease and DIST_DIR/Release.gpg from DIST_DIR/Release.
sign_release() {
  local dist=$1 secret=$2 h fpr
  new_gpg_home
  h=$GPG_HOME
  gpg_in "$h" --import "$secret" 2>/dev/null
  fpr=$(secret_fpr "$h")
  [ -n "$fpr" ] || die "no secret key in $secret"
  rm -f "$dist/InRelease" "$dist/Release.gpg"
  gpg_in "$h" --local-user "$fpr" --digest-algo SHA512 --clearsign -o "$dist/InRelease" "$dist/Release"
  gpg_in "$h" --local-user "$fpr" --digest-algo SHA512 --armor --detach-sign -o "$dist/Release.gpg" "$dist/Release"
  gpgconf --homedir "$h" --kill all >/dev/null 2>&1 || true
}

# ---------------------------------------------------------------------------------------------------
# Packages. Each builder fills a staging tree and calls build_deb, which writes the control file,
# dates every file SOURCE_DATE_EPOCH and runs dpkg-deb into the pool.

STAGE=""
README_LINES=()

# new_tree NAME VERSION: prints a fresh staging directory with DEBIAN/ in it.
new_tree() {
  local t="$STAGE/$1_${2//:/%}"
  rm -rf "$t"
  mkdir -p "$t/DEBIAN"
  echo "$t"
}

put() { # put TREE PATH MODE CONTENT
  mkdir -p "$(dirname "$1/$2")"
  printf '%b' "$4" >"$1/$2"
  chmod "$3" "$1/$2"
}

copyright() { # copyright TREE PACKAGE
  put "$1" "usr/share/doc/$2/copyright" 0644 "rockpack apt test fixture package $2.\nLicense: CC0-1.0\n"
}

# build_deb TREE POOL NAME VERSION ARCH COMPRESSION OWNERS PURPOSE [FIELD: VALUE]...
#   OWNERS: "root" (dpkg-deb --root-owner-group) or "tree" (the owners the staging files have).
build_deb() {
  local tree=$1 pool=$2 name=$3 version=$4 arch=$5 z=$6 owners=$7 purpose=$8
  shift 8
  if [ "$z" = zstd ] && ! dpkg-deb --help 2>&1 | grep -q zstd; then z=gzip; fi
  local size
  size=$(du -sk --apparent-size --exclude=DEBIAN "$tree" | cut -f1)
  {
    echo "Package: $name"
    echo "Version: $version"
    echo "Architecture: $arch"
    echo "Maintainer: rockpack tests <apt-test@rockpack.invalid>"
    echo "Installed-Size: $size"
    local f
    for f in "$@"; do echo "$f"; done
    echo "Section: misc"
    echo "Priority: optional"
    echo "Description: rockpack apt fixture: $name"
    echo " $purpose"
  } >"$tree/DEBIAN/control"
  find "$tree" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
  local dir="$pool/main/${name:0:1}/$name"
  mkdir -p "$dir"
  local out="$dir/${name}_${version#*:}_${arch}.deb"
  local args=(--build "-Z$z")
  [ "$owners" = root ] && args+=(--root-owner-group)
  dpkg-deb "${args[@]}" "$tree" "$out" >/dev/null
  README_LINES+=("$(printf '%-18s %-9s %-6s %-5s %s' "$name" "$version" "$arch" "$z" "$purpose")")
}

# The packages. The relations between them (apt-get install rp-hello rp-needs-virtual works):
#   rp-hello 1:2.0-1  Pre-Depends rp-base; Depends rp-absent | rp-libfoo1, rp-libfoo1 (>= 1.0-1)
#   rp-needs-virtual  Depends rp-virtual (>= 3.0) (only rp-provider's versioned Provides satisfies it),
#                     rp-hello (>= 1:1.0) (only the epoch version satisfies it)
build_packages() {
  local pool=$1 t

  # rp-hello 1:2.0-1: the executable; an epoch; an alternative whose first member does not exist;
  # Pre-Depends.
  t=$(new_tree rp-hello 1:2.0-1)
  put "$t" usr/bin/rp-hello 0755 '#!/bin/sh\necho "hello from rp-hello"\n'
  copyright "$t" rp-hello
  build_deb "$t" "$pool" rp-hello 1:2.0-1 amd64 xz root \
    "the executable /usr/bin/rp-hello (prints 'hello from rp-hello'); epoch; Pre-Depends; alternatives 'rp-absent | rp-libfoo1' (rp-absent exists nowhere)" \
    "Pre-Depends: rp-base" "Depends: rp-absent | rp-libfoo1, rp-libfoo1 (>= 1.0-1)"

  # rp-hello 0.9-1: the older version of the same package (two versions in the index), gzip.
  t=$(new_tree rp-hello 0.9-1)
  put "$t" usr/bin/rp-hello 0755 '#!/bin/sh\necho "hello from rp-hello 0.9"\n'
  copyright "$t" rp-hello
  build_deb "$t" "$pool" rp-hello 0.9-1 amd64 gzip root \
    "older version of rp-hello (prints 'hello from rp-hello 0.9'); no dependencies; gzip data"

  # rp-base: arch all, Multi-Arch: foreign; a conffile under /etc, a postinst, a file under /bin/
  # (merged /usr: the image's /bin is a symlink to usr/bin).
  t=$(new_tree rp-base 1.0-1)
  put "$t" bin/rp-base-tool 0755 '#!/bin/sh\necho "rp-base-tool from /bin"\n'
  put "$t" etc/rp-base.conf 0644 '# rp-base configuration (a conffile)\ngreeting=hello\n'
  put "$t" DEBIAN/conffiles 0644 '/etc/rp-base.conf\n'
  put "$t" DEBIAN/postinst 0755 '#!/bin/sh\nexit 0\n'
  copyright "$t" rp-base
  build_deb "$t" "$pool" rp-base 1.0-1 all zstd root \
    "arch all, Multi-Arch: foreign; conffile /etc/rp-base.conf; postinst; /bin/rp-base-tool (merged /usr)" \
    "Multi-Arch: foreign"

  # rp-libfoo1: a Multi-Arch: same library (with its SONAME symlink).
  t=$(new_tree rp-libfoo1 1.0-1)
  put "$t" usr/lib/x86_64-linux-gnu/librpfoo.so.1.0.0 0644 'not really a shared library\n'
  ln -s librpfoo.so.1.0.0 "$t/usr/lib/x86_64-linux-gnu/librpfoo.so.1"
  copyright "$t" rp-libfoo1
  build_deb "$t" "$pool" rp-libfoo1 1.0-1 amd64 xz root \
    "Multi-Arch: same library in /usr/lib/x86_64-linux-gnu, SONAME symlink" \
    "Multi-Arch: same"

  # rp-provider: versioned and unversioned Provides.
  t=$(new_tree rp-provider 3.0-1)
  put "$t" usr/share/rp-provider/README 0644 'provides rp-virtual (= 3.0) and rp-any-virtual\n'
  copyright "$t" rp-provider
  build_deb "$t" "$pool" rp-provider 3.0-1 amd64 zstd root \
    "Provides: rp-virtual (= 3.0) (versioned) and rp-any-virtual (unversioned)" \
    "Provides: rp-virtual (= 3.0), rp-any-virtual"

  # rp-needs-virtual: depends on the virtual package with a version, and on rp-hello with an epoch.
  t=$(new_tree rp-needs-virtual 1.0-1)
  copyright "$t" rp-needs-virtual
  build_deb "$t" "$pool" rp-needs-virtual 1.0-1 all xz root \
    "Depends: rp-virtual (>= 3.0) (only a versioned Provides satisfies it), rp-hello (>= 1:1.0) (only the epoch version does)" \
    "Depends: rp-virtual (>= 3.0), rp-hello (>= 1:1.0)"

  # rp-conflict-a / rp-conflict-b: conflict with each other.
  t=$(new_tree rp-conflict-a 1.0-1)
  put "$t" usr/share/rp-conflict/a 0644 'a\n'
  build_deb "$t" "$pool" rp-conflict-a 1.0-1 all zstd root \
    "Conflicts: rp-conflict-b (the two cannot be installed together)" "Conflicts: rp-conflict-b"
  t=$(new_tree rp-conflict-b 1.0-1)
  put "$t" usr/share/rp-conflict/b 0644 'b\n'
  build_deb "$t" "$pool" rp-conflict-b 1.0-1 all xz root \
    "Conflicts: rp-conflict-a" "Conflicts: rp-conflict-a"

  # rp-replace-old / rp-replace-new: the same file in both; the new one Replaces (no Breaks/Conflicts:
  # both can be installed, the file comes from rp-replace-new).
  t=$(new_tree rp-replace-old 1.0-1)
  put "$t" usr/share/rp-shared/data.txt 0644 'from rp-replace-old\n'
  build_deb "$t" "$pool" rp-replace-old 1.0-1 all xz root \
    "ships /usr/share/rp-shared/data.txt ('from rp-replace-old')"
  t=$(new_tree rp-replace-new 2.0-1)
  put "$t" usr/share/rp-shared/data.txt 0644 'from rp-replace-new\n'
  build_deb "$t" "$pool" rp-replace-new 2.0-1 all xz root \
    "ships the same /usr/share/rp-shared/data.txt ('from rp-replace-new'); Replaces: rp-replace-old (<< 2.0), no Breaks" \
    "Replaces: rp-replace-old (<< 2.0)"

  # rp-special: a hardlink, a relative and an absolute symlink, a setuid file, a group-readable-only
  # file (everything root:root).
  t=$(new_tree rp-special 1.0-1)
  put "$t" usr/lib/rp-special/data 0644 'special data\n'
  ln "$t/usr/lib/rp-special/data" "$t/usr/lib/rp-special/data-hardlink"
  ln -s data "$t/usr/lib/rp-special/data-symlink"
  ln -s /usr/lib/rp-special/data "$t/usr/lib/rp-special/data-abs-symlink"
  put "$t" usr/bin/rp-setuid 4755 '#!/bin/sh\necho "rp-setuid"\n'
  put "$t" usr/lib/rp-special/root-group-only 0640 'readable by owner and group root only\n'
  copyright "$t" rp-special
  build_deb "$t" "$pool" rp-special 1.0-1 amd64 xz root \
    "hardlink data-hardlink = data, symlinks data-symlink -> data and data-abs-symlink -> /usr/lib/rp-special/data, /usr/bin/rp-setuid mode 4755, root-group-only mode 0640 root:root"

  # rp-owners: built without --root-owner-group: a setgid directory and a file of group staff (50),
  # a file owned by daemon:daemon (1:1), a file of group root.
  t=$(new_tree rp-owners 1.0-1)
  mkdir -p "$t/var/lib/rp-owners"
  put "$t" var/lib/rp-owners/staff-file 0664 'group staff\n'
  put "$t" var/lib/rp-owners/daemon-file 0644 'owned by daemon\n'
  put "$t" var/lib/rp-owners/root-group-file 0660 'group root\n'
  copyright "$t" rp-owners
  chown -R 0:0 "$t"
  chown 0:50 "$t/var/lib/rp-owners" "$t/var/lib/rp-owners/staff-file"
  chmod 2775 "$t/var/lib/rp-owners"
  chown 1:1 "$t/var/lib/rp-owners/daemon-file"
  build_deb "$t" "$pool" rp-owners 1.0-1 all xz tree \
    "non-root owners: /var/lib/rp-owners root:staff (0:50) mode 2775, staff-file root:staff 0664, daemon-file daemon:daemon (1:1), root-group-file root:root 0660"
}

# ---------------------------------------------------------------------------------------------------
# Indexes and Release.

# compress_packages DIR: DIR/Packages.gz and DIR/Packages.xz from DIR/Packages, and their by-hash copies.
compress_packages() {
  local d=$1 f h
  gzip -9n <"$d/Packages" >"$d/Packages.gz"
  xz -9 <"$d/Packages" >"$d/Packages.xz"
  rm -rf "$d/by-hash"
  mkdir -p "$d/by-hash/SHA256"
  for f in Packages Packages.gz Packages.xz; do
    h=$(sha256sum "$d/$f" | cut -d' ' -f1)
    ln "$d/$f" "$d/by-hash/SHA256/$h"
  done
}

# write_release DIST_DIR DATE_EPOCH VALID_UNTIL_EPOCH [ARCHS COMPONENTS SUITE CODENAME]
#   Checksums: MD5Sum and SHA256 only, as Debian's archive has them (apt then uses by-hash/SHA256).
#   (empty ARCHS: a flat repository's Release, without Architectures/Components/Suite/Codename)
write_release() {
  local dist=$1 date=$2 until=$3 archs=${4:-} comps=${5:-} suite=${6:-} codename=${7:-}
  local o=(-o "APT::FTPArchive::Release::Origin=$ORIGIN" -o "APT::FTPArchive::Release::Label=$LABEL"
    -o "APT::FTPArchive::Release::Date=$(rfc_date "$date")"
    -o "APT::FTPArchive::Release::Description=rockpack apt test fixture (tests/integration/lib/apt_repo.sh)"
    -o APT::FTPArchive::Release::SHA1=false -o APT::FTPArchive::Release::SHA512=false)
  if [ -n "$archs" ]; then
    o+=(-o "APT::FTPArchive::Release::Suite=$suite" -o "APT::FTPArchive::Release::Codename=$codename"
      -o "APT::FTPArchive::Release::Architectures=$archs" -o "APT::FTPArchive::Release::Components=$comps"
      -o "APT::FTPArchive::Release::Acquire-By-Hash=yes")
  fi
  rm -f "$dist/Release" "$dist/InRelease" "$dist/Release.gpg"
  # apt-ftparchive computes Valid-Until only from the current time; it is added after Date here.
  (cd "$dist" && apt-ftparchive "${o[@]}" release .) |
    sed "/^Date: /a Valid-Until: $(rfc_date "$until")" >"$dist/Release.new"
  mv "$dist/Release.new" "$dist/Release"
  grep -q '^Valid-Until: ' "$dist/Release" || die "no Valid-Until in $dist/Release"
}

# index_repo REPO DATE VALID_UNTIL: the indexes and the unsigned Release of a normal repository.
index_repo() {
  local repo=$1 date=$2 until=$3 dist arch
  dist=$repo/dists/$CODENAME
  rm -rf "$dist"
  for arch in amd64 all; do
    mkdir -p "$dist/$COMPONENT/binary-$arch"
    (cd "$repo" && dpkg-scanpackages --multiversion --arch "$arch" pool 2>/dev/null) >"$dist/$COMPONENT/binary-$arch/Packages"
    [ -s "$dist/$COMPONENT/binary-$arch/Packages" ] || die "empty index for $arch"
    compress_packages "$dist/$COMPONENT/binary-$arch"
  done
  write_release "$dist" "$date" "$until" "amd64 all" "$COMPONENT" "$SUITE" "$CODENAME"
}

need_tools() {
  local t
  for t in gpg gpgconf dpkg-deb dpkg-scanpackages apt-ftparchive gzip xz sha256sum python3; do need "$t"; done
  [ "$(id -u)" -eq 0 ] || skip "not root (rp-owners needs files owned by daemon and staff)"
}

cmd_make() {
  local out=${1:?usage: apt_repo_make OUT_DIR}
  need_tools
  mkdir -p "$out"
  out=$(cd "$out" && pwd)
  rm -rf "$out/repo" "$out/variants" "$out/flat" "$out/keys" "$out/README"
  ensure_keys "$out"
  STAGE=$(mktemp -d "$out/.stage-XXXXXX")
  build_packages "$out/repo/pool"
  rm -rf "$STAGE"
  local now
  now=$(date +%s)
  index_repo "$out/repo" "$now" $((now + 365 * 86400))
  sign_release "$out/repo/dists/$CODENAME" "$out/keys/test.secret.asc"
  {
    echo "rockpack apt test repository (made by tests/integration/lib/apt_repo.sh on $(rfc_date "$now"))"
    echo
    echo "keys/test.asc, keys/test.gpg    test key $(cat "$out/keys/test.fpr") (signs repo/ and flat/)"
    echo "keys/wrong.asc, keys/wrong.gpg  unrelated key $(cat "$out/keys/wrong.fpr") (signs variants/wrong-key)"
    echo
    echo "repo/: suite $SUITE, codename $CODENAME, component $COMPONENT, architectures amd64 all, Acquire-By-Hash"
    echo "  deb [signed-by=$out/keys/test.gpg] URL/repo/ $CODENAME $COMPONENT"
    echo
    printf '%-18s %-9s %-6s %-5s %s\n' package version arch data "what it exercises"
    printf '%s\n' "${README_LINES[@]}"
  } >"$out/README"
}

# variant_copy REPO DEST: a copy of REPO with the pool hardlinked and dists copied.
variant_copy() {
  local repo=$1 dest=$2
  rm -rf "$dest"
  mkdir -p "$dest"
  cp -al "$repo/pool" "$dest/pool"
  cp -a "$repo/dists" "$dest/dists"
}

cmd_variant() {
  local out=${1:?usage: apt_repo_variant OUT_DIR NAME} name=${2:?usage: apt_repo_variant OUT_DIR NAME}
  need_tools
  out=$(cd "$out" && pwd)
  [ -s "$out/repo/dists/$CODENAME/InRelease" ] || die "run apt_repo_make $out first"
  local v="$out/variants/$name"
  local dist="$v/dists/$CODENAME" bin="$v/dists/$CODENAME/$COMPONENT/binary-amd64"
  case $name in
    tampered-packages)
      variant_copy "$out/repo" "$v"
      local f h
      for f in Packages Packages.gz Packages.xz; do
        h=$(sha256sum "$bin/$f" | cut -d' ' -f1)
        rm -f "$bin/$f" "$bin/by-hash/SHA256/$h"
      done
      # Another hex digest for rp-hello 1:2.0-1, chosen so that Packages, Packages.gz and Packages.xz
      # keep their sizes: only the hashes tell (apt says "Hash Sum mismatch", not "unexpected size").
      python3 - "$out/repo/dists/$CODENAME/$COMPONENT/binary-amd64" "$bin" <<'EOF'
import gzip, hashlib, lzma, os, re, sys
src, dst = sys.argv[1], sys.argv[2]
text = open(os.path.join(src, "Packages")).read()
m = re.search(r"^Package: rp-hello\nVersion: 1:2\.0-1\n(?:.+\n)*?SHA256: ([0-9a-f]{64})$", text, re.M)
assert m, "rp-hello 1:2.0-1 has no SHA256 line"
sizes = [os.path.getsize(os.path.join(src, f)) for f in ("Packages.gz", "Packages.xz")]
for n in range(5000):
    t = (text[:m.start(1)] + hashlib.sha256(b"tampered %d" % n).hexdigest() + text[m.end(1):]).encode()
    gz, xz = gzip.compress(t, 9, mtime=0), lzma.compress(t, preset=9)
    if [len(gz), len(xz)] == sizes:
        break
else:
    print("apt_repo: tampered-packages: no same-size digest found; the sizes differ", file=sys.stderr)
for name, data in (("Packages", t), ("Packages.gz", gz), ("Packages.xz", xz)):
    with open(os.path.join(dst, name), "wb") as f:
        f.write(data)
EOF
      # The by-hash copies keep the names Release gives them, with the tampered content.
      for f in Packages Packages.gz Packages.xz; do
        h=$(awk -v p="$COMPONENT/binary-amd64/$f" '/^SHA256:/ { s = 1; next } /^[^ ]/ { s = 0 } s && $3 == p { print $1 }' "$dist/Release")
        cp "$bin/$f" "$bin/by-hash/SHA256/$h"
      done
      ;;
    tampered-deb)
      variant_copy "$out/repo" "$v"
      local deb="$v/pool/main/r/rp-hello/rp-hello_2.0-1_amd64.deb"
      cp --remove-destination "$out/repo/pool/main/r/rp-hello/rp-hello_2.0-1_amd64.deb" "$deb"
      python3 - "$deb" <<'EOF'
import sys
p = sys.argv[1]
b = bytearray(open(p, "rb").read())
b[len(b) // 2] ^= 0xFF
open(p, "wb").write(bytes(b))
EOF
      ;;
    unsigned)
      variant_copy "$out/repo" "$v"
      rm -f "$dist/InRelease" "$dist/Release.gpg"
      ;;
    expired)
      variant_copy "$out/repo" "$v"
      local now
      now=$(date +%s)
      index_repo "$v" $((now - 2 * 365 * 86400)) $((now - 365 * 86400))
      sign_release "$dist" "$out/keys/test.secret.asc"
      ;;
    wrong-key)
      variant_copy "$out/repo" "$v"
      sign_release "$dist" "$out/keys/wrong.secret.asc"
      ;;
    bad-signature)
      variant_copy "$out/repo" "$v"
      sed -i "s/^Label: $LABEL\$/Label: rockpack TAMPERED repository/" "$dist/InRelease" "$dist/Release"
      grep -q '^Label: rockpack TAMPERED' "$dist/InRelease" || die "InRelease not modified"
      ;;
    missing-index)
      variant_copy "$out/repo" "$v"
      rm -f "$bin/by-hash/SHA256/$(sha256sum "$bin/Packages.xz" | cut -d' ' -f1)" "$bin/Packages.xz"
      ;;
    *) die "unknown variant '$name' (tampered-packages tampered-deb unsigned expired wrong-key bad-signature missing-index)" ;;
  esac
}

cmd_flat() {
  local out=${1:?usage: apt_repo_flat OUT_DIR}
  need_tools
  mkdir -p "$out"
  out=$(cd "$out" && pwd)
  ensure_keys "$out"
  local flat="$out/flat"
  rm -rf "$flat"
  mkdir -p "$flat"
  STAGE=$(mktemp -d "$out/.stage-XXXXXX")
  build_packages "$STAGE/pool"
  local f
  for f in rp-base/rp-base_1.0-1_all.deb rp-libfoo1/rp-libfoo1_1.0-1_amd64.deb rp-hello/rp-hello_2.0-1_amd64.deb; do
    cp "$STAGE/pool/main/r/$f" "$flat/"
  done
  rm -rf "$STAGE"
  (cd "$flat" && dpkg-scanpackages --multiversion . 2>/dev/null) >"$flat/Packages"
  gzip -9n <"$flat/Packages" >"$flat/Packages.gz"
  local now
  now=$(date +%s)
  write_release "$flat" "$now" $((now + 365 * 86400))
  sign_release "$flat" "$out/keys/test.secret.asc"
}

# cmd_apt_config DIR LINE...: see apt_repo_apt_config above.
cmd_apt_config() {
  local dir=${1:?usage: apt_repo_apt_config DIR SOURCES_LINE...}
  shift
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  mkdir -p "$dir/etc/apt.conf.d" "$dir/etc/preferences.d" "$dir/etc/sources.list.d" \
    "$dir/etc/trusted.gpg.d" "$dir/state/lists/partial" "$dir/cache/archives/partial" "$dir/log"
  : >"$dir/state/status"
  printf '%s\n' "$@" >"$dir/etc/sources.list"
  cat >"$dir/apt.conf" <<EOF
// Throwaway apt configuration written by tests/integration/lib/apt_repo.sh.
Dir::State "$dir/state/";
Dir::State::status "$dir/state/status";
Dir::Cache "$dir/cache/";
Dir::Log "$dir/log/";
Dir::Etc "$dir/etc/";
Dir::Etc::main "$dir/etc/apt.conf";
Dir::Etc::parts "$dir/etc/apt.conf.d/";
Dir::Etc::sourcelist "$dir/etc/sources.list";
Dir::Etc::sourceparts "$dir/etc/sources.list.d/";
Dir::Etc::trusted "$dir/etc/trusted.gpg";
Dir::Etc::trustedparts "$dir/etc/trusted.gpg.d/";
Dir::Etc::preferences "$dir/etc/preferences";
Dir::Etc::preferencesparts "$dir/etc/preferences.d/";
APT::Architecture "amd64";
APT::Architectures { "amd64"; };
APT::Sandbox::User "root";
Acquire::Languages "none";
Acquire::http::Proxy "DIRECT";
Acquire::Retries "0";
Debug::NoLocking "true";
EOF
}

cmd=${1:-}
shift || true
case $cmd in
  make) cmd_make "$@" ;;
  variant) cmd_variant "$@" ;;
  flat) cmd_flat "$@" ;;
  apt-config) cmd_apt_config "$@" ;;
  keys)
    for t in gpg gpgconf; do need "$t"; done
    out=${1:?usage: apt_repo_keys OUT_DIR}
    mkdir -p "$out"
    ensure_keys "$(cd "$out" && pwd)" ;;
  reindex)
    need_tools
    out=$(cd "${1:?usage: apt_repo_reindex OUT_DIR}" && pwd)
    now=$(date +%s)
    index_repo "$out/repo" "$now" $((now + 365 * 86400))
    sign_release "$out/repo/dists/$CODENAME" "$out/keys/test.secret.asc" ;;
  sign)
    for t in gpg gpgconf; do need "$t"; done
    [ -s "${1:?usage: apt_repo_sign DIST_DIR SECRET_KEY_FILE}/Release" ] || die "no $1/Release"
    sign_release "$1" "${2:?usage: apt_repo_sign DIST_DIR SECRET_KEY_FILE}" ;;
  *) die "usage: $0 make|variant|flat|apt-config|keys|reindex|sign ..." ;;
esac
