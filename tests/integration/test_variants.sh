#!/usr/bin/env bash
# A family of images from one recipe (matrix: TARGET x PYTHON = 2 x 2), on Debian's docker-registry
# on loopback and a mock package index that counts requests:
#  - `build --all-variants`: every tag in the OCI layout and the registry, each variant with its
#    target's device files and wheel and its Python's site-packages; a layer the variants share has one
#    digest; every wheel downloaded once (the index's counts); every distinct layer compressed once
#    (the family report); the family's push uploads each blob once;
#  - `rockpack matrix --format github`: one entry per variant with its --set args, tags and runner;
#    the same four built one by one from it, each with an empty store and the registry layer cache,
#    give the all-in-one build's manifest digests;
#  - `rockpack publish`: with half the family pushed it moves no floating tag and names what is
#    missing; with all of it, latest-<target>-py<version> and latest move, and the summary lists all;
#  - a failing variant names itself and nothing of the family is written or pushed; --keep-going
#    delivers the others and still fails.
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/registry.sh"
source "$(dirname "$0")/lib/python_fixtures.sh"
source "$(dirname "$0")/lib/fake_python_base.sh"
[ "$(uname -m)" = x86_64 ] || skip "the fake interpreters name x86_64-linux-gnu"
cd "$WORK"
export SOURCE_DATE_EPOCH=1700000000  # DATE = 20231114
DATE=20231114

# --- fixtures: two fake Debian-like Pythons (3.11, 3.12) as one family of bases ------------------
mkdir -p bases-src
fake_python_root bases-src/root-3.11 3.11
fake_python_root bases-src/root-3.12 3.12
cat > bases-src/recipe.yaml <<'YAML'
name: fake-python
platform: linux/amd64
args: {PYTHON: null}
matrix:
  PYTHON: ["3.11", "3.12"]
  name: "py${PYTHON}"
  tags: ["py${PYTHON}"]
files:
  - {src: "root-${PYTHON}", dest: /}
env: {PATH: /usr/local/bin:/usr/bin:/bin}
YAML
"$ROCKPACK" --quiet build bases-src/recipe.yaml --all-variants -o "oci:$WORK/bases" --cache-dir store-bases >bases.out 2>bases.log \
  || fail "building the bases failed: $(cat bases.log)"
assert_eq "$(wc -l < bases.out)" "2" "two bases, one line each"

# Wheels: one every variant of a Python shares, one per GPU target (the "device" wheels).
mkdir -p wheels
wheel wheels rpcommon 1.0 --size-mb 1 >/dev/null
wheel wheels rpdevice-gfx942 1.0 --size-mb 1 >/dev/null
wheel wheels rpdevice-gfx950 1.0 --size-mb 1 >/dev/null
start_index idx wheels
INDEX="$(index_url idx)/simple/"
start_registry reg

mkdir -p fam/shared fam/device/gfx942 fam/device/gfx950
head -c 300000 /dev/urandom > fam/shared/blob.bin
echo gfx942 > fam/device/gfx942/target
echo gfx950 > fam/device/gfx950/target
cat > fam/recipe.yaml <<'YAML'
name: family
args:
  PYTHON: "3.11"
  TARGET: gfx942
  INDEX: null
base: oci:../bases:py${PYTHON}
matrix:
  TARGET: [gfx942, gfx950]
  PYTHON: ["3.11", "3.12"]
  name: "${TARGET}-py${PYTHON}"
  tags: ["nightly-${DATE}-${TARGET}-py${PYTHON}"]
  floating: ["latest-${TARGET}-py${PYTHON}"]
  include:
    - {TARGET: gfx942, PYTHON: "3.12", tags: ["nightly-${DATE}"], floating: [latest]}
files:
  - {src: shared, dest: /opt/shared, layer: shared}
  - {src: "device/${TARGET}", dest: /opt/device, layer: device}
