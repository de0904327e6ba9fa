#!/usr/bin/env python3
"""An HTTP proxy for the tests that sits between rockpack and a loopback registry and misbehaves.

One request per client connection (answers carry Connection: close). Requests are numbered; every
--every'th one gets an HTTP error (503 or 429 with Retry-After, 500); every --every-body'th request
with a body larger than --drop-min bytes has its connection dropped after forwarding part of the
body to the registry ("drop"), or cut off halfway with nothing forwarded, as a buffering load
balancer would ("cut": the registry's upload state stays consistent, so the client can resume). At most --max-faults faults are injected, so a well-behaved client always
finishes. Listens on 127.0.0.1 only; forwards to 127.0.0.1 only. Writes one line per fault to --log;
with --log-requests also one line per request ("request METHOD TARGET"), so a test can count what a
client sent (with --max-faults 0 it is a plain counting proxy).
"""
import argparse
import base64
import socket
import sys
import threading
import time

# Requests with a large body (blob uploads) and all others are counted separately, so every kind of
# fault reliably lands where it matters, whatever the interleaving of parallel uploads.
BODY_FAULTS = ["drop", "cut", "503"]
OTHER_FAULTS = ["503", "429", "500"]


class State:
    def __init__(self, args):
        self.args = args
        self.lock = threading.Lock()
        self.counts = {True: 0, False: 0}
        self.injected = {True: 0, False: 0}
        self.faults = 0

    def next_download_fault(self):
        with self.lock:
            self.downloads = getattr(self, "downloads", 0) + 1
            if self.faults >= self.args.max_faults or self.downloads % self.args.every_download != 0:
                return None
            self.faults += 1
            return "cutresp"

    def next_fault(self, has_big_body):
        with self.lock:
            every = self.args.every_body if has_big_body else self.args.every
            self.counts[has_big_body] += 1
            if self.faults >= self.args.max_faults or self.counts[has_big_body] % every != 0:
                return None
            kinds = BODY_FAULTS if has_big_body else OTHER_FAULTS
            kind = kinds[self.injected[has_big_body] % len(kinds)]
            self.injected[has_big_body] += 1
            self.faults += 1
            return kind


def read_head(sock):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return None, b""
        data += chunk
        if data[:1] == b"\x16":  # a TLS handshake: this is a plain-HTTP proxy, hang up at once
            return None, b""
        if len(data) > 1 << 20:
            return None, b""
    head, _, rest = data.partition(b"\r\n\r\n")
    return head.decode("latin-1"), rest


def header_value(head, name):
    for line in head.split("\r\n")[1:]:
        k, _, v = line.partition(":")
        if k.strip().lower() == name:
            return v.strip()
    return None


def send_error(client, status, log):
    reason = {"500": "Internal Server Error", "503": "Service Unavailable", "429": "Too Many Requests"}[status]
    body = b'{"errors":[{"code":"TOOMANYREQUESTS","message":"injected fault"}]}' if status == "429" else b"injected fault"
    extra = "Retry-After: 1\r\n" if status in ("429", "503") else ""
    client.sendall((f"HTTP/1.1 {status} {reason}\r\nContent-Length: {len(body)}\r\n{extra}"
                    "Connection: close\r\n\r\n").encode() + body)


