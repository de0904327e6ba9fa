#!/usr/bin/env bash
# accounts: users and groups written natively (no useradd runs):
#  - on a scratch image with a static busybox: root is made, the jenkins user (uid/gid 1000, home
#    /var/lib/jenkins, bash-style shell) and its groups are in passwd/group/shadow/gshadow; busybox's
#    own `id` reads them in a chroot; the home exists, owned 1000:1000;
#  - a uid that scratch-built image holds (jenkins) asked for by another user: exit 2, both named;
#  - on the Debian base: the base's lines are kept as they were, shadow is 0640 root:shadow, a
#    supplementary group gets the user as member; a uid the base holds is refused naming both
#    users (exit 2, nothing written) unless replace: true;
#  - recipe mistakes at their file:line:column (exit 2).
source "$(dirname "$0")/lib/common.sh"
source "$ROCKPACK_SOURCE_DIR/tests/integration/lib/python_fixtures.sh"
need umoci; need file
[ "$(id -u)" -eq 0 ] || skip "chroot needs root"
export SOURCE_DATE_EPOCH=1700000000
BUSYBOX=$(static_busybox)
cd "$WORK"

cat >"$WORK/scratch.yaml" <<EOF2
name: accounts-scratch
files:
  - {src: $BUSYBOX, dest: /bin/busybox, mode: 0755}
symlinks:
  - {path: /bin/sh, target: busybox}
accounts:
  groups: [{name: video, gid: 44}]
  users: [{name: jenkins, uid: 1000, home: /var/lib/jenkins, shell: /bin/sh, groups: [video], gecos: Jenkins}]
EOF2
"$ROCKPACK" --quiet build "$WORK/scratch.yaml" --allow-path "$(dirname "$BUSYBOX")" --cache-dir "$WORK/c" \
  -o "oci:$WORK/img:scratch" >/dev/null 2>"$WORK/s.log" || fail "scratch build failed: $(cat "$WORK/s.log")"
umoci unpack --image "$WORK/img:scratch" "$WORK/s" >/dev/null
S="$WORK/s/rootfs"
assert_eq "$(head -n 1 "$S/etc/passwd")" "root:x:0:0:root:/root:/bin/sh" "root comes first on an empty root"
assert_eq "$(grep '^jenkins:' "$S/etc/passwd")" "jenkins:x:1000:1000:Jenkins:/var/lib/jenkins:/bin/sh" "jenkins' passwd line"
assert_eq "$(grep '^jenkins:' "$S/etc/group")" "jenkins:x:1000:" "the user's own group takes the uid as gid"
assert_eq "$(grep '^video:' "$S/etc/group")" "video:x:44:jenkins" "the supplementary group lists the user"
assert_eq "$(grep '^jenkins:' "$S/etc/shadow" | cut -d: -f1-3)" "jenkins:!:$((SOURCE_DATE_EPOCH / 86400))" "a locked shadow entry, day fixed"
assert_eq "$(stat -c '%u:%g %a' "$S/var/lib/jenkins")" "1000:1000 755" "the home directory"
assert_eq "$(stat -c '%a' "$S/etc/shadow")" "600" "no shadow group: shadow is 0600"
assert_eq "$(chroot "$S" /bin/busybox id jenkins)" "uid=1000(jenkins) gid=1000(jenkins) groups=1000(jenkins),44(video)" "busybox id reads the accounts"

# A uid the image holds for someone else: exit 2, both users named, nothing written.
cat >"$WORK/sclash.yaml" <<EOF2
name: accounts-scratch-clash
base: oci:$WORK/img:scratch
accounts:
  users: [{name: builder, uid: 1000}]
EOF2
rc=0; out=$("$ROCKPACK" build "$WORK/sclash.yaml" --cache-dir "$WORK/c" -o "oci:$WORK/sclash:x" 2>&1) || rc=$?
assert_eq "$rc" "2" "uid clash on the scratch-built image: exit code"
assert_contains "$out" "uid 1000 of the user builder is held by the base image's user jenkins" "uid clash names both users"
assert_contains "$out" "replace: true" "uid clash says replace: true fixes it"
[ ! -e "$WORK/sclash" ] || fail "uid clash: an output was written"