python:
  interpreter: /usr/bin/python3
  break_system_packages: true
  indexes: [{url: "${INDEX}"}]
  packages: [rpcommon, "rpdevice-${TARGET}"]
  layers: {common: [rpcommon], device-wheels: ["rpdevice-*"]}
YAML
VARIANTS="gfx942-py3.11 gfx942-py3.12 gfx950-py3.11 gfx950-py3.12"

# --- validate and plan show every variant -----------------------------------------------------------
out=$("$ROCKPACK" validate fam/recipe.yaml --set INDEX="$INDEX") || fail "validate failed: $out"
assert_contains "$out" "4 variants" "validate counts the variants"
for v in $VARIANTS; do assert_contains "$out" "variant $v: ok" "validate checks $v"; done
assert_contains "$out" "nightly-$DATE-gfx942-py3.12, nightly-$DATE" "validate shows a variant's tags"
"$ROCKPACK" --quiet plan fam/recipe.yaml --set INDEX="$INDEX" --json --cache-dir store-plan > plan.json || fail "plan failed"
assert_eq "$(json_get plan.json '[v["variant"] for v in d["variants"]]')" "['gfx942-py3.11', 'gfx942-py3.12', 'gfx950-py3.11', 'gfx950-py3.12']" \
  "plan --json lists every variant"
assert_eq "$(json_get plan.json 'sorted(c["name"] for c in d["variants"][2]["plan"]["components"])')" "['rpcommon', 'rpdevice-gfx950']" \
  "the gfx950 plan resolves its device wheel"
# A build of a recipe with a matrix: must say which variant.
if "$ROCKPACK" build fam/recipe.yaml --set INDEX="$INDEX" --cache-dir store-x 2>err.txt; then fail "a matrix recipe built without --variant"; fi
assert_contains "$(cat err.txt)" "--all-variants" "the error says how to choose"
echo "ok: validate and plan show every variant"

# --- 1. every variant in one build ---------------------------------------------------------------
reset_stats idx
"$ROCKPACK" --log-format json build fam/recipe.yaml --all-variants --set INDEX="$INDEX" --cache-dir store-all \
  -o "oci:$WORK/family" --push "$REG/test/all" --report family.json --report-markdown family.md \
  --metadata-file family-meta.json > all.out 2> all.log || fail "the family build failed: $(tail -5 all.log)"
assert_eq "$(wc -l < all.out)" "4" "one line per variant on stdout"
declare -A DIGEST
while read -r name digest; do DIGEST[$name]=$digest; done < all.out
for v in $VARIANTS; do [[ "${DIGEST[$v]:-}" == sha256:* ]] || fail "no digest for $v: $(cat all.out)"; done
# Each file once: the index saw one GET per wheel across the four variants.
for w in rpcommon-1.0-py3-none-any.whl rpdevice_gfx942-1.0-py3-none-any.whl rpdevice_gfx950-1.0-py3-none-any.whl; do
  assert_eq "$(index_file_requests idx "$w")" "1" "$w downloaded once for the family"
