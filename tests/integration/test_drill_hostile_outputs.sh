#!/usr/bin/env bash
# Hostile inputs whose harm is in what rockpack would print, record or keep (docs/reliability.md,
# "Drills"), each checked through the CLI:
#  - a hand-edited lock: a changed version, a deleted dependency, a name with an escape sequence, a
#    file:// URL to a host file, a locked file served as an endless stream -- refused (exit 2, or 1
#    for the stream), naming what is wrong, nothing built;
#  - `diff` and `inspect` of an image whose paths and labels hold terminal escapes: printed escaped,
#    no raw control byte reaches the terminal;
#  - `diff --files` of a 1 MB layer of 40,000 files with 3 KB paths (120 MB of names): a clear
#    error (exit 2) in bounded memory;
#  - `cache prune --keep-bytes 20000000000G` / `18446744073709551615` / `--keep-days -1` / `abc`: no
#    overflow to 0 (the store is still there), clear messages.
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/python_fixtures.sh"
source "$(dirname "$0")/lib/fake_python_base.sh"
TIME=/usr/bin/time
[ -x "$TIME" ] || skip "no $TIME (install the package 'time')"
[ "$(uname -m)" = x86_64 ] || skip "the fake base is x86_64"
export SOURCE_DATE_EPOCH=1700000000
ESC=$'\x1b'

# ---- a hand-edited lock ------------------------------------------------------------------------
fake_python_base "$WORK/base"
IDX="$WORK/idx"
mkdir -p "$IDX" "$WORK/static" "$WORK/r"
wheel "$IDX" rp-a 1.0 --requires "rp-b>=1" >/dev/null
wheel "$IDX" rp-b 1.0 >/dev/null
start_index main "$IDX"
start_loopback_server static "$ROCKPACK_SOURCE_DIR/tests/tools/static_server.py" "$WORK/static"
STATIC_URL="http://127.0.0.1:$(cat "$WORK/static.port")"
cat >"$WORK/r/app.yaml" <<RECIPE
name: lockdrill
base: oci:$WORK/base:base
python:
  interpreter: /usr/bin/python3
  venv: /opt/venv
  indexes:
    - url: $(index_url main)/simple/
  packages: [rp-a]
RECIPE
cd "$WORK/r"
"$ROCKPACK" --quiet lock app.yaml >"$WORK/lock.out" 2>&1 || fail "rockpack lock failed: $(cat "$WORK/lock.out")"
cp app.yaml.lock "$WORK/good.lock"
"$ROCKPACK" --quiet build app.yaml --locked --cache-dir "$WORK/store" -o "oci:$WORK/out-good:x" >/dev/null 2>"$WORK/good.err" \
  || fail "the untouched lock does not build: $(cat "$WORK/good.err")"

# tamper NAME PYTHON: rewrites the good lock with PYTHON (over `lock`, the parsed JSON; `comps`, the
# python step's components), builds --locked from an empty store and prints "exit-code<TAB>output".
tamper() {
  local name=$1 code=$2 rc=0
  python3 - "$WORK/good.lock" app.yaml.lock "$code" <<'PY'
import json, sys
lock = json.load(open(sys.argv[1]))
comps = lock["steps"]["python"]["components"]
by_name = {c["name"]: c for c in comps}
exec(sys.argv[3])
json.dump(lock, open(sys.argv[2], "w"), indent=2)
PY
  rm -rf "$WORK/out-$name"
  "$TIME" -f %M -o "$WORK/$name.rss" "$ROCKPACK" build app.yaml --locked --cache-dir "$WORK/store-$name" \
    -o "oci:$WORK/out-$name:x" >"$WORK/$name.log" 2>&1 || rc=$?
  [ ! -e "$WORK/out-$name" ] || fail "$name: a refused lock still wrote an image"
  printf '%s\t%s' "$rc" "$(cat "$WORK/$name.log")"
}
expect() {  # NAME EXIT RESULT WORDS...: the exit code and every word in the output
  local name=$1 want=$2 result=$3 rc out word
  shift 3
  rc=${result%%$'\t'*}
  out=${result#*$'\t'}
  [ "$rc" = "$want" ] || fail "$name: exit $rc, expected $want: $out"
  for word in "$@"; do assert_contains "$out" "$word" "$name"; done
  grep -q "$ESC" "$WORK/$name.log" && fail "$name: a raw escape byte reached the output"
  echo "ok: $name (exit $rc)"
}
expect version 2 "$(tamper version 'by_name["rp-b"]["version"] = "9.9"')" "rp-b" "9.9" "1.0" "rockpack lock"
expect dependency 2 "$(tamper dependency 'comps.remove(by_name["rp-b"])')" "rp-a requires rp-b" "does not hold every dependency"
expect escape 2 "$(tamper escape 'by_name["rp-b"]["name"] = "rp-b\x1b]0;pwned\x07"')" "control character" "name"
expect file-url 2 "$(tamper file-url 'by_name["rp-b"]["url"] = "file:///etc/shadow"')" "rp-b" "/etc/shadow" "outside every directory"
grep -q "$(sha256sum /etc/shadow 2>/dev/null | cut -c1-64 || echo none)" "$WORK/file-url.log" && fail "file-url: the digest of /etc/shadow was printed"
# An endless stream where the lock says 1,000-odd bytes: stops there, in seconds, in bounded memory.
touch "$WORK/static/rp_b-1.0-py3-none-any.whl.endless"
started=$SECONDS
expect endless 1 "$(tamper endless "by_name['rp-b']['url'] = '$STATIC_URL/rp_b-1.0-py3-none-any.whl'")" "larger than the" "rp-b"
[ $((SECONDS - started)) -lt 30 ] || fail "endless: took $((SECONDS - started)) s"
rss=$(tail -n 1 "$WORK/endless.rss")
[ "$rss" -lt 200000 ] || fail "endless: max RSS $rss KB"
du_store=$(du -sk "$WORK/store-endless" | cut -f1)
[ "$du_store" -lt 50000 ] || fail "endless: the store holds $du_store KB after the refused download"
cp "$WORK/good.lock" app.yaml.lock

