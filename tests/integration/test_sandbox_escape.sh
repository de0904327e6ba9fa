#!/usr/bin/env bash
# The sandbox holds against a hostile program (tests/tools/sandbox_escape.c, compiled static here):
# from a run: step, from a package's maintainer scripts (apt: scripts: run; the image's /bin/sh is
# the program) and from `rockpack check` of a hostile image (its /bin/sh is the program), as root and
# rootless (a test user), it tries the chroot escape, mount, mknod of a disk, writing core_pattern,
# ptrace of a host process, TIOCSTI, a host file through /proc/1/root and inherited descriptors;
# each must say BLOCKED with the reason, and a canary directory on the host (world-writable, so an
# escape of either kind could write there) stays as it was. A fork bomb stops at the pids limit; a
# step that outlives its timeout (also one that closed its output) is killed; SIGTERM to rockpack
# mid-step kills the container and leaves no scratch root, no process and no mount directory; so
# does SIGKILL to rockpack, to every process of the build named as rockpack is (pkill -x), or to
# the runtime.
source "$(dirname "$0")/lib/common.sh"
source "$ROCKPACK_SOURCE_DIR/tests/integration/lib/apt_repo.sh"
need gcc; need python3; need setpriv
[ "$(id -u)" -eq 0 ] || skip "needs root (the rootless half runs as a test user it makes)"
need_sandbox
export SOURCE_DATE_EPOCH=1700000000
cd "$WORK"
chmod 0755 "$WORK"  # the rootless half reads the image here as the test user

mkdir -p canary ctx
chmod 1777 canary
echo "precious" >canary/file
echo "host-secret" >secret
canary_state() { (cd "$WORK/canary" && find . -printf '%p %s %m %U\n' | sort | sha256sum); }
CANARY_BEFORE=$(canary_state)
gcc -static -O1 -DCANARY="\"$WORK/canary\"" -DHOST_SECRET="\"$WORK/secret\"" \
  -o ctx/escape "$ROCKPACK_SOURCE_DIR/tests/tools/sandbox_escape.c" 2>gcc.log ||
  skip "gcc -static cannot link here (libc6-dev's static libc): $(head -3 gcc.log)"
sleep 600 &
HOST_PID=$!
track_pid "$HOST_PID"
echo "$HOST_PID" >ctx/host-pid

CASES="chroot mount mknod core_pattern ptrace tiocsti proc1root fds"
# expect_blocked WHAT LOG: every case blocked (each reason printed), none escaped, canary unchanged.
expect_blocked() {
  local what=$1 log=$2 c
  grep -q "ESCAPED" "$log" && fail "$what: a case escaped: $(grep ESCAPED "$log")"
  for c in $CASES; do
    grep -q "BLOCKED $c:" "$log" || fail "$what: no result for $c in: $(cat "$log")"
    echo "  $what: $(grep -o "BLOCKED $c:.*" "$log" | head -1)"
  done
  assert_eq "$(canary_state)" "$CANARY_BEFORE" "$what: the canary directory on the host is unchanged"
  [ ! -e "$WORK/canary/escaped-chroot" ] || fail "$what: the chroot escape wrote on the host"
}

# The hostile image: the program is /bin/sh (and dpkg, for the maintainer scripts' check), /x too.
cat >ctx/hostile.yaml <<'EOF2'
name: hostile
files:
  - {src: escape, dest: /x, mode: 0755}
  - {src: escape, dest: /bin/sh, mode: 0755}
  - {src: escape, dest: /usr/bin/dpkg, mode: 0755}
  - {src: host-pid, dest: /host-pid}
  - {content: "", dest: /var/lib/dpkg/status}
EOF2
"$ROCKPACK" --quiet build ctx/hostile.yaml --cache-dir "$WORK/c" -o "oci:$WORK/img:hostile" >/dev/null 2>hostile.log ||
  fail "the hostile image did not build: $(cat hostile.log)"
chmod -R a+rX "$WORK/img" "$WORK/ctx"

