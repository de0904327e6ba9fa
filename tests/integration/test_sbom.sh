#!/usr/bin/env bash
# build --sbom: SPDX 2.3 JSON (and CycloneDX 1.5) of a python image on the Debian 12 python base.
#  - both documents validate against the published JSON schemas (tests/schemas: SPDX's
#    spdx-schema.json of v2.3, CycloneDX's bom-1.5 with the spdx and jsf schemas it references),
#    offline, with Debian's python3-jsonschema (tests/tools/validate_sbom.py); damaged copies fail;
#  - the document's SPDX rules the schema does not check (SPDXIDs, relationship ends) are checked;
#  - every package `pip inspect` shows in a chroot of the unpacked image (umoci) is in the SBOM with
#    the same version, a pypi purl, a sha256 and an http download location, and no other in the venv
#    (the base's packages are listed too: test_trivy.sh compares them with trivy's scan); its
#    license is what its METADATA declares (License-Expression, an SPDX License field, one license
#    classifier), NOASSERTION with the text in licenseComments when that is no SPDX expression;
#    DEPENDS_ON is exactly the Requires-Dist edges pip reports (CycloneDX: the dependencies array);
#  - the base is there as pkg:oci; the image DESCRIBES/CONTAINS relationships are complete;
#  - a second build writes the same bytes; CycloneDX has the same packages;
#  - with --push, the SBOM is attached as an OCI referrer; Debian's docker-registry (distribution
#    2.8) has no referrers API, so the sha256-<hex> tag names an index listing the SBOM manifest,
#    whose subject is the image and whose one layer is the SBOM's bytes; a second push adds nothing;
#  - with --push through tests/tools/referrers_shim.py (the distribution-spec 1.1 referrers API in
#    front of that registry), --sbom and --report are both listed by GET /v2/<name>/referrers/<digest>
#    with their artifactType (and the artifactType filter), no sha256-<hex> tag is written, and
#    --compare-to and `rockpack attach` work through the API; a shim that answers the API but sends
#    no OCI-Subject header gets no tag either.
source "$(dirname "$0")/lib/common.sh"
source "$ROCKPACK_SOURCE_DIR/tests/integration/lib/python_fixtures.sh"
source "$ROCKPACK_SOURCE_DIR/tests/integration/lib/registry.sh"
need umoci
[ "$(id -u)" -eq 0 ] || skip "chroot needs root"
ls /usr/share/python-wheels/pip-*.whl >/dev/null 2>&1 || skip "Debian's python3-pip-whl is not installed"

SCHEMA_PY=""
for py in /usr/bin/python3 python3; do
  "$py" -c 'import jsonschema' 2>/dev/null && { SCHEMA_PY=$py; break; }
done
[ -n "$SCHEMA_PY" ] || skip "python3-jsonschema is not installed (tools/install-deps.sh)"
# Offline for real when the machine can: a network namespace with nothing but loopback.
NONET=""
unshare -n true 2>/dev/null && NONET="unshare -n"
# validate FORMAT FILE: the published schema accepts FILE.
validate() {
  $NONET "$SCHEMA_PY" "$ROCKPACK_SOURCE_DIR/tests/tools/validate_sbom.py" "$1" "$2" >"$WORK/validate.log" 2>&1 ||
    fail "$2 does not validate against the $1 schema: $(head -20 "$WORK/validate.log")"
}
# invalid FORMAT FILE PYTHON: FILE changed by PYTHON (on the parsed document d) must fail validation.
invalid() {
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); exec(sys.argv[2]); json.dump(d, open(sys.argv[3], "w"))' \
    "$2" "$3" "$WORK/broken.json" || fail "cannot damage $2"
  if $NONET "$SCHEMA_PY" "$ROCKPACK_SOURCE_DIR/tests/tools/validate_sbom.py" "$1" "$WORK/broken.json" >"$WORK/validate.log" 2>&1; then
    fail "the $1 schema accepts a damaged document ($3)"
  fi
}

python_base
mkdir -p "$WORK/wheels"
python3 "$ROCKPACK_SOURCE_DIR/tests/tools/make_wheel.py" --demo "$WORK/wheels" >/dev/null
cp /usr/share/python-wheels/pip-*.whl "$WORK/wheels/"
# Licenses as METADATA declares them, and a small dependency graph.
wheel "$WORK/wheels" rp-lic-expr 1.0 --metadata-field "License-Expression: apache-2.0 OR MIT" \
  --requires rp-lic-field --requires "rp-lic-none>=1" >/dev/null
