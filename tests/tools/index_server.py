#!/usr/bin/env python3
"""A package index for tests: serves a directory of wheels (and sdists) as a simple repository.

Python 3 standard library only. Pages:
  /simple/                    root index (PEP 503 HTML or PEP 691 JSON, by the Accept header)
  /simple/<normalized-name>/  project page with relative links, #sha256= fragments, data-* attributes
  /files/<file>               the files (Range supported: single ranges and suffix ranges)
  /files/<file>.metadata      PEP 658 metadata (the wheel's METADATA), unless --no-metadata
  /flat/                      with --flat: one page linking every file (a find-links page)
  /__stats                    JSON: {"requests": {path: count}, "bytes": {path: body bytes sent}};
                              "/__stats?reset=1" clears them
'+' in file names is written as %2B in links.
"""
import argparse
import base64
import hashlib
import html
import json
import os
import re
import sys
import threading
import time
import urllib.parse
import zipfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

JSON_TYPE = "application/vnd.pypi.simple.v1+json"


def normalize(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def project_of(filename):
    if filename.endswith(".whl"):
        return normalize(filename.split("-")[0])
    for ext in (".tar.gz", ".zip", ".tar.bz2", ".tgz"):
        if filename.endswith(ext):
            return normalize(filename[: -len(ext)].rsplit("-", 1)[0])
    return None


class Index:
    def __init__(self, args):
        self.args = args
        self.root = os.path.abspath(args.directory)
        self.yanked = {}
        for y in args.yank:
            name, _, reason = y.partition(":")
            self.yanked[name] = reason
        self.requires_python = dict(r.split("=", 1) for r in args.requires_python)
        self.lock = threading.Lock()
        self.hashes = {}
        self.metadata = {}
        self.requests = {}
        self.bytes = {}
        self.failures_left = args.fail_first

    def files(self):
        out = []
        for f in sorted(os.listdir(self.root)):
            if os.path.isfile(os.path.join(self.root, f)) and project_of(f):
                out.append(f)
        return out

    def sha256(self, filename):
        path = os.path.join(self.root, filename)
        st = os.stat(path)
        key = (filename, st.st_size, st.st_mtime_ns)
        with self.lock:
            if key in self.hashes:
                return self.hashes[key]
        h = hashlib.sha256()
        with open(path, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                h.update(chunk)
        with self.lock:
            self.hashes[key] = h.hexdigest()
        return h.hexdigest()

    def metadata_of(self, filename):
        if self.args.no_metadata or not filename.endswith(".whl"):
            return None
        with self.lock:
            if filename in self.metadata:
                return self.metadata[filename]
        data = None
        try:
            with zipfile.ZipFile(os.path.join(self.root, filename)) as z:
                for n in z.namelist():
                    if n.count("/") == 1 and n.endswith(".dist-info/METADATA"):
                        data = z.read(n)
                        break
        except zipfile.BadZipFile:
            data = None
        with self.lock:
            self.metadata[filename] = data
        return data

    def record(self, path, sent):
        with self.lock:
            self.requests[path] = self.requests.get(path, 0) + 1
            self.bytes[path] = self.bytes.get(path, 0) + sent


def file_link(filename):
    return "../../files/" + urllib.parse.quote(filename, safe="")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out in separate writes; with Nagle's algorithm the body then waits for the
    # client's delayed ACK of the headers (about 40 ms a request on a kept-alive connection).
    disable_nagle_algorithm = True
    index = None  # set by main

    def log_message(self, fmt, *args):
        if self.index.args.verbose:
            sys.stderr.write("index_server: " + (fmt % args) + "\n")

    def send_body(self, status, body, content_type, extra=None):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)
            self.index.record(urllib.parse.urlsplit(self.path).path, len(body))

    def authorized(self):
        expected = self.index.args.basic_auth
        if not expected:
            return True
        got = self.headers.get("Authorization", "")
        if got == "Basic " + base64.b64encode(expected.encode()).decode():
            return True
        self.send_body(401, b"unauthorized\n", "text/plain", {"WWW-Authenticate": 'Basic realm="test"'})
        return False

    def do_HEAD(self):
        self.do_GET()

    def do_GET(self):
        parts = urllib.parse.urlsplit(self.path)
        path = parts.path
        if path == "/__stats":
            with self.index.lock:
                body = json.dumps({"requests": self.index.requests, "bytes": self.index.bytes}).encode()
                if "reset=1" in parts.query:
                    self.index.requests.clear()
                    self.index.bytes.clear()
            self.send_body(200, body, "application/json")
            return
        if not self.authorized():
            return
        if path.startswith("/simple/") and self.index.failures_left > 0:
            with self.index.lock:
                self.index.failures_left -= 1
            self.send_body(503, b"try again\n", "text/plain")
            return
        if path == "/simple/":
            self.root_page()
        elif path.startswith("/simple/") and path.endswith("/") and path.count("/") == 3:
            self.project_page(path.split("/")[2])
        elif path in ("/flat/", "/flat") and self.index.args.flat:
            self.flat_page()
        elif path.startswith("/files/"):
            self.file(urllib.parse.unquote(path[len("/files/"):]))
        else:
            self.send_body(404, b"not found\n", "text/plain")

    def wants_json(self):
        fmt = self.index.args.format
        if fmt != "both":
            return fmt == "json"
        return JSON_TYPE in self.headers.get("Accept", "")

    def root_page(self):
        names = sorted({project_of(f) for f in self.index.files()})
        if self.wants_json():
            doc = {"meta": {"api-version": "1.1"}, "projects": [{"name": n} for n in names]}
            self.send_body(200, json.dumps(doc).encode(), JSON_TYPE)
        else:
            links = "".join('<a href="%s/">%s</a>\n' % (n, n) for n in names)
            self.send_body(200, ("<!DOCTYPE html><html><body>\n%s</body></html>\n" % links).encode(), "text/html")

    def file_attrs(self, f):
        """(sha256, requires_python, yanked reason or None, metadata sha256 or None)."""
        meta = self.index.metadata_of(f)
        return (
            self.index.sha256(f),
            self.index.requires_python.get(f),
            self.index.yanked.get(f),
            hashlib.sha256(meta).hexdigest() if meta is not None else None,
        )

    def project_page(self, name):
        files = [f for f in self.index.files() if project_of(f) == name]
        if not files:
            self.send_body(404, b"no such project\n", "text/plain")
            return
        if self.wants_json():
            entries = []
            for f in files:
                sha, rp, yanked, meta = self.file_attrs(f)
                e = {"filename": f, "url": file_link(f), "hashes": {"sha256": sha},
                     "size": os.path.getsize(os.path.join(self.index.root, f))}
                if rp:
                    e["requires-python"] = rp
                if yanked is not None:
                    e["yanked"] = yanked if yanked else True
                e["core-metadata"] = {"sha256": meta} if meta else False
                entries.append(e)
            doc = {"meta": {"api-version": "1.1"}, "name": name, "files": entries, "versions": []}
            self.send_body(200, json.dumps(doc).encode(), JSON_TYPE)
            return
        self.send_body(200, self.links_html(files, file_link).encode(), "text/html")

    def links_html(self, files, link):
        rows = []
        for f in files:
            sha, rp, yanked, meta = self.file_attrs(f)
            attrs = ""
            if rp:
                attrs += ' data-requires-python="%s"' % html.escape(rp, quote=True)
            if yanked is not None:
                attrs += ' data-yanked="%s"' % html.escape(yanked, quote=True)
            if meta:
                attrs += ' data-core-metadata="sha256=%s" data-dist-info-metadata="sha256=%s"' % (meta, meta)
            rows.append('<a href="%s#sha256=%s"%s>%s</a><br/>' % (link(f), sha, attrs, html.escape(f)))
        return ('<!DOCTYPE html><html><head><meta name="pypi:repository-version" content="1.1"></head><body>\n'
                + "\n".join(rows) + "\n</body></html>\n")

    def flat_page(self):
        body = self.links_html(self.index.files(), lambda f: "../files/" + urllib.parse.quote(f, safe=""))
        self.send_body(200, body.encode(), "text/html")

    def file(self, name):
        if "/" in name or name.startswith("."):
            self.send_body(404, b"not found\n", "text/plain")
            return
        if name.endswith(".metadata"):
            meta = self.index.metadata_of(name[: -len(".metadata")]) if os.path.isfile(
                os.path.join(self.index.root, name[: -len(".metadata")])) else None
            if meta is None:
                self.send_body(404, b"no metadata\n", "text/plain")
            else:
                self.send_body(200, meta, "application/octet-stream")
            return
        path = os.path.join(self.index.root, name)
        if not os.path.isfile(path):
            self.send_body(404, b"not found\n", "text/plain")
            return
        size = os.path.getsize(path)
        start, end, status = 0, size - 1, 200
        rng = self.headers.get("Range")
        if rng and not self.index.args.no_range:
            m = re.fullmatch(r"bytes=(\d*)-(\d*)", rng.strip())
            if not m or (m.group(1) == "" and m.group(2) == ""):
                self.send_body(416, b"bad range\n", "text/plain", {"Content-Range": "bytes */%d" % size})
                return
            if m.group(1) == "":
                n = int(m.group(2))
                if n == 0:
                    self.send_body(416, b"bad range\n", "text/plain", {"Content-Range": "bytes */%d" % size})
                    return
                start = max(0, size - n)
            else:
                start = int(m.group(1))
                if m.group(2):
                    end = min(end, int(m.group(2)))
            if start >= size or start > end:
                self.send_body(416, b"bad range\n", "text/plain", {"Content-Range": "bytes */%d" % size})
                return
            status = 206
        length = end - start + 1
        self.send_response(status)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(length))
        self.send_header("Accept-Ranges", "none" if self.index.args.no_range else "bytes")
        if status == 206:
            self.send_header("Content-Range", "bytes %d-%d/%d" % (start, end, size))
        self.end_headers()
        if self.command == "HEAD":
            return
        sent = 0
        try:
            with open(path, "rb") as fh:
                fh.seek(start)
                while sent < length:
                    chunk = fh.read(min(256 * 1024, length - sent))
                    if not chunk:
                        break
                    self.wfile.write(chunk)
                    sent += len(chunk)
                    if self.index.args.rate:  # bytes per second per download, for progress tests
                        time.sleep(len(chunk) / self.index.args.rate)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        finally:
            self.index.record("/files/" + name, sent)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("directory")
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--port-file", help="write the port here once listening")
    p.add_argument("--format", choices=["both", "html", "json"], default="both")
    p.add_argument("--no-metadata", action="store_true")
    p.add_argument("--no-range", action="store_true")
    p.add_argument("--basic-auth", metavar="USER:PASS")
    p.add_argument("--yank", action="append", default=[], metavar="FILE[:REASON]")
    p.add_argument("--requires-python", action="append", default=[], metavar="FILE=SPEC")
    p.add_argument("--flat", action="store_true")
    p.add_argument("--fail-first", type=int, default=0, help="answer 503 to the first N /simple/ requests")
    p.add_argument("--verbose", action="store_true")
    p.add_argument("--rate", type=int, default=0, help="send each file at most this many bytes a second")
    args = p.parse_args()
    Handler.index = Index(args)
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    if args.port_file:
        tmp = args.port_file + ".tmp"
        with open(tmp, "w") as fh:
            fh.write(str(server.server_address[1]))
        os.replace(tmp, args.port_file)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
