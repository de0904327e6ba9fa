#!/usr/bin/env bash
# Proves the apt test repository of apt_repo.sh valid with the real apt-get and apt-cache (nothing of
# rockpack runs): it builds the repository, its variants and the flat repository in a scratch
# directory, serves them on 127.0.0.1, and points apt at them through throwaway configurations
# (apt_repo_apt_config: own state, cache and lists, signed-by keys only, amd64).
#
#   bash tests/integration/lib/apt_repo_selfcheck.sh      exit 0: proved, 77: a tool is missing
#
# What it checks:
#   repo/ (keyring .gpg, and .asc)  `apt-get update` succeeds without a warning and fetches the indexes
#                                   by hash; apt-cache sees both rp-hello versions with 1:2.0-1 the
#                                   candidate, rp-provider's versioned Provides, the fields as written;
#                                   `apt-get install --download-only rp-hello rp-needs-virtual` fetches
#                                   exactly rp-hello 1:2.0-1, rp-base, rp-libfoo1, rp-provider and
#                                   rp-needs-virtual, and rp-hello from that .deb prints its line;
#                                   simulated installs: conflicts refused, rp-hello=0.9-1 cannot satisfy
#                                   rp-needs-virtual, rp-replace-old + rp-replace-new together are fine
#   flat/                           update and download of rp-hello through `URL/flat/ ./`
#   variants                        update fails for unsigned, wrong-key (NO_PUBKEY), bad-signature
#                                   (BADSIG), expired and tampered-packages (Hash Sum mismatch, the
#                                   sizes being right); tampered-deb updates but its
#                                   download fails its hash; missing-index updates (apt falls back to
#                                   Packages.gz) after a 404 for the by-hash Packages.xz
# Runs as root (apt runs unsandboxed on its own directories); needs no network but loopback. About 4 s.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# common.sh wants these; the self-check runs no rockpack.
: "${ROCKPACK:=rockpack-is-not-used-by-the-selfcheck}"
: "${ROCKPACK_SOURCE_DIR:=$(cd "$HERE/../../.." && pwd)}"
export ROCKPACK ROCKPACK_SOURCE_DIR
# shellcheck source=SCRIPTDIR/common.sh
source "$HERE/common.sh"
# shellcheck source=SCRIPTDIR/apt_repo.sh
source "$HERE/apt_repo.sh"

for t in apt-get apt-cache gpgv gpg dpkg-deb dpkg-scanpackages apt-ftparchive python3 xz; do need "$t"; done
[ "$(id -u)" -eq 0 ] || skip "apt_repo_make needs root (rp-owners has files owned by daemon and staff)"
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY no_proxy APT_CONFIG

FX=$WORK/fx
rc=0
apt_repo_make "$FX" || rc=$?
[ "$rc" = 77 ] && skip "apt_repo_make cannot run here"
[ "$rc" = 0 ] || fail "apt_repo_make exited $rc"
VARIANTS=(tampered-packages tampered-deb unsigned expired wrong-key bad-signature missing-index)
for v in "${VARIANTS[@]}"; do apt_repo_variant "$FX" "$v" || fail "apt_repo_variant $v"; done
apt_repo_flat "$FX" || fail "apt_repo_flat"
echo "made the repository, ${#VARIANTS[@]} variants and the flat repository"

for f in keys/test.asc keys/test.gpg keys/wrong.asc repo/dists/rptest/InRelease repo/dists/rptest/Release.gpg \
  repo/dists/rptest/main/binary-amd64/Packages.xz README flat/InRelease; do
  [ -s "$FX/$f" ] || fail "$f is missing"
done
# Release carries the fields the brief asks for, and the by-hash copies are where Release says.
REL=$FX/repo/dists/rptest/Release
for field in Origin Label Suite Codename Date Valid-Until Architectures Components Acquire-By-Hash MD5Sum SHA256; do
  grep -q "^$field:" "$REL" || fail "Release has no $field field"