# sigterm_mid_step LABEL CACHE_DIR [setpriv args...]: SIGTERM to rockpack while a run: step sleeps.
sigterm_mid_step() {
  local label=$1 cache=$2
  shift 2
  cat >ctx/sleep-run.yaml <<EOF2
name: sleep-run
base: oci:$WORK/img:hostile
run:
  - {name: sleeper, command: [/x, sleep]}
EOF2
  chmod a+r ctx/sleep-run.yaml
  "$@" "$ROCKPACK" build ctx/sleep-run.yaml --cache-dir "$cache" -o "oci:$WORK/out-$label:x" >"term-$label.log" 2>&1 &
  local pid=$! i
  for i in $(seq 1 100); do pgrep -f '^/x sleep' >/dev/null && break; sleep 0.1; done
  pgrep -f '^/x sleep' >/dev/null || fail "$label: the step did not start: $(cat "term-$label.log")"
  kill -TERM "$pid" 2>/dev/null || true
  # (with setpriv, $pid is setpriv, which execs rockpack: the same process)
  local rc=0
  wait "$pid" || rc=$?
  assert_eq "$rc" 143 "$label: rockpack dies of SIGTERM"
  sleep 0.2
  assert_eq "$(pgrep -f '^/x sleep' || true)" "" "$label: the sandboxed command is gone after SIGTERM"
  assert_eq "$(ls -d "$cache"/tmp/sandbox.tmp-* 2>/dev/null || true)" "" "$label: the scratch root is removed"
  assert_eq "$(ls -d /run/rockpack/sandbox.tmp-"$pid"-* 2>/dev/null || true)" "" "$label: no mount directory is left"
  echo "  $label: SIGTERM killed the container and removed its root"
}
# sigkill_mid_step LABEL CACHE_DIR [marker] [by-name] [setpriv args...]: SIGKILL to rockpack while a
# run: step sleeps before its two processes write a marker into the root. Nothing of the container
# may remain: no process, no runtime (nor its keeper), no bundle with the runtime's state, no mount
# directory, no cgroup, no scratch root; with `marker` (ROCKPACK_KEEP_SANDBOX=1 keeps the root to
# look into), no marker is written after the step's time is up. With `by-name`, SIGKILL goes to
# every process of the build named `rockpack`, as `pkill -9 -x rockpack` or `killall -9 rockpack`
# would send it (limited to this build's processes: other tests may be running).
sigkill_mid_step() {
  local label=$1 cache=$2 marker= by_name=
  shift 2
  if [ "${1:-}" = marker ]; then marker=1; shift; fi
  if [ "${1:-}" = by-name ]; then by_name=1; shift; fi
  cat >ctx/late-run.yaml <<EOF2
name: late-run
base: oci:$WORK/img:hostile
run:
  - {name: late, command: [/x, late-marker]}
EOF2
  chmod a+r ctx/late-run.yaml
  local keep=(env -u ROCKPACK_KEEP_SANDBOX)
  [ -n "$marker" ] && keep=(env ROCKPACK_KEEP_SANDBOX=1)
  "$@" "${keep[@]}" "$ROCKPACK" build ctx/late-run.yaml --cache-dir "$cache" -o "oci:$WORK/out-kill-$label:x" >"kill-$label.log" 2>&1 &
  local pid=$! i
  for i in $(seq 1 100); do [ "$(pgrep -fc '^/x late-marker' || true)" = 2 ] && break; sleep 0.1; done
  [ "$(pgrep -fc '^/x late-marker' || true)" = 2 ] || fail "$label: the step did not start: $(cat "kill-$label.log")"
  if [ -n "$by_name" ]; then
    # rockpack and its children under its name (the keeper is one of its children, in a session of
    # its own); the name is the binary's, as the kernel keeps it (15 characters)
    local name named
    name=$(basename "$ROCKPACK" | cut -c1-15)
    named=$(pgrep -x -P "$pid" "$name" || true)
    kill -KILL "$pid" $named
  else
    kill -KILL "$pid"
  fi
  local rc=0
  wait "$pid" || rc=$?
  assert_eq "$rc" 137 "$label: rockpack dies of SIGKILL"
  # The keeper has this long to kill the container and clean up; the markers come 4 s after the start.
  local left=
  for i in $(seq 1 100); do
    left=$( { pgrep -f '^/x late-marker'; pgrep -f "rockpack-$pid-[0-9]"; pgrep -f "ctx/late-run.yaml"; ls -d "$cache"/tmp/sandbox.tmp-"$pid"-*/oci-* /run/rockpack/sandbox.tmp-"$pid"-* 2>/dev/null
              [ -n "$marker" ] || ls -d "$cache"/tmp/sandbox.tmp-"$pid"-* 2>/dev/null
              find /sys/fs/cgroup -maxdepth 3 -name "rockpack-$pid-*" 2>/dev/null; } | head -5 || true)
    [ -z "$left" ] && break
    sleep 0.1
  done
  [ -z "$left" ] || fail "$label: left after SIGKILL: $left"
  if [ -n "$marker" ]; then
    local root
    root=$(ls -d "$cache"/tmp/sandbox.tmp-"$pid"-*/rootfs 2>/dev/null | head -1)
    [ -n "$root" ] || fail "$label: the kept root is missing"
    sleep 5
    assert_eq "$(ls "$root" | grep late-marker || true)" "" "$label: no marker is written after SIGKILL"
    assert_eq "$(pgrep -f '^/x late-marker' || true)" "" "$label: no process of the step is left"
    rm -rf "$cache"/tmp/sandbox.tmp-"$pid"-*
    echo "  $label: SIGKILL: the container died with rockpack, its markers were never written"
  else
    echo "  $label: SIGKILL${by_name:+ by name}: no process, runtime state, bundle, mount directory, cgroup or scratch root is left"
  fi
}

