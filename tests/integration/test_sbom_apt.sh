#!/usr/bin/env bash
# build --sbom with an apt step, against Debian's real archive (the mirror of this machine's apt
# configuration, bookworm, verified with debian-archive-keyring), on the Debian 12 python base:
#  - SPDX and CycloneDX validate against the published schemas (tests/tools/validate_sbom.py);
#  - the .debs: exactly the packages dpkg-query lists in a chroot of the unpacked image (umoci), the
#    base's included, each as pkg:deb/debian/NAME@VERSION?arch=ARCH&distro=debian-<debian_version>
#    (&epoch=N for a version with an epoch) with the version and architecture dpkg reports; those
#    not in the base's with a sha256 and the mirror URL of their .deb, those of the base with
#    neither, from the base's layer;
#  - licenses: for each, the image's /usr/share/doc/<pkg>/copyright decides — machine-readable
#    (a Format: header) with a `Files: *` License that maps to SPDX gives that expression (jq and
#    libjq1: MIT, libonig5: BSD-2-Clause); not machine-readable gives NOASSERTION;
#  - DEPENDS_ON: every edge is one of the package's Depends/Pre-Depends (as dpkg records them,
#    virtual packages through Provides), and every such dependency that this step installed has its
#    edge (jq -> libjq1 -> libonig5); CycloneDX's dependencies array has the same edges.
# Skips (77) when the machine has no Debian mirror.
source "$(dirname "$0")/lib/common.sh"
source "$ROCKPACK_SOURCE_DIR/tests/integration/lib/python_fixtures.sh"
need umoci
[ "$(id -u)" -eq 0 ] || skip "chroot needs root"
SCHEMA_PY=""
for py in /usr/bin/python3 python3; do
  "$py" -c 'import jsonschema' 2>/dev/null && { SCHEMA_PY=$py; break; }
done
[ -n "$SCHEMA_PY" ] || skip "python3-jsonschema is not installed (tools/install-deps.sh)"
debian_archive
export SOURCE_DATE_EPOCH=1700000000
python_base

cat >"$WORK/app.yaml" <<RECIPE
name: sbomapt
base: oci:$BASE:base
apt:
  sources: [{url: "$MIRROR", suite: bookworm, components: [main], signed_by: "$KEYRING"}]
  packages: [jq, tree]
RECIPE
build_digest "$WORK/app.yaml" --cache-dir "$WORK/c" -o "oci:$WORK/out:latest" --sbom "$WORK/spdx.json" >/dev/null 2>"$WORK/build.log" ||
  fail "build --sbom with apt failed: $(tail -5 "$WORK/build.log")"
build_digest "$WORK/app.yaml" --cache-dir "$WORK/c" -o "oci:$WORK/out2:latest" --sbom "$WORK/cdx.json" --sbom-format cyclonedx \
  >/dev/null 2>&1 || fail "build --sbom-format cyclonedx with apt failed"
for f in spdx:spdx.json cyclonedx:cdx.json; do
  "$SCHEMA_PY" "$ROCKPACK_SOURCE_DIR/tests/tools/validate_sbom.py" "${f%%:*}" "$WORK/${f#*:}" >"$WORK/validate.log" 2>&1 ||
    fail "${f#*:} does not validate: $(head -20 "$WORK/validate.log")"
done

umoci unpack --image "$WORK/out:latest" "$WORK/bundle" >/dev/null 2>&1 || fail "umoci cannot unpack the image"
umoci unpack --image "$BASE:base" "$WORK/base-bundle" >/dev/null 2>&1 || fail "umoci cannot unpack the base"
Q='${Package}\t${Version}\t${Architecture}\t${db:Status-Abbrev}\t${Depends}\t${Pre-Depends}\t${Provides}\n'
chroot "$WORK/bundle/rootfs" dpkg-query -W -f "$Q" >"$WORK/dpkg.tsv" || fail "dpkg-query fails in the image"
chroot "$WORK/base-bundle/rootfs" dpkg-query -W -f "$Q" >"$WORK/dpkg-base.tsv" || fail "dpkg-query fails in the base"

python3 - "$WORK/spdx.json" "$WORK/cdx.json" "$WORK/dpkg.tsv" "$WORK/dpkg-base.tsv" "$WORK/bundle/rootfs" "$MIRROR" \
  "$(cat "$WORK/bundle/rootfs/etc/debian_version")" <<'PY' ||
import json, os, re, sys, urllib.parse
spdx, cdx = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
root, mirror, debian_version = sys.argv[5], sys.argv[6], sys.argv[7].strip()
def table(path):
    out = {}
    for line in open(path):
        name, version, arch, status, depends, pre, provides = line.rstrip("\n").split("\t")
        if status.startswith("ii"):
            out[name] = dict(version=version, arch=arch, depends=depends, pre=pre, provides=provides)
    return out
