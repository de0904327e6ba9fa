#!/usr/bin/env bash
# build --report / --report-markdown / --compare-to: two mock TheRock nightlies (the same rocm recipe
# pinned to V1, then to V2, from the mock per-family index) pushed to Debian's docker-registry.
#  - the report's layers agree with the manifest skopeo reads (count, digests, compressed sizes) and
#    with the blobs (uncompressed bytes and tar entries, counted by gzip and tar); cache hits are
#    false on a cold build (a fresh store) and true on a warm rebuild, which builds nothing;
#  - with --push the report is attached as an OCI referrer (artifactType
#    application/vnd.rockpack.report+json) beside the SBOM: distribution 2.8 has no referrers API,
#    so the sha256-<hex> tag's index lists both, and the report's layer is the file's bytes;
#  - nightly 2 with --compare-to nightly 1 (in the registry): the changed packages are exactly those
#    whose versions differ between the two images' `pip list` (pip run in the unpacked images), old ->
#    new; the ROCm labels' version too; layers reused/rebuilt agree with the configs' diff_ids (skopeo);
#    size_delta_mb with the manifests' sizes; duration_delta_s comes from nightly 1's report referrer;
#  - --compare-to an oci: layout: the duration is unknown (null) without --compare-report, known with it;
#  - the package deltas come from the two reports when the previous one describes the image (its
#    referrer, or --compare-report), and then no layer of it is read (without its biggest own layer
#    blob in the layout and the store it still compares, and fails without the report); from both images' layers otherwise (no referrer, another image's report);
#    both ways give the same deltas;
#  - the Markdown names every changed package with its old and new version;
#  - rockpack attach puts an earlier report onto a pushed image, and refuses another image's report;
#  - bad input: --compare-to without a report, a --compare-report that is not a report.
source "$(dirname "$0")/lib/common.sh"
source "$ROCKPACK_SOURCE_DIR/tests/integration/lib/python_fixtures.sh"
source "$ROCKPACK_SOURCE_DIR/tests/integration/lib/rocm_fixtures.sh"
source "$ROCKPACK_SOURCE_DIR/tests/integration/lib/registry.sh"
need umoci; need skopeo
[ "$(id -u)" -eq 0 ] || skip "chroot needs root"
export SOURCE_DATE_EPOCH=1700000000

python_base
therock_index "$WORK/idx" --family "$FAMILY" --versions "$V1,$V2"
start_static idx "$WORK/idx"
start_registry reg

write_recipe() {  # FILE VERSION
  rocm_recipe "$1" nightly <<EOF
  packages: [torch]
rocm:
  source: therock
  index: "$(static_url idx)/{family}/"
  targets: gfx942
  components: [libraries]
  version: $2
tags: [latest]
EOF
}
write_recipe "$WORK/v1.yaml" "$V1"
write_recipe "$WORK/v2.yaml" "$V2"

# --- nightly 1, cold: a fresh store, pushed with its SBOM and report -------------------------------
d1=$(build_digest "$WORK/v1.yaml" --cache-dir "$WORK/store" -o "oci:$WORK/n1:latest" --push "$REG/nightly:n1" \
       --sbom "$WORK/sbom1.json" --report "$WORK/r1.json" --report-markdown "$WORK/r1.md") || fail "nightly 1 failed"
[ -s "$WORK/r1.json" ] && [ -s "$WORK/r1.md" ] || fail "no report written"
skopeo inspect --raw "oci:$WORK/n1:latest" >"$WORK/m1.json" || fail "skopeo cannot read nightly 1"
skopeo inspect --raw --tls-verify=false "docker://$REG/nightly:n1" >"$WORK/m1-reg.json" || fail "skopeo cannot read the pushed nightly 1"
cmp -s "$WORK/m1.json" "$WORK/m1-reg.json" || fail "the pushed manifest differs from the layout's"

