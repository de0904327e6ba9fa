#!/usr/bin/env python3
"""An HTTP proxy for the tests that sits between rockpack and a loopback registry and misbehaves.

One request per client connection (answers carry Connection: close). Requests are numbered; every
--every'th one gets an HTTP error (503 or 429 with Retry-After, 500); every --every-body'th request
with a body larger than --drop-min bytes has its connection dropped after forwarding part of the
body to the registry ("drop"), or cut off halfway with nothing forwarded, as a buffering load
balancer would ("cut": the registry's upload state stays consistent, so the client can resume). At most --max-faults faults are injected, so a well-behaved client always
finishes. Listens on 127.0.0.1 only; forwards to 127.0.0.1 only. Writes one line per fault to --log.

For any HTTP server (package indexes, static file hosts, apt repositories), not only registries:
  --cut-downloads-matching REGEX  the GETs whose target matches (instead of registry blob GETs) are the
                                  "downloads" that --every-download cuts off halfway through the body
  --errors KINDS                  the cycle of HTTP errors for requests without a large body, e.g.
                                  "503,429-,500,429,503-": a trailing '-' means without Retry-After
  --retry-after SECONDS           the Retry-After value sent with 429/503 (default 1)
  --drop-rate P --seed N          additionally, each request is dropped with probability P: its
                                  connection is closed after half the answer's body (or with no
                                  answer when it has none). The draw depends only on the seed, the
                                  request (method, target, Range) and how often that request was seen,
                                  so a run is repeatable whatever the interleaving of parallel requests
  --max-faults -1                 no bound (every fault the options ask for is injected)
  --max-faults-per-request N      at most N faults in a row for one request (method, target, Range): a
                                  client that retries more than N times always gets through
  --timestamps                    fault lines end with " t=SECONDS" (time.time(), when the request came)
                                  and, for 429/503, " retry-after=N"
  --log-requests                  every request that was passed through is logged too ("pass METHOD
                                  TARGET[ range=...] t=..."), so a test can find the retry after a fault
"""
import argparse
import base64
import hashlib
import re
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

        self.seen = {}      # request key -> how often it came
        self.in_a_row = {}  # request key -> faults injected on it since it last got through

    def budget_left(self):
        return self.args.max_faults < 0 or self.faults < self.args.max_faults

    @staticmethod
    def streak_key(key):
        # A download resumed with another Range is the same request as far as a streak goes.
        return key.split(" range=")[0]

    def key_allows(self, key):
        limit = self.args.max_faults_per_request
        return limit <= 0 or self.in_a_row.get(self.streak_key(key), 0) < limit

    def note(self, key, fault):
        # Called with the lock held, once per request, with the fault chosen for it (or None).
        k = self.streak_key(key)
        if fault:
            self.faults += 1
            self.in_a_row[k] = self.in_a_row.get(k, 0) + 1
        else:
            self.in_a_row[k] = 0
        return fault

    def random_drop(self, key):
        # Deterministic per (seed, request, occurrence): repeatable whatever the thread interleaving.
        if self.args.drop_rate <= 0:
            return False
        n = self.seen.get(key, 0)
        self.seen[key] = n + 1
        h = hashlib.sha256(f"{self.args.seed}|{key}|{n}".encode()).digest()
        return int.from_bytes(h[:8], "big") / 2.0**64 < self.args.drop_rate

    def choose(self, key, download, big_body):
        """The fault for one request, or None. `download`: a GET the cut applies to."""
        a = self.args
        with self.lock:
            counted = not download or bool(a.cut_downloads_matching)  # old mode: blob GETs count apart
            if download:
                self.downloads = getattr(self, "downloads", 0) + 1
            if counted:
                self.counts[big_body] += 1
            if not self.budget_left() or not self.key_allows(key):
                return self.note(key, None)
            if download and a.every_download and self.downloads % a.every_download == 0:
                return self.note(key, "cutresp")
            every = a.every_body if big_body else a.every
            if counted and every > 0 and self.counts[big_body] % every == 0:
                kinds = BODY_FAULTS if big_body else a.errors
                kind = kinds[self.injected[big_body] % len(kinds)]
                self.injected[big_body] += 1
                return self.note(key, kind)
            if self.random_drop(key):
                return self.note(key, "dropresp")
            return self.note(key, None)


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


def send_error(client, status, log, retry_after=1):
    # "429-" / "503-": the same status without a Retry-After header.
    with_ra = not status.endswith("-")
    status = status.rstrip("-")
    reason = {"500": "Internal Server Error", "503": "Service Unavailable", "429": "Too Many Requests"}[status]
    body = b'{"errors":[{"code":"TOOMANYREQUESTS","message":"injected fault"}]}' if status == "429" else b"injected fault"
    extra = f"Retry-After: {retry_after}\r\n" if status in ("429", "503") and with_ra else ""
    client.sendall((f"HTTP/1.1 {status} {reason}\r\nContent-Length: {len(body)}\r\n{extra}"
                    "Connection: close\r\n\r\n").encode() + body)