# sigkill_runtime_mid_step LABEL CACHE_DIR: SIGKILL to the runtime (not to rockpack) while the step
# sleeps. The container must die with it (its keeper deletes it), the step fails, no marker comes.
sigkill_runtime_mid_step() {
  local label=$1 cache=$2
  ROCKPACK_KEEP_SANDBOX=1 "$ROCKPACK" build ctx/late-run.yaml --cache-dir "$cache" -o "oci:$WORK/out-rtkill-$label:x" \
    >"rtkill-$label.log" 2>&1 &
  local pid=$! i
  for i in $(seq 1 100); do [ "$(pgrep -fc '^/x late-marker' || true)" = 2 ] && break; sleep 0.1; done
  [ "$(pgrep -fc '^/x late-marker' || true)" = 2 ] || fail "$label: the step did not start: $(cat "rtkill-$label.log")"
  local runtime
  runtime=$(pgrep -f " run --bundle .*rockpack-$pid-[0-9]" || true)
  [ -n "$runtime" ] || fail "$label: no runtime process found for rockpack $pid"
  kill -KILL $runtime
  local rc=0
  wait "$pid" || rc=$?
  assert_eq "$rc" 1 "$label: the step fails when its runtime is killed"
  assert_eq "$(pgrep -f '^/x late-marker' || true)" "" "$label: the container died with its runtime"
  assert_eq "$(find /sys/fs/cgroup -maxdepth 3 -name "rockpack-$pid-*" 2>/dev/null)" "" "$label: no cgroup is left"
  local root
  root=$(ls -d "$cache"/tmp/sandbox.tmp-"$pid"-*/rootfs 2>/dev/null | head -1)
  [ -n "$root" ] || fail "$label: the kept root is missing"
  sleep 5
  assert_eq "$(ls "$root" | grep late-marker || true)" "" "$label: no marker is written after the runtime's SIGKILL"
  rm -rf "$cache"/tmp/sandbox.tmp-"$pid"-*
  echo "  $label: SIGKILL to the runtime: the container died with it ($(grep -o 'exit code [0-9]*' "rtkill-$label.log" | head -1))"
}

