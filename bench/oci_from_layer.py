#!/usr/bin/env python3
"""Writes a one-layer OCI image layout from a rootfs tar and its gzip (the peer side of
bench/apt_bench.sh: what it takes to turn mmdebstrap's tarball into something a registry takes).

    oci_from_layer.py ROOTFS.tar ROOTFS.tar.gz OUT_DIR
"""
import hashlib
import json
import os
import shutil
import sys


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def main():
    tar, gz, out = sys.argv[1:4]
    blobs = os.path.join(out, "blobs", "sha256")
    os.makedirs(blobs, exist_ok=True)
    diff_id = sha256_file(tar)
    layer = sha256_file(gz)
    shutil.copyfile(gz, os.path.join(blobs, layer))

    def put(obj):
        data = json.dumps(obj, sort_keys=True, separators=(",", ":")).encode()
        digest = hashlib.sha256(data).hexdigest()
        with open(os.path.join(blobs, digest), "wb") as f:
            f.write(data)
        return digest, len(data)

    config = {"architecture": "amd64", "os": "linux", "config": {"Cmd": ["/bin/bash"]},
              "rootfs": {"type": "layers", "diff_ids": ["sha256:" + diff_id]}}
    cdigest, csize = put(config)
    manifest = {"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
                "config": {"mediaType": "application/vnd.oci.image.config.v1+json", "digest": "sha256:" + cdigest, "size": csize},
                "layers": [{"mediaType": "application/vnd.oci.image.layer.v1.tar+gzip", "digest": "sha256:" + layer,
                            "size": os.path.getsize(gz)}]}
    mdigest, msize = put(manifest)
    with open(os.path.join(out, "index.json"), "w") as f:
        json.dump({"schemaVersion": 2, "manifests": [{"mediaType": manifest["mediaType"], "digest": "sha256:" + mdigest,
                                                     "size": msize, "annotations": {"org.opencontainers.image.ref.name": "latest"}}]}, f)
    with open(os.path.join(out, "oci-layout"), "w") as f:
        f.write('{"imageLayoutVersion":"1.0.0"}')


if __name__ == "__main__":
    main()
