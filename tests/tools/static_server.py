#!/usr/bin/env python3
"""Serves a directory tree over HTTP on loopback, like a static file host (S3, a CDN) serving a
pre-generated PEP 503 index such as TheRock's (tests/tools/make_therock_index.py writes one).

    static_server.py DIR [--port 0] [--port-file FILE]

  /a/b/        -> DIR/a/b/index.html, else DIR/a/b/index.json (as application/vnd.pypi.simple.v1+json)
  /a/b/file    -> DIR/a/b/file, with single byte ranges (Range: bytes=A-B, A-, -N) answered 206
  /a/b/file    -> with an ETag (size, mtime, inode) and a Last-Modified; a request whose
                  If-None-Match names the ETag (or, without If-None-Match, whose If-Modified-Since is
                  not older than the file) is answered 304 with no body, as S3 and CDNs do
  /a/b/file    -> when only DIR/a/b/file.endless exists: an endless body of zeros without a
                  Content-Length (a hostile mirror; the client must stop at the size it was promised)
  --routes FILE: a JSON object {"/path/prefix/": "/other/prefix/"}; a request under a prefix is
                  answered 302 to the other prefix (a CDN's routing, as TheRock's whl-next root uses)
  /__stats     -> JSON {"requests": {path: count}, "bytes": {path: body bytes sent},
                  "not_modified": {path: 304 answers}} over every other request (paths
                  percent-decoded); /__stats?reset=1 clears them
Anything else, or a path leaving DIR, is 404. Standard library only.
"""
import argparse
import email.utils
import json
import os
import re
import sys
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.requests = {}
        self.bytes = {}
        self.not_modified = {}

    def record(self, path, sent, not_modified=False):
        with self.lock:
            self.requests[path] = self.requests.get(path, 0) + 1
            self.bytes[path] = self.bytes.get(path, 0) + sent
            if not_modified:
                self.not_modified[path] = self.not_modified.get(path, 0) + 1

    def snapshot(self, reset):
        with self.lock:
            out = {"requests": dict(self.requests), "bytes": dict(self.bytes), "not_modified": dict(self.not_modified)}
            if reset:
                self.requests.clear()
                self.bytes.clear()
                self.not_modified.clear()
        return out


def validators(st):
    """(ETag, Last-Modified) of a file: the ETag changes with its size, mtime or inode."""
    etag = '"%x-%x-%x"' % (st.st_size, st.st_mtime_ns, st.st_ino)
    return etag, email.utils.formatdate(st.st_mtime, usegmt=True)


def not_modified(headers, st):
    """Whether a conditional GET is answered 304 (RFC 9110 13.2.2: If-None-Match wins)."""
    etag, _ = validators(st)
    inm = headers.get("If-None-Match")
    if inm is not None:
        tags = [t.strip() for t in inm.split(",")]
        return "*" in tags or etag in tags or "W/" + etag in tags
    ims = headers.get("If-Modified-Since")
    if ims is None:
        return False
    try:
        since = email.utils.parsedate_to_datetime(ims).timestamp()
    except (TypeError, ValueError):
        return False
    return int(st.st_mtime) <= since


