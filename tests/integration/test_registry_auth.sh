#!/usr/bin/env bash
# Authentication against real registries on loopback: htpasswd Basic auth with rockpack login
# (config.json), and docker token auth through the tests' token server with a credential helper,
# a credsStore login, an identity token and $REGISTRY_AUTH_FILE. No secret may appear in any output,
# in debug logs, or in the pushed image.
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/registry.sh"
need skopeo; need openssl; need htpasswd
cd "$WORK"

# Credentials only from what this test sets up.
export HOME="$WORK/home" DOCKER_CONFIG="$WORK/docker"
unset REGISTRY_AUTH_FILE XDG_RUNTIME_DIR
mkdir -p "$HOME" "$DOCKER_CONFIG"
ALL="$WORK/all-output.txt"
: > "$ALL"
# run CMD...: runs rockpack verbosely, keeps stdout+stderr in $OUT and in $ALL, sets $RC.
run() {
  set +e
  OUT=$("$ROCKPACK" --verbose "$@" 2>&1)
  RC=$?
  set -e
  printf '%s\n' "$OUT" >> "$ALL"
}

digest=$(make_image "$WORK/img:v1" 2 1 "auth")

# --- htpasswd Basic auth + rockpack login ---------------------------------------------------------
BASIC_PW='Pa55-basic-S3CRET'
start_registry basic "$(htpasswd_auth alice "$BASIC_PW")"
run push "oci:$WORK/img:v1" "$REG/test/app:v1"
assert_eq "$RC" "1" "anonymous push to a Basic-auth registry fails"
assert_contains "$OUT" "401" "the registry's answer is reported"
assert_contains "$OUT" "rockpack login $REG" "the hint says how to log in"

set +e
echo "wrong-password" | "$ROCKPACK" login "$REG" -u alice --password-stdin >> "$ALL" 2>&1; rc=$?
set -e
assert_eq "$rc" "1" "login with a wrong password fails"
[ ! -e "$DOCKER_CONFIG/config.json" ] || fail "a failed login stored something"

echo "$BASIC_PW" | "$ROCKPACK" login "$REG" -u alice --password-stdin >> "$ALL" 2>&1 || fail "login failed"
stored=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["auths"][sys.argv[2]]["auth"])' "$DOCKER_CONFIG/config.json" "$REG")
assert_eq "$stored" "$(printf '%s' "alice:$BASIC_PW" | base64 -w0)" "login stores base64(user:password) like docker"
assert_eq "$(stat -c %a "$DOCKER_CONFIG/config.json")" "600" "config.json mode"

run push "oci:$WORK/img:v1" "$REG/test/app:v1"
assert_eq "$RC" "0" "push with stored Basic credentials: $OUT"
assert_eq "$(skopeo_digest --creds "alice:$BASIC_PW" "docker://$REG/test/app:v1")" "$digest" "skopeo sees the pushed image"
run pull "$REG/test/app:v1" "oci:$WORK/basic-pulled"
assert_eq "$RC" "0" "pull with Basic credentials: $OUT"
# Blob downloads redirected to another host ("storage", here another port): the registry's
# credentials must not follow the redirect.
start_fault_proxy "$REG" --max-faults 0 --upstream-auth "alice:$BASIC_PW"
STORAGE=$PROXY
start_fault_proxy "$REG" --max-faults 0 --redirect-blobs-to "$STORAGE"
echo "$BASIC_PW" | "$ROCKPACK" login "$PROXY" -u alice --password-stdin >> "$ALL" 2>&1 || fail "login through the proxy"
rm -rf "$XDG_CACHE_HOME"
: > "$WORK/faults.log"
run pull "$PROXY/test/app:v1" "oci:$WORK/redirect-pulled"
assert_eq "$RC" "0" "pull with blob redirects: $OUT"
grep -q "storage authorization=absent GET /v2/test/app/blobs/" "$WORK/faults.log" || fail "no redirected blob download seen"
if grep -q "storage authorization=present" "$WORK/faults.log"; then fail "credentials were sent to another host"; fi
rm -f "$DOCKER_CONFIG/config.json"

# --- token auth -----------------------------------------------------------------------------------
TOKEN_PW='Tok3n-user-S3CRET'
REFRESH='refresh-S3CRET-identity'
start_token_server --user "bob:$TOKEN_PW" --refresh-token "$REFRESH" --refresh-user bob
start_registry token "$TOKEN_AUTH"

# Anonymous: pull is granted, push is not.
run push "oci:$WORK/img:v1" "$REG/test/app:v1"
assert_eq "$RC" "1" "anonymous push to a token-auth registry fails"
assert_contains "$OUT" "UNAUTHORIZED" "the registry's error code is shown"
assert_contains "$OUT" "rockpack login $REG" "login hint"

# A credential helper named in credHelpers.
export PATH="$TOOLS:$PATH" RPTEST_CRED_DIR="$WORK/creds"
mkdir -p "$RPTEST_CRED_DIR"
printf '{"ServerURL":"%s","Username":"bob","Secret":"%s"}' "$REG" "$TOKEN_PW" > "$RPTEST_CRED_DIR/$(printf '%s' "$REG" | tr -c 'A-Za-z0-9.-' '_').json"
printf '{"credHelpers":{"%s":"rptest"}}' "$REG" > "$DOCKER_CONFIG/config.json"
: > "$WORK/token.log"
run push "oci:$WORK/img:v1" "$REG/test/app:v1"
assert_eq "$RC" "0" "push with a credential helper: $OUT"
assert_contains "$(cat "$RPTEST_CRED_DIR/calls.log")" "get $REG" "the helper was asked for $REG"
assert_contains "$(cat "$WORK/token.log")" '"user": "bob", "scopes": ["repository:test/app:pull,push"]' "token for pull,push as bob"
# Anonymous pull through the token flow (skopeo and rockpack).
assert_eq "$(skopeo_digest "docker://$REG/test/app:v1")" "$digest" "skopeo pulls anonymously"
# A second repository: the mount asks for pull on the source repository too.
run push "oci:$WORK/img:v1" "$REG/other/app:v1"
assert_eq "$RC" "0" "push to a second repository: $OUT"
assert_contains "$OUT" "mounted" "blobs mounted across repositories"
assert_contains "$(cat "$WORK/token.log")" "repository:test/app:pull" "token scope widened to the mount source"

