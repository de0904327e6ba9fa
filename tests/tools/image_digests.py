#!/usr/bin/env python3
"""Prints what identifies an image of an OCI layout, one fact a line, for golden comparisons:

    ID manifest sha256:...      the manifest's digest (after normalization, see below)
    ID config sha256:...        the config's digest (after normalization)
    ID layer N sha256:...       every layer's diff_id, in image order (base layers first)

usage: image_digests.py LAYOUT_DIR TAG ID [--replace OLD=NEW ...]

--replace substitutes OLD by NEW in the config and manifest bytes before hashing: a test that
serves its index on a random port or works in a random scratch directory names those in labels and
annotations; replacing them by fixed placeholders makes the digests comparable across runs. Without
any replacement the digests printed are the image's own. The manifest is hashed with the config
digest it names replaced by the normalized one, so a change in the config shows in both lines.
"""
import hashlib
import json
import os
import sys


def blob(layout, digest):
    algo, hexd = digest.split(":", 1)
    with open(os.path.join(layout, "blobs", algo, hexd), "rb") as f:
        return f.read()


def main(argv):
    if len(argv) < 4:
        sys.exit(__doc__)
    layout, tag, ident = argv[1], argv[2], argv[3]
    replacements = []
    rest = argv[4:]
    while rest:
        if rest[0] != "--replace" or len(rest) < 2 or "=" not in rest[1]:
            sys.exit("expected --replace OLD=NEW, got %r" % rest[:2])
        old, new = rest[1].split("=", 1)
        replacements.append((old.encode(), new.encode()))
        rest = rest[2:]

    def normalize(data):
        for old, new in replacements:
            data = data.replace(old, new)
        return data

    with open(os.path.join(layout, "index.json")) as f:
        index = json.load(f)
    manifests = [m for m in index["manifests"]
                 if m.get("annotations", {}).get("org.opencontainers.image.ref.name") == tag]
    if len(manifests) != 1:
        sys.exit("%s has %d manifests tagged %s" % (layout, len(manifests), tag))
    manifest_bytes = blob(layout, manifests[0]["digest"])
    manifest = json.loads(manifest_bytes)
    config_bytes = blob(layout, manifest["config"]["digest"])
    config = json.loads(config_bytes)

    config_digest = "sha256:" + hashlib.sha256(normalize(config_bytes)).hexdigest()
    manifest_norm = normalize(manifest_bytes).replace(manifest["config"]["digest"].encode(), config_digest.encode())
    print("%s manifest sha256:%s" % (ident, hashlib.sha256(manifest_norm).hexdigest()))
    print("%s config %s" % (ident, config_digest))

    for i, diff_id in enumerate(config["rootfs"]["diff_ids"]):
        print("%s layer %d %s" % (ident, i, diff_id))

if __name__ == "__main__":
    main(sys.argv)
