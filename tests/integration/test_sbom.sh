#!/usr/bin/env bash
# build --sbom: SPDX 2.3 JSON (and CycloneDX 1.5) of a python image on the Debian 12 python base.
#  - the document has what SPDX 2.3 requires (checked field by field below: Debian ships no copy
#    of SPDX's JSON schema to validate against, and the tests download nothing else);
#  - every package `pip list` shows in a chroot of the unpacked image (umoci) is in the SBOM with
#    the same version, a pypi purl, a sha256 and an http download location, and no other;
#  - the base is there as pkg:oci; the image DESCRIBES/CONTAINS relationships are complete;
#  - a second build writes the same bytes; CycloneDX has the same packages;
#  - with --push, the SBOM is attached as an OCI referrer; Debian's docker-registry (distribution
#    2.8) has no referrers API, so the sha256-<hex> tag names an index listing the SBOM manifest,
#    whose subject is the image and whose one layer is the SBOM's bytes; a second push adds nothing.
source "$(dirname "$0")/lib/common.sh"
source "$ROCKPACK_SOURCE_DIR/tests/integration/lib/python_fixtures.sh"
source "$ROCKPACK_SOURCE_DIR/tests/integration/lib/registry.sh"
need umoci
[ "$(id -u)" -eq 0 ] || skip "chroot needs root"
ls /usr/share/python-wheels/pip-*.whl >/dev/null 2>&1 || skip "Debian's python3-pip-whl is not installed"

python_base
mkdir -p "$WORK/wheels"
python3 "$ROCKPACK_SOURCE_DIR/tests/tools/make_wheel.py" --demo "$WORK/wheels" >/dev/null
cp /usr/share/python-wheels/pip-*.whl "$WORK/wheels/"
start_index main "$WORK/wheels"
cat >"$WORK/app.yaml" <<RECIPE
name: sbomapp
base: oci:$BASE:base
python:
  interpreter: /usr/bin/python3
  venv: /opt/venv
  indexes:
    - url: $(index_url main)/simple/
  packages: [pip, rp-demo-app]
tags: [latest]
RECIPE
digest=$(build_digest "$WORK/app.yaml" -o "oci:$WORK/out:latest" --sbom "$WORK/sbom.json") || fail "build --sbom failed"
[ -s "$WORK/sbom.json" ] || fail "no SBOM written"

umoci unpack --image "$WORK/out:latest" "$WORK/bundle" >/dev/null 2>&1 || fail "umoci cannot unpack the image"
chroot "$WORK/bundle/rootfs" /usr/bin/env -i PATH=/opt/venv/bin:/usr/bin:/bin \
  python -m pip list --disable-pip-version-check --format=json >"$WORK/pip.json" || fail "pip list fails in the image"

python3 - "$WORK/sbom.json" "$WORK/pip.json" "$digest" <<'PY' || fail "SBOM check failed"
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
for p in sbom["packages"]:
    for ref in p.get("externalRefs", []):
        if ref["referenceType"] == "purl": purls[ref["referenceLocator"]] = p
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
print("ok", len(sbom["packages"]), "packages")
PY

# Deterministic: a second build (a fresh output) writes the same document.
build_digest "$WORK/app.yaml" -o "oci:$WORK/out2:latest" --sbom "$WORK/sbom2.json" >/dev/null || fail "second build"
cmp -s "$WORK/sbom.json" "$WORK/sbom2.json" || fail "the SBOM differs between two builds of the same image"

# CycloneDX: the same packages by purl.
build_digest "$WORK/app.yaml" -o "oci:$WORK/out3:latest" --sbom "$WORK/cdx.json" --sbom-format cyclonedx >/dev/null ||
  fail "build --sbom-format cyclonedx"
python3 - "$WORK/sbom.json" "$WORK/cdx.json" <<'PY' || fail "CycloneDX check failed"
import json, sys
spdx, cdx = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert cdx["bomFormat"] == "CycloneDX" and cdx["specVersion"] == "1.5", "header"
a = sorted(r["referenceLocator"] for p in spdx["packages"] for r in p.get("externalRefs", []))
b = sorted(c["purl"] for c in cdx["components"])
assert a == b, f"{a} != {b}"
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
[ "$api" = 200 ] && skip "this docker-registry has the referrers API; the fallback is not exercised"
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

rc=0
"$ROCKPACK" build "$WORK/app.yaml" --sbom "$WORK/x.json" --sbom-format xml >/dev/null 2>&1 || rc=$?
assert_eq "$rc" "2" "an unknown --sbom-format is invalid input"
echo OK
