#!/usr/bin/env bash
# The sandbox holds against a hostile program (tests/tools/sandbox_escape.c, compiled static here):
# from a run: step, from a package's maintainer scripts (apt: scripts: run; the image's /bin/sh is
# the program) and from `rockpack check` of a hostile image (its /bin/sh is the program), as root and
# rootless (a test user), it tries the chroot escape, mount, mknod of a disk, writing core_pattern,
# ptrace of a host process, TIOCSTI, a host file through /proc/1/root and inherited descriptors;
# each must say BLOCKED with the reason, and a canary directory on the host (world-writable, so an
# escape of either kind could write there) stays as it was. A fork bomb stops at the pids limit; a
# step that outlives its timeout (also one that closed its output) is killed; SIGTERM to rockpack
# mid-step kills the container and leaves no scratch root, no process and no mount directory.
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

echo "rockpack check of a hostile image (its /bin/sh), as root:"
"$ROCKPACK" check "oci:$WORK/img:hostile" --cache-dir "$WORK/c" --run true >check.log 2>&1 ||
  fail "check of the hostile image failed: $(cat check.log)"
expect_blocked "check (root)" check.log
grep -q "sandbox: commands run in containers made by" check.log || fail "check: which runtime ran is not said: $(cat check.log)"
echo "  $(grep -o 'sandbox: commands run in containers made by.*' check.log)"

# With a terminal: rockpack run in a pty (script(1)) has a controlling tty the command must not reach.
if command -v script >/dev/null; then
  echo "rockpack check from a terminal (TIOCSTI into the user's shell), as root:"
  script -qefc "'$ROCKPACK' check 'oci:$WORK/img:hostile' --cache-dir '$WORK/c' --run true" /dev/null >check-tty.log 2>&1 ||
    fail "check from a terminal failed: $(cat check-tty.log)"
  grep -q "BLOCKED tiocsti:" check-tty.log || fail "from a terminal: no TIOCSTI result: $(cat check-tty.log)"
  grep -q "ESCAPED" check-tty.log && fail "from a terminal: $(grep ESCAPED check-tty.log)"
  echo "  with a tty: $(grep -o 'BLOCKED tiocsti:.*' check-tty.log | head -1)"
fi

echo "a run: step, as root:"
cat >ctx/run.yaml <<EOF2
name: hostile-run
base: oci:$WORK/img:hostile
run:
  - {name: attack, command: [/x, all, "$HOST_PID"]}
EOF2
"$ROCKPACK" build ctx/run.yaml --cache-dir "$WORK/c" -o "oci:$WORK/img:run" >run.log 2>&1 || fail "run: step failed: $(cat run.log)"
expect_blocked "run: (root)" run.log

echo "maintainer scripts (apt: scripts: run), as root:"
apt_repo_make "$WORK/r" >apt.log 2>&1 || { rc=$?; [ $rc -eq 77 ] && skip "apt_repo: $(tail -1 apt.log)"; fail "apt_repo_make: $(cat apt.log)"; }
apt_repo_serve "$WORK/r" >/dev/null
cat >ctx/apt.yaml <<EOF2
name: hostile-scripts
base: oci:$WORK/img:hostile
apt:
  sources: [{url: "$APT_REPO_URL/repo", suite: rptest, components: [main], signed_by: "$WORK/r/keys/test.asc"}]
  packages: [rp-base]
  scripts: run
EOF2
"$ROCKPACK" build ctx/apt.yaml --cache-dir "$WORK/c" -o "oci:$WORK/img:apt" >apt-build.log 2>&1 ||
  fail "apt scripts build failed: $(cat apt-build.log)"
grep -q "apt: running the maintainer scripts" apt-build.log || fail "the maintainer scripts did not run: $(cat apt-build.log)"
expect_blocked "maintainer scripts (root)" apt-build.log

# The slow cases as checks: a fork bomb, a step past its timeout, one that closed its output first.
cat >ctx/slow.yaml <<'EOF2'
name: slow
checks:
  - {name: forkbomb, command: [/x, forkbomb], timeout: 120}
  - {name: sleeper, command: [/x, sleep], timeout: 2}
  - {name: quiet-sleeper, command: [/x, quiet-sleep], timeout: 2}
EOF2
echo "fork bomb, timeouts, as root:"
start=$(date +%s)
rc=0; "$ROCKPACK" check "oci:$WORK/img:hostile" --cache-dir "$WORK/c" --recipe ctx/slow.yaml >slow.log 2>&1 || rc=$?
took=$(( $(date +%s) - start ))
assert_eq "$rc" 1 "the sleepers fail the check"
grep -q "BLOCKED forkbomb: fork failed after" slow.log || fail "the fork bomb was not stopped by the pids limit: $(cat slow.log)"
echo "  $(grep -o 'BLOCKED forkbomb:.*' slow.log)"
assert_contains "$(cat slow.log)" "FAILED  sleeper: stopped after its time limit of 2 s (its container was killed)" "a step past its timeout"
assert_contains "$(cat slow.log)" "FAILED  quiet-sleeper: stopped after its time limit of 2 s" "a step that closed its output, past its timeout"
[ "$took" -lt 60 ] || fail "the timeouts took $took s"
echo "  sleepers stopped at their 2 s limits (the whole check took $took s)"
assert_eq "$(pgrep -f '^/x (sleep|quiet-sleep|forkbomb)' || true)" "" "no process of the checks is left"

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
echo "SIGTERM mid-step, as root:"
sigterm_mid_step root "$WORK/c"

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
echo "fork bomb, timeouts, rootless:"
rc=0; as_user "$ROCKPACK" check "oci:$WORK/img:hostile" --cache-dir "$WORK/rl/c" --recipe ctx/slow.yaml >slow-rl.log 2>&1 || rc=$?
assert_eq "$rc" 1 "rootless: the sleepers fail the check"
grep -q "BLOCKED forkbomb: fork failed after" slow-rl.log || fail "rootless: the fork bomb was not stopped: $(cat slow-rl.log)"
echo "  $(grep -o 'BLOCKED forkbomb:.*' slow-rl.log)"
assert_contains "$(cat slow-rl.log)" "FAILED  quiet-sleeper: stopped after its time limit of 2 s" "rootless: timeout"
echo "SIGTERM mid-step, rootless:"
sigterm_mid_step rootless "$WORK/rl/c" setpriv --reuid "$USER_NAME" --regid "$USER_NAME" --init-groups env HOME="$WORK/home"
assert_eq "$(canary_state)" "$CANARY_BEFORE" "the canary directory is unchanged at the end"
echo "ok: nothing left the sandbox"