# check_layers REPORT MANIFEST LAYOUT_DIR EXPECT_CACHE_HIT
check_layers() {
  python3 - "$@" <<'PY' || fail "the report's layers disagree with $2"
import gzip, hashlib, json, sys, tarfile
report, manifest, layout, want_hit = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3], sys.argv[4] == "true"
layers = report["layers"]
assert len(layers) == len(manifest["layers"]) == report["totals"]["layers"], (len(layers), len(manifest["layers"]))
assert report["totals"]["image_size"] == sum(l["size"] for l in manifest["layers"])
for mine, theirs in zip(layers, manifest["layers"]):
    assert mine["digest"] == theirs["digest"] and mine["size"] == theirs["size"], (mine, theirs)
    if mine["from_base"]:
        assert mine["uncompressed_size"] is None and mine["entries"] is None and not mine["cache_hit"], mine
        continue
    assert mine["cache_hit"] is want_hit, f'cache_hit {mine["cache_hit"]} for {mine["name"]}, expected {want_hit}'
    blob = open(f'{layout}/blobs/sha256/{mine["digest"][7:]}', "rb").read()
    tar = gzip.decompress(blob)
    assert len(tar) == mine["uncompressed_size"], (mine["name"], len(tar), mine["uncompressed_size"])
    assert "sha256:" + hashlib.sha256(tar).hexdigest() == mine["diff_id"], mine["name"]
    import io
    members = tarfile.open(fileobj=io.BytesIO(tar)).getmembers()
    assert len(members) == mine["entries"], (mine["name"], len(members), mine["entries"])
built = [l for l in layers if not l["from_base"]]
t = report["totals"]
assert (t["layers_cached"], t["layers_built"]) == ((len(built), 0) if want_hit else (0, len(built))), t
assert t["layers_from_base"] == len(layers) - len(built)
for s in report["steps"]:
    if s["name"] != "base" and s["layers"]:
        assert s["cache_hit"] is want_hit, s
PY
}
check_layers "$WORK/r1.json" "$WORK/m1.json" "$WORK/n1" false
python3 - "$WORK/r1.json" "$d1" "$V1" <<'PY' || fail "nightly 1's report: identity and packages"
import json, sys
r, digest, v1 = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
assert r["image_digest"] == digest and r["recipe"] == "nightly" and r["tags"] == ["latest"], r
assert r["source_date_epoch"] == 1700000000 and r["created"] == "2023-11-14T22:13:20Z", r
assert r["totals"]["build_seconds"] > 0 and "comparison" not in r
assert any(p["name"] == "rocm" and p["version"] == v1 for p in r["packages"]), r["packages"]
assert any(p["name"] == "torch" and v1 in p["version"] for p in r["packages"]), r["packages"]
PY

# --- warm rebuild of nightly 1: every layer from the cache, same digest ----------------------------
d1w=$(build_digest "$WORK/v1.yaml" --cache-dir "$WORK/store" -o "oci:$WORK/n1w:latest" --report "$WORK/r1w.json") ||
  fail "warm rebuild failed"
assert_eq "$d1w" "$d1" "the warm rebuild's digest"
skopeo inspect --raw "oci:$WORK/n1w:latest" >"$WORK/m1w.json" || fail "skopeo cannot read the rebuild"
check_layers "$WORK/r1w.json" "$WORK/m1w.json" "$WORK/n1w" true

# --- the referrers of nightly 1: the SBOM and the report, through the tag fallback ---------------
api=$(curl -s -o "$WORK/api.json" -w '%{http_code}' "http://$REG/v2/nightly/referrers/$d1")
if [ "$api" = 200 ]; then
  grep -q 'application/vnd.rockpack.report+json' "$WORK/api.json" || fail "the referrers API does not list the report"
else
  curl -fsS -H "Accept: application/vnd.oci.image.index.v1+json" "http://$REG/v2/nightly/manifests/sha256-${d1#sha256:}" \
    >"$WORK/referrers.json" || fail "no referrers tag sha256-${d1#sha256:}"
  python3 - "$WORK/referrers.json" "$REG" "$d1" "$WORK/r1.json" <<'PY' || fail "report referrer check failed"
import json, sys, urllib.request
index, reg, digest, report = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3], open(sys.argv[4], "rb").read()
types = sorted(m["artifactType"] for m in index["manifests"])
assert types == ["application/spdx+json", "application/vnd.rockpack.report+json"], types
ref = next(m for m in index["manifests"] if m["artifactType"] == "application/vnd.rockpack.report+json")
req = urllib.request.Request(f"http://{reg}/v2/nightly/manifests/{ref['digest']}",
                             headers={"Accept": "application/vnd.oci.image.manifest.v1+json"})
m = json.loads(urllib.request.urlopen(req).read())
assert m["artifactType"] == "application/vnd.rockpack.report+json" and m["subject"]["digest"] == digest, m
blob = urllib.request.urlopen(f"http://{reg}/v2/nightly/blobs/{m['layers'][0]['digest']}").read()
assert blob == report, "the referrer's layer is not the report file"
PY
fi