def parse_range(header, size):
    """(start, end) inclusive for a single satisfiable byte range, None for no range, 'bad' else."""
    if not header:
        return None
    m = re.fullmatch(r"bytes=(\d*)-(\d*)", header.strip())
    if not m or (m.group(1) == "" and m.group(2) == ""):
        return "bad"
    if m.group(1) == "":  # suffix: the last N bytes
        n = int(m.group(2))
        if n == 0:
            return "bad"
        return (max(0, size - n), size - 1)
    start = int(m.group(1))
    end = int(m.group(2)) if m.group(2) else size - 1
    if start >= size or end < start:
        return "bad"
    return (start, min(end, size - 1))


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # TCP_NODELAY: headers and body are separate writes; with Nagle's algorithm every response on a
    # kept-alive connection waited for the client's delayed ACK (~40 ms a request), as in
    # index_server.py. Real indexes do not behave so.
    disable_nagle_algorithm = True
    root = "."
    routes = {}
    stats = Stats()

    def log_message(self, *args):
        pass

    def send_body(self, status, body, content_type="text/plain", path=None):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)
        if path is not None:
            self.stats.record(path, len(body) if self.command != "HEAD" else 0)

    def resolve(self, path):
        rel = path.lstrip("/")
        full = os.path.realpath(os.path.join(self.root, rel))
        if full != self.root and not full.startswith(self.root + os.sep):
            return None
        if os.path.isdir(full):
            # A directory's page: index.html, else index.json (a PEP 691 JSON page).
            page = os.path.join(full, "index.html")
            full = page if os.path.isfile(page) else os.path.join(full, "index.json")
        return full if os.path.isfile(full) else None

    def send_endless(self, path):
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        sent = 0
        chunk = bytes(1 << 16)
        try:
            while self.command != "HEAD":
                self.wfile.write(chunk)
                sent += len(chunk)
        except OSError:
            pass  # the client hung up: what it should do
        self.stats.record(path, sent)

    def do_HEAD(self):
        self.do_GET()

    def do_GET(self):
        parts = urllib.parse.urlsplit(self.path)
        path = urllib.parse.unquote(parts.path)
        if path == "/__stats":
            body = json.dumps(self.stats.snapshot("reset=1" in parts.query), sort_keys=True).encode()
            self.send_body(200, body, "application/json")
            return
        for prefix, target in self.routes.items():
            if path.startswith(prefix):
                self.stats.record(path, 0)
                self.send_response(302)
                self.send_header("Location", target + urllib.parse.quote(path[len(prefix):]))
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
        full = self.resolve(path)
        if full is None and self.resolve(path + ".endless") is not None:
            self.send_endless(path)
            return
        if full is None:
            self.send_body(404, b"not found\n", path=path)
            return
        st = os.stat(full)
        size = st.st_size
        etag, last_modified = validators(st)
        if not_modified(self.headers, st):
            self.send_response(304)
            self.send_header("ETag", etag)
            self.send_header("Last-Modified", last_modified)
            self.end_headers()
            self.stats.record(path, 0, not_modified=True)
            return
        ctype = "text/html" if full.endswith(".html") else "application/octet-stream"
        if full.endswith("/index.json"):
            ctype = "application/vnd.pypi.simple.v1+json"
        rng = parse_range(self.headers.get("Range"), size)
        if rng == "bad":
            self.send_response(416)
            self.send_header("Content-Range", f"bytes */{size}")
            self.send_header("Content-Length", "0")
            self.end_headers()
            self.stats.record(path, 0)
            return
        start, end = rng if rng else (0, size - 1)
        length = end - start + 1 if size else 0
        self.send_response(206 if rng else 200)
        self.send_header("Content-Type", ctype)
        self.send_header("Accept-Ranges", "bytes")
        self.send_header("ETag", etag)
        self.send_header("Last-Modified", last_modified)
        self.send_header("Content-Length", str(length))
        if rng:
            self.send_header("Content-Range", f"bytes {start}-{end}/{size}")
        self.end_headers()
        sent = 0
        if self.command != "HEAD" and length:
            with open(full, "rb") as fh:
                fh.seek(start)
                remaining = length
                while remaining > 0:
                    chunk = fh.read(min(1 << 20, remaining))
                    if not chunk:
                        break
                    try:
                        self.wfile.write(chunk)
                    except (BrokenPipeError, ConnectionResetError):
                        break
                    sent += len(chunk)
                    remaining -= len(chunk)
        self.stats.record(path, sent)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("directory")
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--port-file", help="write the port here once listening")
    p.add_argument("--routes", help="JSON object of path prefix -> prefix to redirect to")
    args = p.parse_args()
    Handler.root = os.path.realpath(args.directory)
    if args.routes:
        with open(args.routes) as f:
            Handler.routes = json.load(f)
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    if args.port_file:
        with open(args.port_file + ".tmp", "w") as f:
            f.write(str(server.server_address[1]))
        os.replace(args.port_file + ".tmp", args.port_file)
    else:
        print(server.server_address[1], flush=True)
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
