#!/usr/bin/env bash
# apt: against a signed test repository made at test time (tests/integration/lib/apt_repo.sh: a test
# key, real .debs from dpkg-deb, indexes from dpkg-scanpackages/apt-ftparchive, signatures from gpg),
# served on loopback, on the Debian 12 base (python_base):
#  - the good repository: versioned Provides, an epoch, alternatives, Pre-Depends, Multi-Arch,
#    Replaces, merged /usr, owners by name, setuid, hardlinks; checked in a chroot of the unpacked
#    image (umoci) with the image's own dpkg -l, dpkg --verify, dpkg -S, apt-get check;
#  - the same build again gives the same digest; per-package layers; `plan --json` lists the
#    packages with their sha256; a flat repository;
#  - every way the trust chain can break is refused (exit 1, naming the source, nothing written):
#    tampered Packages, tampered .deb, unsigned, expired Valid-Until, wrong key, bad signature,
#    missing index; `trusted: true` lets an unsigned repository through loudly (warning and label);
#  - an impossible request (two packages that conflict) is explained, exit 2;
#  - recipe mistakes are reported at their file:line:column, exit 2.
source "$(dirname "$0")/lib/common.sh"
source "$ROCKPACK_SOURCE_DIR/tests/integration/lib/python_fixtures.sh"
source "$ROCKPACK_SOURCE_DIR/tests/integration/lib/apt_repo.sh"
need umoci; need gpg; need dpkg-deb; need apt-ftparchive
[ "$(id -u)" -eq 0 ] || skip "the Debian fixture and the chroot need root"
export SOURCE_DATE_EPOCH=1700000000
BASE="$WORK/base"
python_base
apt_repo_make "$WORK/r" >/dev/null || fail "apt_repo_make failed"
for v in tampered-packages tampered-deb unsigned expired wrong-key bad-signature missing-index; do
  apt_repo_variant "$WORK/r" "$v" >/dev/null || fail "apt_repo_variant $v failed"
done
apt_repo_flat "$WORK/r" >/dev/null || fail "apt_repo_flat failed"
apt_repo_serve "$WORK/r" >/dev/null
URL=$APT_REPO_URL
cd "$WORK"

# recipe NAME REPO_PATH PACKAGES [extra source lines] [extra apt lines]
recipe() {
  local name=$1 path=$2 packages=$3 source_extra=${4:-} apt_extra=${5:-}
  cat >"$WORK/$name.yaml" <<EOF
name: $name
base: oci:$BASE:base
apt:
  replace_sources: true  # the loopback repository alone, not the base's Debian sources too
  sources:
    - url: $URL/$path
      suite: rptest
      components: [main]
      signed_by: $WORK/r/keys/test.asc
$source_extra
  packages: [$packages]
$apt_extra
EOF
}

# --- the good repository ------------------------------------------------------------------------------
recipe good repo "rp-needs-virtual, rp-special, rp-owners, rp-replace-old, rp-replace-new"
d1=$("$ROCKPACK" build "$WORK/good.yaml" --cache-dir "$WORK/c" -o "oci:$WORK/img:good" 2>"$WORK/good.log" | tail -n 1) \
  || fail "build from the signed repository failed: $(cat "$WORK/good.log")"
assert_contains "$(cat "$WORK/good.log")" "signed by $(cat "$WORK/r/keys/test.fpr")" "the log names the key that signed the Release"
assert_contains "$(cat "$WORK/good.log")" "rp-base: postinst" "the scripts that were not run are listed"
umoci unpack --image "$WORK/img:good" "$WORK/u" >/dev/null
R="$WORK/u/rootfs"
assert_eq "$(chroot "$R" /usr/bin/rp-hello)" "hello from rp-hello" "the newest version (epoch 1:) is installed and runs"
listed=$(chroot "$R" dpkg-query -W -f '${Package}=${Version} ${Status}\n' 'rp-*')
for p in rp-needs-virtual=1.0-1 rp-hello=1:2.0-1 rp-provider=3.0-1 rp-base=1.0-1 rp-libfoo1=1.0-1 rp-special=1.0-1 \
  rp-owners=1.0-1 rp-replace-old=1.0-1 rp-replace-new=2.0-1; do
  assert_contains "$listed" "$p install ok installed" "dpkg sees $p"