wheel "$WORK/wheels" rp-lic-field 1.0 --metadata-field "License: BSD-3-Clause" --requires rp-lic-none >/dev/null
wheel "$WORK/wheels" rp-lic-classifier 1.0 --metadata-field "License: BSD" \
  --metadata-field "Classifier: License :: OSI Approved :: MIT License" >/dev/null
wheel "$WORK/wheels" rp-lic-text 1.0 --metadata-field "License: Proprietary, see LICENSE.txt" >/dev/null
wheel "$WORK/wheels" rp-lic-none 1.0 >/dev/null
start_index main "$WORK/wheels"
cat >"$WORK/app.yaml" <<RECIPE
name: sbomapp
base: oci:$BASE:base
python:
  interpreter: /usr/bin/python3
  venv: /opt/venv
  indexes:
    - url: $(index_url main)/simple/
  packages: [pip, rp-demo-app, rp-lic-expr, rp-lic-classifier, rp-lic-text]
tags: [latest]
RECIPE
digest=$(build_digest "$WORK/app.yaml" -o "oci:$WORK/out:latest" --sbom "$WORK/sbom.json") || fail "build --sbom failed"
[ -s "$WORK/sbom.json" ] || fail "no SBOM written"

umoci unpack --image "$WORK/out:latest" "$WORK/bundle" >/dev/null 2>&1 || fail "umoci cannot unpack the image"
chroot "$WORK/bundle/rootfs" /usr/bin/env -i PATH=/opt/venv/bin:/usr/bin:/bin \
  python -m pip list --disable-pip-version-check --format=json >"$WORK/pip.json" || fail "pip list fails in the image"
chroot "$WORK/bundle/rootfs" /usr/bin/env -i PATH=/opt/venv/bin:/usr/bin:/bin \
  python -m pip inspect --disable-pip-version-check --local >"$WORK/inspect.json" 2>/dev/null || fail "pip inspect fails in the image"
validate spdx "$WORK/sbom.json"
invalid spdx "$WORK/sbom.json" 'next(p for p in d["packages"][1:] if "checksums" in p)["checksums"][0]["algorithm"] = "SHA-999"'
invalid spdx "$WORK/sbom.json" 'del d["packages"][1]["downloadLocation"]'
invalid spdx "$WORK/sbom.json" 'd["relationships"][0]["relationshipType"] = "IS_FRIENDS_WITH"'
invalid spdx "$WORK/sbom.json" 'del d["creationInfo"]'

python3 - "$WORK/sbom.json" "$WORK/pip.json" "$digest" "$WORK/inspect.json" <<'PY' || fail "SBOM check failed"
import json, re, sys
sbom, pip, digest = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3]
def need(cond, what):
    if not cond: sys.exit("SBOM: " + what)