done
assert_eq "$(sed -n 's/^Suite: //p' "$REL")/$(sed -n 's/^Codename: //p' "$REL")" "testing/rptest" "suite/codename"
while read -r hash _ path; do
  case $path in */Packages*) ;; *) continue ;; esac
  cmp -s "$FX/repo/dists/rptest/$path" "$FX/repo/dists/rptest/$(dirname "$path")/by-hash/SHA256/$hash" ||
    fail "by-hash copy of $path"
done < <(awk '/^SHA256:/ { s = 1; next } /^[^ ]/ { s = 0 } s' "$REL")
gpgv --keyring "$FX/keys/test.gpg" "$FX/repo/dists/rptest/InRelease" 2>/dev/null || fail "gpgv refuses InRelease"
gpgv --keyring "$FX/keys/test.gpg" "$FX/repo/dists/rptest/Release.gpg" "$REL" 2>/dev/null || fail "gpgv refuses Release.gpg"
! gpgv --keyring "$FX/keys/wrong.gpg" "$FX/repo/dists/rptest/InRelease" 2>/dev/null || fail "the wrong key verifies InRelease"

apt_repo_serve "$FX" >/dev/null
URL=$APT_REPO_URL
echo "serving at $URL"

# apt_env NAME SOURCES_LINE: a fresh apt configuration $WORK/apt-NAME; sets CONF to its apt.conf.
apt_env() {
  apt_repo_apt_config "$WORK/apt-$1" "$2"
  CONF=$WORK/apt-$1/apt.conf
}
# apt_update: runs apt-get update with $CONF; sets OUT (stdout+stderr) and UPDATE_RC.
apt_update() {
  UPDATE_RC=0
  OUT=$(APT_CONFIG=$CONF apt-get update 2>&1) || UPDATE_RC=$?
}
a_get() { APT_CONFIG=$CONF apt-get "$@" 2>&1; }
a_cache() { APT_CONFIG=$CONF apt-cache "$@" 2>&1; }
stats() { curl -fsS "$URL/__stats?reset=${1:-0}" 2>/dev/null || python3 -c 'import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1]).read().decode())' "$URL/__stats?reset=${1:-0}"; }

# ---- the repository, as apt sees it ---------------------------------------------------------------
stats 1 >/dev/null
apt_env good "deb [signed-by=$FX/keys/test.gpg] $URL/repo/ rptest main"
apt_update
[ "$UPDATE_RC" = 0 ] || fail "apt-get update of repo/ failed:
$OUT"
if grep -E '^(W|E|Err):' <<<"$OUT"; then fail "apt-get update of repo/ warned:
$OUT"; fi
S=$(stats 1)
assert_contains "$S" "/repo/dists/rptest/InRelease" "InRelease fetched"
assert_contains "$S" "/repo/dists/rptest/main/binary-amd64/by-hash/SHA256/$(sha256sum "$FX/repo/dists/rptest/main/binary-amd64/Packages.xz" | cut -d' ' -f1)" "Packages.xz fetched by hash"
assert_contains "$S" "/repo/dists/rptest/main/binary-all/by-hash/SHA256/" "binary-all fetched by hash"
echo "ok: apt-get update of repo/ (InRelease, by-hash Packages.xz for amd64 and all, no warning)"