done
[ "$(grep -c "install ok installed" <<<"$listed")" -eq 9 ] || fail "exactly nine rp-* packages expected: $listed"
chroot "$R" dpkg -l >/dev/null || fail "dpkg -l fails in the image"
verify=$(chroot "$R" dpkg --verify 2>&1) || fail "dpkg --verify fails: $verify"
[ -z "$verify" ] || fail "dpkg --verify reports changes: $verify"
chroot "$R" apt-get check >"$WORK/check.log" 2>&1 || fail "apt-get check fails: $(cat "$WORK/check.log")"
# merged /usr: the package's /bin/rp-base-tool is in usr/bin, /bin stays a symlink, dpkg lists /bin/...
[ -L "$R/bin" ] || fail "/bin is no longer a symlink"
[ -f "$R/usr/bin/rp-base-tool" ] || fail "/bin/rp-base-tool did not land in usr/bin"
assert_eq "$(chroot "$R" dpkg -S /bin/rp-base-tool)" "rp-base: /bin/rp-base-tool" "dpkg owns the merged-/usr path as the package lists it"
assert_eq "$(stat -c %a "$R/usr/bin/rp-setuid")" "4755" "setuid bit kept"
# Replaces: the shared file belongs to the new package only.
assert_eq "$(chroot "$R" dpkg -S /usr/share/rp-shared/data.txt)" "rp-replace-new: /usr/share/rp-shared/data.txt" "Replaces moves the file"
# Owners by name from the image's passwd/group (daemon is 1:1 on Debian, staff gid 50).
owners=$(chroot "$R" dpkg -L rp-owners | while read -r f; do [ -f "$R$f" ] && stat -c '%n %U:%G %a' "$R$f"; done)
assert_contains "$owners" "daemon:daemon" "a daemon-owned file keeps its owner"
assert_contains "$owners" "root:staff" "a staff-group file keeps its group"
# Hardlinks stay hardlinks.
assert_eq "$(stat -c %i "$R/usr/lib/rp-special/data-hardlink")" "$(stat -c %i "$R/usr/lib/rp-special/data")" "rp-special's hardlink is a hardlink"
grep -q '^Conffiles:' <(sed -n '/^Package: rp-base$/,/^$/p' "$R/var/lib/dpkg/status") || fail "rp-base's conffile is not in the status file"
[ -x "$R/var/lib/dpkg/info/rp-base.postinst" ] || fail "the postinst is not in the dpkg database"

# Same inputs, same image; the warm build downloads nothing.
d2=$(build_digest "$WORK/good.yaml" --cache-dir "$WORK/c" -o "oci:$WORK/img:good2" 2>/dev/null)
assert_eq "$d2" "$d1" "a second build gives the same digest"
d3=$(build_digest "$WORK/good.yaml" --cache-dir "$WORK/c2" -o "oci:$WORK/img:good3" 2>/dev/null)
assert_eq "$d3" "$d1" "a build with an empty cache gives the same digest"

# `plan --json`: every package with its version, URL and sha256, nothing built.
"$ROCKPACK" plan --json "$WORK/good.yaml" --cache-dir "$WORK/c" >"$WORK/plan.json"
python3 - "$WORK/plan.json" "$WORK/r/repo" <<'EOF' || fail "plan --json does not list the apt packages with their hashes"
import hashlib, json, sys, urllib.parse, os
plan = json.load(open(sys.argv[1]))
comps = [c for c in plan["components"] if c.get("kind") == "apt-package"]
names = sorted(c["name"] for c in comps)
assert len(names) == 9, names
for c in comps:
    path = os.path.join(sys.argv[2], urllib.parse.urlparse(c["url"]).path.split("/repo/", 1)[1])
    assert hashlib.sha256(open(path, "rb").read()).hexdigest() == c["sha256"], c
EOF