# SPDX 2.3 required document fields
need(sbom.get("spdxVersion") == "SPDX-2.3", "spdxVersion")
need(sbom.get("dataLicense") == "CC0-1.0", "dataLicense")
need(sbom.get("SPDXID") == "SPDXRef-DOCUMENT", "SPDXID")
need(isinstance(sbom.get("name"), str) and sbom["name"], "name")
need(re.match(r"^[a-z]+://", sbom.get("documentNamespace", "")) and "#" not in sbom["documentNamespace"], "documentNamespace")
need(digest.split(":")[1] in sbom["documentNamespace"], "namespace from the image digest")
ci = sbom.get("creationInfo", {})
need(re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$", ci.get("created", "")), "creationInfo.created: " + str(ci.get("created")))
need(ci.get("creators") and all(re.match(r"^(Tool|Person|Organization): ", c) for c in ci["creators"]), "creators")
ids = set()
for p in sbom["packages"]:
    for f in ("SPDXID", "name", "downloadLocation"):
        need(f in p, f"package field {f} in {p}")
    need(re.match(r"^SPDXRef-[A-Za-z0-9.-]+$", p["SPDXID"]), "SPDXID syntax " + p["SPDXID"])
    need(p["SPDXID"] not in ids, "duplicate " + p["SPDXID"]); ids.add(p["SPDXID"])
    for c in p.get("checksums", []):
        need(c["algorithm"] == "SHA256" and re.match(r"^[0-9a-f]{64}$", c["checksumValue"]), "checksum " + str(c))
rels = {(r["spdxElementId"], r["relationshipType"], r["relatedSpdxElement"]) for r in sbom["relationships"]}
for r in rels:
    need(r[0] in ids | {"SPDXRef-DOCUMENT"} and r[2] in ids, "relationship to an unknown element " + str(r))
need(("SPDXRef-DOCUMENT", "DESCRIBES", "SPDXRef-Image") in rels, "DOCUMENT DESCRIBES the image")
image = next(p for p in sbom["packages"] if p["SPDXID"] == "SPDXRef-Image")
need(image["versionInfo"] == digest, "image version is its digest")
for p in sbom["packages"]:
    if p["SPDXID"] != "SPDXRef-Image":
        need(any(r[0] == "SPDXRef-Image" and r[2] == p["SPDXID"] for r in rels), "no relationship for " + p["name"])
purls = {}
in_venv = lambda p: any(a["comment"].startswith("FilePath: /opt/venv/") for a in p.get("annotations", []))
for p in sbom["packages"]:
    for ref in p.get("externalRefs", []):
        if ref["referenceType"] == "purl" and (in_venv(p) or not ref["referenceLocator"].startswith("pkg:pypi/")):
            purls[ref["referenceLocator"]] = p
need(any(u.startswith("pkg:oci/") for u in purls), "the base image as pkg:oci: " + str(list(purls)))
# Cross-check with pip inside the image
norm = lambda n: re.sub(r"[-_.]+", "-", n).lower()
for d in pip:
    u = f"pkg:pypi/{norm(d['name'])}@{d['version']}"
    need(u in purls, f"{u} (pip list) missing from the SBOM; it has {sorted(purls)}")
    p = purls[u]
    need(p.get("checksums") and re.match(r"^[0-9a-f]{64}$", p["checksums"][0]["checksumValue"]), "no sha256 for " + u)
    need(p["downloadLocation"].startswith("http"), "download location of " + u)
pypi = [u for u in purls if u.startswith("pkg:pypi/")]
need(len(pypi) == len(pip), f"SBOM lists {len(pypi)} python packages, pip {len(pip)}")

# Licenses: what each package's METADATA (as pip reports it from the image) declares.
inspect = {norm(d["metadata"]["name"]): d["metadata"] for d in json.load(open(sys.argv[4]))["installed"]}
by_name = {norm(p["name"]): p for u, p in purls.items() if u.startswith("pkg:pypi/")}
want = {"pip": "MIT", "rp-lic-expr": "Apache-2.0 OR MIT", "rp-lic-field": "BSD-3-Clause", "rp-lic-classifier": "MIT"}
for name, p in by_name.items():
    meta = inspect[name]
    if name in want:
        need(p["licenseDeclared"] == want[name], f"{name}: licenseDeclared {p['licenseDeclared']}, METADATA {meta.get('license')}")
    else:
        need(p["licenseDeclared"] == "NOASSERTION", f"{name}: licenseDeclared {p['licenseDeclared']} without an SPDX license")
    need(p["licenseConcluded"] == "NOASSERTION", f"{name}: licenseConcluded is not rockpack's to conclude")
text = by_name["rp-lic-text"].get("licenseComments", "")
need(inspect["rp-lic-text"]["license"] in text, "the free-text License is in licenseComments: " + text)
need("licenseComments" not in by_name["rp-lic-none"], "no comment without a License field")

# DEPENDS_ON: exactly the edges of each package's Requires-Dist, as pip reads them in the image.
req_name = lambda r: norm(re.split(r"[\s<>=!~;\[(]", r.strip(), 1)[0])
pip_edges = {(n, req_name(r)) for n, m in inspect.items() for r in m.get("requires_dist", []) if "extra ==" not in r}
pip_edges = {e for e in pip_edges if e[1] in by_name}
names = {p["SPDXID"]: norm(p["name"]) for p in sbom["packages"]}
sbom_edges = {(names[a], names[b]) for a, t, b in rels if t == "DEPENDS_ON"}
need(sbom_edges == pip_edges, f"DEPENDS_ON {sorted(sbom_edges)} != pip's requirements {sorted(pip_edges)}")
need(("rp-demo-app", "rp-demo-lib") in sbom_edges and ("rp-lic-expr", "rp-lic-none") in sbom_edges, "expected edges")
print("ok", len(sbom["packages"]), "packages,", len(sbom_edges), "DEPENDS_ON")
PY

# Deterministic: a second build (a fresh output) writes the same document.
build_digest "$WORK/app.yaml" -o "oci:$WORK/out2:latest" --sbom "$WORK/sbom2.json" >/dev/null || fail "second build"
cmp -s "$WORK/sbom.json" "$WORK/sbom2.json" || fail "the SBOM differs between two builds of the same image"

# CycloneDX: the same packages by purl.
build_digest "$WORK/app.yaml" -o "oci:$WORK/out3:latest" --sbom "$WORK/cdx.json" --sbom-format cyclonedx >/dev/null ||
  fail "build --sbom-format cyclonedx"
validate cyclonedx "$WORK/cdx.json"
invalid cyclonedx "$WORK/cdx.json" 'd["components"][0]["type"] = "gadget"'
invalid cyclonedx "$WORK/cdx.json" 'd["components"][0]["licenses"] = [{"license": {"id": "Not-A-License-1.0"}}]'
invalid cyclonedx "$WORK/cdx.json" 'd["components"][0]["hashes"] = [{"alg": "SHA-256", "content": "xyz"}]'
python3 - "$WORK/sbom.json" "$WORK/cdx.json" <<'PY' || fail "CycloneDX check failed"
import json, sys
spdx, cdx = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert cdx["bomFormat"] == "CycloneDX" and cdx["specVersion"] == "1.5", "header"
a = sorted(r["referenceLocator"] for p in spdx["packages"] for r in p.get("externalRefs", []))
b = sorted(c["purl"] for c in cdx["components"])
assert a == b, f"{a} != {b}"
# The same licenses and the same dependency edges as the SPDX document.
purl_of = {p["SPDXID"]: r["referenceLocator"] for p in spdx["packages"] for r in p.get("externalRefs", [])}
spdx_lic = {purl_of[p["SPDXID"]]: p["licenseDeclared"] for p in spdx["packages"] if p["SPDXID"] in purl_of}
for c in cdx["components"]:
    lic = c.get("licenses", [])
    expr = lic[0].get("expression") if lic else None
    want = spdx_lic[c["purl"]]
    assert expr == (None if want == "NOASSERTION" else want), (c["purl"], lic, want)
    if c["name"] == "rp-lic-text":
        assert lic == [{"license": {"name": "Proprietary, see LICENSE.txt"}}], lic
spdx_edges = {(purl_of[r["spdxElementId"]], purl_of[r["relatedSpdxElement"]]) for r in spdx["relationships"]
              if r["relationshipType"] == "DEPENDS_ON"}
deps = {d["ref"]: d["dependsOn"] for d in cdx["dependencies"]}
assert sorted(deps.pop("image")) == b, "the image depends on every component"
cdx_edges = {(ref, t) for ref, targets in deps.items() for t in targets}
assert cdx_edges == spdx_edges, f"{sorted(cdx_edges)} != {sorted(spdx_edges)}"
assert set(deps) == set(b), "every component has a dependencies entry"
PY
# --push: the SBOM as a referrer, through the tag fallback.
start_registry reg
for attempt in 1 2; do
  pushed=$(build_digest "$WORK/app.yaml" -o "oci:$WORK/out4:latest" --push "$REG/sbomapp:v1" --sbom "$WORK/sbom4.json") ||
    fail "build --push --sbom failed (attempt $attempt)"
done
assert_eq "$pushed" "$digest" "the pushed image"
cmp -s "$WORK/sbom.json" "$WORK/sbom4.json" || fail "the pushed build's SBOM differs"
api=$(curl -s -o /dev/null -w '%{http_code}' "http://$REG/v2/sbomapp/referrers/$digest")
[ "$api" != 200 ] || fail "this docker-registry answers the referrers API: the tag fallback below cannot be tested with it"
curl -fsS -H "Accept: application/vnd.oci.image.index.v1+json" "http://$REG/v2/sbomapp/manifests/sha256-${digest#sha256:}" \
  >"$WORK/referrers.json" || fail "no referrers tag sha256-${digest#sha256:}"
python3 - "$WORK/referrers.json" "$REG" "$digest" "$WORK/sbom.json" <<'PY' || fail "referrer check failed"
import hashlib, json, sys, urllib.request
index, reg, digest, sbom = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3], open(sys.argv[4], "rb").read()
assert index["mediaType"] == "application/vnd.oci.image.index.v1+json", index
assert len(index["manifests"]) == 1, f"expected one referrer after two pushes: {index}"
ref = index["manifests"][0]
assert ref["artifactType"] == "application/spdx+json", ref
req = urllib.request.Request(f"http://{reg}/v2/sbomapp/manifests/{ref['digest']}",
                             headers={"Accept": "application/vnd.oci.image.manifest.v1+json"})
