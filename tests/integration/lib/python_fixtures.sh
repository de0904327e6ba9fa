# shellcheck shell=bash
# Fixtures for the "Python in the image" integration tests. Source after common.sh.
#   python_base            builds (or reuses) the Debian 12 + python3 OCI layout at $BASE (tag base);
#                          skips the test (77) when the machine cannot make it
#   wheel OUTDIR NAME VERSION [make_wheel.py options]   writes a wheel, prints its path
#   start_index NAME DIR [index_server.py options]      serves DIR on a free loopback port
#   index_url NAME / index_stats NAME / reset_stats NAME
#   sha256_of FILE
#   debian_archive                                      KEYRING and MIRROR for apt tests (skips without them)
# Every server started here is stopped on exit, and $WORK removed (common.sh; kept when RP_KEEP_WORK is set).
TOOLS="$ROCKPACK_SOURCE_DIR/tests/tools"
source "$ROCKPACK_SOURCE_DIR/tests/integration/lib/debian_base.sh"
need python3; need curl


BASE="$WORK/base"
python_base() {
  local rc=0
  debian_python_base "$BASE" || rc=$?
  [ "$rc" -eq 77 ] && skip "cannot make the Debian 12 python base here"
  [ "$rc" -eq 0 ] || fail "debian_python_base failed (exit $rc)"
}

wheel() { python3 "$TOOLS/make_wheel.py" "$@" | tail -n 1; }

sha256_of() { sha256sum "$1" | cut -d' ' -f1; }

start_index() {
  local name=$1 dir=$2
  shift 2
  start_loopback_server "$name" "$TOOLS/index_server.py" "$dir" "$@"
}

index_url() { echo "http://127.0.0.1:$(cat "$WORK/$1.port")"; }
index_stats() { curl -fsS "$(index_url "$1")/__stats"; }
reset_stats() { curl -fsS -o /dev/null "$(index_url "$1")/__stats?reset=1"; }

# A JSON value from a file: json_get FILE PYTHON_EXPRESSION_ON_d
json_get() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

# index_file_requests NAME FILE: how many times FILE was requested from index NAME.
index_file_requests() {
  index_stats "$1" | python3 -c 'import json,sys; s=json.load(sys.stdin); print(s["requests"].get("/files/" + sys.argv[1], 0))' "$2"
}

# debian_archive: the Debian archive for apt tests — KEYRING (the host's debian-archive-keyring) and
# MIRROR (the mirror of this machine's apt configuration); skips when either is missing.
debian_archive() {
  KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
  [ -r "$KEYRING" ] || skip "no $KEYRING on this machine (package debian-archive-keyring)"
  local rc=0
  MIRROR=$(debian_apt_mirror) || rc=$?
  [ "$rc" -eq 77 ] && skip "no reachable Debian mirror in the apt configuration"
  [ "$rc" -eq 0 ] || fail "debian_apt_mirror failed"
}