# An identity token in config.json: OAuth refresh-token grant.
printf '{"auths":{"%s":{"identitytoken":"%s"}}}' "$REG" "$REFRESH" > "$DOCKER_CONFIG/config.json"
: > "$WORK/token.log"
run push "oci:$WORK/img:v1" "$REG/test/idtoken:v1"
assert_eq "$RC" "0" "push with an identity token: $OUT"
assert_contains "$(cat "$WORK/token.log")" '"via": "refresh"' "refresh-token grant used"

# $REGISTRY_AUTH_FILE (podman's auth.json) beats docker's config.
printf '{"auths":{"%s":{"auth":"%s"}}}' "$REG" "$(printf '%s' "bob:$TOKEN_PW" | base64 -w0)" > "$WORK/auth.json"
printf '{"auths":{"%s":{"auth":"%s"}}}' "$REG" "$(printf '%s' "bob:wrong" | base64 -w0)" > "$DOCKER_CONFIG/config.json"
REGISTRY_AUTH_FILE="$WORK/auth.json" run push "oci:$WORK/img:v1" "$REG/test/authfile:v1"
assert_eq "$RC" "0" "push with REGISTRY_AUTH_FILE: $OUT"
# Without it, the wrong password in config.json is rejected by the token server.
run push "oci:$WORK/img:v1" "$REG/test/authfile:v2"
assert_eq "$RC" "1" "push with a wrong stored password fails"
assert_contains "$OUT" "rejected" "the message says the credentials were rejected"

# rockpack login through a credsStore: the secret goes to the helper, not into config.json.
printf '{"credsStore":"rptest"}' > "$DOCKER_CONFIG/config.json"
rm -f "$RPTEST_CRED_DIR"/*.json
echo "$TOKEN_PW" | "$ROCKPACK" login "$REG" -u bob --password-stdin >> "$ALL" 2>&1 || fail "login via credsStore"
assert_contains "$(cat "$RPTEST_CRED_DIR/calls.log")" "store $REG" "login stored through the helper"
if grep -qF "$TOKEN_PW" "$DOCKER_CONFIG/config.json"; then fail "password written to config.json"; fi
run push "oci:$WORK/img:v1" "$REG/test/store:v1"
assert_eq "$RC" "0" "push with credentials the helper stored: $OUT"

# A build that pushes, with the credentials from the helper.
mkdir -p "$WORK/app"
cat > "$WORK/app/recipe.yaml" <<YAML
name: app
base: $REG/test/app:v1
files:
  - content: "hi"
    dest: /hi
YAML
run build "$WORK/app/recipe.yaml" --push "$REG/test/built:v1"
assert_eq "$RC" "0" "build on a token-auth base and push: $OUT"

# Short-lived tokens are replaced before they run out: a slow push outlives several of them.
TOKEN_REG=$REG
start_token_server --user "bob:$TOKEN_PW" --expires-in 6
start_registry token-short "$TOKEN_AUTH"
start_fault_proxy "$REG" --max-faults 0 --delay-ms 800
echo "$TOKEN_PW" | "$ROCKPACK" login "$PROXY" -u bob --password-stdin >> "$ALL" 2>&1 || fail "login (short tokens)"
: > "$WORK/token.log"
run push --registry-parallel 1 "oci:$WORK/img:v1" "$PROXY/test/expiry:v1"
assert_eq "$RC" "0" "push with short-lived tokens: $OUT"
grants=$(grep -c '"scopes": \["repository:test/expiry:pull,push"\]' "$WORK/token.log" || true)
[ "$grants" -ge 2 ] || fail "expected the token to be refreshed during the push, got $grants grant(s)"
REG=$TOKEN_REG

# --- no secret anywhere ---------------------------------------------------------------------------
for repo in test/app:v1 test/built:v1; do
  skopeo inspect --config --tls-verify=false "docker://$REG/$repo" >> "$WORK/images.txt"
  skopeo inspect --tls-verify=false "docker://$REG/$repo" >> "$WORK/images.txt"
done
for secret in "$BASIC_PW" "$TOKEN_PW" "$REFRESH" "$(printf '%s' "alice:$BASIC_PW" | base64 -w0)" \
              "$(printf '%s' "bob:$TOKEN_PW" | base64 -w0)"; do
  if grep -qF -- "$secret" "$ALL"; then fail "a secret appears in rockpack's output"; fi
  if grep -qF -- "$secret" "$WORK/images.txt"; then fail "a secret appears in an image config or labels"; fi
done
# Tokens are not logged either: the debug log shows the Authorization header redacted.
grep -q "Authorization: <redacted>" "$ALL" || fail "expected redacted Authorization headers in the debug log"
if grep -q "Bearer ey" "$ALL"; then fail "a bearer token appears in the output"; fi
echo "ok"
