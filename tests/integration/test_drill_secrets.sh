#!/usr/bin/env bash
# Drill (issue 15): planted secrets go nowhere. Five secrets, each where a user would put one:
#   PW_ENV    an index password given through password_env (an environment variable)
#   PW_NETRC  an index password in a .netrc
#   PW_REG    a registry password stored by `rockpack login`
#   PW_URL    a password in an index URL passed with --set (refused: credentials never go in a recipe)
#   PW_REF    a password in an image reference (refused)
# A build that uses the first three (pull base, resolve, download, push), with text and JSON logs at
# -v, --resolved, --metadata-file and --sbom, and failing runs that meet each secret (wrong passwords,
# refused URLs and references) — then none of the secrets, nor their Basic-auth base64 forms, may be
# found in: any output or error, the JSON events, --resolved, --metadata-file, the SBOM, any blob of the
# layout (decompressed: config, history, labels, layers), any blob or record of the store, or any file
# the registry stored.
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/registry.sh"
source "$ROCKPACK_SOURCE_DIR/tests/integration/lib/python_fixtures.sh"
need umoci; need skopeo; need htpasswd
cd "$WORK"
export SOURCE_DATE_EPOCH=1700000000
python_base

PW_ENV="env-Pl4nted-7f3a"
PW_NETRC="netrc-Pl4nted-c21e"
PW_REG="reg-Pl4nted-95bd"
PW_URL="url-Pl4nted-0d44"
PW_REF="ref-Pl4nted-e618"
export DOCKER_CONFIG="$WORK/docker"
C="$WORK/store"
LOGS="$WORK/logs"
mkdir -p "$LOGS" idx-env idx-netrc
wheel idx-env rp-sec-env 1.0 >/dev/null
wheel idx-netrc rp-sec-netrc 1.0 >/dev/null
start_index env idx-env --basic-auth "envuser:$PW_ENV"
start_index netrc idx-netrc --basic-auth "netrcuser:$PW_NETRC"
printf 'machine 127.0.0.1\nlogin netrcuser\npassword %s\n' "$PW_NETRC" >"$WORK/netrc"
chmod 600 "$WORK/netrc"
start_registry secrets "$(htpasswd_auth alice "$PW_REG")"

cat >recipe.yaml <<EOF
name: secrets-drill
args:
  EXTRA_INDEX: "$(index_url env)/simple/"
base: oci:$BASE:base
labels: {drill: secrets}
python:
  interpreter: /usr/bin/python3
  venv: /opt/venv
  index_strategy: unsafe-best-match
  indexes:
    - url: \${EXTRA_INDEX}
      username_env: RP_USER
      password_env: RP_PASS
    - url: $(index_url netrc)/simple/
      netrc: true
  packages: [rp-sec-env, rp-sec-netrc]
EOF

n=0
# run NAME EXPECTED_RC ARGS...: runs rockpack with the secrets in its environment, output kept in $LOGS.
run() {
  local name=$1 expected=$2 rc=0
  shift 2
  n=$((n + 1))
  RP_USER=envuser RP_PASS="${RUN_PASS:-$PW_ENV}" NETRC="$WORK/netrc" "$ROCKPACK" "$@" \
    >"$LOGS/$n-$name.out" 2>"$LOGS/$n-$name.err" || rc=$?
  [ "$rc" = "$expected" ] || fail "$name: exit $rc, expected $expected: $(tail -n 5 "$LOGS/$n-$name.err")"
}

echo "$PW_REG" | run login 0 login "$REG" -u alice --password-stdin
run login-wrong 1 login "$REG" -u alice --password-stdin <<<"wrong-$PW_REG"
echo "$PW_REG" | run login-again 0 login "$REG" -u alice --password-stdin

# The build that uses the secrets, with every record it can write, text logs at -v.
run build 0 -v build recipe.yaml --cache-dir "$C" -o "oci:$WORK/img:v1" --push "$REG/drill/img:v1" \
  --resolved "$WORK/resolved.json" --metadata-file "$WORK/metadata.json" --sbom "$WORK/sbom.json"