def relay_half_answer(client, upstream, head_out, body, total):
    """Sends the answer's headers and the first half of its body (`body`: what read_head already read)."""
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


def handle(client, state):
    args = state.args
    upstream = None
    try:
        head, rest = read_head(client)
        if head is None:
            return
        now = time.time()
        method, target = head.split(" ", 2)[:2]
        length = int(header_value(head, "content-length") or "0")
        rng = header_value(head, "range")
        key = f"{method} {target}" + (f" range={rng}" if rng else "")
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
        else:
            if args.cut_downloads_matching:
                download = method == "GET" and re.search(args.cut_downloads_matching, target) is not None
            else:
                download = bool(args.every_download) and method == "GET" and "/blobs/sha256:" in target
            fault = state.choose(key, download, length >= args.drop_min)
        if fault or args.log_requests:
            line = f"{fault} {head.splitlines()[0]}" if fault else f"pass {method} {target}"
            if args.timestamps or args.log_requests:
                if rng:
                    line += f" range={rng}"
                line += f" t={now:.3f}"
                if fault in ("429", "503"):
                    line += f" retry-after={args.retry_after}"
            with open(args.log, "a") as f:
                f.write(line + "\n")
        if fault in ("500", "503", "429", "503-", "429-"):
            # Drain the body so the client reads the answer, not a reset.
            remaining = length - len(rest)
            while remaining > 0:
                chunk = client.recv(min(remaining, 1 << 20))
                if not chunk:
                    break
                remaining -= len(chunk)
            send_error(client, fault, args.log, args.retry_after)
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
        if fault == "dropresp":
            # A connection lost mid-answer: half the body (none when there is none), then nothing.
            head_out, body = read_head(upstream)
            if head_out is None:
                return
            total = int(header_value(head_out, "content-length") or "0")
            if total < 2 or method == "HEAD":
                return
            relay_half_answer(client, upstream, head_out, body, total)
            return
        if fault == "cutresp":
            # Relay the headers and half the body of the download, then hang up.
            head_out, body = read_head(upstream)
            if head_out is None:
                return
            total = int(header_value(head_out, "content-length") or "0")
            relay_half_answer(client, upstream, head_out, body, total)
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
    p.add_argument("--max-faults", type=int, default=12, help="at most this many faults (-1: no bound)")
    p.add_argument("--max-faults-per-request", type=int, default=0,
                   help="at most N faults in a row on one request (method, target, Range); 0: no limit")
    p.add_argument("--cut-downloads-matching", default="", help="REGEX: GETs whose target matches are the downloads --every-download cuts")
    p.add_argument("--errors", default=",".join(OTHER_FAULTS),
                   help="cycle of errors for requests without a large body: 500, 503, 429; 503-/429-: without Retry-After")
    p.add_argument("--retry-after", type=int, default=1, help="the Retry-After seconds sent with 429 and 503")
    p.add_argument("--drop-rate", type=float, default=0.0, help="drop this share of requests mid-answer (seeded)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--timestamps", action="store_true", help="fault lines end with t=SECONDS")
    p.add_argument("--log-requests", action="store_true", help="log the requests passed through too")
    p.add_argument("--drop-min", type=int, default=1 << 20)
    p.add_argument("--delay-ms", type=int, default=0, help="wait this long before forwarding a request with a body")
    p.add_argument("--redirect-blobs-to", default="", help="HOST:PORT: answer blob GETs with a 307 there")
    p.add_argument("--upstream-auth", default="", help="USER:PASS: play storage, forward every request with these")
    p.add_argument("--log", required=True)
    p.add_argument("--port-file", default="", help="write the port here once listening (with --port 0)")
    args = p.parse_args()
    args.errors = [e.strip() for e in args.errors.split(",") if e.strip()]
    for e in args.errors:
        if e.rstrip("-") not in ("500", "503", "429") or (e.endswith("-") and e == "500-"):
            p.error(f"--errors: unknown kind {e!r}")
    state = State(args)
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", args.port))
    srv.listen(64)
    if args.port_file:
        with open(args.port_file + ".tmp", "w") as f:
            f.write(str(srv.getsockname()[1]))
        import os
        os.rename(args.port_file + ".tmp", args.port_file)
    print("ready", flush=True)
    while True:
        client, _ = srv.accept()
        threading.Thread(target=handle, args=(client, state), daemon=True).start()


if __name__ == "__main__":
    sys.exit(main())
