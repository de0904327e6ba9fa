#!/usr/bin/env bash
# rockpack lock and build --locked with a rocm: section, on the mock TheRock index
# (tests/tools/make_therock_index.py) served on loopback, and a fake Debian+python3.11 base:
#  - the lock pins the rocm version (and layout) and every wheel and the rocm sdist by sha256;
#  - build --locked gives the plain build's digest;
#  - a newer nightly appears: --locked still builds the locked one (same digest, empty store, the
#    label says the locked version); a plain build takes the new nightly;
#  - the old nightly is pruned from the index (as TheRock does): --locked fails with exit 1 naming
#    a locked file; --store-only builds it from a warm store, same digest.
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/python_fixtures.sh"
source "$(dirname "$0")/lib/rocm_fixtures.sh"
source "$(dirname "$0")/lib/fake_python_base.sh"
need skopeo
[ "$(uname -m)" = x86_64 ] || skip "the fake base is x86_64"
export SOURCE_DATE_EPOCH=1700000000

fake_python_base "$BASE"
therock_index "$WORK/pf" --family "$FAMILY" --versions "$V1"
start_static pf "$WORK/pf"
mkdir -p "$WORK/r"
cd "$WORK/r"
rocm_recipe "$WORK/r/app.yaml" rocmlock <<RECIPE
  packages: [torch]
rocm:
  source: therock
  index: "$(static_url pf)/{family}/"
  targets: gfx942
RECIPE

build() {  # STORE [ARGS...]: prints the digest
  local store=$1
  shift
  "$ROCKPACK" --quiet build app.yaml --cache-dir "$store" -o "oci:$WORK/out:latest" "$@" | tail -n 1
}

"$ROCKPACK" --quiet lock app.yaml >"$WORK/lock.out" 2>&1 || fail "rockpack lock failed: $(cat "$WORK/lock.out")"
python3 - app.yaml.lock "$V1" <<'PY' || fail "the lock does not pin the nightly"
import json, sys
lock, v1 = json.load(open(sys.argv[1])), sys.argv[2]
rocm = lock["steps"]["rocm"]
assert rocm["pins"]["version"] == v1, rocm["pins"]
assert rocm["pins"]["layout"] == "per-family", rocm["pins"]
names = {c["name"]: c for c in rocm["components"]}
for n in ("rocm", "rocm-sdk-core", "rocm-sdk-devel", "torch"):
    assert n in names, sorted(names)
assert names["rocm"]["filename"] == "rocm-%s.tar.gz" % v1, names["rocm"]
assert names["torch"]["version"].endswith("+rocm" + v1), names["torch"]
assert all(len(c["sha256"]) == 64 for c in rocm["components"])
assert any(i.startswith("index ") for i in rocm["inputs"]["rocm"]), rocm["inputs"]
PY

d_plain=$(build "$WORK/s1") || fail "plain build failed"
d_locked=$(build "$WORK/s2" --locked) || fail "locked build failed"
assert_eq "$d_locked" "$d_plain" "build --locked gives the plain build's digest"

# A newer nightly on the index.
therock_index "$WORK/pf" --family "$FAMILY" --versions "$V1,$V2"
d_locked2=$(build "$WORK/s3" --locked) || fail "locked build after a new nightly failed"
assert_eq "$d_locked2" "$d_plain" "--locked after a new nightly, empty store"
assert_eq "$(config_label "oci:$WORK/out:latest" org.rockpack.rocm.version)" "$V1" "the locked image's rocm version"
d_new=$(build "$WORK/s4") || fail "plain build after a new nightly failed"
assert_ne "$d_new" "$d_plain" "a plain build after a new nightly"
assert_eq "$(config_label "oci:$WORK/out:latest" org.rockpack.rocm.version)" "$V2" "a plain build takes the new nightly"

# The old nightly pruned.
therock_index "$WORK/pf-new" --family "$FAMILY" --versions "$V2"
rm -rf "$WORK/pf"
mv "$WORK/pf-new" "$WORK/pf"
rc=0
build "$WORK/s5" --locked >"$WORK/gone.out" 2>&1 || rc=$?
assert_eq "$rc" 1 "a pruned nightly: exit code"
assert_contains "$(cat "$WORK/gone.out")" "locked in app.yaml.lock" "a pruned nightly: the locked file is named"
assert_contains "$(cat "$WORK/gone.out")" "$V1" "a pruned nightly: its version"
d_store=$(build "$WORK/s2" --locked --store-only) || fail "--store-only from a warm store failed"
assert_eq "$d_store" "$d_plain" "--store-only builds the pruned nightly from the store"
echo "PASS"