# Per-package layers: one layer per package plus the database layer.
recipe perpkg repo "rp-needs-virtual" "" "  layers: per-package"
build_digest "$WORK/perpkg.yaml" --cache-dir "$WORK/c" -o "oci:$WORK/img:perpkg" >/dev/null 2>&1 || fail "per-package build failed"
nlayers=$(skopeo inspect "oci:$WORK/img:perpkg" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["Layers"]))')
assert_eq "$nlayers" "7" "per-package: base + five packages + the database layer"

# A flat repository.
cat >"$WORK/flat.yaml" <<EOF
name: flat
base: oci:$BASE:base
apt:
  replace_sources: true
  sources: [{url: "$URL/flat", suite: ./, signed_by: "$WORK/r/keys/test.gpg"}]
  packages: [rp-hello]
EOF
build_digest "$WORK/flat.yaml" --cache-dir "$WORK/c" -o "oci:$WORK/img:flat" >/dev/null 2>"$WORK/flat.log" \
  || fail "flat repository build failed: $(cat "$WORK/flat.log")"
umoci unpack --image "$WORK/img:flat" "$WORK/uf" >/dev/null
assert_eq "$(chroot "$WORK/uf/rootfs" /usr/bin/rp-hello)" "hello from rp-hello" "flat repository: rp-hello runs"

# --- the trust chain, broken every way ------------------------------------------------------------------
refused() {  # VARIANT EXPECTED_MESSAGE
  local v=$1 expect=$2 rc=0 out
  recipe "bad-$v" "variants/$v" "rp-needs-virtual"
  # A fresh store: the good repository's indexes and .debs are in $WORK/c under the very digests the
  # (unchanged) Release and Packages vouch for, so a build there would rightly use them untouched.
  out=$("$ROCKPACK" build "$WORK/bad-$v.yaml" --cache-dir "$WORK/c-$v" -o "oci:$WORK/bad-$v:x" 2>&1) || rc=$?
  assert_eq "$rc" "1" "variant $v: exit code"
  assert_contains "$out" "$expect" "variant $v: the message"
  [ ! -e "$WORK/bad-$v" ] || fail "variant $v: an output was written"
}
refused tampered-packages "sha256"
refused tampered-deb "rp-hello"
refused unsigned "is not signed"
refused expired "expired"
refused wrong-key "signature verification failed"
refused bad-signature "signature verification failed"
refused missing-index "Packages.xz"
out=$("$ROCKPACK" build "$WORK/bad-wrong-key.yaml" --cache-dir "$WORK/c" -o "oci:$WORK/x:x" 2>&1) || true
assert_contains "$out" "$URL/variants/wrong-key rptest/main" "the refusal names the source"
assert_contains "$out" "test.asc" "the refusal names the keyring"

# trusted: true lets the unsigned repository through, loudly.
recipe trusted "variants/unsigned" "rp-hello" "      trusted: true"
sed -i '/signed_by:/d' "$WORK/trusted.yaml"
build_digest "$WORK/trusted.yaml" --cache-dir "$WORK/c" -o "oci:$WORK/img:trusted" >/dev/null 2>"$WORK/trusted.log" \
  || fail "trusted: true build failed: $(cat "$WORK/trusted.log")"
assert_contains "$(cat "$WORK/trusted.log")" "TRUSTED WITHOUT VERIFICATION" "trusted: true warns"
labels=$(skopeo inspect --config "oci:$WORK/img:trusted" | python3 -c 'import json,sys; print(json.load(sys.stdin)["config"]["Labels"])')
assert_contains "$labels" "org.rockpack.apt.unverified-sources" "trusted: true labels the image"

# --- an impossible request, explained -----------------------------------------------------------------
recipe conflict repo "rp-conflict-a, rp-conflict-b"
rc=0; out=$("$ROCKPACK" build "$WORK/conflict.yaml" --cache-dir "$WORK/c" -o "oci:$WORK/conflict:x" 2>&1) || rc=$?
assert_eq "$rc" "2" "conflicting requests: exit code"
assert_contains "$out" "rp-conflict" "conflicting requests: the message names the packages"
[ ! -e "$WORK/conflict" ] || fail "conflicting requests: an output was written"
recipe missing repo "rp-does-not-exist"
rc=0; out=$("$ROCKPACK" build "$WORK/missing.yaml" --cache-dir "$WORK/c" -o "oci:$WORK/missing:x" 2>&1) || rc=$?
assert_eq "$rc" "2" "unknown package: exit code"
assert_contains "$out" "rp-does-not-exist" "unknown package: named"