# ---- diff and inspect of an image with terminal escapes ---------------------------------------
cd "$WORK"
python3 - "$WORK" <<'PY'
import os, sys
sys.path.insert(0, os.path.join(os.environ["ROCKPACK_SOURCE_DIR"], "tests", "tools"))
import make_hostile_inputs as m
work = sys.argv[1]
esc = "\x1b]0;pwned\x07\x1b[2J\x1b[8m"
m.oci_image(os.path.join(work, "esc-a"), [m.tar_bytes([m.f("etc/plain", "a\n")])],
            config={"Labels": {"title" + esc: "value" + esc}, "Env": ["X=" + esc]})
m.oci_image(os.path.join(work, "esc-b"), [m.tar_bytes([m.f("etc/plain", "b\n"), m.f("etc/evil" + esc + "\u0085\u009b", "x\n")])],
            config={"Labels": {"title": "other\u009b2J"}})
# 40,000 empty files with 3 KB paths: a 1 MB layer whose names take 120 MB, past the 96 MiB bound
# (150,000 of them took 1.1 GB of RSS before there was one).
d = "d/" + "p" * 3000 + "/"
members = [(d + "%06d" % i, "file", b"", 0o644) for i in range(40000)]
m.oci_image(os.path.join(work, "amp"), [m.tar_bytes(members)])
PY
for cmd in "diff --files oci:$WORK/esc-a:base oci:$WORK/esc-b:base" "inspect oci:$WORK/esc-a:base" \
           "inspect oci:$WORK/esc-b:base" "diff --json oci:$WORK/esc-a:base oci:$WORK/esc-b:base"; do
  # shellcheck disable=SC2086
  "$ROCKPACK" $cmd --cache-dir "$WORK/dstore" >"$WORK/esc.out" 2>&1 || fail "rockpack $cmd failed: $(cat -v "$WORK/esc.out")"
  python3 - "$WORK/esc.out" "$cmd" <<'PY' || fail "rockpack $cmd printed raw control characters: $(cat -v "$WORK/esc.out" | head -c 800)"
import sys
data = open(sys.argv[1], "rb").read()
bad = [b for b in data if (b < 0x20 and b not in (0x0a,)) or b == 0x7f]
c1 = b"\xc2\x85" in data or b"\xc2\x9b" in data or b"\x9b" in data
sys.exit(1 if bad or c1 else 0)
PY
  grep -q 'x1b\|u001b\|u009b' "$WORK/esc.out" || fail "rockpack $cmd: the escape is not shown escaped: $(head -c 600 "$WORK/esc.out")"
done
echo "ok: diff and inspect print image text escaped"

rc=0
"$TIME" -f %M -o "$WORK/amp.rss" "$ROCKPACK" diff --files "oci:$WORK/amp:base" "oci:$WORK/esc-a:base" \
  --cache-dir "$WORK/dstore" >"$WORK/amp.log" 2>&1 || rc=$?
[ "$rc" -eq 2 ] || fail "diff of the amplifying image: exit $rc, expected 2: $(head -c 600 "$WORK/amp.log")"
assert_contains "$(cat "$WORK/amp.log")" "file names" "diff of the amplifying image"
rss=$(tail -n 1 "$WORK/amp.rss")
[ "$rss" -lt 600000 ] || fail "diff of the amplifying image: max RSS $((rss / 1024)) MB"
echo "ok: diff of 40,000 files with 3 KB paths refused at $((rss / 1024)) MB max RSS"

# ---- cache prune: no overflow to 0 -------------------------------------------------------------
before=$(find "$WORK/store" -type f | wc -l)
for arg in "--keep-bytes 20000000000G" "--keep-bytes 18446744073709551616" "--keep-bytes inf" "--keep-days -1" \
           "--keep-days abc" "--keep-days 99999999"; do
  rc=0
  # shellcheck disable=SC2086
  "$ROCKPACK" cache --cache-dir "$WORK/store" prune $arg >"$WORK/prune.log" 2>&1 || rc=$?
  [ "$rc" -eq 2 ] || fail "cache prune $arg: exit $rc, expected 2: $(cat "$WORK/prune.log")"
  grep -q "Could not convert" "$WORK/prune.log" && fail "cache prune $arg: CLI11's raw message: $(cat "$WORK/prune.log")"
  grep -qi "too large\|not a size\|negative\|whole number\|100 years" "$WORK/prune.log" \
    || fail "cache prune $arg: no reason given: $(cat "$WORK/prune.log")"
done
"$ROCKPACK" cache --cache-dir "$WORK/store" prune --keep-bytes 18446744073709551615 >/dev/null 2>&1 \
  || fail "cache prune --keep-bytes 2^64-1 (keep everything) failed"
after=$(find "$WORK/store" -type f | wc -l)
[ "$after" -ge "$before" ] || fail "cache prune removed files: $before before, $after after"
echo "ok: cache prune refuses sizes and days it cannot honour; the store is intact"
echo "PASS: test_drill_hostile_outputs"