def handle(client, state):
    args = state.args
    upstream = None
    try:
        head, rest = read_head(client)
        if head is None:
            return
        method, target = head.split(" ", 2)[:2]
        length = int(header_value(head, "content-length") or "0")
        if args.log_requests:
            with state.lock, open(args.log, "a") as f:
                f.write(f"request {method} {target}\n")
        fault = None
        if args.redirect_blobs_to and method == "GET" and "/blobs/sha256:" in target:
            # Send the client to "storage": another proxy, on another port (another origin).
            client.sendall(f"HTTP/1.1 307 Temporary Redirect\r\nLocation: http://{args.redirect_blobs_to}{target}\r\n"
                           "Content-Length: 0\r\nConnection: close\r\n\r\n".encode())
            return
        if args.upstream_auth:
            # Playing storage: note whether the client sent credentials, then use our own.
            with open(args.log, "a") as f:
                auth = "present" if header_value(head, "authorization") else "absent"
                f.write(f"storage authorization={auth} {method} {target}\n")
            lines = [l for l in head.split("\r\n") if not l.lower().startswith("authorization:")]
            lines.append("Authorization: Basic " + base64.b64encode(args.upstream_auth.encode()).decode())
            head = "\r\n".join(lines)
        elif args.every_download and method == "GET" and "/blobs/sha256:" in target:
            fault = state.next_download_fault()
        else:
            fault = state.next_fault(length >= args.drop_min)
        if fault:
            with open(args.log, "a") as f:
                f.write(f"{fault} {head.splitlines()[0]}\n")
        if fault in ("500", "503", "429"):
            # Drain the body so the client reads the answer, not a reset.
            remaining = length - len(rest)
            while remaining > 0:
                chunk = client.recv(min(remaining, 1 << 20))
                if not chunk:
                    break
                remaining -= len(chunk)
            send_error(client, fault, args.log)
            return
        if args.delay_ms and length > 0:
            time.sleep(args.delay_ms / 1000.0)  # slow uploads down, so a test can interrupt one
        if fault == "cut":
            remaining = length // 2 - len(rest)
            while remaining > 0:
                chunk = client.recv(min(remaining, 1 << 20))
                if not chunk:
                    break
                remaining -= len(chunk)
            return
        upstream = socket.create_connection(("127.0.0.1", args.upstream_port))
        lines = [l for l in head.split("\r\n") if not l.lower().startswith("connection:")]
        upstream.sendall(("\r\n".join(lines) + "\r\nConnection: close\r\n\r\n").encode("latin-1"))
        limit = length // 2 if fault == "drop" else length
        sent = 0
        if rest:
            piece = rest[: limit - sent] if limit < len(rest) else rest
            upstream.sendall(piece)
            sent += len(piece)
        while sent < limit:
            chunk = client.recv(min(limit - sent, 1 << 20))
            if not chunk:
                return
            upstream.sendall(chunk)
            sent += len(chunk)
        if fault == "drop":
            # Half the body reached the registry; now both connections die.
            return
        if fault == "cutresp":
            # Relay the headers and half the body of the download, then hang up.
            head_out, body = read_head(upstream)
            if head_out is None:
                return
            total = int(header_value(head_out, "content-length") or "0")
            client.sendall(head_out.encode("latin-1") + b"\r\n\r\n")
            half, sent_body = total // 2, 0
            while sent_body < half:
                if not body:
                    body = upstream.recv(1 << 20)
                    if not body:
                        break
                piece = body[: half - sent_body]
                client.sendall(piece)
                sent_body += len(piece)
                body = body[len(piece):]
            return
        # Relay the answer until the registry closes (it was asked to).
        while True:
            chunk = upstream.recv(1 << 20)
            if not chunk:
                break
            client.sendall(chunk)
    except OSError:
        pass
    finally:
        for s in (client, upstream):
            if s is not None:
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                s.close()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--upstream-port", type=int, required=True)
    p.add_argument("--every", type=int, default=4, help="fault every N-th request without a large body")
    p.add_argument("--every-body", type=int, default=2, help="fault every N-th request with a large body")
    p.add_argument("--every-download", type=int, default=0, help="cut every N-th blob download halfway (0: never)")
    p.add_argument("--max-faults", type=int, default=12)
    p.add_argument("--drop-min", type=int, default=1 << 20)
    p.add_argument("--delay-ms", type=int, default=0, help="wait this long before forwarding a request with a body")
    p.add_argument("--redirect-blobs-to", default="", help="HOST:PORT: answer blob GETs with a 307 there")
    p.add_argument("--upstream-auth", default="", help="USER:PASS: play storage, forward every request with these")
    p.add_argument("--log-requests", action="store_true", help="log every request, not only faults")
    p.add_argument("--log", required=True)
    args = p.parse_args()
    state = State(args)
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", args.port))
    srv.listen(64)
    print("ready", flush=True)
    while True:
        client, _ = srv.accept()
        threading.Thread(target=handle, args=(client, state), daemon=True).start()


if __name__ == "__main__":
    sys.exit(main())
