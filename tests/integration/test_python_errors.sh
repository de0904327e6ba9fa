#!/usr/bin/env bash
# Bad inputs to the python: section end with a clear message, a non-zero exit code (2 for input
# errors) and no output image (nor resolution file). One Debian 12 + python3 base, one cache dir
# shared by every build (the interpreter's facts are read once), one index server for most cases.
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/python_fixtures.sh"
[ "$(id -u)" -eq 0 ] || skip "the Debian base needs root"
ARCH=$(uname -m)
export SOURCE_DATE_EPOCH=1700000000
python_base

E="$WORK/idx"; S="$WORK/static"; PROJ="$WORK/proj"
mkdir -p "$E" "$S/simple/rp-badhash" "$S/files" "$PROJ"

OK_WHL=$(wheel "$E" rp-ok 1.0 --console-script "rp-ok=rp_ok:main" --module "rp_ok=def main():
    print('rp-ok')
")
wheel "$E" rp-evil 1.0 --bad-path "../../../../etc/rp-evil" >/dev/null
# No usable file for rp-sdist-only: an sdist, a wheel for another Python, one for a newer Python,
# a yanked one.
wheel "$E" rp-sdist-only 1.0 --sdist >/dev/null
wheel "$E" rp-sdist-only 0.9 --platlib --tag "cp312-cp312-manylinux_2_17_$ARCH" >/dev/null
wheel "$E" rp-sdist-only 0.8 >/dev/null
wheel "$E" rp-sdist-only 0.7 >/dev/null
# Only for the wrong platform.
wheel "$E" rp-wrongplat 1.0 --platlib --tag "cp312-cp312-manylinux_2_17_$ARCH" >/dev/null
wheel "$E" rp-wrongplat 1.0 --platlib --tag "cp311-cp311-macosx_11_0_arm64" >/dev/null
# Unsatisfiable: rp-conflict-a wants rp-conflict-b==1.0, the recipe rp-conflict-b==2.0.
wheel "$E" rp-conflict-a 1.0 --requires "rp-conflict-b==1.0" >/dev/null
wheel "$E" rp-conflict-b 1.0 >/dev/null
wheel "$E" rp-conflict-b 2.0 >/dev/null
# Requires-Python excluding 3.11: once only in METADATA, once also on the index page.
wheel "$E" rp-newpy 1.0 --requires-python ">=3.12" >/dev/null
wheel "$E" rp-newpy-idx 1.0 --requires-python ">=3.12" >/dev/null
# Two wheels writing the same file.
wheel "$E" rp-clash-a 1.0 --file "rp_shared/common.py=a = 1" >/dev/null
wheel "$E" rp-clash-b 1.0 --file "rp_shared/common.py=b = 1" >/dev/null
# A hash pin that does not match.
wheel "$E" rp-pinme 1.0 >/dev/null
# A RECORD whose sha256 of rp_recordbad.py is wrong (the index's hash of the whole file is right).
wheel "$E" rp-recordbad 1.0 --wrong-record-hash >/dev/null

# A static PEP 503 page whose #sha256= is not the file's.
BAD_WHL=$(wheel "$S/files" rp-badhash 1.0)
WRONG_SHA=$(printf 'rockpack' | sha256sum | cut -d' ' -f1)
cat >"$S/simple/rp-badhash/index.html" <<EOF
<!DOCTYPE html><html><body>
<a href="../../files/$(basename "$BAD_WHL")#sha256=$WRONG_SHA">$(basename "$BAD_WHL")</a>
</body></html>
EOF

start_index e "$E" --requires-python "rp_newpy_idx-1.0-py3-none-any.whl=>=3.12" \
  --yank "rp_sdist_only-0.7-py3-none-any.whl" --requires-python "rp_sdist_only-0.8-py3-none-any.whl=>=3.13"
AUTH_PW="right-S3cret-pw-51d0"
start_index authed "$E" --basic-auth "user:$AUTH_PW"

# A static file server and one that answers 500 to everything (counting the requests).
cat >"$WORK/serve.py" <<'PY'
import functools, http.server, os, sys
mode, port_file = sys.argv[1], sys.argv[2]
count = 0
class Failing(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        global count
        if self.path == "/__count":
            body = str(count).encode()
            self.send_response(200)
        else:
            count += 1
            body = b"internal error\n"
            self.send_response(500)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a):
        pass
if mode == "static":
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[3])
    handler.log_message = lambda *a: None
