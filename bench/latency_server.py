#!/usr/bin/env python3
"""Serves a directory over HTTP/1.1 on loopback as a distant mirror would: every response starts
LATENCY ms after its request arrived (a round trip to a real mirror is ~30 ms), whatever the client
does meanwhile. Requests pipelined on one connection (as apt sends them) each wait from their own
arrival, and are answered in order; parallel connections wait in parallel. Bandwidth is loopback's.

    latency_server.py DIR [--latency-ms 30] [--port 0] [--port-file FILE]

GET and HEAD of DIR/path (200 with Content-Length, keep-alive), 404 otherwise or for a path leaving
DIR. /__stats answers {"requests": N, "connections": N}. Standard library only.
"""
import argparse
import asyncio
import json
import os
import time
import urllib.parse

STATS = {"requests": 0, "connections": 0}


def resolve(root, target):
    path = urllib.parse.unquote(urllib.parse.urlsplit(target).path)
    full = os.path.realpath(os.path.join(root, path.lstrip("/")))
    if full != root and not full.startswith(root + os.sep):
        return None
    return full if os.path.isfile(full) else None


async def respond(writer, root, method, target, close):
    if target.startswith("/__stats"):
        body = json.dumps(STATS).encode()
        head = f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n"
        writer.write((head + ("Connection: close\r\n" if close else "") + "\r\n").encode() + body)
        return
    STATS["requests"] += 1
    full = resolve(root, target)
    if full is None:
        body = b"not found\n"
        head = f"HTTP/1.1 404 Not Found\r\nContent-Length: {len(body)}\r\n"
        writer.write((head + ("Connection: close\r\n" if close else "") + "\r\n").encode() + (b"" if method == "HEAD" else body))
        return
    size = os.path.getsize(full)
    head = f"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: {size}\r\n"
    writer.write((head + ("Connection: close\r\n" if close else "") + "\r\n").encode())
    if method == "HEAD":
        return
    with open(full, "rb") as f:
        while chunk := f.read(1 << 20):
            writer.write(chunk)
            await writer.drain()


async def handle(reader, writer, root, latency):
    STATS["connections"] += 1
    queue = asyncio.Queue()

    async def read_requests():
        # Reads requests as they come, stamping each with its arrival time.
        while True:
            line = await reader.readline()
            if not line:
                break
            arrived = time.monotonic()
            headers = {}
            while True:
                h = await reader.readline()
                if h in (b"\r\n", b"\n", b""):
                    break
                k, _, v = h.decode("latin-1").partition(":")
                headers[k.strip().lower()] = v.strip()
            parts = line.decode("latin-1").split()
            if len(parts) < 3:
                break
            close = headers.get("connection", "").lower() == "close"
            await queue.put((arrived, parts[0], parts[1], close))
            if close:
                break
        await queue.put(None)

    reading = asyncio.ensure_future(read_requests())
    try:
        while (item := await queue.get()) is not None:
            arrived, method, target, close = item
            wait = arrived + latency - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            await respond(writer, root, method, target, close)
            await writer.drain()
            if close:
                break
    except (ConnectionError, asyncio.IncompleteReadError):
        pass
    finally:
        reading.cancel()
        writer.close()


async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("root")
    ap.add_argument("--latency-ms", type=float, default=30.0)
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--port-file")
    args = ap.parse_args()
    root = os.path.realpath(args.root)
    server = await asyncio.start_server(lambda r, w: handle(r, w, root, args.latency_ms / 1000.0), "127.0.0.1", args.port)
    port = server.sockets[0].getsockname()[1]
    if args.port_file:
        with open(args.port_file + ".tmp", "w") as f:
            f.write(str(port))
        os.replace(args.port_file + ".tmp", args.port_file)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main())
