#!/usr/bin/env python3
"""rockpack's SBOM of an image against trivy's scan of the same image, trivy as the reference.

    sbom_vs_trivy.py TRIVY_CDX.json ROCKPACK_SPDX.json ROCKPACK_CDX.json NAME

For the Debian (pkg:deb) and Python (pkg:pypi) packages, both rockpack documents must list what
trivy lists (type, name and version; a Debian version with its epoch, which trivy moves into the
purl's epoch qualifier), every Debian purl must be trivy's (compared with the qualifiers in the
purl spec's order: trivy writes them unsorted), and every package trivy finds must be rockpack's at
the same place (a Python package's metadata) and from the layer trivy attributes it to (trivy's
aquasecurity:trivy:LayerDiffID; rockpack's LayerDiffID annotation in SPDX, rockpack:LayerDiffID
property in CycloneDX). The one difference allowed: trivy lists a Python package once per name and
version, rockpack each installed copy. Prints a one-line summary; exits non-zero naming the first
difference.
"""
import collections
import json
import re
import sys
import urllib.parse

norm = lambda n: re.sub(r"[-_.]+", "-", n).lower()


def qualifiers(purl):
    return dict(urllib.parse.parse_qsl(purl.partition("?")[2]))


def canonical(purl):
    """The purl with its qualifiers sorted by key, as the purl spec writes them."""
    base, _, query = purl.partition("?")
    pairs = sorted(q.split("=", 1) for q in query.split("&")) if query else []
    return base + ("?" + "&".join(k + "=" + v for k, v in pairs) if pairs else "")


def key(purl, name, version):
    kind = purl.split("/")[0]
    epoch = qualifiers(purl).get("epoch")
    if kind == "pkg:deb" and epoch and not version.startswith(epoch + ":"):
        version = epoch + ":" + version  # trivy: the version without its epoch, the epoch a qualifier
    return (kind, norm(name) if kind == "pkg:pypi" else name, version)


def entries(items):
    """items: (purl, name, version, {property: value}) -> [(key, canonical deb purl or None, location, diff_id)]."""
    out = []
    for purl, name, version, props in items:
        if not purl.startswith(("pkg:deb/", "pkg:pypi/")):
            continue
        location = props.get("FilePath", "").lstrip("/")
        out.append((key(purl, name, version), canonical(purl) if purl.startswith("pkg:deb/") else None, location,
                    props.get("LayerDiffID")))
    return out


def same_place(trivy_path, ours):
    # trivy names the metadata file (…dist-info/METADATA, …egg-info/PKG-INFO), rockpack its directory.
    return trivy_path == ours or trivy_path.startswith(ours + "/")


def main(argv):
    trivy, spdx, cdx = (json.load(open(f)) for f in argv[1:4])
    name = argv[4]
    want = entries((c.get("purl", ""), c["name"], c.get("version", ""),
                    {p["name"].replace("aquasecurity:trivy:", ""): p["value"] for p in c.get("properties", [])})
                   for c in trivy.get("components", []))
    spdx_items = []
    for p in spdx["packages"]:
        purl = next((r["referenceLocator"] for r in p.get("externalRefs", []) if r["referenceType"] == "purl"), "")
        props = dict(a["comment"].split(": ", 1) for a in p.get("annotations", []))
        spdx_items.append((purl, p["name"], p.get("versionInfo", ""), props))
    cdx_items = [(c["purl"], c["name"], c.get("version", ""),
                  {p["name"].replace("rockpack:", ""): p["value"] for p in c.get("properties", [])})
                 for c in cdx["components"]]
    extra = []
    for label, items in (("SPDX", spdx_items), ("CycloneDX", cdx_items)):
        got = entries(items)
        keys, want_keys = {e[0] for e in got}, {e[0] for e in want}
        if keys != want_keys:
            sys.exit(f"{name} {label}: the packages differ from trivy's: only rockpack lists {sorted(keys - want_keys)}, "
                     f"only trivy {sorted(want_keys - keys)}")
        purls = collections.Counter(e[1] for e in got if e[1])
        want_purls = collections.Counter(e[1] for e in want if e[1])
        if purls != want_purls:
            sys.exit(f"{name} {label}: Debian purls differ: only rockpack's {sorted((purls - want_purls).elements())[:5]}, "
                     f"only trivy's {sorted((want_purls - purls).elements())[:5]}")
        # Each package trivy found is rockpack's at the same place (a Python package's metadata
        # directory; a Debian package by name, version and architecture), from the same layer.
        unmatched = list(got)
        for k, purl, location, diff_id in want:
            match = next((e for e in unmatched if e[0] == k and e[1] == purl and
                          (k[0] != "pkg:pypi" or same_place(location, e[2]))), None)
            if match is None:
                sys.exit(f"{name} {label}: trivy finds {k} at {location or purl}; rockpack lists it elsewhere")
            if match[3] != diff_id:
                sys.exit(f"{name} {label}: {k} comes from layer {match[3]}, trivy says {diff_id}")
            unmatched.remove(match)
        # trivy lists a Python package once per name and version, however many copies the image
        # holds (which one varies from run to run); rockpack lists each copy. Nothing else may be
        # left over.
        for e in unmatched:
            if e[0][0] != "pkg:pypi" or not any(w[0] == e[0] for w in want):
                sys.exit(f"{name} {label}: rockpack lists {e[0]} at {e[2]}, which trivy does not find")
        extra = [f"{e[0][1]} {e[0][2]} at /{e[2]}" for e in unmatched]
    debs = sum(1 for e in want if e[0][0] == "pkg:deb")
    distros = sorted({re.sub(r"^.*[?&]distro=([^&]*).*$", r"\1", e[1]) for e in want if e[1]})
    if name == "ubuntu":
        if distros != ["ubuntu-22.04"] or not all(e[1].startswith("pkg:deb/ubuntu/") for e in want if e[1]):
            sys.exit(f"{name}: trivy does not see Ubuntu 22.04 ({distros}): the test's image is not what it means to be")
    elif len(distros) != 1 or not re.match(r"^debian-12(\.\d+)?$", distros[0]):
        sys.exit(f"{name}: expected one Debian 12 distro qualifier, trivy wrote {distros}")
    copies = sorted(e[2].split("/lib/")[0] for e in entries(cdx_items) if e[0] == ("pkg:pypi", "rp-scan-one", "1.2.3"))
    if name == "derived" and copies != ["opt/venv", "opt/venv2"]:
        sys.exit(f"{name}: expected rp-scan-one in the base's venv and in the new one, rockpack lists {copies}")
    print(f"{name}: {debs} Debian and {len(want) - debs} Python packages ({', '.join(distros)}) as trivy finds them, "
          f"each from trivy's layer, in SPDX and CycloneDX" + (f"; and the copies trivy lists once: {extra}" if extra else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