# --- nightly 2, compared with nightly 1 in the registry ---------------------------------------------
d2=$(build_digest "$WORK/v2.yaml" --cache-dir "$WORK/store" -o "oci:$WORK/n2:latest" --push "$REG/nightly:n2" \
       --report "$WORK/r2.json" --report-markdown "$WORK/r2.md" --compare-to "$REG/nightly:n1") ||
  fail "nightly 2 failed"
assert_ne "$d2" "$d1" "the two nightlies"
skopeo inspect --raw "oci:$WORK/n2:latest" >"$WORK/m2.json" || fail "skopeo cannot read nightly 2"
skopeo inspect --config "oci:$WORK/n1:latest" >"$WORK/c1.json" && skopeo inspect --config "oci:$WORK/n2:latest" >"$WORK/c2.json" ||
  fail "skopeo cannot read the configs"
# What pip itself lists in each image: the independent truth the deltas are checked against.
unpack "$WORK/n1:latest" "$WORK/b1"
unpack "$WORK/n2:latest" "$WORK/b2"
pip_in "$WORK/b1/rootfs" list --format=json >"$WORK/pip1.json" || fail "pip list in nightly 1"
pip_in "$WORK/b2/rootfs" list --format=json >"$WORK/pip2.json" || fail "pip list in nightly 2"

# check_comparison REPORT PREVIOUS_MANIFEST PREVIOUS_CONFIG DURATION(known|unknown) [PREVIOUS_REPORT]
check_comparison() {
  python3 - "$@" "$WORK/m2.json" "$WORK/c2.json" "$WORK/pip1.json" "$WORK/pip2.json" "$V1" "$V2" <<'PY' || fail "the comparison in $1 is wrong"
import json, re, sys
report, m1, c1, duration, *rest = sys.argv[1:]
prev_report = rest.pop(0) if len(rest) == 7 else None
m2, c2, pip1, pip2, v1, v2 = rest
r, m1, c1, m2, c2 = (json.load(open(f)) for f in (report, m1, c1, m2, c2))
norm = lambda n: re.sub(r"[-_.]+", "-", n).lower()
p1 = {norm(p["name"]): p["version"] for p in json.load(open(pip1))}
p2 = {norm(p["name"]): p["version"] for p in json.load(open(pip2))}
c = r["comparison"]
# Packages: exactly the versions pip sees change, old -> new; nothing added or removed.
want = {(n, p1[n], p2[n]) for n in p1.keys() & p2.keys() if p1[n] != p2[n]}
assert want, "the two nightlies differ in no package (fixture?)"
got = {(norm(x["name"]), x["old"], x["new"]) for x in c["packages"]["changed"] if x["kind"] == "python"}
assert got == want, f"changed python packages {sorted(got)} != pip's {sorted(want)}"
assert {norm(n) for n in p2.keys() - p1.keys()} == {norm(x["name"]) for x in c["packages"]["added"] if x["kind"] == "python"}
assert {norm(n) for n in p1.keys() - p2.keys()} == {norm(x["name"]) for x in c["packages"]["removed"] if x["kind"] == "python"}
rocm = [x for x in c["packages"]["changed"] if x["kind"] == "rocm"]
assert len(rocm) == 1 and (rocm[0]["old"], rocm[0]["new"]) == (v1, v2), rocm
assert not [x for x in c["packages"]["changed"] if x["kind"] == "deb"], "Debian packages changed"
# Layers: reused when nightly 1's config has the diff_id.
ids1, ids2 = c1["rootfs"]["diff_ids"], c2["rootfs"]["diff_ids"]
reused = [d in ids1 for d in ids2]
assert [l["in_previous"] for l in r["layers"]] == reused, ([l["in_previous"] for l in r["layers"]], reused)
assert c["layers_reused"] == sum(reused) and c["layers_rebuilt"] == len(ids2) - sum(reused), c
assert 0 < c["layers_reused"] < len(ids2), "expected some layers reused (the base) and some rebuilt"
size1, size2 = (sum(l["size"] for l in m["layers"]) for m in (m1, m2))
assert c["size_delta_bytes"] == size2 - size1 and abs(c["size_delta_mb"] - (size2 - size1) / 1e6) < 0.006, c
if duration == "known":
    prev = json.load(open(prev_report))
    assert c["duration_delta_s"] is not None, c
    assert abs(c["duration_delta_s"] - (r["totals"]["build_seconds"] - prev["totals"]["build_seconds"])) < 0.003, c
else:
    assert c["duration_delta_s"] is None and c["duration_note"].startswith("unknown"), c
PY
}
check_comparison "$WORK/r2.json" "$WORK/m1.json" "$WORK/c1.json" known "$WORK/r1.json"
assert_contains "$(json_get "$WORK/r2.json" 'd["comparison"]["duration_note"]')" "referrer" "where the previous duration came from"
assert_contains "$(cat "$WORK/r2.md")" "ROCm: \`$V2\`" "the Markdown's ROCm line"
assert_eq "$(json_get "$WORK/r2.json" 'd["comparison"]["previous_digest"]')" "$d1" "the previous image's digest"

