#!/usr/bin/env bash
# Drill (issue 15): a flaky network for every client. A fault proxy of the tests' own
# (tests/tools/fault_proxy.py) sits in front of every loopback server a build talks to:
#   idx-html  a Python index with simple HTML pages only, no PEP 658 (metadata by range requests),
#             behind Basic auth (the password, from the environment, must never be printed)
#   idx-json  a Python index with JSON pages and PEP 658 metadata
#   pbs       a static host with a python-build-standalone-like interpreter archive (`standalone: url:`)
#   rocm      TheRock's per-family index and its wheels (static files)
#   apt       a signed apt repository (InRelease, Packages, .debs)
#   reg       the registry the base image is pulled from inside a build (`base:` through the proxy)
#   push      the same registry, for the build's --push at the end
# Each proxy answers 429/503 with and without Retry-After and 500 (--errors), cuts downloads off
# halfway through the body (--cut-downloads-matching), and drops 10% of the connections at random
# mid-answer (--drop-rate 0.1, seeded, so a run is repeatable), at most 2 faults in a row per request
# (every client retries at least 3 times).
# Checked for every client: the build succeeds and gives the digest of the same build with no faults
# (a separate, clean store); the proxy's log shows the faults (counts per kind); every 429/503 that
# carried Retry-After was retried no sooner than it asked (from the proxy's own timestamps).
# Then the budget: proxies that fail everything. rockpack gives up after the bound of each client
# (counted in the proxy's log) with exit 1, an error naming the URL without credentials, saying how
# many times it tried and what to do. The bounds, from the code (and docs/reliability.md):
#   index pages and range reads  3 attempts   (IndexClientOptions / RemoteReadOptions, src/python)
#   downloads (wheels, .debs,    4 attempts   (DownloadOptions::max_attempts, src/fetch/downloader.hpp;
#     interpreter, apt indexes)                apt indexes use the same number)
#   registry requests            5 attempts   (net::RetryPolicy, docs/registries.md)
# The figures (faults per client, requests, attempts) are printed at the end (docs/reliability.md).
source "$(dirname "$0")/lib/common.sh"
source "$ROCKPACK_SOURCE_DIR/tests/integration/lib/python_fixtures.sh"
source "$ROCKPACK_SOURCE_DIR/tests/integration/lib/rocm_fixtures.sh"
source "$ROCKPACK_SOURCE_DIR/tests/integration/lib/apt_repo.sh"
source "$ROCKPACK_SOURCE_DIR/tests/integration/lib/registry.sh"
need umoci; need skopeo; need gpg; need dpkg-deb; need apt-ftparchive
[ "$(id -u)" -eq 0 ] || skip "the Debian fixture needs root"
export SOURCE_DATE_EPOCH=1700000000
T0=$SECONDS
cd "$WORK"
# The interpreter behind python3 (a version manager's shim costs a second or more per start; the
# drill starts some 30 proxies).
PY=$(python3 -c 'import sys; print(sys.executable)')
free_port() { "$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }
# common.sh's, with that interpreter.
start_loopback_server() {
  local name=$1 script=$2
  shift 2
  "$PY" "$script" "$@" --port 0 --port-file "$WORK/$name.port" >"$WORK/$name.log" 2>&1 &
  track_pid $!
  for _ in $(seq 1 200); do
    [ -s "$WORK/$name.port" ] && return 0
    sleep 0.05
  done
  fail "server $name ($(basename "$script")) did not start: $(cat "$WORK/$name.log")"
}

SECRET=flaky-secret-15   # the idx-html index's password: must never appear in any output
export DRILL_INDEX_USER=drill DRILL_INDEX_PASSWORD=$SECRET
RA=2                     # the Retry-After the proxies send (longer than the first backoff, 0.3-1.25 s)

# --- the servers ------------------------------------------------------------------------------------
python_base
start_registry reg
out=$("$ROCKPACK" push "oci:$BASE:base" "$REG/drill/base:v1" 2>&1) || fail "pushing the base failed: $out"

mkdir -p "$WORK/wheels"
python3 "$TOOLS/make_wheel.py" --demo "$WORK/wheels" >/dev/null
start_index html-index "$WORK/wheels" --format html --no-metadata --basic-auth "drill:$SECRET"
start_index json-index "$WORK/wheels" --format json

mkdir -p "$WORK/pbs"
rc=0
debian_python_standalone_archive "$WORK/pbs/cpython-3.11-install_only.tar.gz" || rc=$?
[ "$rc" -eq 0 ] || fail "debian_python_standalone_archive failed ($rc)"
start_static pbs "$WORK/pbs"

therock_index "$WORK/rocm" --family "$FAMILY" --versions "$V1"
start_static rocm "$WORK/rocm"

apt_repo_make "$WORK/r" >/dev/null || fail "apt_repo_make failed"
apt_repo_serve "$WORK/r" >/dev/null

port_of() { cat "$WORK/$1.port"; }
declare -A UPSTREAM=(
  [idx-html]=$(port_of html-index) [idx-json]=$(port_of json-index) [pbs]=$(port_of pbs)
  [rocm]=$(port_of rocm) [apt]=${APT_REPO_URL##*:} [reg]=${REG##*:} [push]=${REG##*:}
)
declare -A PX_PORT PX_PID
for name in "${!UPSTREAM[@]}"; do PX_PORT[$name]=$(free_port); done
px_url() { echo "http://127.0.0.1:${PX_PORT[$1]}"; }
px_host() { echo "127.0.0.1:${PX_PORT[$1]}"; }

# px NAME ARGS...: (re)starts proxy NAME on its port in front of its server; its log (every request,
# with timestamps) is $WORK/px-NAME.log, emptied.
px() {
  local name=$1 i
  shift
  if [ -n "${PX_PID[$name]:-}" ]; then
    kill "${PX_PID[$name]}" 2>/dev/null || true
    wait "${PX_PID[$name]}" 2>/dev/null || true
  fi
  : >"$WORK/px-$name.log"
  : >"$WORK/px-$name.out"
  "$PY" "$TOOLS/fault_proxy.py" --port "${PX_PORT[$name]}" --upstream-port "${UPSTREAM[$name]}" \
    --log "$WORK/px-$name.log" --timestamps --log-requests "$@" >"$WORK/px-$name.out" 2>&1 &
  PX_PID[$name]=$!
  track_pid $!
  for i in $(seq 1 100); do
    grep -q ready "$WORK/px-$name.out" && return 0
    sleep 0.05
  done
  fail "proxy $name did not start: $(cat "$WORK/px-$name.out")"
}
# The faults of the drill. Downloads (files, blobs) are cut halfway every 3rd time; every 2nd other
# request gets the next error of the cycle; 10% of all connections are dropped mid-answer (seeded).
faulty() {
  local name=$1 downloads=$2
  shift 2
  px "$name" --cut-downloads-matching "$downloads" --every-download 3 --every 2 \
    --errors "429,503-,500,503,429-" --retry-after "$RA" --drop-rate 0.1 --seed 15 \
    --max-faults 10 --max-faults-per-request 2 --drop-min 100000 "$@"
}
clean() { px "$1" --max-faults 0; }

# Counts in a proxy log: faults KIND NAME (KIND: a fault name, or "all" for every fault), requests NAME.
faults() {
  if [ "$1" = all ]; then grep -vc '^pass ' "$WORK/px-$2.log" || true; else grep -c "^$1 " "$WORK/px-$2.log" || true; fi
}
requests() { wc -l <"$WORK/px-$1.log"; }

# check_retry_after NAME: every 429/503 that carried Retry-After was followed by the next request for
# the same thing (the same blob digest, else the same path) no sooner than Retry-After seconds later,
# by the proxy's own clock. Prints how many were checked; fails when a fault was never followed up.
# (Uploads of several blobs share the path .../blobs/uploads/: the push runs with one transfer at a
# time, so that the next POST there is the retry.) With a second argument N, up to N faults may stay
# unanswered: a client that gave up does not retry its last one.
check_retry_after() {
  "$PY" - "$WORK/px-$1.log" "$1" "${2:-0}" <<'EOF'
import re, sys
lines = []
for raw in open(sys.argv[1]):
    m = re.match(r"^(\S+) (\S+) (\S+)(?: HTTP/1\.[01])?(?: range=(\S+))? t=([0-9.]+)(?: retry-after=(\d+))?$", raw.strip())
    if not m:
        sys.exit(f"unparsable log line: {raw!r}")
    kind, method, target, rng, t, ra = m.groups()
    lines.append((kind, method, target, rng, float(t), int(ra) if ra else None))
lines.sort(key=lambda l: l[4])

def identity(target):
    m = re.search(r"sha256(?::|%3A)([0-9a-f]{64})", target)
    return m.group(1) if m else target.split("?")[0]

checked, unretried, bad = 0, 0, []
for i, (kind, method, target, rng, t, ra) in enumerate(lines):
    if ra is None:
        continue
    nxt = next((l for l in lines[i + 1:] if identity(l[2]) == identity(target)), None)
    if nxt is None:
        unretried += 1
        if unretried > int(sys.argv[3]):
            bad.append(f"{kind} {method} {target}: never retried")
        continue
    checked += 1
    if nxt[4] - t < ra:
        bad.append(f"{kind} {method} {target}: retried after {nxt[4] - t:.3f} s, Retry-After was {ra}")
if bad:
    sys.exit(f"{sys.argv[2]}: Retry-After not honoured: " + "; ".join(bad))
print(checked)
EOF
}

# --- the recipes ------------------------------------------------------------------------------------
cat >"$WORK/py-html.yaml" <<EOF
name: drill-py-html
base: oci:$BASE:base
python:
  interpreter: /usr/bin/python3
  venv: /opt/venv
  indexes:
    - url: $(px_url idx-html)/simple/
      username_env: DRILL_INDEX_USER
      password_env: DRILL_INDEX_PASSWORD
  packages: [rp-demo-app]
tags: [v1]
EOF
cat >"$WORK/py-json.yaml" <<EOF
name: drill-py-json
base: oci:$BASE:base
python:
  standalone:
    url: $(px_url pbs)/cpython-3.11-install_only.tar.gz
    sha256: $(sha256_of "$WORK/pbs/cpython-3.11-install_only.tar.gz")
    prefix: /opt/python
  indexes:
    - url: $(px_url idx-json)/simple/
  packages: [rp-demo-app]
tags: [v1]
EOF
rocm_recipe "$WORK/rocm.yaml" drill-rocm <<EOF
  packages: [torch]
rocm:
  source: therock
  index: "$(px_url rocm)/{family}/"
  targets: gfx942
  components: [libraries]
  version: latest
tags: [v1]
EOF
cat >"$WORK/apt.yaml" <<EOF
name: drill-apt
base: $(px_host reg)/drill/base:v1
apt:
  replace_sources: true  # through the drill's proxies only
  sources:
    - url: $(px_url apt)/repo
      suite: rptest
      components: [main]
      signed_by: $WORK/r/keys/test.asc
  packages: [rp-hello]
tags: [v1]
EOF

cat >"$WORK/apt-local.yaml" <<EOF
name: drill-apt-local
base: oci:$BASE:base
apt:
  replace_sources: true  # through the drill's proxies only
  sources:
    - url: $(px_url apt)/repo
      suite: rptest
      components: [main]
      signed_by: $WORK/r/keys/test.asc
  packages: [rp-hello]
tags: [v1]
EOF
cat >"$WORK/reg.yaml" <<EOF
name: drill-reg
base: $(px_host reg)/drill/base:v1
env: {DRILL: "15"}
tags: [v1]
EOF

# The builds of a phase run side by side (each against its own proxies, each with its own store, so
# that every client has something to fetch): the drill's time is its slowest client's.
# build_bg PHASE NAME [ARGS...]: builds NAME.yaml into oci:$WORK/PHASE-out-NAME:v1 with the store
# $WORK/PHASE-NAME-store, in the background; the log is $WORK/PHASE-NAME.log.
BG=()
build_bg() {
  local phase=$1 name=$2
  shift 2
  ( rc=0
    "$ROCKPACK" build "$WORK/$name.yaml" --cache-dir "$WORK/$phase-$name-store" -o "oci:$WORK/$phase-out-$name:v1" "$@" \
      >"$WORK/$phase-$name.stdout" 2>"$WORK/$phase-$name.log" || rc=$?
    echo "$rc" >"$WORK/$phase-$name.rc" ) &
  BG+=($!)
}
wait_builds() {
  local p
  for p in "${BG[@]}"; do wait "$p" || true; done
  BG=()
}
# digest_of PHASE NAME: the digest the build printed; fails when it failed or printed the password.
digest_of() {
  local phase=$1 name=$2 d
  [ "$(cat "$WORK/$phase-$name.rc")" = 0 ] || fail "the $phase build of $name failed: $(cat "$WORK/$phase-$name.log")"
  d=$(tail -n 1 "$WORK/$phase-$name.stdout")
  [ -n "$d" ] || fail "the $phase build of $name printed no digest"
  if grep -qF "$SECRET" "$WORK/$phase-$name.log"; then fail "the $phase build of $name printed the index password"; fi
  echo "$d"
}

# --- 1. without faults: the reference digests, in stores of their own ------------------------------
for name in "${!UPSTREAM[@]}"; do clean "$name"; done
declare -A WANT CLEAN_REQ
build_bg clean py-html
build_bg clean py-json
build_bg clean rocm
# One blob transfer at a time: the retry of a POST .../blobs/uploads/ is then the next one there.
build_bg clean apt --registry-parallel 1 --push "$(px_host push)/drill/clean:v1"
wait_builds
for name in py-html py-json rocm apt; do WANT[$name]=$(digest_of clean "$name"); done
for name in "${!UPSTREAM[@]}"; do CLEAN_REQ[$name]=$(requests "$name"); done
[ "${CLEAN_REQ[reg]}" -ge 3 ] || fail "the base was not pulled through the proxy: $(cat "$WORK/px-reg.log")"
[ "${CLEAN_REQ[push]}" -ge 3 ] || fail "the push did not go through the proxy: $(cat "$WORK/px-push.log")"
echo "clean builds done ($((SECONDS - T0)) s)" >&2

# --- 2. the same builds through faults, in new stores ------------------------------------------------
faulty idx-html '/files/'
faulty idx-json '/files/'
faulty pbs '\.tar\.gz$' --every-download 1   # one download only: cut it (twice at most)
faulty rocm '\.(whl|tar\.gz)$'
faulty apt '\.deb$|/Packages'
faulty reg '/blobs/sha256:' --every-download 1
faulty push '/blobs/sha256:'
build_bg faulty py-html
build_bg faulty py-json
build_bg faulty rocm
build_bg faulty apt --registry-parallel 1 --push "$(px_host push)/drill/faulty:v1"
wait_builds
assert_eq "$(digest_of faulty py-html)" "${WANT[py-html]}" "digest of the python build (HTML index, range reads) through faults"
assert_eq "$(digest_of faulty py-json)" "${WANT[py-json]}" "digest of the python build (JSON index, standalone interpreter) through faults"
assert_eq "$(digest_of faulty rocm)" "${WANT[rocm]}" "digest of the rocm build through faults"
assert_eq "$(digest_of faulty apt)" "${WANT[apt]}" "digest of the apt build (base pulled through faults) through faults"
assert_eq "$(skopeo_digest "docker://$REG/drill/faulty:v1")" "${WANT[apt]}" "digest in the registry after a push through faults"
assert_eq "$(skopeo_digest "docker://$REG/drill/clean:v1")" "${WANT[apt]}" "digest in the registry after the clean push"
echo "faulty builds done ($((SECONDS - T0)) s)" >&2

# The faults were injected, per client, and of the kinds meant for it.
declare -A RA_CHECKED
for name in idx-html idx-json pbs rocm apt reg push; do
  n=$(faults all "$name")
  [ "$n" -ge 2 ] || fail "$name: only $n faults were injected: $(cat "$WORK/px-$name.log")"
  RA_CHECKED[$name]=$(check_retry_after "$name") || fail "$name: the Retry-After check failed (above)"
done
# The kinds: Retry-After honoured somewhere on every index and the registry; downloads cut mid-body.
for name in idx-html idx-json rocm apt reg push; do
  [ "${RA_CHECKED[$name]}" -ge 1 ] || fail "$name: no 429/503 with Retry-After was injected: $(cat "$WORK/px-$name.log")"
done
[ $(($(faults 503- idx-html) + $(faults 429- idx-html) + $(faults 503- idx-json) + $(faults 429- idx-json))) -ge 1 ] \
  || fail "no 429/503 without Retry-After on the Python indexes"
grep -Eq '^(cutresp|dropresp) GET /files/.*range=' "$WORK/px-idx-html.log" || fail "no range request was cut: $(cat "$WORK/px-idx-html.log")"
grep -Eq '^(cutresp|dropresp) GET /files/[^ ]*\.whl HTTP/1.1 t=' "$WORK/px-idx-json.log" "$WORK/px-idx-html.log" \
  || fail "no whole wheel download was cut"
grep -Eq '^(cutresp|dropresp) GET /cpython' "$WORK/px-pbs.log" || fail "the interpreter download was not cut: $(cat "$WORK/px-pbs.log")"
grep -Eq '^(cutresp|dropresp) GET .*\.whl' "$WORK/px-rocm.log" || fail "no TheRock wheel was cut: $(cat "$WORK/px-rocm.log")"
grep -Eq '^(cutresp|dropresp|429|503|500)-? GET /repo/(dists|pool)/' "$WORK/px-apt.log" || fail "no apt file got a fault: $(cat "$WORK/px-apt.log")"
grep -Eq '^(cutresp|dropresp) GET /v2/drill/base/blobs/' "$WORK/px-reg.log" || fail "no base layer download was cut: $(cat "$WORK/px-reg.log")"
grep -Eq '^(429|503|500)-? (PUT|PATCH|POST)' "$WORK/px-push.log" || fail "no upload got an error: $(cat "$WORK/px-push.log")"

{
  echo "figures: client | requests without faults | requests with faults | faults (by kind) | Retry-After gaps checked"
  for name in idx-html idx-json pbs rocm apt reg push; do
    kinds=$(grep -v '^pass ' "$WORK/px-$name.log" | cut -d' ' -f1 | sort | uniq -c | awk '{printf "%s%s %s", sep, $1, $2; sep=", "}')
    echo "  $name | ${CLEAN_REQ[$name]} | $(requests "$name") | $(faults all "$name") ($kinds) | ${RA_CHECKED[$name]}"
  done
} >&2

# --- 3. the budget: everything fails -----------------------------------------------------------------
# Index pages: every request answered 503 without Retry-After.
px idx-html --every 1 --errors 503- --max-faults -1
# Wheel downloads: pages and metadata pass, every wheel download is cut halfway.
px idx-json --cut-downloads-matching '\.whl$' --every-download 1 --every 0 --max-faults -1
clean pbs
# The apt repository: every request 503 with Retry-After: 1.
px apt --every 1 --errors 503 --retry-after 1 --max-faults -1
# The registry: the base's manifest is cut off every time.
px reg --cut-downloads-matching '/manifests/' --every-download 1 --every 0 --max-faults -1
T1=$SECONDS
build_bg budget py-html
build_bg budget py-json
build_bg budget apt-local
build_bg budget reg
wait_builds
echo "budget builds gave up after $((SECONDS - T1)) s" >&2
# gave_up NAME: the build failed with exit 1 and printed no secret; prints its output.
gave_up() {
  local out
  out=$(cat "$WORK/budget-$1.log")
  assert_eq "$(cat "$WORK/budget-$1.rc")" 1 "exit code of the $1 build when the network fails every time: $out"
  if grep -qF "$SECRET" <<<"$out"; then fail "the index password was printed: $out"; fi
  [ ! -s "$WORK/budget-$1.stdout" ] || fail "the failed $1 build printed a digest: $(cat "$WORK/budget-$1.stdout")"
  echo "$out"
}
attempts_of() { grep -c " $2 HTTP/1.1" "$WORK/px-$1.log" || true; }

out=$(gave_up py-html)
assert_contains "$out" "$(px_host idx-html)/simple/" "the failing index is named"
assert_contains "$out" "after 3 attempts" "the error says how often it tried"
assert_contains "$out" "try again later" "the error says what to do"
BUDGET_PAGE=$(attempts_of idx-html /simple/rp-demo-app/)
assert_eq "$BUDGET_PAGE" 3 "attempts at the index page (bound: 3)"

out=$(gave_up py-json)
assert_contains "$out" "$(px_host idx-json)/files/rp_demo_" "the failing download is named"
assert_contains "$out" "after 4 attempts" "the error says how often it tried"
assert_contains "$out" "run the build again" "the error says what to do"
BUDGET_WHEEL=$(grep -Ec '^cutresp GET /files/rp_demo_(app|lib)-' "$WORK/px-idx-json.log" || true)
# Both wheels are downloaded side by side; one failing stops the other, whose attempts may be fewer.
[ "$BUDGET_WHEEL" -ge 4 ] && [ "$BUDGET_WHEEL" -le 8 ] || fail "attempts at the wheel downloads: $BUDGET_WHEEL (bound: 4 each)"
for w in rp_demo_app-2.0.0 rp_demo_lib-1.0.1; do
  n=$(grep -c "^cutresp GET /files/$w-py3-none-any.whl " "$WORK/px-idx-json.log" || true)
  [ "$n" -le 4 ] || fail "$w was tried $n times (bound: 4)"
done

out=$(gave_up apt-local)
assert_contains "$out" "$(px_host apt)/repo/dists/rptest/InRelease" "the failing apt file is named"
assert_contains "$out" "after 4 attempts" "the error says how often it tried"
assert_contains "$out" "try again later" "the error says what to do"
BUDGET_APT=$(attempts_of apt /repo/dists/rptest/InRelease)
assert_eq "$BUDGET_APT" 4 "attempts at InRelease (bound: 4)"
RA_CHECKED[budget-apt]=$(check_retry_after apt 1) || fail "apt: the Retry-After check failed (above)"
assert_eq "${RA_CHECKED[budget-apt]}" 3 "Retry-After gaps checked on the failing apt repository (the 4th 503 is not retried)"

out=$(gave_up reg)
assert_contains "$out" "$(px_host reg)" "the failing registry is named"
assert_contains "$out" "failed 5 times" "the error says how often it tried"
assert_contains "$out" "check the network" "the error says what to do"
BUDGET_REG=$(grep -c '^cutresp GET /v2/drill/base/manifests/v1 ' "$WORK/px-reg.log" || true)
assert_eq "$BUDGET_REG" 5 "attempts at the manifest (bound: 5)"

echo "figures: budget attempts: index page $BUDGET_PAGE, wheel downloads $BUDGET_WHEEL, apt InRelease $BUDGET_APT, registry manifest $BUDGET_REG" >&2
echo "drill runtime: $((SECONDS - T0)) s" >&2
echo "ok"