POLICY=$(a_cache policy rp-hello)
assert_contains "$POLICY" "Candidate: 1:2.0-1" "rp-hello candidate"
assert_contains "$POLICY" "0.9-1 500" "rp-hello 0.9-1 in the index"
assert_contains "$POLICY" "$URL/repo rptest/main amd64 Packages" "rp-hello's source"
SHOW=$(a_cache show rp-hello=1:2.0-1)
assert_contains "$SHOW" "Pre-Depends: rp-base" "rp-hello Pre-Depends"
assert_contains "$SHOW" "Depends: rp-absent | rp-libfoo1, rp-libfoo1 (>= 1.0-1)" "rp-hello Depends"
assert_contains "$(a_cache show rp-hello=0.9-1)" "Filename: pool/main/r/rp-hello/rp-hello_0.9-1_amd64.deb" "rp-hello 0.9-1"
SHOWPKG=$(a_cache showpkg rp-virtual)
assert_contains "$SHOWPKG" "rp-provider 3.0-1 (= 3.0)" "versioned Provides of rp-virtual"
assert_contains "$(a_cache showpkg rp-any-virtual)" "rp-provider 3.0-1" "unversioned Provides"
assert_contains "$(a_cache show rp-libfoo1)" "Multi-Arch: same" "rp-libfoo1 Multi-Arch"
assert_contains "$(a_cache show rp-base)" "Multi-Arch: foreign" "rp-base Multi-Arch"
assert_eq "$(a_cache pkgnames rp- | sort | tr '\n' ' ')" \
  "rp-base rp-conflict-a rp-conflict-b rp-hello rp-libfoo1 rp-needs-virtual rp-owners rp-provider rp-replace-new rp-replace-old rp-special " \
  "the packages apt knows"
echo "ok: apt-cache: two rp-hello versions (candidate 1:2.0-1), Provides rp-virtual (= 3.0), fields"

# The resolver: what installing the two leaves brings, and what it must refuse.
SIM=$(a_get -s install rp-needs-virtual)
for p in "rp-base (1.0-1" "rp-libfoo1 (1.0-1" "rp-hello (1:2.0-1" "rp-provider (3.0-1" "rp-needs-virtual (1.0-1"; do
  assert_contains "$SIM" "Inst $p" "simulated install of rp-needs-virtual"
done
SIM=$(a_get -s install rp-conflict-a rp-conflict-b) && fail "apt installs two conflicting packages"
assert_contains "$SIM" "rp-conflict-a : Conflicts: rp-conflict-b" "refusal of the conflicting pair"
SIM=$(a_get -s install rp-hello=0.9-1 rp-needs-virtual) && fail "rp-hello 0.9-1 satisfied 'rp-hello (>= 1:1.0)'"
assert_contains "$SIM" "Depends: rp-hello (>= 1:1.0) but 0.9-1 is to be installed" "refusal of rp-hello 0.9-1"
a_get -s install rp-replace-old rp-replace-new >/dev/null || fail "rp-replace-old + rp-replace-new refused"
a_get -s install rp-special rp-owners rp-hello=0.9-1 >/dev/null || fail "rp-special rp-owners rp-hello=0.9-1 refused"
echo "ok: apt-get -s: rp-needs-virtual pulls rp-hello 1:2.0-1 rp-provider rp-base rp-libfoo1; conflicts and the epoch are enforced"

DL=$(a_get install --download-only -y rp-needs-virtual) || fail "apt-get install --download-only failed:
$DL"
ARCHIVES=$WORK/apt-good/cache/archives
assert_eq "$(cd "$ARCHIVES" && printf '%s ' *.deb)" \
  "rp-base_1.0-1_all.deb rp-hello_1%3a2.0-1_amd64.deb rp-libfoo1_1.0-1_amd64.deb rp-needs-virtual_1.0-1_all.deb rp-provider_3.0-1_amd64.deb " \
  "downloaded packages"
cmp -s "$ARCHIVES/rp-hello_1%3a2.0-1_amd64.deb" "$FX/repo/pool/main/r/rp-hello/rp-hello_2.0-1_amd64.deb" || fail "downloaded rp-hello differs"
mkdir "$WORK/hello"
dpkg-deb -x "$ARCHIVES/rp-hello_1%3a2.0-1_amd64.deb" "$WORK/hello"
assert_eq "$("$WORK/hello/usr/bin/rp-hello")" "hello from rp-hello" "rp-hello's output"
echo "ok: apt-get install --download-only rp-needs-virtual: 5 packages, rp-hello prints its line"

# The armored key works as signed-by too.
apt_env good-asc "deb [signed-by=$FX/keys/test.asc] $URL/repo/ rptest main"
apt_update
[ "$UPDATE_RC" = 0 ] || fail "apt-get update with signed-by test.asc failed:
$OUT"
echo "ok: apt-get update with signed-by=keys/test.asc"

