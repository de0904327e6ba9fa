#!/usr/bin/env bash
# rockpack lock and build --locked, python packages on a loopback index (tests/tools/index_server.py)
# and a fake Debian+python3.11 base (lib/fake_python_base.sh):
#  - `lock` writes RECIPE.lock: every wheel with the sha256 and size of the file the index serves,
#    the base digest skopeo reports, no secret arg; locking again gives the same bytes;
#  - round trip: build --locked gives the digest of the plain build;
#  - the index moves on (a newer rp-b): --locked still builds the locked files (same digest, from an
#    empty store, in another working directory), a plain build picks the new version;
#  - lock --update rp-a: rp-a moves, rp-b keeps its locked version and file;
#  - the recipe changes (a package added, an arg changed, another platform): exit 2 naming the
#    difference and `rockpack lock`;
#  - a locked file removed from the index: exit 1 naming the file and the lock; --store-only then
#    builds it from a warm store (same digest) and says what is missing from an empty one.
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/python_fixtures.sh"
source "$(dirname "$0")/lib/fake_python_base.sh"
need skopeo
[ "$(uname -m)" = x86_64 ] || skip "the fake base is x86_64"
export SOURCE_DATE_EPOCH=1700000000

fake_python_base "$WORK/base"
IDX="$WORK/idx"
mkdir -p "$IDX"
wheel "$IDX" rp-a 1.0 --requires "rp-b>=1" >/dev/null
wheel "$IDX" rp-b 1.0 >/dev/null
start_index main "$IDX"

mkdir -p "$WORK/r1" "$WORK/r2"
recipe() {  # DIR [EXTRA_PACKAGE]: writes DIR/app.yaml
  cat >"$1/app.yaml" <<RECIPE
name: lockapp
base: oci:$WORK/base:base
args:
  API_TOKEN: token-from-the-recipe
  GREETING: hello
python:
  interpreter: /usr/bin/python3
  venv: /opt/venv
  indexes:
    - url: $(index_url main)/simple/
  packages: [rp-a${2:+, $2}]
labels:
  greeting: \${GREETING}
tags: [latest]
RECIPE
}
recipe "$WORK/r1"
cd "$WORK/r1"

# build_in DIR STORE [ARGS...]: builds DIR/app.yaml (cwd DIR) with store STORE; prints the digest.
build_in() {
  local dir=$1 store=$2
  shift 2
  (cd "$dir" && "$ROCKPACK" --quiet build app.yaml --cache-dir "$store" -o "oci:$dir/out:latest" "$@" | tail -n 1)
}

# ---- lock ----------------------------------------------------------------------------------------
"$ROCKPACK" --quiet lock app.yaml --set API_TOKEN=s3cr3t-value >"$WORK/lock.out" 2>&1 \
  || fail "rockpack lock failed: $(cat "$WORK/lock.out")"
[ -s app.yaml.lock ] || fail "no app.yaml.lock written"
grep -q "s3cr3t-value" app.yaml.lock && fail "the lock file holds the secret arg"
grep -q "token-from-the-recipe" app.yaml.lock && fail "the lock file holds the secret default"
base_digest=$(skopeo inspect --raw "oci:$WORK/base:base" | sha256sum | cut -d' ' -f1)
python3 - app.yaml.lock "$IDX" "sha256:$base_digest" <<'PY' || fail "the lock file is not what was resolved"
import hashlib, json, os, sys
lock, idx, base = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
assert lock["rockpack_lock"] == 1, lock
assert lock["recipe"]["name"] == "lockapp" and lock["recipe"]["platform"] == "linux/amd64", lock["recipe"]
assert lock["recipe"]["args"] == {"API_TOKEN": "<secret>", "GREETING": "hello"}, lock["recipe"]["args"]
assert lock["base"]["digest"] == base, (lock["base"], base)
pkgs = {c["name"]: c for c in lock["steps"]["python"]["components"]}
assert sorted(pkgs) == ["rp-a", "rp-b"], pkgs
for name, c in pkgs.items():
    data = open(os.path.join(idx, c["filename"]), "rb").read()
    assert c["version"] == "1.0", c
    assert c["sha256"] == hashlib.sha256(data).hexdigest(), c
    assert c["size"] == len(data), c
    assert c["url"].endswith("/files/" + c["filename"]), c
    assert c["origin"].endswith("/simple/"), c
assert pkgs["rp-a"]["requested"] and not pkgs["rp-b"]["requested"], pkgs
inputs = lock["steps"]["python"]["inputs"]
assert inputs["requirements"] == ["rp-a"], inputs
assert len(inputs["indexes"]) == 1 and inputs["indexes"][0].endswith("/simple/"), inputs
PY
cp app.yaml.lock "$WORK/first.lock"
"$ROCKPACK" --quiet lock app.yaml --set API_TOKEN=other -o "$WORK/again.lock" >/dev/null 2>&1 || fail "second lock failed"
cmp -s app.yaml.lock "$WORK/again.lock" || fail "locking twice gives different files: $(diff app.yaml.lock "$WORK/again.lock")"

# ---- round trip ----------------------------------------------------------------------------------
d_plain=$(build_in "$WORK/r1" "$WORK/s-plain") || fail "plain build failed"
d_locked=$(build_in "$WORK/r1" "$WORK/s-locked" --locked) || fail "locked build failed"
assert_eq "$d_locked" "$d_plain" "build --locked gives the plain build's digest"

