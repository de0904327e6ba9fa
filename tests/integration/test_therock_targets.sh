#!/usr/bin/env bash
# TheRock's multi-arch packages by GPU target, on a mock whl-next index (no hashes on its links):
#  - without `verify: tls-only` the build is refused; with it the lock records each file's sha256,
#    the label counts them, `build --locked` checks them (a changed file on the index is refused);
#  - two targets in one image: both device wheels, torch's device wheels (sub-family gfx110x too),
#    torchvision's per target (its device-<t> extras added as torch's), torchaudio as it is;
#  - a layer per package: a gfx942 and a gfx950 image of the same nightly share every layer but
#    their device layers; devel links to device files stay hardlinks in the image;
#  - an unknown target lists the release's targets;
#  - `python: packages: ["rocm[...device-gfx942]", "torch[device-gfx942]"]` without rocm: works.
source "$(dirname "$0")/lib/common.sh"
source "$ROCKPACK_SOURCE_DIR/tests/integration/lib/python_fixtures.sh"
source "$ROCKPACK_SOURCE_DIR/tests/integration/lib/rocm_fixtures.sh"
need umoci; need skopeo
[ "$(id -u)" -eq 0 ] || skip "chroot needs root"
export SOURCE_DATE_EPOCH=1700000000
V=10.1.0a20260822
TV=2.10.0a0+rocm$V
VV=$(sed -n 's/^VISION_VERSION = "\(.*\)"$/\1/p' "$ROCM_GEN")+rocm$V

python_base
therock_index "$WORK/wn" --layout whl-next --target gfx942 --target gfx950 --target gfx1100 --versions "$V"
start_loopback_server wn "$ROCKPACK_SOURCE_DIR/tests/tools/static_server.py" "$WORK/wn" --routes "$WORK/wn/routes.json"
WN="$(static_url wn)/rocm/whl-next/"

recipe() {  # FILE TARGETS [EXTRA ROCM LINES] [PACKAGES]
  rocm_recipe "$1" targets <<YAML
  packages: [${4:-torch}]
rocm:
  index: "$WN"
  targets: [$2]
  components: [libraries, devel]
${3:-}
tags: [latest]
YAML
}
# The layers of an image: "<diff_id> <what made it>" lines.
layers() {
  image_config "$1" | python3 -c '
import json, sys
c = json.load(sys.stdin)
made = [h.get("created_by", "") + " " + h.get("comment", "") for h in c["history"] if not h.get("empty_layer")]
for d, m in zip(c["rootfs"]["diff_ids"], made):
    print(d, m)'
}

# --- no hashes: refused by default ----------------------------------------------------------------
recipe "$WORK/nohash.yaml" gfx942
if "$ROCKPACK" build "$WORK/nohash.yaml" -o "oci:$WORK/nohash:latest" >"$WORK/nohash.log" 2>&1; then
  fail "a build from an index without hashes succeeded without verify: tls-only"
fi
assert_contains "$(cat "$WORK/nohash.log")" "has no sha256 to verify the download against" "refusal"
assert_contains "$(cat "$WORK/nohash.log")" "verify: tls-only" "refusal names the opt-in"

