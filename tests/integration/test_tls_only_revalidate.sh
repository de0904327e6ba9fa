#!/usr/bin/env bash
# Files from an index without hashes (`verify: tls-only`) on a warm, unlocked rebuild: the store
# remembers each URL's validators (ETag, Last-Modified) with the sha256 of the copy it downloaded,
# and asks the server with a conditional GET instead of downloading again.
#  - the second build downloads no wheel (each answered 304; what is sent is the resolver's range
#    reads of METADATA, a few KB) and gives the same image digest;
#  - a file changed on the server (new ETag) is downloaded again: the image and the lock change,
#    and the lock records the new file's sha256; the unchanged file is still answered 304;
#  - --store-only uses the stored copies without asking the server (it used to refuse them).
source "$(dirname "$0")/lib/common.sh"
source "$ROCKPACK_SOURCE_DIR/tests/integration/lib/python_fixtures.sh"
source "$ROCKPACK_SOURCE_DIR/tests/integration/lib/rocm_fixtures.sh"
export SOURCE_DATE_EPOCH=1700000000

python_base

# A PEP 503 index as a static host serves it: pages with links and no #sha256.
IDX="$WORK/idx"
mkdir -p "$IDX/files"
# 1 MiB each: a download is told apart from the resolver's range reads of METADATA (a few KB).
A=$(wheel "$IDX/files" demo-a 1.0 --module 'demo_a=x = 1' --size-mb 1)
B=$(wheel "$IDX/files" demo-b 1.0 --module 'demo_b=x = 1' --size-mb 1)
for w in "$A" "$B"; do
  f=$(basename "$w")
  name=$(echo "${f%%-*}" | tr _ -)
  mkdir -p "$IDX/simple/$name"
  printf '<html><body><a href="../../files/%s">%s</a></body></html>\n' "$f" "$f" >"$IDX/simple/$name/index.html"
done
start_static idx "$IDX"
URL="$(static_url idx)/simple/"

rocm_recipe "$WORK/r.yaml" revalidate <<YAML
  indexes:
    - url: "$URL"
      verify: tls-only
  packages: [demo-a, demo-b]
tags: [latest]
YAML

digest() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1] + "/index.json"))["manifests"][0]["digest"])' "$1"; }
# "<bytes sent> <304 answers>" for the wheel files since the last reset.
wheel_traffic() {
  static_stats idx | python3 -c '
import json, sys
s = json.load(sys.stdin)
files = [p for p in s["requests"] if p.endswith(".whl")]
print(sum(s["bytes"].get(p, 0) for p in files), sum(s["not_modified"].get(p, 0) for p in files))'
}
build() {  # NAME [ARGS]: builds into $WORK/NAME
  local name=$1
  shift
  "$ROCKPACK" build "$WORK/r.yaml" -o "oci:$WORK/$name:latest" "$@" >"$WORK/$name.log" 2>&1 \
    || fail "$name: the build failed: $(tail -n 30 "$WORK/$name.log")"
}
locked_sha() {  # LOCK NAME: the sha256 the lock records for package NAME
  python3 -c '
import json, sys
lock = json.load(open(sys.argv[1]))
comps = [c for s in lock["steps"].values() for c in s["components"] if c.get("name") == sys.argv[2]]
assert len(comps) == 1 and comps[0].get("verification") == "tls-only", comps
print(comps[0]["sha256"])' "$1" "$2"
}

# --- cold, then warm: nothing downloaded, same digest ---------------------------------------------
build cold
[ "$(wheel_traffic | cut -d' ' -f1)" -gt 0 ] || fail "the cold build downloaded no wheel bytes: $(static_stats idx)"
reset_static idx
build warm
traffic=$(wheel_traffic)
assert_eq "${traffic#* }" "2" "warm build: 304 answers"
[ "${traffic% *}" -lt 200000 ] || fail "warm build: $traffic wheel bytes sent (2 MiB of wheels): downloaded again"
assert_contains "$(cat "$WORK/warm.log")" "0 wheels downloaded" "warm build: the download count"
assert_eq "$(digest "$WORK/warm")" "$(digest "$WORK/cold")" "warm build: image digest"
assert_contains "$(cat "$WORK/warm.log")" "accepted on TLS alone" "warm build: the tls-only warning still"

"$ROCKPACK" lock "$WORK/r.yaml" >"$WORK/lock1.log" 2>&1 || fail "lock failed: $(tail -n 20 "$WORK/lock1.log")"
# (Moved away: the builds below are unlocked.)
mv "$WORK/r.yaml.lock" "$WORK/lock1.json"
assert_eq "$(locked_sha "$WORK/lock1.json" demo-a)" "$(sha256_of "$A")" "lock: demo-a's sha256"

# --- demo-a changes on the server: downloaded again, image and lock change -------------------------
rm "$A"
A2=$(wheel "$IDX/files" demo-a 1.0 --module 'demo_a=x = 22' --size-mb 1)
[ "$(basename "$A2")" = "$(basename "$A")" ] || fail "the new wheel has another name: $A2"
[ "$(sha256_of "$A2")" != "$(locked_sha "$WORK/lock1.json" demo-a)" ] || fail "the new wheel is the same file"
reset_static idx
build changed
traffic=$(wheel_traffic)
size=$(stat -c %s "$A2")
[ "${traffic% *}" -ge "$size" ] && [ "${traffic% *}" -lt $((size + 200000)) ] \
  || fail "changed: expected demo-a's $size bytes (and range reads), got $traffic"
assert_contains "$(cat "$WORK/changed.log")" "1 wheel downloaded" "changed: the download count"
assert_eq "${traffic#* }" "1" "changed: 304 answers (demo-b only)"
[ "$(digest "$WORK/changed")" != "$(digest "$WORK/cold")" ] || fail "the image did not change with demo-a"
"$ROCKPACK" lock "$WORK/r.yaml" >"$WORK/lock2.log" 2>&1 || fail "lock failed: $(tail -n 20 "$WORK/lock2.log")"
mv "$WORK/r.yaml.lock" "$WORK/lock2.json"
assert_eq "$(locked_sha "$WORK/lock2.json" demo-a)" "$(sha256_of "$A2")" "lock after the change: demo-a's new sha256"
assert_eq "$(locked_sha "$WORK/lock2.json" demo-b)" "$(locked_sha "$WORK/lock1.json" demo-b)" "lock after the change: demo-b"

# --- --store-only: the stored copies, no conditional GET or download (the resolver's range reads stay) ----------------------------------------
reset_static idx
build stonly --store-only
traffic=$(wheel_traffic)
assert_eq "${traffic#* }" "0" "--store-only: conditional GETs"
[ "${traffic% *}" -lt 200000 ] || fail "--store-only: $traffic wheel bytes sent: downloaded"
assert_contains "$(cat "$WORK/stonly.log")" "0 wheels downloaded" "--store-only: the download count"
assert_eq "$(digest "$WORK/stonly")" "$(digest "$WORK/changed")" "--store-only: image digest"

echo "PASS: test_tls_only_revalidate"
