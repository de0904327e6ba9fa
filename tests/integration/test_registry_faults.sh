#!/usr/bin/env bash
# Robustness: a proxy of the tests' own sits between rockpack and the registry and answers 500, 503
# and 429 (with Retry-After) on a share of requests and drops connections halfway through blob
# uploads. Pushes (chunked and monolithic) and pulls still complete with unchanged digests. Then an
# interrupted push (killed mid-way) is rerun and sends only what had not arrived.
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/registry.sh"
need skopeo
cd "$WORK"

start_registry faults
digest=$(make_image "$WORK/img:v1" 3 3 "faults")
start_fault_proxy "$REG" --every 3 --max-faults 12 --drop-min 100000

# Chunked uploads (1 MiB chunks) through the faulty proxy.
out=$("$ROCKPACK" push --chunk-size 1 "oci:$WORK/img:v1" "$PROXY/test/chunked:v1" 2>&1) || fail "chunked push failed: $out"
faults=$(wc -l < "$WORK/faults.log")
[ "$faults" -ge 5 ] || fail "only $faults faults were injected"
grep -q '^drop PATCH' "$WORK/faults.log" || fail "no upload chunk was cut off: $(cat "$WORK/faults.log")"
grep -q '^429' "$WORK/faults.log" || fail "no 429 was injected"
grep -q '^cut PATCH' "$WORK/faults.log" || fail "no upload chunk was cut before the registry: $(cat "$WORK/faults.log")"
# After a cut-off chunk the registry still has the chunks before it: the upload resumes there.
grep -Eq "resuming at byte [1-9][0-9]* of" <<<"$out" || fail "no upload resumed from the registry's Range: $out"
assert_eq "$(skopeo_digest "docker://$REG/test/chunked:v1")" "$digest" "digest after a faulty chunked push"

# Monolithic uploads (one PUT per blob) through a fresh set of faults.
start_fault_proxy "$REG" --every 2 --max-faults 8 --drop-min 100000
out=$("$ROCKPACK" push "oci:$WORK/img:v1" "$PROXY/test/mono:v1" 2>&1) || fail "monolithic push failed: $out"
[ "$(wc -l < "$WORK/faults.log")" -ge 4 ] || fail "too few faults: $(cat "$WORK/faults.log")"
assert_eq "$(skopeo_digest "docker://$REG/test/mono:v1")" "$digest" "digest after a faulty monolithic push"

# A pull through faults (503/429/500, and downloads cut off halfway, which resume with a Range
# request) gives the same image.
start_fault_proxy "$REG" --every 2 --max-faults 6 --every-download 2
rm -rf "$XDG_CACHE_HOME"
out=$("$ROCKPACK" pull "$PROXY/test/mono:v1" "oci:$WORK/pulled" 2>&1) || fail "pull through faults failed: $out"
assert_eq "$(tail -n 1 <<<"$out")" "$digest" "digest after a faulty pull"
grep -q '^cutresp GET' "$WORK/faults.log" || fail "no download was cut off: $(cat "$WORK/faults.log")"
assert_contains "$out" "resuming at byte" "a cut-off download resumes"

# Interrupted push: a slow proxy, the push is killed once the first layer has arrived; the rerun
# finds what arrived and sends only the rest.
digest2=$(make_image "$WORK/img2:v1" 4 2 "resume")
start_fault_proxy "$REG" --max-faults 0 --delay-ms 700
"$ROCKPACK" push --registry-parallel 1 "oci:$WORK/img2:v1" "$PROXY/test/resume:v1" > "$WORK/interrupted.log" 2>&1 &
pid=$!
layers=$(python3 -c 'import json,sys; m=json.load(open(sys.argv[1])); print(" ".join(l["digest"] for l in m["layers"]))' \
  "$WORK/img2/blobs/sha256/${digest2#sha256:}")
arrived=0
for i in $(seq 1 150); do
  arrived=0
  for l in $layers; do
    code=$(curl -s -o /dev/null -w '%{http_code}' -I "http://$REG/v2/test/resume/blobs/$l")
    [ "$code" = 200 ] && arrived=$((arrived + 1))
  done
  [ "$arrived" -ge 1 ] && break
  sleep 0.1
done
kill -9 "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
[ "$arrived" -ge 1 ] && [ "$arrived" -lt 4 ] || fail "could not interrupt the push midway ($arrived layers had arrived)"
out=$("$ROCKPACK" push "oci:$WORK/img2:v1" "$REG/test/resume:v1" 2>&1) || fail "rerun failed: $out"
assert_contains "$out" "already there" "rerun finds what arrived"
existing=$(sed -n 's/.*MiB), \([0-9]*\) already there.*/\1/p' <<<"$out")
[ "$existing" -ge "$arrived" ] || fail "rerun re-sent blobs that had arrived: $out"
assert_eq "$(skopeo_digest "docker://$REG/test/resume:v1")" "$digest2" "digest after an interrupted push was rerun"
echo "ok"
