#!/usr/bin/env bash
# The hostile-inputs drill (issue 15, docs/reliability.md "Drills"). Recipes, base images, wheels,
# registry answers, index pages, .debs, apt repositories and TheRock indexes are all untrusted: every case here must end
# with a clear message and the right exit code, never a crash, in bounded memory, writing nothing
# outside its output and store. The cases (inputs and expectations) are written by
# tests/tools/make_hostile_inputs.py; this script serves what needs serving on loopback, runs each
# case under /usr/bin/time and checks:
#   - the exit code (2 bad input, 1 a failure of something fetched or verified), never a signal;
#   - the message: the case's keywords, no crash marker, at most MAX_OUTPUT bytes (a 50 MB hostile
#     value is never echoed whole);
#   - max RSS under the limit of the case's class (RSS_LIMIT_MB below);
#   - nothing written: no output image, no file newer than the case's marker anywhere in $WORK except
#     its store and log, the traversal targets under $WORK/outside absent, its TMPDIR left empty.
# HOSTILE_ONLY=REGEX runs only the cases whose name matches. The table of figures (cases, max RSS per
# class) is printed at the end.
source "$(dirname "$0")/lib/common.sh"
source "$ROCKPACK_SOURCE_DIR/tests/integration/lib/python_fixtures.sh"
source "$ROCKPACK_SOURCE_DIR/tests/integration/lib/apt_repo.sh"
TIME=/usr/bin/time
[ -x "$TIME" ] || skip "no $TIME (install the package 'time')"
export SOURCE_DATE_EPOCH=1700000000

# Max RSS per class of input, MB. A build's own baseline is about 20 MB; these leave room for real
# work while catching amplification (the defects this drill guards against took 1 to 6 GB): a 50 MB
# recipe value or index page is held a few times over while parsed (recipe, index: about 170 and
# 120 MB seen); layers, wheels, .debs and registry answers are streamed or refused over a bound
# (under 30 MB seen); a TheRock page of 8 MB about 85 MB.
declare -A RSS_LIMIT_MB=([recipe]=300 [base]=128 [registry]=128 [wheel]=128 [index]=300 [apt]=128 [rocm]=200)
MAX_OUTPUT=6000
CASE_TIMEOUT=120

H="$WORK/h"
OUTSIDE="$WORK/outside"
mkdir -p "$OUTSIDE"
# A static busybox makes the cases whose base layers are written to disk for a run: step.
BUSYBOX=""
if [ -x /bin/busybox ] && file -L /bin/busybox 2>/dev/null | grep -q "statically linked" \
  && unshare --mount --pid --fork --net --ipc --uts --mount-proc true 2>/dev/null; then
  BUSYBOX=/bin/busybox
else
  echo "note: no static busybox or no sandbox here: the run: cases are left out" >&2
fi
python3 "$ROCKPACK_SOURCE_DIR/tests/tools/make_hostile_inputs.py" "$H" --outside "$OUTSIDE" --busybox "$BUSYBOX" >"$WORK/gen.log" 2>&1 \
  || fail "make_hostile_inputs.py failed: $(cat "$WORK/gen.log")"

# Loopback servers: an index (index_server.py) and a static host (static_server.py) over the
# generated trees, and apt_repo.sh's signed repository with its broken variants.
start_index index "$H/index"
start_loopback_server static "$ROCKPACK_SOURCE_DIR/tests/tools/static_server.py" "$H/static"
STATIC_URL="http://127.0.0.1:$(cat "$WORK/static.port")"
start_loopback_server registry "$ROCKPACK_SOURCE_DIR/tests/tools/hostile_registry.py" "$H/registry"
REGISTRY="127.0.0.1:$(cat "$WORK/registry.port")"
# The signed apt repository takes half a minute: it is made in the background while the other cases
# run, and the apt cases run last.
APT_OK=0
make_apt_repo() {
  [ "$(id -u)" -eq 0 ] || { echo "not root: apt_repo.sh needs root"; return 77; }
  apt_repo_make "$WORK/r" || return
  local v
  for v in tampered-packages unsigned wrong-key bad-signature; do apt_repo_variant "$WORK/r" "$v" || return; done
}
make_apt_repo >"$WORK/apt.log" 2>&1 &
APT_PID=$!
wait_apt_repo() {
  local rc=0
  wait "$APT_PID" || rc=$?
  if [ "$rc" -eq 0 ]; then
    apt_repo_serve "$WORK/r" >/dev/null
    APT_OK=1
  elif [ "$rc" -ne 77 ]; then
    fail "making the apt test repository failed (exit $rc): $(tail -n 20 "$WORK/apt.log")"
  fi
}