# The Markdown: every changed package with its old and new versions.
python3 - "$WORK/r2.json" "$WORK/r2.md" <<'PY' || fail "the Markdown lacks a changed package"
import json, sys
r, md = json.load(open(sys.argv[1])), open(sys.argv[2]).read()
assert "### Compared with" in md
for x in r["comparison"]["packages"]["changed"]:
    row = f'| `{x["name"]}` | `{x["old"]}` | `{x["new"]}` |'
    assert row in md, row
assert f'| layers | {r["comparison"]["layers_reused"]} reused, {r["comparison"]["layers_rebuilt"]} rebuilt |' in md
PY

# --- --compare-to a layout: no referrer to read the duration from ---------------------------------
build_digest "$WORK/v2.yaml" --cache-dir "$WORK/store" -o "oci:$WORK/n2b:latest" --report "$WORK/r2b.json" \
  --compare-to "oci:$WORK/n1:latest" >/dev/null || fail "--compare-to oci: failed"
check_comparison "$WORK/r2b.json" "$WORK/m1.json" "$WORK/c1.json" unknown
build_digest "$WORK/v2.yaml" --cache-dir "$WORK/store" -o "oci:$WORK/n2c:latest" --report "$WORK/r2c.json" \
  --compare-to "oci:$WORK/n1:latest" --compare-report "$WORK/r1.json" >/dev/null || fail "--compare-report failed"
check_comparison "$WORK/r2c.json" "$WORK/m1.json" "$WORK/c1.json" known "$WORK/r1.json"
# A report of another image gives no duration (it would compare unrelated builds).
build_digest "$WORK/v2.yaml" --cache-dir "$WORK/store" -o "oci:$WORK/n2d:latest" --report "$WORK/r2d.json" \
  --compare-to "oci:$WORK/n1:latest" --compare-report "$WORK/r2.json" >/dev/null || fail "--compare-report (other image) failed"
check_comparison "$WORK/r2d.json" "$WORK/m1.json" "$WORK/c1.json" unknown

# --- where the package deltas came from --------------------------------------------------------------
# From the two builds' reports when nightly 1's report describes it (its referrer: r2; --compare-report
# of that very image: r2c), without reading a layer of it; from both images' layers otherwise (no
# report: r2b; another image's report: r2d). check_comparison checked each against pip; the two ways
# must also agree with each other.
for r in r2 r2c; do
  assert_contains "$(json_get "$WORK/$r.json" 'd["comparison"]["packages_note"]')" "reports" "$r: packages from the reports"
done
for r in r2b r2d; do
  assert_contains "$(json_get "$WORK/$r.json" 'd["comparison"]["packages_note"]')" "layers" "$r: packages from the layers"
done
python3 - "$WORK/r2.json" "$WORK/r2b.json" <<'PY' || fail "the report-based and layer-based package deltas differ"
import json, sys
a, b = (json.load(open(f))["comparison"]["packages"] for f in sys.argv[1:])
key = lambda x: json.dumps(x, sort_keys=True)
for k in ("added", "removed", "changed"):
    assert sorted(map(key, a[k])) == sorted(map(key, b[k])), (k, a[k], b[k])
PY
# The report path really reads no layer: with nightly 1's biggest own layer (one nightly 2 does not
# have) gone from a copy of its layout and from the store, it still compares (from --compare-report),
# and fails without the report, when the layers must be read.
cp -a "$WORK/n1" "$WORK/n1-gutted"
big=$(python3 - "$WORK/m1.json" "$WORK/m2.json" <<'PY'
import json, sys
m1, m2 = (json.load(open(f)) for f in sys.argv[1:])
theirs = {l["digest"] for l in m2["layers"]}
print(max((l for l in m1["layers"] if l["digest"] not in theirs), key=lambda l: l["size"])["digest"][7:])
PY
)
rm "$WORK/n1-gutted/blobs/sha256/$big"
find "$WORK/store" -name "$big" -type f -delete
[ -z "$(find "$WORK/store" -name "$big")" ] || fail "the layer is still in the store"
build_digest "$WORK/v2.yaml" --cache-dir "$WORK/store" -o "oci:$WORK/n2e:latest" --report "$WORK/r2e.json" \
  --compare-to "oci:$WORK/n1-gutted:latest" --compare-report "$WORK/r1.json" >/dev/null || fail "--compare-report without a layer blob failed"