# --- recipe mistakes ------------------------------------------------------------------------------------
bad() {  # NAME BODY EXPECTED
  local rc=0 out
  printf 'name: bad\naccounts:\n%s\n' "$2" >"$WORK/$1.yaml"
  out=$("$ROCKPACK" validate "$WORK/$1.yaml" 2>&1) || rc=$?
  assert_eq "$rc" "2" "$1: exit code"
  assert_contains "$out" "$3" "$1: message"
  assert_contains "$out" "$1.yaml:" "$1: file and line"
}
bad badname "  users: [{name: Jenkins}]" "is not a valid user name"
bad dupname "  users: [{name: a}, {name: a}]" "listed twice"
bad relhome "  users: [{name: a, home: var/lib/a}]" "absolute path"
bad bigid "  users: [{name: a, uid: 99999999999}]" "is too large"
bad typo "  user: [{name: a}]" "did you mean 'users'"
bad notbool "  users: [{name: a, replace: maybe}]" "replace"
bad relshell "  users: [{name: a, shell: bash}]" "'shell' must be an absolute path"
bad badmember "  groups: [{name: a, members: ['x:y']}]" "is not a valid user name"
bad dupgid "  groups: [{name: a, gid: 5}, {name: b, gid: 5}]" "gid 5 is given to a and b"

# --- on the Debian base ---------------------------------------------------------------------------------
BASE="$WORK/base"
python_base
umoci unpack --image "$BASE:base" "$WORK/b" >/dev/null
cat >"$WORK/deb.yaml" <<EOF2
name: accounts-debian
base: oci:$BASE:base
accounts:
  groups: [{name: jenkins, gid: 1000}]
  users: [{name: jenkins, uid: 1000, gid: 1000, home: /var/lib/jenkins, shell: /bin/bash, groups: [video]}]
EOF2
"$ROCKPACK" --quiet build "$WORK/deb.yaml" --cache-dir "$WORK/c" -o "oci:$WORK/img:deb" >/dev/null 2>"$WORK/d.log" \
  || fail "Debian build failed: $(cat "$WORK/d.log")"
umoci unpack --image "$WORK/img:deb" "$WORK/d" >/dev/null
D="$WORK/d/rootfs"
# The base's lines stay as they were, in order (video's gains its new member).
for f in passwd group shadow gshadow; do
  n=$(grep -c . "$WORK/b/rootfs/etc/$f")
  assert_eq "$(head -n "$n" "$D/etc/$f" | grep -v '^video:')" "$(grep -v '^video:' "$WORK/b/rootfs/etc/$f")" \
    "the base's $f lines are kept as they were"
done
assert_eq "$(stat -c '%a %G' "$D/etc/shadow")" "640 shadow" "shadow is 0640 root:shadow on Debian"
assert_eq "$(chroot "$D" id jenkins)" "uid=1000(jenkins) gid=1000(jenkins) groups=1000(jenkins),44(video)" "id in the Debian image"
assert_eq "$(chroot "$D" getent passwd jenkins | cut -d: -f6,7)" "/var/lib/jenkins:/bin/bash" "home and shell"
chroot "$D" pwck -r -q >/dev/null 2>&1 || fail "pwck finds the account files inconsistent: $(chroot "$D" pwck -r 2>&1)"
chroot "$D" grpck -r >/dev/null 2>&1 || fail "grpck finds the group files inconsistent: $(chroot "$D" grpck -r 2>&1)"

# A uid the base holds: refused, naming both; replace: true takes it over.
cat >"$WORK/clash.yaml" <<EOF2
name: accounts-clash
base: oci:$BASE:base
accounts:
  users: [{name: jenkins, uid: 1, home: /var/lib/jenkins}]
EOF2
rc=0; out=$("$ROCKPACK" build "$WORK/clash.yaml" --cache-dir "$WORK/c" -o "oci:$WORK/clash:x" 2>&1) || rc=$?
assert_eq "$rc" "2" "uid clash: exit code"
assert_contains "$out" "uid 1 of the user jenkins is held by the base image's user daemon" "uid clash names both users"
assert_contains "$out" "clash.yaml:" "uid clash names the recipe place"
[ ! -e "$WORK/clash" ] || fail "uid clash: an output was written"
sed -i 's/uid: 1,/uid: 1, replace: true,/' "$WORK/clash.yaml"
"$ROCKPACK" --quiet build "$WORK/clash.yaml" --cache-dir "$WORK/c" -o "oci:$WORK/img:replace" >/dev/null 2>&1 || fail "replace: true build failed"
umoci unpack --image "$WORK/img:replace" "$WORK/r" >/dev/null
! grep -q '^daemon:' "$WORK/r/rootfs/etc/passwd" || fail "replace: true kept the base's daemon user"
grep -q '^jenkins:x:1:' "$WORK/r/rootfs/etc/passwd" || fail "replace: true did not add jenkins with uid 1"

echo "PASS"
