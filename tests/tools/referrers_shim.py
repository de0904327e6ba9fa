#!/usr/bin/env python3
"""A loopback shim that gives a registry without the referrers API (Debian's docker-registry,
distribution 2.8) the parts of OCI distribution-spec 1.1 that concern referrers, for the tests.

    referrers_shim.py --port P --upstream-port U [--log FILE] [--no-subject-header] [--page-size N]

Every request is passed to the registry on 127.0.0.1:U as it came (Host header included, so the
registry's Location headers name the shim). On top of that:
  - PUT /v2/<name>/manifests/<ref> with a body that has a `subject`: when the registry accepts it
    (201), the manifest is recorded as a referrer of subject.digest (its descriptor: mediaType,
    digest, size, artifactType — the manifest's, else its config's mediaType — and annotations), and
    the answer gets `OCI-Subject: <subject digest>` (unless --no-subject-header: a registry of the 1.1
    release candidates, which answers the API but does not send the header);
  - DELETE /v2/<name>/manifests/<digest> forgets a recorded referrer;
  - GET /v2/<name>/referrers/<digest>[?artifactType=T]: 200 with an image index of the recorded
    referrers (filtered by T, and then `OCI-Filters-Applied: artifactType`), in the order they were
    pushed; 400 for a malformed digest. With --page-size N, at most N per answer and a
    `Link: <...>; rel="next"` header to the rest.
The referrers are kept in memory only (a shim restart forgets them). Each request is logged to --log
as "METHOD TARGET STATUS". Listens on 127.0.0.1 only.
"""
import argparse
import hashlib
import http.client
import http.server
import json
import re
import sys
import threading
import urllib.parse

INDEX = "application/vnd.oci.image.index.v1+json"
DIGEST = re.compile(r"^sha256:[0-9a-f]{64}$")
NAME = r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*"
MANIFEST = re.compile(rf"^/v2/({NAME})/manifests/([^/?]+)$")
REFERRERS = re.compile(rf"^/v2/({NAME})/referrers/([^/?]+)$")
HOP = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade"}


class Shim:
    def __init__(self, args):
        self.args = args
        self.lock = threading.Lock()
        self.referrers = {}  # (name, subject digest) -> {manifest digest: descriptor}
        self.log = open(args.log, "a", buffering=1) if args.log else None

    def note(self, line):
        if self.log:
            with self.lock:
                self.log.write(line + "\n")


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    shim = None

    def log_message(self, *a):
        pass

    def read_body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            out = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return out
                out += self.rfile.read(size)
                self.rfile.readline()
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def answer(self, status, headers, body):
        self.send_response(status)
        for k, v in headers:
            if k.lower() not in HOP and k.lower() != "content-length":
                self.send_header(k, v)
        if self.command != "HEAD" or not any(k.lower() == "content-length" for k, _ in headers):
            self.send_header("Content-Length", str(len(body)))
        else:
            self.send_header("Content-Length", dict((k.lower(), v) for k, v in headers)["content-length"])
        self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)
        self.close_connection = True
        self.shim.note(f"{self.command} {self.path} {status}")

    def forward(self, body):
        conn = http.client.HTTPConnection("127.0.0.1", self.shim.args.upstream_port, timeout=300)
        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP and k.lower() != "content-length"}
        if body or self.command in ("PUT", "POST", "PATCH"):
            headers["Content-Length"] = str(len(body))
        conn.request(self.command, self.path, body=body, headers=headers)
        r = conn.getresponse()
        data = r.read() if self.command != "HEAD" else b""
        out = (r.status, r.getheaders(), data)
        conn.close()
        return out

    def referrers(self, name, digest):
        if not DIGEST.match(digest):
            body = json.dumps({"errors": [{"code": "DIGEST_INVALID", "message": "invalid digest"}]}).encode()
            return self.answer(400, [("Content-Type", "application/json")], body)
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)
        wanted = query.get("artifactType", [None])[0]
        with self.shim.lock:
            listed = list(self.shim.referrers.get((name, digest), {}).values())
        headers = [("Content-Type", INDEX)]
        if wanted is not None:
            listed = [d for d in listed if d.get("artifactType") == wanted]
            headers.append(("OCI-Filters-Applied", "artifactType"))
        start = int(query.get("n_start", ["0"])[0])
        size = self.shim.args.page_size
        page = listed[start:start + size] if size else listed
        if size and start + size < len(listed):
            q = {"n_start": str(start + size)}
            if wanted is not None:
                q["artifactType"] = wanted
            headers.append(("Link", f'</v2/{name}/referrers/{digest}?{urllib.parse.urlencode(q)}>; rel="next"'))
        body = json.dumps({"schemaVersion": 2, "mediaType": INDEX, "manifests": page}).encode()
        return self.answer(200, headers, body)

    def handle_any(self):
        path = urllib.parse.urlsplit(self.path).path
        m = REFERRERS.match(path)
        if m and self.command == "GET":
            return self.referrers(m.group(1), m.group(2))
        body = self.read_body()
        status, headers, data = self.forward(body)
        m = MANIFEST.match(path)
        if m and self.command == "PUT" and status == 201:
            try:
                doc = json.loads(body)
            except ValueError:
                doc = None
            subject = doc.get("subject") if isinstance(doc, dict) else None
            if isinstance(subject, dict) and DIGEST.match(str(subject.get("digest", ""))):
                digest = "sha256:" + hashlib.sha256(body).hexdigest()
                desc = {"mediaType": doc.get("mediaType") or self.headers.get("Content-Type"),
                        "digest": digest, "size": len(body)}
                artifact_type = doc.get("artifactType") or (doc.get("config") or {}).get("mediaType")
                if artifact_type:
                    desc["artifactType"] = artifact_type
                if doc.get("annotations"):
                    desc["annotations"] = doc["annotations"]
                with self.shim.lock:
                    self.shim.referrers.setdefault((m.group(1), subject["digest"]), {})[digest] = desc
                if not self.shim.args.no_subject_header:
                    headers = list(headers) + [("OCI-Subject", subject["digest"])]
        if m and self.command == "DELETE" and status == 202:
            with self.shim.lock:
                for refs in self.shim.referrers.values():
                    refs.pop(m.group(2), None)
        return self.answer(status, headers, data)

    do_GET = do_HEAD = do_PUT = do_POST = do_PATCH = do_DELETE = handle_any


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--upstream-port", type=int, required=True)
    p.add_argument("--log")
    p.add_argument("--no-subject-header", action="store_true")
    p.add_argument("--page-size", type=int, default=0)
    args = p.parse_args()
    Handler.shim = Shim(args)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
