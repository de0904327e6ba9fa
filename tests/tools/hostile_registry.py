#!/usr/bin/env python3
"""A registry that answers what a directory says, hostile answers included (the hostile-inputs drill).

    hostile_registry.py DIR [--port 0] [--port-file FILE]

  GET /v2/                         -> 200 {}
  GET /v2/REPO/manifests/REF       -> DIR/REPO/manifests/REF, else DIR/REPO/manifest-any (served for
                                      every reference: a list that names itself by digest loops);
                                      status DIR/REPO/status when present (the body then is the answer);
                                      Content-Type: the body's mediaType, else the OCI manifest type;
                                      Docker-Content-Digest: the body's sha256
  GET /v2/REPO/blobs/sha256:HEX    -> DIR/REPO/blobs/HEX, else DIR/REPO/blob-any (the wrong bytes)
Anything else is 404. Plain HTTP on loopback only; standard library only.
"""
import argparse
import hashlib
import json
import os
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MANIFEST = "application/vnd.oci.image.manifest.v1+json"


class Handler(BaseHTTPRequestHandler):
    root = "."

    def log_message(self, *args):
        pass

    def answer(self, status, body, ctype="application/json", digest=True):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        if digest:
            self.send_header("Docker-Content-Digest", "sha256:" + hashlib.sha256(body).hexdigest())
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def file(self, *parts):
        p = os.path.join(self.root, *parts)
        if os.path.isfile(p) and os.path.realpath(p).startswith(os.path.realpath(self.root) + os.sep):
            with open(p, "rb") as f:
                return f.read()
        return None

    def do_HEAD(self):
        self.do_GET()

    def do_GET(self):
        path = self.path.split("?", 1)[0]
        if path in ("/v2", "/v2/"):
            return self.answer(200, b"{}")
        parts = path.split("/")
        if len(parts) >= 5 and parts[1] == "v2" and parts[-2] in ("manifests", "blobs"):
            repo, kind, ref = "/".join(parts[2:-2]), parts[-2], parts[-1]
            if kind == "manifests":
                body = self.file(repo, "manifests", ref.replace(":", "_")) or self.file(repo, "manifest-any")
                if body is None:
                    return self.answer(404, b'{"errors":[{"code":"MANIFEST_UNKNOWN","message":"unknown"}]}')
                status = self.file(repo, "status")
                if status:
                    return self.answer(int(status), body)
                try:
                    ctype = json.loads(body).get("mediaType") or MANIFEST
                except Exception:
                    ctype = MANIFEST
                return self.answer(200, body, ctype)
            hexdigest = ref.split(":", 1)[-1]
            body = self.file(repo, "blobs", hexdigest) or self.file(repo, "blob-any")
            if body is None:
                return self.answer(404, b'{"errors":[{"code":"BLOB_UNKNOWN","message":"unknown"}]}')
            return self.answer(200, body, "application/octet-stream", digest=False)
        self.answer(404, b"{}")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("directory")
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--port-file")
    a = p.parse_args()
    Handler.root = os.path.abspath(a.directory)
    server = ThreadingHTTPServer(("127.0.0.1", a.port), Handler)
    if a.port_file:
        with open(a.port_file + ".tmp", "w") as f:
            f.write(str(server.server_address[1]))
        os.replace(a.port_file + ".tmp", a.port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