image, base = table(sys.argv[3]), table(sys.argv[4])
added = {n: p for n, p in image.items() if n not in base or base[n]["version"] != p["version"]}
assert {"jq", "libjq1", "libonig5", "tree"} <= set(added), sorted(added)

every = {}
for p in spdx["packages"]:
    for r in p.get("externalRefs", []):
        if r["referenceLocator"].startswith("pkg:deb/"):
            every[p["name"]] = (p, r["referenceLocator"])
assert set(every) == set(image), f"SBOM debs {sorted(every)} != dpkg's packages {sorted(image)}"
layer_of = lambda p: {a["comment"].split(": ", 1)[0]: a["comment"].split(": ", 1)[1] for a in p.get("annotations", [])}
for name, (p, purl) in every.items():
    d = image[name]
    # An epoch ("1:2.38.1-5") is the epoch qualifier, as trivy writes it.
    m = re.match(r"^pkg:deb/debian/([^@]+)@([^?]+)\?arch=([^&]+)&distro=([^&]+)(&epoch=([0-9]+))?$", purl)
    assert m, purl
    version = (m.group(6) + ":" if m.group(6) else "") + urllib.parse.unquote(m.group(2))
    assert (urllib.parse.unquote(m.group(1)), version, m.group(3), m.group(4)) == (name, d["version"], d["arch"], "debian-" + debian_version), (purl, d)
    assert p["versionInfo"] == d["version"], (p["versionInfo"], d)
    if name in added:
        assert re.match(r"^[0-9a-f]{64}$", p["checksums"][0]["checksumValue"]), p
        assert p["downloadLocation"].startswith(mirror.rstrip("/") + "/pool/") and p["downloadLocation"].endswith(".deb"), p
        assert layer_of(p)["Layer"] != "base", p
    else:
        assert "checksums" not in p and p["downloadLocation"] == "NOASSERTION", p
        assert layer_of(p)["Layer"] == "base" and layer_of(p)["LayerDiffID"].startswith("sha256:"), p
debs = {n: v for n, v in every.items() if n in added}

# Licenses, from the copyright files in the image.
known = {"jq": "MIT", "libjq1": "MIT", "libonig5": "BSD-2-Clause"}
for name, (p, _) in sorted(debs.items()):
    path = os.path.join(root, "usr/share/doc", name, "copyright")
    text = open(path, errors="replace").read() if os.path.exists(path) else ""
    machine = re.match(r"^Format:\s*\S*(copyright-format|dep5|DEP-5)", text) is not None
    if name in known:
        assert machine and p["licenseDeclared"] == known[name], (name, p["licenseDeclared"])
    elif not machine:
        assert p["licenseDeclared"] == "NOASSERTION", (name, p["licenseDeclared"])
    print(f"  {name}: {p['licenseDeclared']}{' (DEP-5)' if machine else ''}")

# DEPENDS_ON against dpkg's own Depends/Pre-Depends.
provides = {}
for n, d in image.items():
    provides.setdefault(n, set()).add(n)
    for v in filter(None, (x.strip().split(" ")[0].split(":")[0] for x in d["provides"].split(","))):
        provides.setdefault(v, set()).add(n)
ids = {p["SPDXID"]: p["name"] for p in spdx["packages"]}
edges = {(ids[r["spdxElementId"]], ids[r["relatedSpdxElement"]]) for r in spdx["relationships"] if r["relationshipType"] == "DEPENDS_ON"}
for name in debs:
    d = added[name]
    groups = [g for g in (d["depends"] + "," + d["pre"]).split(",") if g.strip()]
    allowed, needed = set(), []
    for g in groups:
        alts = set()
        for alt in g.split("|"):
            alts |= provides.get(alt.strip().split(" ")[0].split(":")[0], set())
        allowed |= alts
        if alts & set(debs):
            needed.append(alts & set(debs))
    mine = {b for a, b in edges if a == name}
    assert mine <= allowed, f"{name} DEPENDS_ON {sorted(mine - allowed)}, which its Depends do not name"
    for alts in needed:
        assert mine & alts, f"{name}: no DEPENDS_ON for its dependency on one of {sorted(alts)}"
assert {("jq", "libjq1"), ("libjq1", "libonig5")} <= edges, sorted(edges)
# CycloneDX: the same edges.
name_of = {c["bom-ref"]: c["name"] for c in cdx["components"]}
cdx_edges = {(name_of[d["ref"]], name_of[t]) for d in cdx["dependencies"] if d["ref"] != "image" for t in d["dependsOn"]}
assert cdx_edges == edges, (sorted(cdx_edges), sorted(edges))
print(f"ok: {len(debs)} debs, {len(edges)} DEPENDS_ON")
PY
  fail "the SBOM does not match dpkg in the image"
echo OK