# root_half RUNTIME: every attack as root, with that runtime only (ROCKPACK_SANDBOX_RUNTIME).
root_half() {
  local RT=$1
  export ROCKPACK_SANDBOX_RUNTIME=$RT
echo "rockpack check of a hostile image (its /bin/sh), as root, $RT:"
"$ROCKPACK" check "oci:$WORK/img:hostile" --cache-dir "$WORK/c-$RT" --run true >check-$RT.log 2>&1 ||
  fail "check of the hostile image failed: $(cat check-$RT.log)"
expect_blocked "check (root, $RT)" check-$RT.log
grep -q "sandbox: commands run in containers made by $RT" check-$RT.log || fail "check: $RT did not run it, or the log does not say so: $(cat check-$RT.log)"
echo "  $(grep -o 'sandbox: commands run in containers made by.*' check-$RT.log)"

# With a terminal: rockpack run in a pty (script(1)) has a controlling tty the command must not reach.
if command -v script >/dev/null; then
  echo "rockpack check from a terminal (TIOCSTI into the user's shell), as root, $RT:"
  script -qefc "'$ROCKPACK' check 'oci:$WORK/img:hostile' --cache-dir '$WORK/c-$RT' --run true" /dev/null >check-tty-$RT.log 2>&1 ||
    fail "check from a terminal failed: $(cat check-tty-$RT.log)"
  grep -q "BLOCKED tiocsti:" check-tty-$RT.log || fail "from a terminal: no TIOCSTI result: $(cat check-tty-$RT.log)"
  grep -q "ESCAPED" check-tty-$RT.log && fail "from a terminal: $(grep ESCAPED check-tty-$RT.log)"
  echo "  with a tty: $(grep -o 'BLOCKED tiocsti:.*' check-tty-$RT.log | head -1)"
fi

echo "a run: step, as root, $RT:"
cat >ctx/run.yaml <<EOF2
name: hostile-run
base: oci:$WORK/img:hostile
run:
  - {name: attack, command: [/x, all, "$HOST_PID"]}
EOF2
"$ROCKPACK" build ctx/run.yaml --cache-dir "$WORK/c-$RT" -o "oci:$WORK/img:run-$RT" >run-$RT.log 2>&1 || fail "run: step failed: $(cat run-$RT.log)"
expect_blocked "run: (root, $RT)" run-$RT.log

echo "maintainer scripts (apt: scripts: run), as root, $RT:"
cat >ctx/apt.yaml <<EOF2
name: hostile-scripts
base: oci:$WORK/img:hostile
apt:
  sources: [{url: "$APT_REPO_URL/repo", suite: rptest, components: [main], signed_by: "$WORK/r/keys/test.asc"}]
  packages: [rp-base]
  scripts: run
EOF2
"$ROCKPACK" build ctx/apt.yaml --cache-dir "$WORK/c-$RT" -o "oci:$WORK/img:apt-$RT" >apt-build-$RT.log 2>&1 ||
  fail "apt scripts build failed: $(cat apt-build-$RT.log)"
grep -q "apt: running the maintainer scripts" apt-build-$RT.log || fail "the maintainer scripts did not run: $(cat apt-build-$RT.log)"
expect_blocked "maintainer scripts (root, $RT)" apt-build-$RT.log

# The slow cases as checks: a fork bomb, a step past its timeout, one that closed its output first.
cat >ctx/slow.yaml <<'EOF2'
name: slow
checks:
  - {name: forkbomb, command: [/x, forkbomb], timeout: 120}
  - {name: sleeper, command: [/x, sleep], timeout: 2}
  - {name: quiet-sleeper, command: [/x, quiet-sleep], timeout: 2}
EOF2
echo "fork bomb, timeouts, as root, $RT:"
start=$(date +%s)
rc=0; "$ROCKPACK" check "oci:$WORK/img:hostile" --cache-dir "$WORK/c-$RT" --recipe ctx/slow.yaml >slow-$RT.log 2>&1 || rc=$?
took=$(( $(date +%s) - start ))
assert_eq "$rc" 1 "the sleepers fail the check"
grep -q "BLOCKED forkbomb: fork failed after" slow-$RT.log || fail "the fork bomb was not stopped by the pids limit: $(cat slow-$RT.log)"
echo "  $(grep -o 'BLOCKED forkbomb:.*' slow-$RT.log)"
assert_contains "$(cat slow-$RT.log)" "FAILED  sleeper: stopped after its time limit of 2 s (its container was killed)" "a step past its timeout"
assert_contains "$(cat slow-$RT.log)" "FAILED  quiet-sleeper: stopped after its time limit of 2 s" "a step that closed its output, past its timeout"
[ "$took" -lt 60 ] || fail "the timeouts took $took s"
echo "  sleepers stopped at their 2 s limits (the whole check took $took s)"
assert_eq "$(pgrep -f '^/x (sleep|quiet-sleep|forkbomb)' || true)" "" "no process of the checks is left"

echo "SIGTERM mid-step, as root, $RT:"
sigterm_mid_step "root-$RT" "$WORK/c-$RT"
echo "SIGKILL mid-step, as root, $RT:"
sigkill_mid_step "root-$RT" "$WORK/c-$RT" marker
sigkill_mid_step "root-$RT" "$WORK/c-$RT"
sigkill_mid_step "root-$RT" "$WORK/c-$RT" by-name
sigkill_runtime_mid_step "root-$RT" "$WORK/c-$RT"
  unset ROCKPACK_SANDBOX_RUNTIME
}
apt_repo_make "$WORK/r" >apt.log 2>&1 || { rc=$?; [ $rc -eq 77 ] && skip "apt_repo: $(tail -1 apt.log)"; fail "apt_repo_make: $(cat apt.log)"; }
apt_repo_serve "$WORK/r" >/dev/null
# Both runtimes where both are installed: the properties must not depend on which one runs.
RUNTIMES=$(for rt in crun runc; do command -v "$rt" >/dev/null && echo "$rt"; done)
[ -n "$RUNTIMES" ] || skip "neither crun nor runc is installed"
for rt in $RUNTIMES; do root_half "$rt"; done