done
# Every tag in the layout and in the registry, naming its variant's manifest.
tag_digest_layout() { python3 - "$WORK/family/index.json" "$1" <<'PY'
import json, sys
for m in json.load(open(sys.argv[1]))["manifests"]:
    if m.get("annotations", {}).get("org.opencontainers.image.ref.name") == sys.argv[2]:
        print(m["digest"])
PY
}
tag_digest_registry() {
  curl -fsS -o /dev/null -w '%header{docker-content-digest}' -H "Accept: application/vnd.oci.image.manifest.v1+json" \
    "http://$REG/v2/$1/manifests/$2" 2>/dev/null || true
}
for v in $VARIANTS; do
  t=${v%-py*}; p=${v#*-py}
  assert_eq "$(tag_digest_layout "nightly-$DATE-$t-py$p")" "${DIGEST[$v]}" "layout tag of $v"
  assert_eq "$(tag_digest_registry test/all "nightly-$DATE-$t-py$p")" "${DIGEST[$v]}" "registry tag of $v"
done
assert_eq "$(tag_digest_layout "nightly-$DATE")" "${DIGEST[gfx942-py3.12]}" "the include's extra tag"
assert_eq "$(tag_digest_registry test/all "nightly-$DATE")" "${DIGEST[gfx942-py3.12]}" "the include's extra tag, pushed"
assert_eq "$(tag_digest_registry test/all latest)" "" "no floating tag moved by a build"
echo "ok: --all-variants wrote and pushed every tag"

# Per-variant contents: its target's device files and wheel, its Python's site-packages.
# Every variant's files in one pass over the layout: files-VARIANT.txt, one path a line.
python3 - "$WORK/family" "$DATE" $VARIANTS <<'PY' || fail "cannot list the variants' files"
import gzip, io, json, sys, tarfile
root, date, variants = sys.argv[1], sys.argv[2], sys.argv[3:]
idx = json.load(open(f"{root}/index.json"))
blob = lambda d: open(f"{root}/blobs/sha256/{d.split(':')[1]}", "rb").read()
names = {}
for v in variants:
    t, p = v.split("-py")
    tag = f"nightly-{date}-{t}-py{p}"
    d = [m["digest"] for m in idx["manifests"] if m.get("annotations", {}).get("org.opencontainers.image.ref.name") == tag][0]
    with open(f"files-{v}.txt", "w") as out:
        for l in json.loads(blob(d))["layers"]:
            if l["digest"] not in names:
                with tarfile.open(fileobj=io.BytesIO(gzip.decompress(blob(l["digest"])))) as tf:
                    names[l["digest"]] = ["/" + n.lstrip("./") for n in tf.getnames()]
            out.write("".join(n + "\n" for n in names[l["digest"]]))
PY
for v in $VARIANTS; do
  t=${v%-py*}; p=${v#*-py}
  other=$([ "$t" = gfx942 ] && echo gfx950 || echo gfx942)
  other_py=$([ "$p" = 3.11 ] && echo 3.12 || echo 3.11)
  grep -qx "/opt/device/target" "files-$v.txt" || fail "$v: no /opt/device/target"
  grep -q "python$p/.*rpdevice_$t/" "files-$v.txt" || fail "$v: no rpdevice_$t under python$p"
  grep -q "rpdevice_$other" "files-$v.txt" && fail "$v holds the $other device wheel"
  grep -q "python$other_py/.*rpcommon" "files-$v.txt" && fail "$v holds rpcommon for python$other_py"
  grep -q "python$p/.*rpcommon/" "files-$v.txt" || fail "$v: no rpcommon under python$p"
done
# Shared layers, one digest: "shared" in all four, "device" per target, "common" (rpcommon) per Python.
python3 - family.json <<'PY' || fail "the variants do not share the layers they should"
import json, sys
d = json.load(open(sys.argv[1]))
dig = {v["name"]: {l.get("name"): l["digest"] for l in v["report"]["layers"]} for v in d["variants"]}
assert len({dig[v]["shared"] for v in dig}) == 1, "shared"
assert dig["gfx942-py3.11"]["device"] == dig["gfx942-py3.12"]["device"] != dig["gfx950-py3.11"]["device"], "device"
assert dig["gfx950-py3.11"]["device"] == dig["gfx950-py3.12"]["device"], "device gfx950"
assert dig["gfx942-py3.11"]["common"] == dig["gfx950-py3.11"]["common"] != dig["gfx942-py3.12"]["common"], "common"
assert len({dig[v]["device-wheels"] for v in dig}) == 4, "device-wheels: one per variant"
PY
# Every distinct layer compressed once: the built layers of all variants are distinct and cover every new layer.
python3 - family.json <<'PY' || fail "a layer was compressed twice, or one is unaccounted for"
import json, sys
d = json.load(open(sys.argv[1]))
built = [x for v in d["variants"] for x in v["layers"]["built_digests"]]
assert len(built) == len(set(built)), built
new = {l["digest"] for v in d["variants"] for l in v["report"]["layers"] if l["step"] != "base"}
assert set(built) == new, (sorted(built), sorted(new))
assert d["totals"]["layers_built"] == len(new), d["totals"]
# The first variant built all its layers; the others found the shared ones in the store.
assert d["variants"][1]["layers"]["from_store"] >= 2, d["variants"][1]["layers"]
PY
# The push sent every blob once: the others were already there.
python3 - family.json family-meta.json <<'PY' || fail "the family push uploaded a blob twice"
import json, sys
d, meta = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
blobs = {l["digest"] for v in meta["variants"] for l in v["layers"]} | {v["config_digest"] for v in meta["variants"]}
p = d["totals"]["push"]
assert p["blobs_uploaded"] == len(blobs), (p, len(blobs))
assert p["blobs_existing"] > 0, p
PY
assert_contains "$(cat family.md)" "| gfx950-py3.12 |" "the Markdown report lists the variants"
echo "ok: shared layers have one digest, each file downloaded and each layer compressed once"

# --- 2. fan-out: the matrix output, one job per variant, the registry layer cache ----------------
"$ROCKPACK" --quiet matrix fam/recipe.yaml --set INDEX="$INDEX" --cache-dir store-matrix --runner small=ubuntu-latest > matrix.json \
  || fail "rockpack matrix failed"
python3 - matrix.json "$DATE" <<'PY' || fail "the matrix output is not what strategy.matrix takes: $(cat matrix.json)"
import json, sys
m = json.load(open(sys.argv[1]))
inc = m["include"]
assert [e["name"] for e in inc] == ["gfx942-py3.11", "gfx942-py3.12", "gfx950-py3.11", "gfx950-py3.12"], inc
e = inc[1]
assert e["set"] == ["TARGET=gfx942", "PYTHON=3.12"], e
assert e["tags"] == [f"nightly-{sys.argv[2]}-gfx942-py3.12", f"nightly-{sys.argv[2]}"], e
assert e["floating"] == ["latest-gfx942-py3.12", "latest"], e
assert e["runner"] == "ubuntu-latest" and e["runner_size"] == "small" and e["disk_gb"] >= 0, e
assert open(sys.argv[1]).read().count("\n") == 1, "github format is one line"
PY
i=0
for name in $(python3 -c 'import json,sys; print(" ".join(e["name"] for e in json.load(open(sys.argv[1]))["include"]))' matrix.json); do
  i=$((i + 1))
  d=$("$ROCKPACK" --log-format json build fam/recipe.yaml --variant "$name" --set INDEX="$INDEX" --cache-dir "store-job$i" \
      --cache-from "$REG/test/cache:buildcache" --cache-to "$REG/test/cache:buildcache" --push "$REG/test/fanout" \
      2> "job$i.log" | tail -n 1) || fail "job $name failed: $(tail -5 "job$i.log")"
  assert_eq "$d" "${DIGEST[$name]}" "job $name: the digest of the all-in-one build"
  if [ $i -ge 2 ]; then
    python3 - "job$i.log" <<'PY' || fail "job $i took no layer from the registry cache"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
layers = [e for e in ev if e.get("event") == "build.layers"][-1]
assert layers["from_registry_cache"] >= 1, layers
PY
  fi
  if [ $i -eq 2 ]; then
    # --- 3. publish with half the family: nothing moves -------------------------------------------
    if "$ROCKPACK" publish fam/recipe.yaml --set INDEX="$INDEX" --repository "$REG/test/fanout" --matrix matrix.json 2> pub1.err; then
      fail "publish moved tags of an incomplete family"
    fi
    assert_contains "$(cat pub1.err)" "variant gfx950-py3.11 is missing" "publish names a missing variant"
    assert_contains "$(cat pub1.err)" "variant gfx950-py3.12 is missing" "publish names every missing variant"
    assert_eq "$(tag_digest_registry test/fanout latest)" "" "latest not moved for an incomplete family"
    assert_eq "$(tag_digest_registry test/fanout latest-gfx942-py3.11)" "" "latest-gfx942-py3.11 not moved"
  fi
done
echo "ok: the same variants built one by one from the matrix output give the same digests"

"$ROCKPACK" --quiet publish fam/recipe.yaml --repository "$REG/test/fanout" --matrix matrix.json --summary summary.md \
  > pub2.out 2> pub2.err || fail "publish of the whole family failed: $(cat pub2.err)"
for v in $VARIANTS; do
  t=${v%-py*}; p=${v#*-py}
  assert_eq "$(tag_digest_registry test/fanout "latest-$t-py$p")" "${DIGEST[$v]}" "latest-$t-py$p moved to $v"
done
assert_eq "$(tag_digest_registry test/fanout latest)" "${DIGEST[gfx942-py3.12]}" "latest moved to gfx942-py3.12"
assert_contains "$(cat summary.md)" "| gfx950-py3.11 | TARGET=gfx950 PYTHON=3.11 | \`${DIGEST[gfx950-py3.11]}\`" "the summary lists a variant"
assert_contains "$(cat summary.md)" "shared by more than one variant" "the summary counts shared layers"
echo "ok: publish moves the floating tags only when every variant is there"

# --- 4. a failing variant -------------------------------------------------------------------------
# The same recipe (same file name: the image's history names it) with a target whose wheel is missing.
cp -r fam fam-fail
sed -e 's/TARGET: \[gfx942, gfx950\]/TARGET: [gfx942, gfx999]/' -e '/include:/,/floating: \[latest\]}/d' fam/recipe.yaml > fam-fail/recipe.yaml
mkdir -p fam-fail/device/gfx999
if "$ROCKPACK" build fam-fail/recipe.yaml --all-variants --set INDEX="$INDEX" --cache-dir store-fail --push "$REG/test/failing" \
  -o "oci:$WORK/failing" > fail.out 2> fail.err; then
  fail "a family with a failing variant built"
fi
assert_contains "$(cat fail.err)" "variant gfx999-py3.11 failed" "the failure names the variant"
assert_contains "$(cat fail.err)" "rpdevice-gfx999" "and says what failed"
assert_contains "$(cat fail.err)" "nothing was written or pushed" "and that nothing was published"
code=$(curl -s -o /dev/null -w '%{http_code}' "http://$REG/v2/test/failing/tags/list")
assert_eq "$code" "404" "no tag of the failing family in the registry"
[ ! -e "$WORK/failing" ] || fail "the failing family's layout was written"
if "$ROCKPACK" build fam-fail/recipe.yaml --all-variants --keep-going --set INDEX="$INDEX" --cache-dir store-fail \
  --push "$REG/test/failing" > kg.out 2> kg.err; then
  fail "--keep-going hid the failure"
fi
assert_contains "$(cat kg.err)" "the family is incomplete" "--keep-going says the family is incomplete"
assert_eq "$(tag_digest_registry test/failing "nightly-$DATE-gfx942-py3.11")" "${DIGEST[gfx942-py3.11]}" "--keep-going pushed a good variant"
assert_eq "$(tag_digest_registry test/failing "nightly-$DATE-gfx999-py3.11")" "" "nothing for the failed one"
echo "ok: a failing variant names itself; nothing is published without --keep-going"

# --- 5. the flash-attention example: its committed matrix output is what rockpack prints -------
EXAMPLE="$ROCKPACK_SOURCE_DIR/examples/flash-attention"
SOURCE_DATE_EPOCH=1700000000 "$ROCKPACK" matrix "$EXAMPLE/recipe.yaml" --no-estimate --format json > fa-matrix.json \
  || fail "rockpack matrix on the example failed"
diff -u "$EXAMPLE/matrix.json" fa-matrix.json || fail "examples/flash-attention/matrix.json is stale: regenerate it (its README says how)"
assert_eq "$("$ROCKPACK" matrix "$EXAMPLE/recipe.yaml" --no-estimate --format names | wc -l)" "6" "the example has 6 variants"
echo "ok: the example's matrix output is current"

# --- 6. a locked family: lock --all-variants, build --all-variants --locked --sbom --compare-to ----
# A matrix recipe is locked per variant: RECIPE.VARIANT.lock, each with its own device wheel.
if "$ROCKPACK" lock fam/recipe.yaml --set INDEX="$INDEX" --cache-dir store-all 2>lock0.err; then
  fail "lock of a matrix recipe without --variant or --all-variants succeeded"
fi
assert_contains "$(cat lock0.err)" "--all-variants" "lock says how to choose the variants"
"$ROCKPACK" --quiet lock fam/recipe.yaml --all-variants --set INDEX="$INDEX" --cache-dir store-all > locks.out 2>lock.err \
  || fail "lock --all-variants failed: $(cat lock.err)"
assert_eq "$(wc -l < locks.out)" "4" "one lock per variant"
for v in $VARIANTS; do
  t=${v%-py*}; p=${v#*-py}
  [ -f "fam/recipe.yaml.$v.lock" ] || fail "no fam/recipe.yaml.$v.lock: $(cat locks.out)"
  assert_eq "$(json_get "fam/recipe.yaml.$v.lock" '(d["recipe"]["args"]["TARGET"], d["recipe"]["args"]["PYTHON"], sorted(c["name"] for c in d["steps"]["python"]["components"]))')" \
    "('$t', '$p', ['rpcommon', 'rpdevice-$t'])" "the lock of $v pins its args and its device wheel"
done
"$ROCKPACK" --quiet lock fam/recipe.yaml --variant gfx950-py3.12 --set INDEX="$INDEX" --cache-dir store-all -o one.lock \
  >/dev/null 2>lock1.err || fail "lock --variant failed: $(cat lock1.err)"
cmp -s one.lock fam/recipe.yaml.gfx950-py3.12.lock || fail "lock --variant and lock --all-variants disagree on gfx950-py3.12"
# A newer shared wheel on the index: an unlocked resolution takes it, a locked build does not.
wheel wheels rpcommon 2.0 --size-mb 1 >/dev/null
"$ROCKPACK" --quiet lock fam/recipe.yaml --variant gfx942-py3.11 --set INDEX="$INDEX" --cache-dir store-all -o newer.lock \
  >/dev/null 2>lock2.err || fail "lock --variant -o failed: $(cat lock2.err)"
assert_contains "$(json_get newer.lock '[c["version"] for c in d["steps"]["python"]["components"] if c["name"] == "rpcommon"]')" "2.0" \
  "the index now serves rpcommon 2.0"
# Per-variant files need {variant}: one file for four images is refused before any work.
if "$ROCKPACK" build fam/recipe.yaml --all-variants --set INDEX="$INDEX" --cache-dir store-all --sbom sbom.json 2>sb.err; then
  fail "--all-variants --sbom without {variant} was accepted"
fi
assert_contains "$(cat sb.err)" "{variant}" "the refusal says to put {variant} in the name"
# The locked family, compared with the images of build 1 (the same inputs: nothing may differ).
mkdir -p locked-out
"$ROCKPACK" --quiet build fam/recipe.yaml --all-variants --locked --set INDEX="$INDEX" --cache-dir store-locked \
  --push "$REG/test/locked" --sbom 'locked-out/sbom-{variant}.spdx.json' --resolved 'locked-out/resolved-{variant}.json' \
  --compare-to "$REG/test/all:nightly-$DATE-{variant}" --report locked.json --report-markdown locked.md \
  > locked.out 2> locked.err || fail "the locked family build failed: $(tail -5 locked.err)"
while read -r name digest; do
  assert_eq "$digest" "${DIGEST[$name]}" "locked $name: the digest of build 1 (rpcommon 1.0 from its lock)"
done < locked.out
assert_eq "$(wc -l < locked.out)" "4" "four variants built locked"
for v in $VARIANTS; do
  t=${v%-py*}
  assert_eq "$(json_get "locked-out/sbom-$v.spdx.json" 'sorted(p["name"] for p in d["packages"] if p["name"].startswith("rp"))')" \
    "['rpcommon', 'rpdevice-$t']" "the SBOM of $v lists its wheels"
  assert_eq "$(json_get "locked-out/resolved-$v.json" 'd["image"]')" "${DIGEST[$v]}" "the resolution of $v names its image"
  # The SBOM and the report attached to the pushed variant (this registry has no referrers API: the tag fallback).
  curl -fsS -H "Accept: application/vnd.oci.image.index.v1+json" \
    "http://$REG/v2/test/locked/manifests/sha256-${DIGEST[$v]#sha256:}" > "referrers-$v.json" \
    || fail "no referrers of the locked $v"
  assert_eq "$(json_get "referrers-$v.json" 'sorted(m.get("artifactType", "") for m in d["manifests"])')" \
    "['application/spdx+json', 'application/vnd.rockpack.report+json']" "$v has its SBOM and report attached"
done
python3 - locked.json "$REG/test/all:nightly-$DATE-" <<'PY' || fail "the per-variant comparison is not what it should be"
import json, sys
d = json.load(open(sys.argv[1]))
for v in d["variants"]:
    c = v["report"]["comparison"]
    assert c["previous"] == sys.argv[2] + v["name"], c["previous"]
    assert c["previous_digest"] == v["manifest_digest"], (c["previous_digest"], v["manifest_digest"])
    assert c["packages"]["changed"] == [] and c["layers_rebuilt"] == 0, c
    # Build 1 attached its report: the build-time delta is known.
    assert c.get("duration_delta_s") is not None, c
PY
assert_contains "$(cat locked.md)" "## gfx950-py3.11" "the Markdown report has a section per variant"
assert_contains "$(cat locked.md)" "Compared with \`$REG/test/all:nightly-$DATE-gfx950-py3.11\`" "with its comparison"
# A variant without its lock: the family is refused before any work, naming the file.
rm fam/recipe.yaml.gfx950-py3.11.lock
rc=0
"$ROCKPACK" build fam/recipe.yaml --all-variants --locked --set INDEX="$INDEX" --cache-dir store-locked -o "oci:$WORK/nolock" \
  > nolock.out 2> nolock.err || rc=$?
assert_eq "$rc" "2" "a missing variant lock is bad input (exit 2)"
assert_contains "$(cat nolock.err)" "recipe.yaml.gfx950-py3.11.lock" "the missing lock is named"
[ ! -e "$WORK/nolock" ] || fail "a family with a missing lock was written"
# Another variant's lock is stale for this one (its args differ), and the hint locks this variant.
cp fam/recipe.yaml.gfx942-py3.11.lock fam/recipe.yaml.gfx950-py3.11.lock
rc=0
"$ROCKPACK" build fam/recipe.yaml --variant gfx950-py3.11 --locked --set INDEX="$INDEX" --cache-dir store-locked \
  -o "oci:$WORK/stale" > stale.out 2> stale.err || rc=$?
assert_eq "$rc" "2" "a stale variant lock is bad input (exit 2)"
assert_contains "$(cat stale.err)" "arg TARGET is 'gfx950', locked 'gfx942'" "the stale lock says what differs"
assert_contains "$(cat stale.err)" "rockpack lock recipe.yaml --variant gfx950-py3.11" "the hint locks the variant"
echo "ok: lock --all-variants, and build --all-variants --locked with an SBOM, resolution and comparison per variant"