check_comparison "$WORK/r2e.json" "$WORK/m1.json" "$WORK/c1.json" known "$WORK/r1.json"
rc=0
"$ROCKPACK" --quiet build "$WORK/v2.yaml" --cache-dir "$WORK/store" -o "oci:$WORK/n2f:latest" --report "$WORK/r2f.json" \
  --compare-to "oci:$WORK/n1-gutted:latest" >/dev/null 2>&1 || rc=$?
assert_ne "$rc" "0" "--compare-to a layout missing a layer, with no report to stand for it"
# A registry image without a report referrer (a skopeo copy of nightly 1): its layers are read.
skopeo copy -q --dest-tls-verify=false "oci:$WORK/n1:latest" "docker://$REG/plain:n1" || fail "skopeo copy to the registry"
build_digest "$WORK/v2.yaml" --cache-dir "$WORK/store" -o "oci:$WORK/n2g:latest" --report "$WORK/r2g.json" \
  --compare-to "$REG/plain:n1" >/dev/null || fail "--compare-to a registry image without a referrer failed"
check_comparison "$WORK/r2g.json" "$WORK/m1.json" "$WORK/c1.json" unknown
assert_contains "$(json_get "$WORK/r2g.json" 'd["comparison"]["packages_note"]')" "no build report" "r2g: why the layers were read"

# --- rockpack attach: an earlier report onto an image pushed without one --------------------------
"$ROCKPACK" --quiet push "oci:$WORK/n2:latest" "$REG/copy:n2" >/dev/null || fail "rockpack push of nightly 2"
"$ROCKPACK" --quiet attach "$REG/copy:n2" --report "$WORK/r2.json" || fail "rockpack attach failed"
curl -fsS -H "Accept: application/vnd.oci.image.index.v1+json" "http://$REG/v2/copy/manifests/sha256-${d2#sha256:}" \
  >"$WORK/copy-referrers.json" || fail "attach made no referrers tag"
python3 - "$WORK/copy-referrers.json" "$REG" "$WORK/r2.json" <<'PY' || fail "the attached report is not r2.json"
import json, sys, urllib.request
index, reg, report = json.load(open(sys.argv[1])), sys.argv[2], open(sys.argv[3], "rb").read()
[ref] = [m for m in index["manifests"] if m["artifactType"] == "application/vnd.rockpack.report+json"]
req = urllib.request.Request(f"http://{reg}/v2/copy/manifests/{ref['digest']}",
                             headers={"Accept": "application/vnd.oci.image.manifest.v1+json"})
m = json.loads(urllib.request.urlopen(req).read())
assert urllib.request.urlopen(f"http://{reg}/v2/copy/blobs/{m['layers'][0]['digest']}").read() == report
PY
rc=0
"$ROCKPACK" --quiet attach "$REG/copy:n2" --report "$WORK/r1.json" 2>/dev/null || rc=$?
assert_eq "$rc" "2" "attaching the report of another image"

# --- bad input ----------------------------------------------------------------------------------
rc=0
"$ROCKPACK" build "$WORK/v2.yaml" --cache-dir "$WORK/store" --compare-to "oci:$WORK/n1:latest" >/dev/null 2>&1 || rc=$?
assert_eq "$rc" "2" "--compare-to without --report"
echo '{"rockpack_report": 1, "totals": "fast"}' >"$WORK/bad.json"
rc=0
err=$("$ROCKPACK" build "$WORK/v2.yaml" --cache-dir "$WORK/store" -o "oci:$WORK/never:latest" --report "$WORK/x.json" \
        --compare-to "oci:$WORK/n1:latest" --compare-report "$WORK/bad.json" 2>&1 >/dev/null) || rc=$?
assert_ne "$rc" "0" "a --compare-report that is not a report"
assert_contains "$err" "is not valid" "the error about the bad report"
[ -e "$WORK/never" ] && fail "a build with a bad --compare-report wrote an image"
[ -e "$WORK/x.json" ] && fail "a build with a bad --compare-report wrote a report"
echo OK
