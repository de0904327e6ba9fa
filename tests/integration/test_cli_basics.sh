#!/usr/bin/env bash
# Small CLI behaviours from issue 14, on scratch images:
#  - `build -` reads the recipe from stdin; its relative paths are relative to the working directory;
#  - a local `base:` is relative to the file that declares it, and validate checks that it exists;
#  - --log-format json prints one JSON object per error (with file, line and column);
#  - "(1 layer)", not "(1 layers)".
source "$(dirname "$0")/lib/common.sh"
need python3
export SOURCE_DATE_EPOCH=1700000000
cd "$WORK"

# build - : src is found relative to the working directory.
mkdir -p ctx/files
echo "from stdin" >ctx/files/motd
cd ctx
out=$(printf 'name: fromstdin\nfiles:\n  - src: files/motd\n    dest: /etc/motd\ntags: [v1]\n' \
  | "$ROCKPACK" build - -o "oci:$WORK/stdin-out" 2>"$WORK/stdin.log") || fail "build - failed: $(cat "$WORK/stdin.log")"
cd "$WORK"
[[ "$out" == sha256:* ]] || fail "build - printed no digest: $out"
assert_contains "$(cat "$WORK/stdin.log")" "(1 layer)" "one layer, singular"
if grep -q "(1 layers)" "$WORK/stdin.log"; then fail "\"(1 layers)\" in: $(cat "$WORK/stdin.log")"; fi
"$ROCKPACK" inspect "oci:$WORK/stdin-out:v1" | grep -q "in 1 layer$" || fail "inspect says 1 layer"
rc=0
out=$(printf 'name: fromstdin\nfiles:\n  - src: nope\n    dest: /x\n' | "$ROCKPACK" validate - 2>&1) || rc=$?
assert_eq "$rc" 2 "a missing src on stdin is an input error"
assert_contains "$out" "<stdin>" "errors name the recipe <stdin>"
assert_contains "$out" "$WORK/nope" "src looked up in the working directory"

# base: relative to the declaring file, wherever rockpack runs from.
mkdir -p proj/recipes other
printf 'name: base\nfiles:\n  - content: base\n    dest: /base\ntags: [b]\n' >proj/base.yaml
"$ROCKPACK" --quiet build proj/base.yaml -o "oci:$WORK/proj/bases/deb" -o "oci-archive:$WORK/proj/bases/deb.tar:b" >/dev/null
printf 'name: onbase\nbase: oci:../bases/deb:b\nfiles:\n  - content: x\n    dest: /x\ntags: [v1]\n' >proj/recipes/app.yaml
(cd other && "$ROCKPACK" --quiet build ../proj/recipes/app.yaml -o "oci:$WORK/app" >/dev/null) \
  || fail "a base relative to the recipe is not found from another directory"
assert_contains "$("$ROCKPACK" inspect "oci:$WORK/app:v1")" "in 2 layers" "the base's layer is reused"
# An oci-archive base, too.
printf 'name: onarchive\nbase: oci-archive:../bases/deb.tar:b\nfiles:\n  - content: x\n    dest: /x\ntags: [v1]\n' >proj/recipes/archive.yaml
(cd other && "$ROCKPACK" --quiet build ../proj/recipes/archive.yaml -o "oci:$WORK/app-archive" >/dev/null) \
  || fail "an oci-archive base"
assert_contains "$("$ROCKPACK" inspect "oci:$WORK/app-archive:v1")" "in 2 layers" "the oci-archive base's layer is reused"
printf 'name: onbase\nbase: oci:../bases/missing:b\n' >proj/recipes/bad.yaml
rc=0
out=$("$ROCKPACK" validate proj/recipes/bad.yaml 2>&1) || rc=$?
assert_eq "$rc" 2 "validate of a missing local base"
assert_contains "$out" "$WORK/proj/bases/missing" "the path looked for is named"
assert_contains "$out" "relative to the file that declares it" "the hint says how paths resolve"

# JSON errors: one object per error.
printf 'name: Bad Name\nfiles:\n  - dest: /x\nbogus: 1\n' >bad.yaml
rc=0
"$ROCKPACK" --log-format json validate bad.yaml 2>"$WORK/errors.json" >/dev/null || rc=$?
assert_eq "$rc" 2 "exit code of an invalid recipe"
python3 - "$WORK/errors.json" <<'PY' || fail "JSON errors: $(cat "$WORK/errors.json")"
import json, sys
objs = [json.loads(line) for line in open(sys.argv[1])]
errors = [o for o in objs if o.get("level") == "error"]
if len(errors) != 3:
    sys.exit(f"expected 3 error objects, got {len(errors)}: {objs}")
for e in errors:
    if not e.get("file", "").endswith("bad.yaml") or not e.get("line") or "\n" in e["msg"]:
        sys.exit(f"an error object without its own location or with several messages: {e}")
PY
echo "ok"