# ---- the index moves on ----------------------------------------------------------------------------
wheel "$IDX" rp-b 1.1 >/dev/null
recipe "$WORK/r2"
cp app.yaml.lock "$WORK/r2/app.yaml.lock"
d_other=$(build_in "$WORK/r2" "$WORK/s-other" --locked) || fail "locked build in another directory failed"
assert_eq "$d_other" "$d_plain" "--locked with an empty store in another directory, after the index moved"
d_new=$(build_in "$WORK/r1" "$WORK/s-new" --resolved "$WORK/new.json") || fail "plain build after the index moved failed"
assert_ne "$d_new" "$d_plain" "a plain build after the index moved"
assert_eq "$(json_get "$WORK/new.json" '[p["version"] for p in d["python"]["packages"] if p["name"] == "rp-b"][0]')" "1.1" \
  "a plain build picks the new rp-b"

# ---- lock --update NAME ----------------------------------------------------------------------------
wheel "$IDX" rp-a 1.1 --requires "rp-b>=1" >/dev/null
cp "$WORK/first.lock" "$WORK/update.lock"
"$ROCKPACK" --quiet lock app.yaml --update rp-a -o "$WORK/update.lock" >"$WORK/update.out" 2>&1 \
  || fail "lock --update rp-a failed: $(cat "$WORK/update.out")"
versions() { python3 -c 'import json,sys; print(" ".join(c["name"]+"=="+c["version"] for c in json.load(open(sys.argv[1]))["steps"]["python"]["components"]))' "$1"; }
assert_eq "$(versions "$WORK/update.lock")" "rp-a==1.1 rp-b==1.0" "lock --update rp-a changes only rp-a"
python3 - "$WORK/first.lock" "$WORK/update.lock" <<'PY' || fail "lock --update rp-a changed rp-b's entry"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
pick = lambda l: [c for c in l["steps"]["python"]["components"] if c["name"] == "rp-b"]
assert pick(a) == pick(b), (pick(a), pick(b))
PY
"$ROCKPACK" --quiet lock app.yaml --update rp-nothing -o "$WORK/update.lock" >"$WORK/typo.out" 2>&1 && fail "--update of an unknown name succeeded"
assert_contains "$(cat "$WORK/typo.out")" "rp-nothing" "--update of an unknown name names it"
"$ROCKPACK" --quiet lock app.yaml --update -o "$WORK/all.lock" >/dev/null 2>&1 || fail "lock --update (all) failed"
assert_eq "$(versions "$WORK/all.lock")" "rp-a==1.1 rp-b==1.1" "lock --update refreshes everything"

# ---- the recipe changed -----------------------------------------------------------------------------
stale() {  # WHAT EXPECTED_TEXT ARGS...: a locked build that must fail with exit 2
  local what=$1 want=$2 rc=0
  shift 2
  (cd "$WORK/r1" && "$ROCKPACK" build app.yaml --cache-dir "$WORK/s-locked" -o "oci:$WORK/stale" --locked "$@") \
    >"$WORK/stale.out" 2>&1 || rc=$?
  assert_eq "$rc" 2 "$what: exit code"
  assert_contains "$(cat "$WORK/stale.out")" "$want" "$what: the message"
  assert_contains "$(cat "$WORK/stale.out")" "rockpack lock" "$what: the hint"
}
recipe "$WORK/r1" rp-c
stale "a package added" "python requirements: added 'rp-c'"
recipe "$WORK/r1"
stale "an arg changed" "arg GREETING is 'bye', locked 'hello'" --set GREETING=bye
stale "another platform" "platform is linux/arm64, locked linux/amd64" --platform linux/arm64
(cd "$WORK/r1" && "$ROCKPACK" --quiet build app.yaml --cache-dir "$WORK/s-locked" -o "oci:$WORK/stale" --locked \
  --set API_TOKEN=rotated >/dev/null 2>&1) || fail "a changed secret arg made the lock stale"

# ---- a locked file vanished -------------------------------------------------------------------------
rm "$IDX"/rp_b-1.0-*.whl
rc=0
build_in "$WORK/r1" "$WORK/s-gone" --locked >"$WORK/gone.out" 2>&1 || rc=$?
assert_eq "$rc" 1 "a vanished locked file: exit code"
gone=$(cat "$WORK/gone.out")
assert_contains "$gone" "rp-b 1.0 (rp_b-1.0-py3-none-any.whl, locked in app.yaml.lock)" "a vanished locked file is named"
assert_contains "$gone" "HTTP 404" "a vanished locked file: what happened"
assert_contains "$gone" "--store-only" "a vanished locked file: the hint"
d_store=$(build_in "$WORK/r1" "$WORK/s-locked" --locked --store-only) || fail "--store-only from a warm store failed"
assert_eq "$d_store" "$d_plain" "--store-only builds the locked image from the store"
rc=0
build_in "$WORK/r1" "$WORK/s-empty" --locked --store-only >"$WORK/empty.out" 2>&1 || rc=$?
assert_eq "$rc" 1 "--store-only with an empty store: exit code"
assert_contains "$(cat "$WORK/empty.out")" "is not in the store" "--store-only with an empty store says why"
echo "PASS"
