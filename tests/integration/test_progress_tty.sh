#!/usr/bin/env bash
# Progress on a terminal (issue 14): a ~300 MB Python build (bench/make_wheel_set.sh: a torch-sized
# wheel, two ROCm-SDK-sized ones, small ones) on the Debian base, wheels served at a limited rate,
# the image pushed to a loopback registry, run in a tmux pane. The pane, captured while it runs,
# shows downloads, compression and the push with bytes, rate and ETA per item and a total line.
# The same build with --log-format json prints only JSON objects, one per event.
source "$(dirname "$0")/lib/common.sh"
source "$ROCKPACK_SOURCE_DIR/tests/integration/lib/python_fixtures.sh"
source "$ROCKPACK_SOURCE_DIR/tests/integration/lib/registry.sh"
need tmux
[ "$(id -u)" -eq 0 ] || skip "the Debian base needs root"

python_base
wheels=$(bash "$ROCKPACK_SOURCE_DIR/bench/make_wheel_set.sh" "$WORK/wheels" 300)
# 30 MB/s per file: the torch-sized wheel takes a few seconds, long enough to be seen.
start_index idx "$wheels" --rate 30000000
start_registry reg
{
  printf 'name: progress\nbase: oci:%s:base\npython:\n  interpreter: /usr/bin/python3\n  venv: /opt/venv\n' "$BASE"
  printf '  indexes:\n    - url: %s/simple/\n  packages:\n' "$(index_url idx)"
  for f in "$wheels"/*.whl; do
    b=$(basename "$f")
    printf '    - "%s==%s"\n' "$(echo "${b%%-*}" | tr _ -)" "$(echo "$b" | cut -d- -f2)"
  done
  echo "tags: [v1]"
} >"$WORK/recipe.yaml"

session="rockpack-progress-$$"
tmux new-session -d -s "$session" -x 160 -y 40 \
  "cd '$WORK' && XDG_CACHE_HOME='$WORK/cache-tty' '$ROCKPACK' build recipe.yaml -o oci:'$WORK/out' --compression gzip:6 \
     --push '$REG/progress/img' >'$WORK/tty.stdout'; echo \$? >'$WORK/tty.rc'; sleep 600"
trap 'tmux kill-session -t "$session" 2>/dev/null || true; cleanup' EXIT
: >"$WORK/captures"
for _ in $(seq 1 1500); do
  tmux capture-pane -p -t "$session" >>"$WORK/captures" 2>/dev/null || true
  [ -s "$WORK/tty.rc" ] && break
  sleep 0.2
done
tmux capture-pane -p -S - -t "$session" >>"$WORK/captures" 2>/dev/null || true
[ -s "$WORK/tty.rc" ] || fail "the build in tmux did not finish: $(tail -20 "$WORK/captures")"
assert_eq "$(cat "$WORK/tty.rc")" 0 "exit code of the build in tmux"
caps=$(cat "$WORK/captures")
line() { grep -E "$1" <<<"$caps" | head -1; }
dl=$(line '^  download +rp-bench-torch .*MiB / .*MiB +[0-9.]+ [KMG]iB/s +ETA [0-9]+')
[ -n "$dl" ] || fail "no download line with bytes, total, rate and ETA for the torch wheel in:
$(grep -E 'download|total' <<<"$caps" | sort -u | head -20)"
[ -n "$(line '^  compress +layer .*iB / .*iB +[0-9.]+ [KMG]iB/s')" ] || fail "no compression line in:
$(sort -u <<<"$caps" | head -40)"
[ -n "$(line '^  push +blob [0-9a-f]{12} .*iB / .*iB +[0-9.]+ [KMG]iB/s')" ] || fail "no push line in:
$(sort -u <<<"$caps" | head -40)"
[ -n "$(line '^  total +[0-9]+ done, [0-9]+ active .*iB/s')" ] || fail "no total line"
# The log lines are still there once the live block is gone.
assert_contains "$caps" "pushed $REG/progress/img:v1" "the push log line"

# JSON logs: every stderr line is a JSON object; downloads, compression and pushes are events.
XDG_CACHE_HOME="$WORK/cache-json" "$ROCKPACK" --log-format json build "$WORK/recipe.yaml" -o oci:"$WORK/out-json" \
  --push "$REG/progress/json" >/dev/null 2>"$WORK/json.log" || fail "the JSON build failed: $(tail -5 "$WORK/json.log")"
python3 - "$WORK/json.log" <<'PY' || fail "JSON log check"
import json, sys
events = {}
for n, line in enumerate(open(sys.argv[1]), 1):
    obj = json.loads(line)  # raises on anything that is not one JSON object a line
    if "event" in obj:
        events.setdefault(obj["event"], []).append(obj)
for e in ("download.start", "download.finish", "compress.start", "compress.finish", "push.start", "push.finish"):
    if e not in events:
        sys.exit(f"no {e} event; got {sorted(events)}")
torch = [o for o in events["download.finish"] if o["item"].startswith("rp-bench-torch")]
if not torch or torch[0]["bytes"] < 50 << 20 or "bytes_per_second" not in torch[0]:
    sys.exit(f"the torch download.finish event lacks its figures: {torch}")
PY
echo "ok"
