#!/usr/bin/env bash
# rockpack lock and build --locked with an apt: section, on the signed loopback test repository
# (lib/apt_repo.sh), from scratch:
#  - the lock has every .deb with the sha256 and size of the pool file, and the sha256 of the
#    InRelease the repository serves;
#  - build --locked gives the plain build's digest (two stores);
#  - a package added to the recipe: exit 2 naming it;
#  - the repository moves on (rp-hello 1:2.0-1 gone, 0.9-1 left): a plain build takes 0.9-1; a
#    locked build refuses with exit 1 naming rp-hello and both versions (apt is resolved from the
#    current indexes; what a locked build guarantees there is that it builds the locked set or nothing).
source "$(dirname "$0")/lib/common.sh"
source "$ROCKPACK_SOURCE_DIR/tests/integration/lib/apt_repo.sh"
need gpg; need dpkg-deb; need apt-ftparchive; need curl
[ "$(id -u)" -eq 0 ] || skip "the apt fixture needs root"
export SOURCE_DATE_EPOCH=1700000000
apt_repo_make "$WORK/r" >/dev/null || fail "apt_repo_make failed"
apt_repo_serve "$WORK/r" >/dev/null
URL=$APT_REPO_URL
cd "$WORK"

recipe() {  # PACKAGES
  cat >"$WORK/app.yaml" <<RECIPE
name: aptlock
apt:
  sources:
    - url: $URL/repo
      suite: rptest
      components: [main]
      signed_by: $WORK/r/keys/test.asc
  packages: [$1]
RECIPE
}
recipe rp-hello
build() {  # STORE [ARGS...]: prints the digest
  local store=$1
  shift
  "$ROCKPACK" --quiet build app.yaml --cache-dir "$store" -o "oci:$WORK/out:latest" "$@" | tail -n 1
}

"$ROCKPACK" --quiet lock app.yaml >"$WORK/lock.out" 2>&1 || fail "rockpack lock failed: $(cat "$WORK/lock.out")"
curl -fsS "$URL/repo/dists/rptest/InRelease" -o "$WORK/InRelease" || fail "cannot fetch the InRelease"
python3 - app.yaml.lock "$WORK/r/repo" "$(sha256sum "$WORK/InRelease" | cut -d' ' -f1)" <<'PY' || fail "the lock is not what the repository has"
import hashlib, json, os, sys
lock, repo, inrelease = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
apt = lock["steps"]["apt"]
debs = {c["name"]: c for c in apt["components"]}
assert sorted(debs) == ["rp-base", "rp-hello", "rp-libfoo1"], sorted(debs)
assert debs["rp-hello"]["version"] == "1:2.0-1" and debs["rp-hello"]["requested"], debs["rp-hello"]
assert not debs["rp-base"]["requested"], debs["rp-base"]
for c in debs.values():
    assert c["kind"] == "apt-package", c
    path = os.path.join(repo, "pool/main/r", c["name"], c["filename"])
    data = open(path, "rb").read()
    assert c["sha256"] == hashlib.sha256(data).hexdigest() and c["size"] == len(data), c
    assert c["url"].endswith("/" + c["filename"]), c
releases = {k: v for k, v in apt["pins"].items() if k.startswith("release ")}
assert list(releases.values()) == [inrelease], (apt["pins"], inrelease)
assert apt["inputs"]["packages"] == ["rp-hello"], apt["inputs"]
PY

d_plain=$(build "$WORK/s1") || fail "plain build failed"
d_locked=$(build "$WORK/s2" --locked) || fail "locked build failed"
assert_eq "$d_locked" "$d_plain" "build --locked gives the plain build's digest"

recipe "rp-hello, rp-provider"
rc=0
build "$WORK/s2" --locked >"$WORK/added.out" 2>&1 || rc=$?
assert_eq "$rc" 2 "a package added: exit code"
assert_contains "$(cat "$WORK/added.out")" "apt packages: added 'rp-provider'" "a package added: the message"
recipe rp-hello

# The repository moves on: rp-hello 1:2.0-1 is gone.
mkdir -p "$WORK/removed"
mv "$WORK/r/repo/pool/main/r/rp-hello/rp-hello_2.0-1_amd64.deb" "$WORK/removed/"
apt_repo_reindex "$WORK/r" >/dev/null || fail "apt_repo_reindex failed"
d_new=$(build "$WORK/s3" --resolved "$WORK/new.json") || fail "plain build after the repository moved failed"
assert_ne "$d_new" "$d_plain" "a plain build after the repository moved"
rc=0
build "$WORK/s4" --locked >"$WORK/moved.out" 2>&1 || rc=$?
assert_eq "$rc" 1 "a locked build after the repository moved: exit code"
assert_contains "$(cat "$WORK/moved.out")" "rp-hello resolves to 0.9-1, locked 1:2.0-1" "the locked build names the change"
echo "PASS"