else:
    handler = Failing
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
with open(port_file + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
os.replace(port_file + ".tmp", port_file)
server.serve_forever()
PY
start_server() {  # NAME MODE [DIR]
  local name=$1
  python3 "$WORK/serve.py" "$2" "$WORK/$name.port" ${3:+"$3"} >"$WORK/$name.log" 2>&1 &
  _RP_PIDS+=($!)  # killed by common.sh at exit
  for _ in $(seq 1 100); do [ -s "$WORK/$name.port" ] && return 0; sleep 0.1; done
  fail "server $name did not start: $(cat "$WORK/$name.log")"
}
start_server static static "$S"
start_server failing failing

# recipe NAME: writes $PROJ/NAME.yaml from stdin (the python: section's lines, indented by 2).
recipe() {
  { printf 'name: %s\nbase: oci:%s:base\npython:\n  interpreter: /usr/bin/python3\n' "$1" "$BASE"
    cat; } >"$PROJ/$1.yaml"
}
venv_index() {  # the usual venv and index lines
  printf '  venv: /opt/venv\n  indexes:\n    - url: %s/simple/\n' "${1:-$(index_url e)}"
}

# expect_failure NAME EXIT_CODE [ENV=VALUE...]: builds $PROJ/NAME.yaml, which must fail with that
# code, leave no output image and no resolution file; the output is in $OUT.
expect_failure() {
  local name=$1 want=$2 rc=0
  shift 2
  env "$@" "$ROCKPACK" build "$PROJ/$name.yaml" -o "oci:$WORK/out-$name:latest" \
    --resolved "$WORK/$name.resolved.json" --cache-dir "$WORK/cache" >"$WORK/$name.out" 2>&1 || rc=$?
  OUT=$(cat "$WORK/$name.out")
  [ "$rc" -eq "$want" ] || fail "$name: expected exit code $want, got $rc:
$OUT"
  [ ! -e "$WORK/out-$name" ] || fail "$name: the failed build left $WORK/out-$name"
  [ ! -e "$WORK/$name.resolved.json" ] || fail "$name: the failed build wrote a resolution file"
  echo "ok: $name -> exit $rc: $(grep -m1 error <<<"$OUT")"
}

# ---- a direct wheel with a wrong sha256 ------------------------------------------------------
cp "$OK_WHL" "$PROJ/"
recipe wrong-sha <<EOF
  venv: /opt/venv
  wheels:
    - path: $(basename "$OK_WHL")
      sha256: $WRONG_SHA
EOF
expect_failure wrong-sha 2  # a local file checked against its pin before use: bad input
assert_contains "$OUT" "$WRONG_SHA" "wrong-sha names the expected hash"
assert_contains "$OUT" "$(sha256_of "$OK_WHL")" "wrong-sha names the actual hash"

# ---- an index page whose #sha256= does not match the file -------------------------------------
recipe index-hash < <(venv_index "$(index_url static)"; printf '  packages: [rp-badhash]\n')
expect_failure index-hash 1  # the bytes downloaded do not match the index: exit 1 (issue 15)
assert_contains "$OUT" "rp-badhash" "index-hash names the package"
assert_contains "$OUT" "sha256" "index-hash says what did not match"
assert_contains "$OUT" "$WRONG_SHA" "index-hash names the expected hash"

# ---- a --hash pin that does not match --------------------------------------------------------
printf 'rp-pinme==1.0 --hash=sha256:%s\n' "$WRONG_SHA" >"$PROJ/pinned.txt"
recipe hash-pin < <(venv_index; printf '  requirements: [pinned.txt]\n')
expect_failure hash-pin 2
assert_contains "$OUT" "rp-pinme" "hash-pin names the file"
assert_contains "$OUT" "does not match the pinned $WRONG_SHA" "hash-pin says it was the pin"
assert_contains "$OUT" "check the --hash pins" "hash-pin hint"

# ---- a wheel with a ../ path ------------------------------------------------------------------
recipe evil < <(venv_index; printf '  packages: [rp-evil]\n')
expect_failure evil 2
assert_contains "$OUT" "rp_evil-1.0-py3-none-any.whl" "evil names the wheel"
assert_contains "$OUT" "../../../../etc/rp-evil" "evil names the member"

# ---- two wheels writing one file -------------------------------------------------------------
recipe clash < <(venv_index; printf '  packages: [rp-clash-a, rp-clash-b]\n')
expect_failure clash 2
assert_contains "$OUT" "rp_shared/common.py" "clash names the file"
assert_contains "$OUT" "rp_clash_a-1.0-py3-none-any.whl" "clash names the first wheel"
assert_contains "$OUT" "rp_clash_b-1.0-py3-none-any.whl" "clash names the second wheel"

# ---- a package with no usable file -----------------------------------------------------------
recipe sdist-only < <(venv_index; printf '  packages: [rp-sdist-only]\n')
expect_failure sdist-only 2
assert_contains "$OUT" "rp-sdist-only" "sdist-only names the package"
assert_contains "$OUT" "rp_sdist_only-1.0.tar.gz" "sdist-only names the sdist"
assert_contains "$OUT" "rp_sdist_only-0.9-cp312-cp312-manylinux_2_17_$ARCH.whl" "sdist-only names the cp312 wheel"
assert_contains "$OUT" "yanked" "sdist-only says a file is yanked"
assert_contains "$OUT" ">=3.13" "sdist-only names the Requires-Python"

# ---- only wheels for another platform or Python ----------------------------------------------
recipe wrong-platform < <(venv_index; printf '  packages: [rp-wrongplat]\n')
expect_failure wrong-platform 2
assert_contains "$OUT" "rp-wrongplat" "wrong-platform names the package"
assert_contains "$OUT" "macosx_11_0_arm64" "wrong-platform names the macOS wheel"
assert_contains "$OUT" "cp312" "wrong-platform names the cp312 wheel"

# ---- an unsatisfiable set ---------------------------------------------------------------------
recipe conflict < <(venv_index; printf '  packages: [rp-conflict-a, "rp-conflict-b==2.0"]\n')
expect_failure conflict 2
assert_contains "$OUT" "rp-conflict-a 1.0 requires rp-conflict-b==1.0" "conflict chain"
assert_contains "$OUT" "rp-conflict-b==2.0" "conflict names the recipe's requirement"

# ---- an unknown package -----------------------------------------------------------------------
recipe unknown < <(venv_index; printf '  packages: [rp-no-such-thing]\n')
expect_failure unknown 2
assert_contains "$OUT" "rp-no-such-thing" "unknown names the package"
assert_contains "$OUT" "no versions of rp-no-such-thing are available" "unknown says nothing provides it"

# ---- Requires-Python excluding the image's 3.11 -----------------------------------------------
recipe newpy < <(venv_index; printf '  packages: [rp-newpy]\n')
expect_failure newpy 2
assert_contains "$OUT" "rp-newpy" "newpy names the package"
assert_contains "$OUT" ">=3.12" "newpy names the Requires-Python"
recipe newpy-idx < <(venv_index; printf '  packages: [rp-newpy-idx]\n')
expect_failure newpy-idx 2
assert_contains "$OUT" "rp-newpy-idx" "newpy-idx names the package"
assert_contains "$OUT" ">=3.12" "newpy-idx names the Requires-Python"

# ---- an interpreter that is not in the image --------------------------------------------------
recipe no-interpreter <<EOF
  venv: /opt/venv
  indexes:
    - url: $(index_url e)/simple/
  packages: [rp-ok]
EOF
sed -i 's|interpreter: /usr/bin/python3$|interpreter: /usr/bin/python9|' "$PROJ/no-interpreter.yaml"
expect_failure no-interpreter 2
assert_contains "$OUT" "/usr/bin/python9" "no-interpreter names the path"
assert_contains "$OUT" "/usr/bin/python3.11" "no-interpreter lists the image's pythons"

# ---- Debian's EXTERNALLY-MANAGED python without a venv ----------------------------------------
recipe system <<EOF
  indexes:
    - url: $(index_url e)/simple/
  packages: [rp-ok]
EOF
expect_failure system 2
assert_contains "$OUT" "EXTERNALLY-MANAGED" "system names the marker"
assert_contains "$OUT" "break_system_packages" "system says how to override"
# ... and with break_system_packages: true it installs where Debian's pip would.
recipe system-ok <<EOF
  break_system_packages: true
  indexes:
    - url: $(index_url e)/simple/
  packages: [rp-ok]
EOF
"$ROCKPACK" --quiet build "$PROJ/system-ok.yaml" -o "oci:$WORK/system-ok:latest" --cache-dir "$WORK/cache" \
  >"$WORK/system-ok.out" 2>&1 || fail "break_system_packages: true did not build: $(cat "$WORK/system-ok.out")"
LAYER=$(python3 - "$WORK/system-ok" <<'PY'
import json, sys
d = sys.argv[1]
idx = json.load(open(d + "/index.json"))
m = json.load(open(d + "/blobs/sha256/" + idx["manifests"][0]["digest"].split(":")[1]))
print(d + "/blobs/sha256/" + m["layers"][-1]["digest"].split(":")[1])
PY
)
FILES=$(tar -tzf "$LAYER")
assert_contains "$FILES" "usr/local/lib/python3.11/dist-packages/rp_ok.py" "system install location"
assert_contains "$FILES" "usr/local/lib/python3.11/dist-packages/rp_ok-1.0.dist-info/RECORD" "system install dist-info"
assert_contains "$FILES" "usr/local/bin/rp-ok" "system install script"
assert_eq "$(tar -xzOf "$LAYER" usr/local/bin/rp-ok | head -n 1)" "#!/usr/bin/python3.11" "system install script's shebang"

# ---- an index that answers 500 to everything --------------------------------------------------
recipe failing <<EOF
  venv: /opt/venv
  indexes:
    - url: $(index_url failing)/simple/
      username_env: RP_TEST_USER
      password_env: RP_TEST_PASS
  packages: [rp-ok]
EOF
expect_failure failing 1 RP_TEST_USER=user RP_TEST_PASS="$AUTH_PW"
assert_contains "$OUT" "$(index_url failing)/simple/" "failing names the index"
assert_contains "$OUT" "rp-ok" "failing names the project"
assert_contains "$OUT" "500" "failing gives the status"
if grep -qF -- "$AUTH_PW" <<<"$OUT"; then fail "failing: the password is in the output"; fi
TRIES=$(curl -fsS "$(index_url failing)/__count")
[ "$TRIES" -ge 2 ] || fail "failing: the index was asked $TRIES time(s), expected retries"

# ---- wrong credentials ------------------------------------------------------------------------
recipe unauthorized <<EOF
  venv: /opt/venv
  indexes:
    - url: $(index_url authed)/simple/
      username_env: RP_TEST_USER
      password_env: RP_TEST_PASS
  packages: [rp-ok]
EOF
expect_failure unauthorized 1 RP_TEST_USER=user RP_TEST_PASS=wrong-Pw-3a9
assert_contains "$OUT" "401" "unauthorized gives the status"
assert_contains "$OUT" "$(index_url authed)/simple/" "unauthorized names the index"
if grep -qF -- "wrong-Pw-3a9" <<<"$OUT"; then fail "unauthorized: the password is in the output"; fi
# The right ones work (so the 401 above was about the credentials).
RP_TEST_USER=user RP_TEST_PASS="$AUTH_PW" "$ROCKPACK" --quiet build "$PROJ/unauthorized.yaml" \
  -o "oci:$WORK/authorized:latest" --cache-dir "$WORK/cache" >/dev/null 2>"$WORK/authorized.err" \
  || fail "the right credentials did not work: $(cat "$WORK/authorized.err")"

# ---- a wheel whose RECORD lists a wrong sha256 for a member (pip refuses it) --------------------
# By default: one warning naming the wheel and the member, exit 0, an image. With --strict: exit 1,
# no image, a message that says what, where and what to do; also from a warm store, where the layer
# comes from the cache and nothing streams (the mismatch is remembered under the wheel's digest).
recipe record-hash < <(venv_index; printf '  packages: [rp-recordbad]\n')
rc=0
"$ROCKPACK" build "$PROJ/record-hash.yaml" -o "oci:$WORK/out-record-hash:latest" --cache-dir "$WORK/cache" \
  >"$WORK/record-hash.out" 2>&1 || rc=$?
OUT=$(cat "$WORK/record-hash.out")
[ "$rc" -eq 0 ] || fail "record-hash: a RECORD mismatch failed the build without --strict (exit $rc):
$OUT"
[ -d "$WORK/out-record-hash" ] || fail "record-hash: no image"
assert_contains "$OUT" "rp_recordbad-1.0-py3-none-any.whl: 'rp_recordbad.py' does not match its RECORD row" \
  "record-hash warns, naming the wheel and the member"
assert_contains "$OUT" "--strict" "record-hash says how to refuse it"
[ "$(grep -c 'does not match its RECORD row' <<<"$OUT")" -eq 1 ] || fail "record-hash: not one warning:
$OUT"
# A correct wheel gives no such warning, even with --strict.
recipe record-ok < <(venv_index; printf '  packages: [rp-ok]\n')
"$ROCKPACK" build --strict "$PROJ/record-ok.yaml" -o "oci:$WORK/out-record-ok:latest" --cache-dir "$WORK/cache" \
  >"$WORK/record-ok.out" 2>&1 || fail "record-ok: $(cat "$WORK/record-ok.out")"
if grep -q "RECORD" "$WORK/record-ok.out"; then fail "record-ok: a correct wheel got a RECORD warning: $(cat "$WORK/record-ok.out")"; fi
# Warm: the layer is cached, the warning stays.
rc=0
"$ROCKPACK" build "$PROJ/record-hash.yaml" -o "oci:$WORK/out-record-hash-warm:latest" --cache-dir "$WORK/cache" \
  >"$WORK/record-hash-warm.out" 2>&1 || rc=$?
[ "$rc" -eq 0 ] || fail "record-hash (warm) failed: $(cat "$WORK/record-hash-warm.out")"
assert_contains "$(cat "$WORK/record-hash-warm.out")" "'rp_recordbad.py' does not match its RECORD row" "record-hash warns when warm"
# --strict refuses it, warm (the same store) and cold (a new one).
strict_build() {  # NAME CACHE
  local rc=0
  "$ROCKPACK" build --strict "$PROJ/record-hash.yaml" -o "oci:$WORK/out-$1:latest" --cache-dir "$2" \
    >"$WORK/$1.out" 2>&1 || rc=$?
  OUT=$(cat "$WORK/$1.out")
  [ "$rc" -eq 1 ] || fail "$1: expected exit 1 with --strict, got $rc:
$OUT"
  [ ! -e "$WORK/out-$1" ] || fail "$1: the refused build left an image"
  assert_contains "$OUT" "rp_recordbad-1.0-py3-none-any.whl: 'rp_recordbad.py' does not match its RECORD row" "$1 names wheel and member"
  assert_contains "$OUT" "rebuild it or fetch a good copy" "$1 says what to do"
  echo "ok: $1 -> exit $rc"
}
strict_build record-hash-strict-warm "$WORK/cache"
strict_build record-hash-strict-cold "$WORK/cache-strict"

echo "PASS: test_python_errors"