# --- gfx942 with the opt-in, locked; then build --locked ---------------------------------------
recipe "$WORK/g942.yaml" gfx942 "  verify: tls-only"
"$ROCKPACK" lock "$WORK/g942.yaml" >"$WORK/lock.log" 2>&1 || fail "lock failed: $(tail -n 20 "$WORK/lock.log")"
LOCK="$WORK/g942.lock"
[ -f "$LOCK" ] || LOCK=$(ls "$WORK"/*.lock* 2>/dev/null | head -n 1)
[ -f "$LOCK" ] || fail "no lock file next to the recipe: $(ls "$WORK")"
python3 - "$LOCK" <<'PY' || fail "the lock does not record the tls-only files with their sha256: $(head -c 3000 "$LOCK")"
import json, re, sys
lock = json.load(open(sys.argv[1]))
comps = [c for s in lock["steps"].values() for c in s["components"] if c["kind"] == "python-package"]
tls = [c for c in comps if c.get("verification") == "tls-only"]
assert len(tls) == len(comps) > 5, (len(tls), len(comps))
assert all(re.fullmatch(r"[0-9a-f]{64}", c["sha256"]) for c in tls)
PY
"$ROCKPACK" build "$WORK/g942.yaml" --locked -o "oci:$WORK/g942:latest" >"$WORK/g942.log" 2>&1 \
  || fail "build --locked failed: $(tail -n 30 "$WORK/g942.log")"
IMG942="oci:$WORK/g942:latest"
# The split torch device wheels' RECORD hashes are hex (rocm_kpack's splitter): accepted, no warning.
grep -q "does not match its RECORD" "$WORK/g942.log" && fail "a RECORD warning: $(grep RECORD "$WORK/g942.log")"
# The index also lists a PEP 817 variant wheel (six dash fields): skipped, the classic one is used.
ls "$WORK"/wn/rocm/pytorch/whl-next/amd-torch-device-gfx942/*-amd_gfx942.whl >/dev/null || fail "the mock has no variant wheel"
count=$(config_label "$IMG942" org.rockpack.python.tls-only-files)
[ -n "$count" ] && [ "$count" -gt 5 ] || fail "label org.rockpack.python.tls-only-files is '$count'"

# A file changed on the index after locking: the locked build (fresh store) refuses it.
WHEEL=$(ls "$WORK"/wn/rocm/core/whl-next/rocm-sdk-device-gfx942/*.whl)
cp "$WHEEL" "$WORK/good.whl"
printf 'tampered' >>"$WHEEL"
if "$ROCKPACK" build "$WORK/g942.yaml" --locked --cache-dir "$WORK/fresh-cache" -o "oci:$WORK/tampered:latest" \
     >"$WORK/tampered.log" 2>&1; then
  fail "build --locked accepted a file that changed on the index"
fi
assert_contains "$(cat "$WORK/tampered.log")" "sha256" "the locked build names the hash mismatch"
cp "$WORK/good.whl" "$WHEEL"

# --- the layers: one per package; gfx950 shares all but its device layers ---------------------
L942=$(layers "$IMG942")
for pkg in rocm-sdk-core rocm-sdk-libraries rocm-sdk-devel rocm-sdk-device-gfx942 torch amd-torch-device-gfx942; do
  n=$(grep -cE "rockpack python: (.*, )?$pkg==" <<<"$L942" || true)
  assert_eq "$n" 1 "layers with $pkg
$L942"
done
recipe "$WORK/g950.yaml" gfx950 "  verify: tls-only"
"$ROCKPACK" build "$WORK/g950.yaml" -o "oci:$WORK/g950:latest" >"$WORK/g950.log" 2>&1 \
  || fail "the gfx950 build failed: $(tail -n 30 "$WORK/g950.log")"
L950=$(layers "oci:$WORK/g950:latest")
# (The login shells' copy of the image Env, a few hundred bytes, differs too: PYTORCH_ROCM_ARCH.)
ENVLAYER="/etc/profile.d/zz-rockpack-env.sh"
only942=$(comm -23 <(grep -vF "$ENVLAYER" <<<"$L942" | cut -d' ' -f1 | sort) <(cut -d' ' -f1 <<<"$L950" | sort))
only950=$(comm -13 <(cut -d' ' -f1 <<<"$L942" | sort) <(grep -vF "$ENVLAYER" <<<"$L950" | cut -d' ' -f1 | sort))
assert_eq "$(wc -l <<<"$only942")" 2 "layers of the gfx942 image not in the gfx950 one:
$L942"
assert_eq "$(wc -l <<<"$only950")" 2 "layers of the gfx950 image not in the gfx942 one:
$L950"
for d in $only942; do
  assert_contains "$(grep "^$d " <<<"$L942")" "device-gfx942" "a gfx942-only layer"
done
for d in $only950; do
  assert_contains "$(grep "^$d " <<<"$L950")" "device-gfx950" "a gfx950-only layer"
done

# Device files and their devel links are one inode in the unpacked image.
unpack "$WORK/g942:latest" "$WORK/b942"
SITE="$WORK/b942/rootfs/$SITE_REL"
assert_eq "$(stat -c %i "$SITE/_rocm_sdk_devel/.kpack/blas_lib_gfx942.kpack")" \
  "$(stat -c %i "$SITE/_rocm_sdk_libraries/.kpack/blas_lib_gfx942.kpack")" "devel link of a device file"
[ -e "$SITE/_rocm_sdk_devel/.devel_reconcile.lock" ] || fail "no .devel_reconcile.lock"
[ ! -e "$SITE/rocm_sdk_devel/_devel.tar" ] || fail "the devel tarball is still there"

# --- two targets in one image, torch's sub-family device wheel, torchvision's device wheels ----
recipe "$WORK/two.yaml" "gfx942, gfx1100" "  verify: tls-only" "torch, torchvision, torchaudio"
"$ROCKPACK" build "$WORK/two.yaml" -o "oci:$WORK/two:latest" >"$WORK/two.log" 2>&1 \
  || fail "the two-target build failed: $(tail -n 30 "$WORK/two.log")"
unpack "$WORK/two:latest" "$WORK/btwo"
freeze=$(pip_freeze "$WORK/btwo/rootfs") || fail "pip list fails in the two-target image"
assert_installed "$freeze" "rocm-sdk-device-gfx942==$V" "rocm-sdk-device-gfx1100==$V" \
  "amd-torch-device-gfx942==$TV" "amd-torch-device-gfx1100==$TV" "amd-torch-device-gfx110x==$TV" "torch==$TV" \
  "torchvision==$VV" "amd-torchvision-device-gfx942==$VV" "amd-torchvision-device-gfx1100==$VV"
grep -q "gfx950" <<<"$freeze" && fail "a gfx950 package in the gfx942+gfx1100 image: $freeze"
grep -q "torchvision-device-gfx110x" <<<"$freeze" && fail "a torchvision sub-family wheel (TheRock publishes none): $freeze"
grep -q "^torchaudio==" <<<"$freeze" || fail "torchaudio (no device extras) is not installed: $freeze"
for t in gfx942 gfx1100; do
  [ -f "$WORK/btwo/rootfs/$SITE_REL/torchvision/.kpack/torchvision_$t.kpack" ] || fail "no torchvision kpack for $t"
  n=$(layers "oci:$WORK/two:latest" | grep -cE "rockpack python: (.*, )?amd-torchvision-device-$t==" || true)
  assert_eq "$n" 1 "layers with amd-torchvision-device-$t"
done
check=$(pip_in "$WORK/btwo/rootfs" check) || fail "pip check is not clean: $check"

# --- an unknown target ------------------------------------------------------------------------
recipe "$WORK/unknown.yaml" gfx1234 "  verify: tls-only"
if "$ROCKPACK" build "$WORK/unknown.yaml" -o "oci:$WORK/unknown:latest" >"$WORK/unknown.log" 2>&1; then
  fail "a build for gfx1234 succeeded"
fi
assert_contains "$(cat "$WORK/unknown.log")" "no device package for GPU target 'gfx1234'" "unknown target"
assert_contains "$(cat "$WORK/unknown.log")" "this release has: gfx1100, gfx942, gfx950" "unknown target: the release's targets"

# --- python: alone, with TheRock's own requirement lines -----------------------------------------
cat >"$WORK/plain.yaml" <<YAML
name: plain
base: oci:$BASE:base
python:
  interpreter: /usr/bin/python3
  venv: /opt/venv
  indexes: [{url: "$WN", verify: tls-only}]
  packages: ["rocm[libraries,devel,device-gfx942]", "torch[device-gfx942]"]
tags: [latest]
YAML
"$ROCKPACK" build "$WORK/plain.yaml" -o "oci:$WORK/plain:latest" >"$WORK/plain.log" 2>&1 \
  || fail "the python-only build failed: $(tail -n 30 "$WORK/plain.log")"
unpack "$WORK/plain:latest" "$WORK/bplain"
freeze=$(pip_freeze "$WORK/bplain/rootfs") || fail "pip list fails in the python-only image"
assert_installed "$freeze" "rocm==$V" "rocm-sdk-device-gfx942==$V" "rocm-sdk-devel==$V" "amd-torch-device-gfx942==$TV"

echo "PASS: test_therock_targets"