m = json.loads(urllib.request.urlopen(req).read())
assert m["artifactType"] == "application/spdx+json", m
assert m["subject"]["digest"] == digest, m["subject"]
assert m["config"]["mediaType"] == "application/vnd.oci.empty.v1+json" and m["config"]["size"] == 2, m["config"]
empty = urllib.request.urlopen(f"http://{reg}/v2/sbomapp/blobs/{m['config']['digest']}").read()
assert empty == b"{}", empty
assert len(m["layers"]) == 1
blob = urllib.request.urlopen(f"http://{reg}/v2/sbomapp/blobs/{m['layers'][0]['digest']}").read()
assert blob == sbom, "the referrer's layer is not the SBOM"
assert "sha256:" + hashlib.sha256(blob).hexdigest() == m["layers"][0]["digest"]
PY

# --- the referrers API (distribution-spec 1.1): the shim in front of another registry -------------
start_registry reg2
REG2=$REG
start_referrers_shim "$REG2"
pushed=$(build_digest "$WORK/app.yaml" -o "oci:$WORK/out5:latest" --push "$SHIM/sbomapp:v1" --sbom "$WORK/sbom5.json" \
           --report "$WORK/report5.json") || fail "build --push --sbom --report through the referrers API failed"
assert_eq "$pushed" "$digest" "the image pushed through the shim"
cmp -s "$WORK/sbom.json" "$WORK/sbom5.json" || fail "the SBOM pushed through the shim differs"
# The registry said OCI-Subject on each artifact's PUT: rockpack neither probes the API nor writes the tag.
! grep -E "^(PUT|GET|HEAD) /v2/sbomapp/manifests/sha256-[0-9a-f]{64} " "$SHIM_LOG" || fail "the referrers tag was used: $(grep sha256- "$SHIM_LOG")"
! grep -q "^GET /v2/sbomapp/referrers/" "$SHIM_LOG" || fail "rockpack probed the API although OCI-Subject answered"
[ "$(grep -c '^PUT /v2/sbomapp/manifests/sha256:' "$SHIM_LOG")" = 2 ] || fail "expected two referrer manifests pushed by digest: $(grep '^PUT' "$SHIM_LOG")"
# check_api URL_BASE REPO DIGEST REG_DIRECT WANT...: the API lists exactly WANT (artifactType=FILE pairs,
# one per referrer), each manifest's subject is the image and its one layer the file's bytes; the
# artifactType filter works; the registry behind has no sha256-<hex> tag.
check_api() {
  python3 - "$@" <<'PY' || fail "the referrers API check failed ($*)"
import hashlib, json, sys, urllib.parse, urllib.request
base, repo, digest, direct, *want = sys.argv[1:]
want = [w.split("=", 1) for w in want]
def get(url, accept=None):
    r = urllib.request.urlopen(urllib.request.Request(url, headers={"Accept": accept} if accept else {}))
    return r, r.read()
r, body = get(f"http://{base}/v2/{repo}/referrers/{digest}", "application/vnd.oci.image.index.v1+json")
index = json.loads(body)
assert r.status == 200 and index["mediaType"] == "application/vnd.oci.image.index.v1+json", index
got = sorted(m["artifactType"] for m in index["manifests"])
assert got == sorted(t for t, _ in want), f"referrers {got}, expected {sorted(t for t, _ in want)}"
files = {}
for t, f in want:
    files.setdefault(t, set()).add(hashlib.sha256(open(f, "rb").read()).hexdigest())
for d in index["manifests"]:
    _, raw = get(f"http://{base}/v2/{repo}/manifests/{d['digest']}", "application/vnd.oci.image.manifest.v1+json")
    assert "sha256:" + hashlib.sha256(raw).hexdigest() == d["digest"] and len(raw) == d["size"], d
    m = json.loads(raw)
    assert m["artifactType"] == d["artifactType"] and m["subject"]["digest"] == digest, m
    assert len(m["layers"]) == 1 and m["layers"][0]["digest"].split(":")[1] in files[d["artifactType"]], m["layers"]
    files[d["artifactType"]].discard(m["layers"][0]["digest"].split(":")[1])
    _, blob = get(f"http://{base}/v2/{repo}/blobs/{m['layers'][0]['digest']}")
    assert "sha256:" + hashlib.sha256(blob).hexdigest() == m["layers"][0]["digest"]
for t in {t for t, _ in want}:
    r, body = get(f"http://{base}/v2/{repo}/referrers/{digest}?artifactType={urllib.parse.quote(t, safe='')}")
    only = json.loads(body)["manifests"]
    assert r.headers.get("OCI-Filters-Applied") == "artifactType" and {m["artifactType"] for m in only} == {t}, only
_, tags = get(f"http://{direct}/v2/{repo}/tags/list")
tags = json.loads(tags)["tags"]
assert not [t for t in tags if t.startswith("sha256-")], f"a referrers tag was written: {tags}"
print("referrers API:", got)
PY
}
check_api "$SHIM" sbomapp "$digest" "$REG2" "application/spdx+json=$WORK/sbom5.json" \
  "application/vnd.rockpack.report+json=$WORK/report5.json"