# ---- the flat repository --------------------------------------------------------------------------
apt_env flat "deb [signed-by=$FX/keys/test.gpg] $URL/flat/ ./"
apt_update
[ "$UPDATE_RC" = 0 ] || fail "apt-get update of flat/ failed:
$OUT"
if grep -E '^(W|E|Err):' <<<"$OUT"; then fail "apt-get update of flat/ warned:
$OUT"; fi
DL=$(a_get install --download-only -y rp-hello) || fail "download from flat/ failed:
$DL"
assert_eq "$(cd "$WORK/apt-flat/cache/archives" && printf '%s ' *.deb)" \
  "rp-base_1.0-1_all.deb rp-hello_1%3a2.0-1_amd64.deb rp-libfoo1_1.0-1_amd64.deb " "downloaded from flat/"
echo "ok: flat/ updates and serves rp-hello with its dependencies"

# ---- the variants ---------------------------------------------------------------------------------
# expect_update_fails VARIANT PATTERN: update fails and its output matches PATTERN (grep -E).
expect_update_fails() {
  apt_env "$1" "deb [signed-by=$FX/keys/test.gpg] $URL/variants/$1/ rptest main"
  apt_update
  [ "$UPDATE_RC" != 0 ] || fail "apt-get update of variant $1 succeeded:
$OUT"
  grep -qE -- "$2" <<<"$OUT" || fail "apt-get update of variant $1 failed without '$2':
$OUT"
  echo "ok: variant $1: apt-get update fails ($(grep -oE -- "$2" <<<"$OUT" | head -n 1))"
}
expect_update_fails unsigned "is not signed"
expect_update_fails wrong-key "NO_PUBKEY $(cut -c25-40 "$FX/keys/wrong.fpr")"
expect_update_fails bad-signature "BADSIG [0-9A-F]+"
expect_update_fails expired "is expired"
expect_update_fails tampered-packages "Hash Sum mismatch"
# The update refused the tampered index: apt knows no rp-hello from it.
! a_cache show rp-hello >/dev/null 2>&1 || fail "apt kept the tampered index"

apt_env tampered-deb "deb [signed-by=$FX/keys/test.gpg] $URL/variants/tampered-deb/ rptest main"
apt_update
[ "$UPDATE_RC" = 0 ] || fail "apt-get update of tampered-deb failed:
$OUT"
DL=$(a_get install --download-only -y rp-hello) && fail "download of the tampered rp-hello succeeded:
$DL"
grep -q "Hash Sum mismatch" <<<"$DL" || fail "tampered rp-hello refused for another reason:
$DL"
[ ! -e "$WORK/apt-tampered-deb/cache/archives/rp-hello_1%3a2.0-1_amd64.deb" ] || fail "the tampered .deb was kept"
cmp -s "$FX/repo/pool/main/r/rp-hello/rp-hello_2.0-1_amd64.deb" "$ARCHIVES/rp-hello_1%3a2.0-1_amd64.deb" ||
  fail "the variant changed repo/'s rp-hello (hardlinked pool)"
echo "ok: variant tampered-deb: update succeeds, the download fails its hash"

stats 1 >/dev/null
apt_env missing-index "deb [signed-by=$FX/keys/test.gpg] $URL/variants/missing-index/ rptest main"
apt_update
[ "$UPDATE_RC" = 0 ] || fail "apt-get update of missing-index failed (apt used to fall back to Packages.gz):
$OUT"
S=$(stats 1)
assert_contains "$S" "/variants/missing-index/dists/rptest/main/binary-amd64/by-hash/SHA256/$(sha256sum "$FX/repo/dists/rptest/main/binary-amd64/Packages.gz" | cut -d' ' -f1)" "fallback to Packages.gz"
assert_contains "$(a_cache policy rp-hello)" "Candidate: 1:2.0-1" "missing-index still indexes rp-hello"
echo "ok: variant missing-index: apt falls back from the absent Packages.xz to Packages.gz"

echo "apt_repo self-check passed"
