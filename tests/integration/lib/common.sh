# Shared by the integration tests: a scratch directory removed on exit, assertions that say what
# they expected, and skips (exit 77) for what the machine cannot do.
set -euo pipefail

: "${ROCKPACK:?set ROCKPACK to the rockpack binary (ctest does this)}"
: "${ROCKPACK_SOURCE_DIR:?set ROCKPACK_SOURCE_DIR to the source tree}"

WORK=$(mktemp -d /tmp/rockpack-it-XXXXXX)
export XDG_CACHE_HOME="$WORK/cache"
# Background servers a test starts (registries, indexes) are stopped before the scratch directory goes.
_RP_PIDS=()
track_pid() { _RP_PIDS+=("$1"); }
# start_loopback_server NAME SCRIPT ARGS...: runs a test server (tests/tools/*_server.py) that binds
# a free port and writes it to $WORK/NAME.port; waits until it has. Its log is $WORK/NAME.log.
start_loopback_server() {
  local name=$1 script=$2
  shift 2
  python3 "$script" "$@" --port 0 --port-file "$WORK/$name.port" >"$WORK/$name.log" 2>&1 &
  track_pid $!
  for _ in $(seq 1 100); do
    [ -s "$WORK/$name.port" ] && return 0
    sleep 0.1
  done
  fail "server $name ($(basename "$script")) did not start: $(cat "$WORK/$name.log")"
}
cleanup() {
  local p
  for p in "${_RP_PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${_RP_PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  if [ -n "${RP_KEEP_WORK:-}" ]; then echo "kept $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*" >&2; exit 77; }
need() { command -v "$1" >/dev/null 2>&1 || skip "$1 is not installed (tools/install-deps.sh installs it)"; }
# The tests that run commands in rockpack's sandbox skip on a machine that allows no namespaces (an
# unprivileged container). rockpack refuses there with its own message; test_run checks that message
# with ROCKPACK_SANDBOX=off, which stands in for such a machine.
need_sandbox() {
  command -v unshare >/dev/null 2>&1 || return 0
  unshare --mount --pid --fork --net --ipc --uts --mount-proc true 2>/dev/null \
    || skip "no sandbox here: this machine allows no namespaces (docs/run.md)"
}

assert_eq() { [ "$1" = "$2" ] || fail "$3: expected '$2', got '$1'"; }
assert_ne() { [ "$1" != "$2" ] || fail "$3: both are '$1'"; }
assert_contains() { grep -qF -- "$2" <<<"$1" || fail "$3: expected to find '$2' in:
$1"; }

# The static busybox shipped by Debian's busybox-static.
static_busybox() {
  local b=/bin/busybox
  [ -x "$b" ] || skip "no /bin/busybox (install busybox-static)"
  file -L "$b" 2>/dev/null | grep -q "statically linked" || skip "/bin/busybox is not static (install busybox-static)"
  echo "$b"
}

# Digest of the image a build printed on stdout (its last line).
build_digest() { "$ROCKPACK" --quiet build "$@" | tail -n 1; }