# --compare-to reads the previous report through the API (not the tag).
: >"$SHIM_LOG"
build_digest "$WORK/app.yaml" -o "oci:$WORK/out6:latest" --report "$WORK/report6.json" --compare-to "$SHIM/sbomapp:v1" \
  >/dev/null || fail "build --compare-to through the referrers API failed"
grep -q "^GET /v2/sbomapp/referrers/$digest?artifactType=application%2Fvnd.rockpack.report%2Bjson 200" "$SHIM_LOG" ||
  fail "--compare-to did not ask the referrers API: $(cat "$SHIM_LOG")"
! grep -q "manifests/sha256-" "$SHIM_LOG" || fail "--compare-to looked for the referrers tag although the API answered"
python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["comparison"]; assert c["duration_delta_s"] is not None, c' \
  "$WORK/report6.json" || fail "the comparison did not read the previous report from the API"

# rockpack attach: the second report is listed next to the first; still no tag.
"$ROCKPACK" --quiet attach "$SHIM/sbomapp:v1" --report "$WORK/report6.json" || fail "rockpack attach through the API failed"
check_api "$SHIM" sbomapp "$digest" "$REG2" "application/spdx+json=$WORK/sbom5.json" \
  "application/vnd.rockpack.report+json=$WORK/report5.json" "application/vnd.rockpack.report+json=$WORK/report6.json"

# A registry that answers the API but sends no OCI-Subject (the 1.1 release candidates): rockpack
# finds its referrer listed by the API and writes no tag.
start_referrers_shim "$REG2" --no-subject-header
build_digest "$WORK/app.yaml" -o "oci:$WORK/out7:latest" --push "$SHIM/nosubject:v1" --sbom "$WORK/sbom7.json" >/dev/null ||
  fail "build --push --sbom to a registry without OCI-Subject failed"
grep -q "^GET /v2/nosubject/referrers/$digest?artifactType=application%2Fspdx%2Bjson 200" "$SHIM_LOG" ||
  fail "without OCI-Subject, rockpack did not ask the API: $(cat "$SHIM_LOG")"
check_api "$SHIM" nosubject "$digest" "$REG2" "application/spdx+json=$WORK/sbom7.json"

rc=0
"$ROCKPACK" build "$WORK/app.yaml" --sbom "$WORK/x.json" --sbom-format xml >/dev/null 2>&1 || rc=$?
assert_eq "$rc" "2" "an unknown --sbom-format is invalid input"
echo OK