# ---- Rootless: the same attacks as a user of the machine (the caller's uid mapped to root). ----
USER_NAME=rpsbxtest
id "$USER_NAME" >/dev/null 2>&1 || useradd -M -d /nonexistent -s /usr/sbin/nologin "$USER_NAME" 2>/dev/null ||
  skip "cannot add a test user for the rootless half"
as_user() { setpriv --reuid "$USER_NAME" --regid "$USER_NAME" --init-groups env HOME="$WORK/home" XDG_CACHE_HOME="$WORK/rl-cache" "$@"; }
mkdir -p "$WORK/home" "$WORK/rl"
chown "$USER_NAME" "$WORK/home" "$WORK/rl"
chmod 0777 "$WORK"  # the test user's outputs go here
echo "rockpack check of a hostile image, rootless:"
as_user "$ROCKPACK" check "oci:$WORK/img:hostile" --cache-dir "$WORK/rl/c" --run true >check-rl.log 2>&1 ||
  fail "rootless check failed: $(cat check-rl.log)"
expect_blocked "check (rootless)" check-rl.log
echo "a run: step, rootless:"
as_user "$ROCKPACK" build ctx/run.yaml --cache-dir "$WORK/rl/c" -o "oci:$WORK/rl/img:run" >run-rl.log 2>&1 ||
  fail "rootless run: step failed: $(cat run-rl.log)"
expect_blocked "run: (rootless)" run-rl.log
# The runtime that worked is remembered: the second process tries it first (no failed attempt of
# another runtime in its log).
first_rt=$(grep -o 'sandbox: commands run in containers made by [a-z]*' check-rl.log | awk '{print $NF}')
assert_eq "$(sed -n 2p "$WORK/rl-cache/rockpack/sandbox-runtime" 2>/dev/null)" "$first_rt" "rootless: the runtime that worked is remembered"
grep -q "cannot run here" run-rl.log && fail "rootless: the second process tried a runtime that failed before: $(grep 'cannot run here' run-rl.log)"
echo "  rootless: $first_rt remembered and tried first by the next process"
echo "fork bomb, timeouts, rootless:"
rc=0; as_user "$ROCKPACK" check "oci:$WORK/img:hostile" --cache-dir "$WORK/rl/c" --recipe ctx/slow.yaml >slow-rl.log 2>&1 || rc=$?
assert_eq "$rc" 1 "rootless: the sleepers fail the check"
grep -q "BLOCKED forkbomb: fork failed after" slow-rl.log || fail "rootless: the fork bomb was not stopped: $(cat slow-rl.log)"
echo "  $(grep -o 'BLOCKED forkbomb:.*' slow-rl.log)"
assert_contains "$(cat slow-rl.log)" "FAILED  quiet-sleeper: stopped after its time limit of 2 s" "rootless: timeout"
echo "SIGTERM mid-step, rootless:"
sigterm_mid_step rootless "$WORK/rl/c" setpriv --reuid "$USER_NAME" --regid "$USER_NAME" --init-groups env HOME="$WORK/home"
echo "SIGKILL mid-step, rootless:"
sigkill_mid_step rootless "$WORK/rl/c" setpriv --reuid "$USER_NAME" --regid "$USER_NAME" --init-groups env HOME="$WORK/home"
assert_eq "$(canary_state)" "$CANARY_BEFORE" "the canary directory is unchanged at the end"
echo "ok: nothing left the sandbox"
