#!/usr/bin/env bash
# Bad input stops the build with exit 2, a located message and nothing written; outputs are
# extended atomically and tags move; a failed build leaves earlier outputs untouched.
source "$(dirname "$0")/lib/common.sh"
cd "$WORK"

expect_invalid() {  # expect_invalid NAME EXPECTED-MESSAGE < recipe
  local name=$1 expected=$2
  cat > "$WORK/$name.yaml"
  set +e
  out=$("$ROCKPACK" build "$WORK/$name.yaml" -o oci:"$WORK/out-$name" 2>&1)
  rc=$?
  set -e
  assert_eq "$rc" "2" "$name: exit code"
  assert_contains "$out" "$expected" "$name: message"
  [ ! -e "$WORK/out-$name" ] || fail "$name: an output was written"
}

expect_invalid typo "$WORK/typo.yaml:2:1: unknown key 'entrypont' in recipe (did you mean 'entrypoint'?)" <<'Y'
name: x
entrypont: [/bin/sh]
Y
expect_invalid missing "$WORK/missing.yaml:3:10: src 'does-not-exist' does not exist" <<'Y'
name: x
files:
  - src: does-not-exist
    dest: /a
Y
expect_invalid undefined "undefined variable '\${VERSON}'" <<'Y'
name: x
args: { VERSION: "1" }
tags: ["${VERSON}"]
Y
expect_invalid wrongtype "'files' must be a list" <<'Y'
name: x
files: {dest: /a}
Y
expect_invalid duplicate "/a is written twice" <<'Y'
name: x
files:
  - { content: one, dest: /a }
  - { content: two, dest: /a }
Y

# Broken python: sections: `validate` reports them at their location with exit code 2.
expect_invalid_validate() {  # expect_invalid_validate NAME EXPECTED-MESSAGE < recipe
  local name=$1 expected=$2
  cat > "$WORK/$name.yaml"
  set +e
  out=$("$ROCKPACK" validate "$WORK/$name.yaml" 2>&1)
  rc=$?
  set -e
  assert_eq "$rc" "2" "$name: exit code"
  assert_contains "$out" "$expected" "$name: message"
}
expect_invalid_validate py-typo "$WORK/py-typo.yaml:4:3: unknown key 'pakages' in python (did you mean 'packages'?)" <<'Y'
name: x
python:
  interpreter: /usr/bin/python3
  pakages: [pip]
Y
expect_invalid_validate py-secret "$WORK/py-secret.yaml:6:12: 'url' has credentials in its URL" <<'Y'
name: x
python:
  interpreter: /usr/bin/python3
  packages: [torch]
  indexes:
    - url: https://user:token@example.invalid/simple/
Y
expect_invalid_validate py-pep508 "$WORK/py-pep508.yaml:5:7: invalid requirement" <<'Y'
name: x
python:
  interpreter: /usr/bin/python3
  packages:
    - "demo[cli>=1.0"
Y
expect_invalid_validate py-nointerp "the python section needs 'interpreter' or 'standalone'" <<'Y'
name: x
python:
  packages: [pip]
Y
printf 'six\n-e ./src\n' > "$WORK/py-req.txt"
expect_invalid_validate py-editable "py-req.txt:2: editable requirements ('-e') are not supported" <<'Y'
name: x
python:
  interpreter: /usr/bin/python3
  requirements: [py-req.txt]
Y

# --set of an undeclared arg, and a bad flag value: exit 2 too.
printf 'name: ok\nargs: {A: "1"}\nfiles: [{content: "${A}", dest: /a}]\ntags: [t1]\n' > "$WORK/ok.yaml"
set +e
out=$("$ROCKPACK" build "$WORK/ok.yaml" --set B=2 2>&1); rc=$?
set -e
assert_eq "$rc" "2" "unknown --set"
assert_contains "$out" "unknown build arg 'B'" "unknown --set message"
set +e; "$ROCKPACK" build "$WORK/ok.yaml" --compression brotli >/dev/null 2>&1; rc=$?; set -e
assert_eq "$rc" "2" "bad --compression"
"$ROCKPACK" validate "$WORK/ok.yaml" | grep -q "ok" || fail "validate of a good recipe"
set +e; "$ROCKPACK" validate "$WORK/typo.yaml" >/dev/null 2>&1; rc=$?; set -e
assert_eq "$rc" "2" "validate of a bad recipe"

# Default output: oci:./out/<name> with every recipe tag.
d1=$(build_digest "$WORK/ok.yaml")
[ -f "$WORK/out/ok/index.json" ] || fail "default output ./out/ok missing"
skopeo inspect oci:"$WORK/out/ok:t1" >/dev/null 2>&1 || { command -v skopeo >/dev/null && fail "tag t1 missing"; }

# Extending a layout: a second image under another tag shares blobs; re-tagging moves the tag.
d2=$(build_digest "$WORK/ok.yaml" --set A=2 -o oci:"$WORK/out/ok:t2")
idx=$(cat "$WORK/out/ok/index.json")
assert_contains "$idx" "$d1" "first image still listed"
assert_contains "$idx" "$d2" "second image listed"
build_digest "$WORK/ok.yaml" --set A=2 -o oci:"$WORK/out/ok:t1" >/dev/null
n=$(python3 -c 'import json,sys; m=json.load(open(sys.argv[1]))["manifests"]; print(sorted((x["annotations"]["org.opencontainers.image.ref.name"], x["digest"]) for x in m))' "$WORK/out/ok/index.json")
assert_eq "$n" "[('t1', '$d2'), ('t2', '$d2')]" "t1 moved to the new image"

# A build that fails while working (a source vanishes between planning and writing cannot be
# staged portably, so use an unreadable cache) leaves the existing layout untouched.
before=$(sha256sum "$WORK/out/ok/index.json")
mkdir -p "$WORK/ro-cache" && touch "$WORK/ro-cache/blobs" # a file where a directory must be
set +e; "$ROCKPACK" build "$WORK/ok.yaml" --set A=3 --cache-dir "$WORK/ro-cache" -o oci:"$WORK/out/ok:t1" >/dev/null 2>&1; rc=$?; set -e
assert_eq "$rc" "1" "failing build exit code"
assert_eq "$(sha256sum "$WORK/out/ok/index.json")" "$before" "layout untouched after a failed build"
ls "$WORK/out" | grep -q tmp && fail "temporary files left behind"
echo "ok"
