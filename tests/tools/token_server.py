#!/usr/bin/env python3
"""A docker token-auth server for the tests (loopback only, stdlib + the openssl CLI).

GET /token?service=S&scope=repository:NAME:ACTIONS... with optional Basic credentials answers
{"token", "access_token", "expires_in"} carrying an RS256 JWT whose header has an x5c chain the
registry trusts through its rootcertbundle. Authenticated users get the actions they ask for;
anonymous clients get "pull" only. POST /token (grant_type=refresh_token) accepts the refresh
token given with --refresh-token as the user. Every request is appended to --log as one JSON line
(without credentials) so tests can check which scopes were asked for.
"""
import argparse
import base64
import json
import subprocess
import sys
import threading
import time
import urllib.parse
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class Signer:
    def __init__(self, key: str, cert: str):
        self.key = key
        der = subprocess.run(["openssl", "x509", "-in", cert, "-outform", "DER"], check=True,
                             capture_output=True).stdout
        self.x5c = base64.b64encode(der).decode()
        self.lock = threading.Lock()

    def sign(self, claims: dict) -> str:
        header = {"typ": "JWT", "alg": "RS256", "x5c": [self.x5c]}
        signing_input = b64url(json.dumps(header).encode()) + "." + b64url(json.dumps(claims).encode())
        sig = subprocess.run(["openssl", "dgst", "-sha256", "-sign", self.key], input=signing_input.encode(),
                             check=True, capture_output=True).stdout
        return signing_input + "." + b64url(sig)


def make_handler(args, signer):
    users = {}
    for u in args.user:
        name, _, password = u.partition(":")
        users[name] = password
    log_lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass

        def record(self, entry):
            if args.log:
                with log_lock, open(args.log, "a") as f:
                    f.write(json.dumps(entry) + "\n")

        def deny(self, code=401):
            body = json.dumps({"errors": [{"code": "UNAUTHORIZED", "message": "bad credentials"}]}).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def grant(self, user, scopes, service, via):
            access = []
            for scope in scopes:
                parts = scope.split(":")
                if len(parts) < 3:
                    continue
                typ, name, actions = parts[0], ":".join(parts[1:-1]), parts[-1].split(",")
                allowed = [a for a in actions if user is not None or a == "pull"]
                access.append({"type": typ, "name": name, "actions": allowed})
            now = int(time.time())
            claims = {"iss": args.issuer, "sub": user or "", "aud": service, "exp": now + args.expires_in,
                      "nbf": now - 10, "iat": now, "jti": uuid.uuid4().hex, "access": access}
            token = signer.sign(claims)
            self.record({"user": user, "scopes": scopes, "service": service, "via": via})
            body = json.dumps({"token": token, "access_token": token, "expires_in": args.expires_in}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            url = urllib.parse.urlparse(self.path)
            q = urllib.parse.parse_qs(url.query)
            user = None
            auth = self.headers.get("Authorization", "")
            if auth.startswith("Basic "):
                name, _, password = base64.b64decode(auth[6:]).decode().partition(":")
                if users.get(name) != password:
                    self.record({"user": name, "denied": True})
                    return self.deny()
                user = name
            self.grant(user, q.get("scope", []), q.get("service", [""])[0], "basic" if user else "anonymous")

        def do_POST(self):
            length = int(self.headers.get("Content-Length", "0"))
            form = urllib.parse.parse_qs(self.rfile.read(length).decode())
            if form.get("grant_type", [""])[0] != "refresh_token" or \
                    form.get("refresh_token", [""])[0] != args.refresh_token or not args.refresh_token:
                self.record({"refresh": True, "denied": True})
                return self.deny()
            self.grant(args.refresh_user, form.get("scope", []), form.get("service", [""])[0], "refresh")

    return Handler


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--key", required=True)
    p.add_argument("--cert", required=True)
    p.add_argument("--issuer", default="rptest-issuer")
    p.add_argument("--user", action="append", default=[], help="NAME:PASSWORD")
    p.add_argument("--refresh-token", default="")
    p.add_argument("--refresh-user", default="tokenuser")
    p.add_argument("--expires-in", type=int, default=300)
    p.add_argument("--log", default="")
    args = p.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", args.port), make_handler(args, Signer(args.key, args.cert)))
    server.daemon_threads = True
    print("ready", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