# --- recipe mistakes, at their place ------------------------------------------------------------------
bad_recipe() {  # NAME BODY EXPECTED
  local rc=0 out
  printf 'name: bad\nbase: oci:%s:base\napt:\n%s\n' "$BASE" "$2" >"$WORK/$1.yaml"
  out=$("$ROCKPACK" validate "$WORK/$1.yaml" 2>&1) || rc=$?
  assert_eq "$rc" "2" "$1: exit code"
  assert_contains "$out" "$3" "$1: message"
  assert_contains "$out" "$1.yaml:" "$1: names the file and line"
}
bad_recipe nokey "  sources: [{url: http://127.0.0.1:1/x, suite: s, components: [main]}]
  packages: [a]" "has no signed_by: key"
bad_recipe badreq "  packages: [\"a (>> )\"]" "apt package"
bad_recipe badpattern "  packages: [\"?name(x)\"]" "is not supported"
bad_recipe nourl "  sources: [{suite: s, components: [main], trusted: true}]
  packages: [a]" "needs a url"
bad_recipe ftp "  sources: [{url: ftp://x/y, suite: s, components: [main], trusted: true}]
  packages: [a]" "not http"
bad_recipe nofile "  sources: [{url: http://x/y, suite: s, components: [main], signed_by: /nonexistent.gpg}]
  packages: [a]" "does not exist"
bad_recipe nocomp "  sources: [{url: http://x/y, suite: s, signed_by: $WORK/r/keys/test.asc}]
  packages: [a]" "lists no components"
bad_recipe typo "  packges: [a]" "packges"
bad_recipe priority "  sources: [{url: http://x/y, suite: s, components: [main], trusted: true, priority: high}]
  packages: [a]" "priority must be a whole number"
bad_recipe pkgmap "  packages: {a: 1}" "must be a list"
bad_recipe flatcomp "  sources: [{url: http://x/y, suite: ./, components: [main], trusted: true}]
  packages: [a]" "flat source"
printf 'name: bad\napt: [a]\n' >"$WORK/aptlist.yaml"
rc=0; out=$("$ROCKPACK" validate "$WORK/aptlist.yaml" 2>&1) || rc=$?
assert_eq "$rc" "2" "apt as a list: exit code"; assert_contains "$out" "'apt' must be a mapping" "apt as a list: message"

# Repository-side mistakes found at build time: exit 1, the source named, nothing written.
build_fails() {  # NAME EXPECTED (recipe $WORK/NAME.yaml)
  local rc=0 out
  out=$("$ROCKPACK" build "$WORK/$1.yaml" --cache-dir "$WORK/c-$1" -o "oci:$WORK/out-$1:x" 2>&1) || rc=$?
  assert_eq "$rc" "1" "$1: exit code"
  assert_contains "$out" "$2" "$1: message"
  [ ! -e "$WORK/out-$1" ] || fail "$1: an output was written"
}
recipe wrongsuite repo "rp-hello"; sed -i 's/suite: rptest/suite: nosuch/' "$WORK/wrongsuite.yaml"
build_fails wrongsuite "neither InRelease nor Release exists"
recipe unreachable repo "rp-hello"; sed -i "s|$URL/repo|http://127.0.0.1:1/repo|" "$WORK/unreachable.yaml"
build_fails unreachable "cannot fetch"
recipe notakey repo "rp-hello"; sed -i "s|$WORK/r/keys/test.asc|$WORK/r/README|" "$WORK/notakey.yaml"
build_fails notakey "holds no OpenPGP public key"
recipe wrongkeyfile repo "rp-hello"; sed -i "s|keys/test.asc|keys/wrong.asc|" "$WORK/wrongkeyfile.yaml"
build_fails wrongkeyfile "signature verification failed"
bad_recipe layers "  layers: every" "unknown apt layers mode"
echo "PASS"