FAILURES=()
declare -A MAX_RSS CASES
SKIPPED=0
# problem CASE TEXT: records a failed check (every case runs; the drill fails at the end).
problem() { FAILURES+=("$1: $2"); echo "  FAIL $1: $2" >&2; }

run_case() {
  local name=$1 c="$H/cases/$1" run="$WORK/run/$1"
  local cmd want klass needs rc=0 rss out
  cmd=$(cat "$c/cmd"); want=$(cat "$c/exit"); klass=$(cat "$c/class"); needs=$(cat "$c/needs")
  if [ "$needs" = apt ] && [ "$APT_OK" -ne 1 ]; then
    echo "skip: $name (no apt test repository here: $(tail -n 1 "$WORK/apt.log" 2>/dev/null))"
    SKIPPED=$((SKIPPED + 1))
    return
  fi
  if [ -n "$needs" ] && [ -f "$c/recipe.yaml" ]; then
    sed -i -e "s|@INDEX@|$(index_url index)|g" -e "s|@STATIC@|$STATIC_URL|g" -e "s|@REGISTRY@|$REGISTRY|g" \
      -e "s|@APT@|${APT_REPO_URL:-}|g" -e "s|@APTKEYS@|$WORK/r/keys|g" "$c/recipe.yaml"
  fi
  mkdir -p "$run/tmp" "$run/home" "$run/cwd"
  local args=()
  mapfile -t args <"$c/args"
  local outputs=()
  [ "$cmd" = build ] && outputs=(-o "oci:$run/out:x" --cache-dir "$run/cache")
  touch "$run/marker"
  local started=$EPOCHREALTIME
  (cd "$run/cwd" && HOME="$run/home" TMPDIR="$run/tmp" timeout -s KILL "$CASE_TIMEOUT" \
    "$TIME" -f %M -o "$run/rss" "$ROCKPACK" "$cmd" "$c/recipe.yaml" "${outputs[@]}" "${args[@]}" \
    >"$run/log" 2>&1) || rc=$?
  local seconds
  seconds=$(awk -v a="$started" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
  out=$(cat "$run/log")
  rss=$(tail -n 1 "$run/rss" 2>/dev/null || echo 0)
  [[ "$rss" =~ ^[0-9]+$ ]] || rss=0
  rss=$((rss / 1024))
  CASES[$klass]=$((${CASES[$klass]:-0} + 1))
  [ "$rss" -gt "${MAX_RSS[$klass]:-0}" ] && MAX_RSS[$klass]=$rss

  # The exit code; a signal (>= 128, or time's "Command terminated by signal") is a crash.
  [ "$rc" -eq 137 ] && problem "$name" "killed after ${CASE_TIMEOUT}s (a loop?)"
  [ "$rc" -eq "$want" ] || problem "$name" "exit code $rc, expected $want: $(head -c 600 <<<"$out")"
  local marker
  for marker in "terminate called" "Segmentation fault" "AddressSanitizer" "Aborted" "core dumped" \
    "Command terminated by signal" "std::bad_alloc" "basic_string"; do
    grep -qF "$marker" "$run/log" "$run/rss" 2>/dev/null && problem "$name" "crash marker '$marker'"
  done
  local size
  size=$(stat -c %s "$run/log")
  [ "$size" -le "$MAX_OUTPUT" ] || problem "$name" "the message is $size bytes (at most $MAX_OUTPUT): a hostile value echoed?"
  local word
  while IFS= read -r word; do
    [ -n "$word" ] || continue
    word=${word//@STATIC@/$STATIC_URL}
    grep -qiF -- "$word" "$run/log" || problem "$name" "the message lacks '$word': $(head -c 600 <<<"$out")"
  done <"$c/contains"
  [ "$want" -eq 0 ] || grep -qi "error" "$run/log" || problem "$name" "no error line in: $(head -c 300 <<<"$out")"
  [ "$rss" -le "${RSS_LIMIT_MB[$klass]}" ] || problem "$name" "max RSS $rss MB over the $klass limit ${RSS_LIMIT_MB[$klass]} MB"

  # Nothing written outside the output and the store: no output at all (the build failed), the
  # traversal targets absent, no new file anywhere else in $WORK, TMPDIR empty again.
  if [ "$want" -ne 0 ]; then
    [ ! -e "$run/out" ] || problem "$name" "the failed build left its output $run/out"
  elif [ "$cmd" = build ]; then
    [ -e "$run/out/index.json" ] || problem "$name" "the build succeeded but wrote no image"
  fi
  local path
  while IFS= read -r path; do
    [ -n "$path" ] || continue
    if [ -e "$path" ] || [ -L "$path" ]; then problem "$name" "the traversal target $path was created"; fi
  done <"$c/absent"
  [ -z "$(ls -A "$OUTSIDE")" ] || problem "$name" "something was written to $OUTSIDE: $(ls -A "$OUTSIDE")"
  [ -z "$(ls -A "$run/tmp")" ] || problem "$name" "temporaries left in TMPDIR: $(ls -A "$run/tmp" | head -n 3)"
  local written
  # (Earlier cases' directories under $WORK/run are left out of the walk: only this one can change;
  # so is the apt repository, made in the background.)
  written=$({ find "$WORK" \( -path "$WORK/run" -o -path "$WORK/r" \) -prune -o -newer "$run/marker" \( ! -type d -o -empty \) -print
              find "$run" -newer "$run/marker" \( ! -type d -o -empty \) -print; } 2>/dev/null \
    | grep -v -x -F -e "$run/log" -e "$run/rss" -e "$run/tmp" -e "$c/recipe.yaml" \
    | grep -v -e "^$run/cache\(/\|\$\)" -e "^$run/out\(/\|\$\)" -e "^$WORK/[^/]*\.\(log\|port\)\$" | head -n 5 || true)
  [ -z "$written" ] || problem "$name" "files written outside the output and the store: $written"
  # (The seconds are for whoever keeps the drill fast, never checked.)
  echo "ran: $name -> exit $rc, ${rss} MB, ${seconds}s: $(grep -m1 -i error "$run/log" | head -c 160)"
}

selected() { [ -z "${HOSTILE_ONLY:-}" ] || [[ "$1" =~ $HOSTILE_ONLY ]]; }
for c in "$H"/cases/*/; do
  name=$(basename "$c")
  selected "$name" && [ "$(cat "$c/needs")" != apt ] && run_case "$name"
done
wait_apt_repo
for c in "$H"/cases/*/; do
  name=$(basename "$c")
  selected "$name" && [ "$(cat "$c/needs")" = apt ] && run_case "$name"
done

echo
echo "| class | cases | max RSS (MB) | limit (MB) |"
echo "|---|---|---|---|"
total=0
for klass in recipe base registry wheel index apt rocm; do
  [ -n "${CASES[$klass]:-}" ] || continue
  echo "| $klass | ${CASES[$klass]} | ${MAX_RSS[$klass]:-0} | ${RSS_LIMIT_MB[$klass]} |"
  total=$((total + CASES[$klass]))
done
echo "cases run: $total, skipped: $SKIPPED"
if [ "${#FAILURES[@]}" -gt 0 ]; then
  printf '%s\n' "${FAILURES[@]}" >&2
  fail "${#FAILURES[@]} check(s) failed"
fi
[ -n "${HOSTILE_ONLY:-}" ] || [ "$total" -ge 50 ] || fail "only $total cases ran (at least 50 expected)"
echo "PASS: test_drill_hostile_inputs"