# The same, cold, with JSON events.
run build-json 0 -v --log-format json build recipe.yaml --cache-dir "$WORK/store2" -o "oci:$WORK/img2:v1" \
  --push "$REG/drill/img2:v1"
assert_eq "$(skopeo inspect --creds "alice:$PW_REG" --tls-verify=false --raw "docker://$REG/drill/img:v1" | sha256sum | cut -d' ' -f1)" \
  "$(skopeo inspect --raw "oci:$WORK/img:v1" | sha256sum | cut -d' ' -f1)" "the pushed image"

# Failing runs that meet each secret.
RUN_PASS="wrong-$PW_ENV" run wrong-index-pass 1 build recipe.yaml --cache-dir "$WORK/store3" --no-cache -o "oci:$WORK/img3:v1"
run url-in-set 2 build recipe.yaml --set "EXTRA_INDEX=http://envuser:$PW_URL@127.0.0.1:1/simple/" -o "oci:$WORK/img4:v1"
run url-in-set-json 2 --log-format json validate recipe.yaml --set "EXTRA_INDEX=http://envuser:$PW_URL@127.0.0.1:1/simple/"
run ref-push 2 push "oci:$WORK/img:v1" "alice:$PW_REF@$REG/drill/x:1"
run ref-pull 2 pull "alice:$PW_REF@$REG/drill/img:v1" "oci:$WORK/pulled"
run ref-base 2 build recipe.yaml --set "EXTRA_INDEX=$(index_url env)/simple/" -o "oci:$WORK/img5:v1" \
  --push "alice:$PW_REF@$REG/drill/y:1"
rm -f "$DOCKER_CONFIG/config.json"
run no-login-push 1 push "oci:$WORK/img:v1" "$REG/drill/z:1"

# Everything rockpack wrote or said, and everything the registry stored.
forms=("$PW_ENV" "$PW_NETRC" "$PW_REG" "$PW_URL" "$PW_REF")
for pair in "envuser:$PW_ENV" "netrcuser:$PW_NETRC" "alice:$PW_REG"; do forms+=("$(printf '%s' "$pair" | base64 -w0)"); done
printf '%s\n' "${forms[@]}" >"$WORK/forms"
searched=0
# search_file FILE: its bytes, decompressed when gzip (zcat -f passes anything else through), read
# once and searched for every form at once; grep -c reads to the end (no SIGPIPE under pipefail).
search_file() {
  local f=$1 hits
  searched=$((searched + 1))
  hits=$(zcat -f "$f" 2>/dev/null | grep -caF -f "$WORK/forms" || true)
  [ "${hits:-0}" -eq 0 ] || fail "a secret is in $f: $(zcat -f "$f" 2>/dev/null | grep -aoF -f "$WORK/forms" | sort -u | head -n 3)"
}
for f in "$LOGS"/* "$WORK/resolved.json" "$WORK/metadata.json" "$WORK/sbom.json"; do search_file "$f"; done
while IFS= read -r f; do search_file "$f"; done < <(find "$WORK/img" "$WORK/img2" "$C" "$WORK/store2" "$WORK/store3" \
  "$WORK/secrets/data" -type f 2>/dev/null)
# The messages of the failing runs still say what went wrong, with the secret masked.
assert_contains "$(cat "$LOGS"/*-url-in-set.err)" "credentials" "a URL with credentials is refused, and says why"
assert_contains "$(cat "$LOGS"/*-ref-push.err)" "***@" "a reference with credentials shows them masked"
assert_contains "$(cat "$LOGS"/*-wrong-index-pass.err)" "401" "a wrong index password is reported as the server's answer"
grep -q '"level"' "$LOGS"/*-build-json.err || fail "the JSON log run wrote no JSON events"
echo "ok: 5 planted secrets (and their base64 forms) absent from $searched files: logs, records, SBOM, layouts, stores, registry"
