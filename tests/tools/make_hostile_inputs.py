#!/usr/bin/env python3
"""Writes the cases of the hostile-inputs drill (tests/integration/test_drill_hostile_inputs.sh).

    make_hostile_inputs.py OUTDIR --outside DIR

Each case is a directory OUTDIR/cases/NAME holding its inputs (recipe.yaml and whatever it names)
and its expectation, one plain file each so the shell reads them without a parser:
    cmd        build (default) or validate
    exit       the exit code rockpack must give: 2 bad input, 1 a failure of something fetched/verified
    class      the class of input (recipe, base, wheel, index, apt, rocm): sets the memory limit
    contains   keywords the message must hold, one a line (what, where, what to do)
    absent     paths that must not exist afterwards (traversal targets under --outside), one a line
    args       extra command-line arguments, one a line
    needs      what must be running first: index, static, apt, registry (empty: nothing)
Recipes may hold placeholders the drill replaces once its loopback servers run: @INDEX@ (an
index_server.py over OUTDIR/index), @STATIC@ (static_server.py over OUTDIR/static), @APT@ (the
apt_repo.sh repository), @APTKEYS@ (its keys directory), @REGISTRY@ (hostile_registry.py over
OUTDIR/registry, as HOST:PORT).

Everything is small except where size is the point (a 50 MB value, a decompression bomb). Output is
deterministic. Standard library only.
"""

import argparse
import base64
import gzip
import hashlib
import io
import json
import os
import shutil
import struct
import sys
import tarfile
import zipfile
import warnings
import zlib

warnings.filterwarnings("ignore", message="Duplicate name")  # duplicate members are a case

OUT = ""
OUTSIDE = ""
BUSYBOX = ""
MTIME = 1577836800
ZIP_TIME = (2020, 1, 1, 0, 0, 0)
MB = 1 << 20


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def write(path, data, mode=0o644):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb" if isinstance(data, bytes) else "w") as f:
        f.write(data)
    os.chmod(path, mode)


def case(name, recipe, exit_code, klass, contains, cmd="build", absent=(), args=(), needs="", files=None):
    """Writes one case: its recipe, its expectation and extra files {relative path: bytes}."""
    d = os.path.join(OUT, "cases", name)
    os.makedirs(d, exist_ok=True)
    if recipe is not None:
        write(os.path.join(d, "recipe.yaml"), recipe)
    for rel, data in (files or {}).items():
        write(os.path.join(d, rel), data)
    write(os.path.join(d, "cmd"), cmd + "\n")
    write(os.path.join(d, "exit"), f"{exit_code}\n")
    write(os.path.join(d, "class"), klass + "\n")
    write(os.path.join(d, "contains"), "".join(c + "\n" for c in contains))
    write(os.path.join(d, "absent"), "".join(a + "\n" for a in absent))
    write(os.path.join(d, "args"), "".join(a + "\n" for a in args))
    write(os.path.join(d, "needs"), needs + "\n")
    return d


def escape_path(name):
    """An absolute path under --outside that a traversal case aims at (must never be created)."""
    return os.path.join(OUTSIDE, name)


def dotdot(name):
    """A relative name that climbs to / from anywhere, then down to escape_path(name)."""
    return "../" * 24 + escape_path(name).lstrip("/")


# ---- tar and gzip ------------------------------------------------------------------------------

def tar_bytes(members, fmt=tarfile.GNU_FORMAT):
    """members: list of (name, kind, data_or_target, mode); kind file|dir|symlink|hardlink."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=fmt) as t:
        for name, kind, data, mode in members:
            ti = tarfile.TarInfo(name)
            ti.mtime = MTIME
            ti.mode = mode
            if kind == "file":
                ti.size = len(data)
                t.addfile(ti, io.BytesIO(data))
                continue
            if kind == "dir":
                ti.type = tarfile.DIRTYPE
            elif kind == "symlink":
                ti.type = tarfile.SYMTYPE
                ti.linkname = data
            elif kind == "hardlink":
                ti.type = tarfile.LNKTYPE
                ti.linkname = data
            t.addfile(ti)
    return buf.getvalue()


def pax_tar(members):
    """A tar written by hand, for names no tar library writes: members are (pax, name, kind, data)
    with `pax` a dict of PAX records (bytes values, any byte allowed: "path" with a NUL in it) put in
    an extended header before the member; kind file|dir|symlink|hardlink (data: bytes or link target)."""
    def header(name, typeflag, size, linkname=b""):
        h = bytearray(512)
        h[0:len(name[:100])] = name[:100]
        h[100:108] = b"0000644\0"
        h[108:116] = b"0000000\0"
        h[116:124] = b"0000000\0"
        h[124:136] = b"%011o\0" % size
        h[136:148] = b"%011o\0" % MTIME
        h[148:156] = b" " * 8
        h[156:157] = typeflag
        h[157:157 + len(linkname[:100])] = linkname[:100]
        h[257:265] = b"ustar\x0000"
        h[148:156] = b"%06o\0 " % sum(h)
        return bytes(h)

    def pad(data):
        return data + bytes(-len(data) % 512)

    out = []
    for pax, name, kind, data in members:
        if pax:
            records = b""
            for k, v in pax.items():
                body = b" " + k.encode() + b"=" + v + b"\n"
                n = len(body) + 1
                while len(str(n)) + len(body) != n:
                    n = len(str(n)) + len(body)
                records += str(n).encode() + body
            out += [header(b"PaxHeaders/x", b"x", len(records)), pad(records)]
        if kind == "file":
            out += [header(name, b"0", len(data)), pad(data)]
        elif kind == "dir":
            out.append(header(name, b"5", 0))
        elif kind == "symlink":
            out.append(header(name, b"2", 0, data))
        elif kind == "hardlink":
            out.append(header(name, b"1", 0, data))
    out.append(bytes(1024))
    return b"".join(out)


def gz(data):
    return gzip.compress(data, compresslevel=6, mtime=0)


def f(name, data, mode=0o644):
    return (name, "file", data if isinstance(data, bytes) else data.encode(), mode)


# ---- OCI layouts ---------------------------------------------------------------------------------

MT_MANIFEST = "application/vnd.oci.image.manifest.v1+json"
MT_INDEX = "application/vnd.oci.image.index.v1+json"
MT_CONFIG = "application/vnd.oci.image.config.v1+json"
MT_LAYER_GZ = "application/vnd.oci.image.layer.v1.tar+gzip"


class Layout:
    """An OCI layout written blob by blob; broken ones are made by writing wrong blobs on purpose."""

    def __init__(self, path):
        self.path = path
        os.makedirs(os.path.join(path, "blobs", "sha256"), exist_ok=True)
        write(os.path.join(path, "oci-layout"), '{"imageLayoutVersion":"1.0.0"}')

    def blob(self, data, name=None):
        digest = name or sha256(data)
        write(os.path.join(self.path, "blobs", "sha256", digest), data)
        return {"digest": "sha256:" + sha256(data), "size": len(data)}

    def index(self, manifests):
        write(os.path.join(self.path, "index.json"),
              json.dumps({"schemaVersion": 2, "mediaType": MT_INDEX, "manifests": manifests}))


def image_json(layers, diff_ids, config=None):
    """The config blob of an image whose layers have these diff_ids (`layers` only documents the call)."""
    config = {"architecture": "amd64", "os": "linux", "config": config or {},
              "rootfs": {"type": "layers", "diff_ids": diff_ids}}
    return json.dumps(config, sort_keys=True).encode()


def oci_image(path, layer_tars, tag="base", diff_ids=None, tamper=None, compressed=None, config=None):
    """An OCI layout with one image of these (uncompressed) layer tars, tagged `tag`.
    tamper(kind) hooks: 'missing' leaves the first layer blob out, 'digest' stores other bytes under
    its name, 'size' gives the descriptor a wrong size."""
    lay = Layout(path)
    descs = []
    for i, tar in enumerate(layer_tars):
        blob = compressed[i] if compressed else gz(tar)
        d = {"mediaType": MT_LAYER_GZ, "digest": "sha256:" + sha256(blob), "size": len(blob)}
        if i == 0 and tamper == "missing":
            pass
        elif i == 0 and tamper == "digest":
            other = bytearray(blob)
            other[len(other) // 2] ^= 0xFF
            lay.blob(bytes(other), name=sha256(blob))
        else:
            lay.blob(blob)
        if i == 0 and tamper == "size":
            d["size"] = len(blob) + 7
        descs.append(d)
    ids = diff_ids or ["sha256:" + sha256(t) for t in layer_tars]
    cfg = lay.blob(image_json(layer_tars, ids, config))
    manifest = {"schemaVersion": 2, "mediaType": MT_MANIFEST,
                "config": {"mediaType": MT_CONFIG, **cfg}, "layers": descs}
    m = lay.blob(json.dumps(manifest, sort_keys=True).encode())
    lay.index([{"mediaType": MT_MANIFEST, **m, "annotations": {"org.opencontainers.image.ref.name": tag}}])
    return lay


def tar_dir(path, prefix=""):
    """The files under path as tar members (sorted), for oci-archive files."""
    members = []
    for root, dirs, files in os.walk(path):
        dirs.sort()
        for fn in sorted(files):
            full = os.path.join(root, fn)
            rel = os.path.relpath(full, path)
            with open(full, "rb") as fh:
                members.append(f(prefix + rel, fh.read()))
    return members


def plain_layer():
    return tar_bytes([("etc", "dir", None, 0o755), f("etc/hostname", "hostile\n")])


def base_recipe(base):
    return f"name: hostile\nbase: {base}\nfiles:\n  - content: \"x\\n\"\n    dest: /etc/drill\n"


# ---- cases: recipes ------------------------------------------------------------------------------

def recipe_cases():
    # A "billion laughs": 9 levels of 9 aliases (9^9 ~ 387 M nodes once expanded) in well under 1 MB.
    lines = ['name: hostile', 'x0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for i in range(1, 10):
        p = f"*a{i-1}"
        lines.append(f"x{i}: &a{i} [{', '.join([p] * 9)}]")
    lines.append("labels: {bomb: *a9}")
    case("yaml-alias-bomb", "\n".join(lines) + "\n", 2, "recipe", ["recipe.yaml", "alias"], cmd="validate")
    case("yaml-alias-bomb-build", "\n".join(lines) + "\n", 2, "recipe", ["recipe.yaml", "alias"])

    case("yaml-deep-nesting", "name: hostile\nlabels: " + "[" * 100000 + "]" * 100000 + "\n", 2, "recipe",
         ["recipe.yaml", "nested"], cmd="validate")
    case("yaml-deep-maps", "name: hostile\nlabels: " + "{a: " * 20000 + "1" + "}" * 20000 + "\n", 2, "recipe",
         ["recipe.yaml", "nested"], cmd="validate")

    # 50 MB quoted (yaml-cpp reads a plain scalar of that size half as fast again).
    huge = "A" * (50 * MB)
    case("yaml-huge-scalar-name", f'name: "{huge}"\n', 2, "recipe", ["recipe.yaml", "name", "bytes)"],
         cmd="validate")
    # An explicit key (? KEY) is not held to YAML's 1024-character limit on implicit keys.
    case("yaml-huge-unknown-key", f"name: hostile\n? {'K' * (8 * MB)}\n: 1\n", 2, "recipe",
         ["recipe.yaml", "unknown key"], cmd="validate")
    case("yaml-huge-base-ref", f"name: hostile\nbase: {'b' * MB}:latest\n", 2, "recipe",
         ["recipe.yaml", "base"], cmd="validate")
    # 2 Mi one-letter items in 4 MB: loading them whole took 1 GB.
    case("yaml-many-items", "name: hostile\ntags: [" + ",".join(["t"] * (2 * MB)) + "]\n", 2, "recipe",
         ["recipe.yaml", "values"], cmd="validate")
    case("yaml-wrong-types", "name: [a, b]\nfiles: just-a-string\nenv: [1, 2]\nuser: {a: 1}\n", 2, "recipe",
         ["recipe.yaml:1", "recipe.yaml:2", "files", "env"], cmd="validate")
    case("yaml-unknown-keys", "name: hostile\nentrypont: [sh]\nfiels: []\n", 2, "recipe",
         ["unknown key 'entrypont'", "did you mean 'entrypoint'", "fiels"], cmd="validate")
    case("yaml-not-a-mapping", "- a\n- b\n", 2, "recipe", ["recipe.yaml", "mapping"], cmd="validate")
    case("yaml-binary-garbage", None, 2, "recipe", ["recipe.yaml"], cmd="validate",
         files={"recipe.yaml": bytes(range(256)) * 64})
    case("yaml-syntax-error", "name: hostile\nfiles: [\n  {dest: /a, content: x\n", 2, "recipe",
         ["recipe.yaml:"], cmd="validate")
    case("yaml-bad-ref", "name: hostile\nbase: 'Not A Ref!!@@sha256:zz'\n", 2, "recipe",
         ["recipe.yaml:2", "base"], cmd="validate")
    case("yaml-bad-name", "name: 'UPPER/../case name'\n", 2, "recipe", ["recipe.yaml:1", "name"], cmd="validate")
    case("yaml-include-cycle", "name: hostile\ninclude: [a.yaml]\n", 2, "recipe", ["cycle", "a.yaml", "b.yaml"],
         cmd="validate", files={"a.yaml": "include: [b.yaml]\n", "b.yaml": "include: [a.yaml]\n"})
    case("yaml-include-self", "name: hostile\ninclude: [recipe.yaml]\n", 2, "recipe", ["cycle", "recipe.yaml"],
         cmd="validate")
    # An include that climbs out to a file that is no fragment (/etc/passwd): refused without echoing it.
    case("yaml-include-traversal", "name: hostile\ninclude: [" + "../" * 20 + "etc/passwd]\n", 2, "recipe",
         ["passwd", "mapping"], cmd="validate")
    case("yaml-include-missing-deep", "name: hostile\ninclude: [" + "x/" * 2000 + "y.yaml]\n", 2, "recipe",
         ["recipe.yaml", "include"], cmd="validate")
    case("yaml-undefined-var", "name: hostile\nargs: {GREETING: hi}\nfiles:\n  - content: ${GRETING}\n    dest: /x\n",
         2, "recipe", ["recipe.yaml:4", "GRETING", "GREETING"], cmd="validate")
    case("yaml-arg-self-reference", "name: hostile\nargs: {A: '${A}${A}'}\nlabels: {x: '${A}'}\n", 2, "recipe",
         ["recipe.yaml", "A"], cmd="validate")
    # Args injection: a --set value is data, never a path, a key or a command.
    case("args-inject-undeclared", "name: hostile\nargs: {X: a}\n", 2, "recipe", ["NOPE", "--set"],
         cmd="validate", args=["--set", "NOPE=$(touch " + escape_path("args-undeclared") + ")"],
         absent=[escape_path("args-undeclared")])
    case("args-inject-dest-traversal",
         "name: hostile\nargs: {D: x}\nfiles:\n  - content: pwned\n    dest: /etc/${D}\n", 2, "recipe",
         ["recipe.yaml", "dest"], args=["--set", "D=../../" + escape_path("args-dest").lstrip("/")],
         absent=[escape_path("args-dest")])
    case("args-inject-src-var",
         "name: hostile\nargs: {S: x}\nfiles:\n  - src: sub/${S}\n    dest: /x\n", 2, "recipe",
         ["recipe.yaml", "src"], args=["--set", "S=../../../../../../../../etc/shadow"],
         files={"sub/.keep": b""})
    case("args-inject-huge-set", "name: hostile\nargs: {X: a}\nlabels: {x: '${X}'}\ntags: ['${X}']\n", 2, "recipe",
         ["tag"], args=["--set", "X=" + "v" * (100 << 10)])


# ---- cases: base images --------------------------------------------------------------------------

def base_cases():
    d = lambda name: os.path.join(OUT, "cases", name)
    good = plain_layer()
    oci_image(os.path.join(d("oci-missing-blob"), "img"), [good], tamper="missing")
    case("oci-missing-blob", base_recipe("oci:img:base"), 1, "base", ["oci:", "img/blobs/sha256/", "missing", "copy"])
    oci_image(os.path.join(d("oci-blob-digest-mismatch"), "img"), [good], tamper="digest")
    case("oci-blob-digest-mismatch", base_recipe("oci:img:base"), 1, "base", ["oci:", "sha256:", "digest", "copy"])
    oci_image(os.path.join(d("oci-blob-size-mismatch"), "img"), [good], tamper="size")
    case("oci-blob-size-mismatch", base_recipe("oci:img:base"), 1, "base", ["size"])
    oci_image(os.path.join(d("oci-wrong-diffid"), "img"), [good], diff_ids=["sha256:" + "0" * 64])
    case("oci-wrong-diffid", base_recipe("oci:img:base"), 1, "base", ["diff_id"])

    evil = tar_bytes([("etc", "dir", None, 0o755), f(dotdot("oci-dotdot"), "pwned\n")])
    oci_image(os.path.join(d("oci-dotdot-member"), "img"), [evil])
    case("oci-dotdot-member", base_recipe("oci:img:base"), 2, "base", [".."], absent=[escape_path("oci-dotdot")])
    # A newline in a base layer's member name: refused like a .deb's (dpkg's lists are a path a line).
    evil = pax_tar([(None, b"etc", "dir", b""), ({"path": b"etc/a\nb"}, b"etc/x", "file", b"x\n")])
    oci_image(os.path.join(d("oci-newline-member"), "img"), [evil])
    case("oci-newline-member", base_recipe("oci:img:base"), 2, "base", ["newline", "etc/a?b"])
    evil = tar_bytes([f(escape_path("oci-abs"), "pwned\n")])
    oci_image(os.path.join(d("oci-absolute-member"), "img"), [evil])
    # Accepted (exit 0): a base layer is reused unchanged, nothing of it is written to disk without
    # run: (below); a runtime resolves absolute names and links inside the root.
    case("oci-absolute-member", base_recipe("oci:img:base"), 0, "base", [],
         absent=[escape_path("oci-abs")])
    evil = tar_bytes([("escape", "symlink", OUTSIDE, 0o777), f("escape/oci-symlink-file", "pwned\n")])
    oci_image(os.path.join(d("oci-symlink-then-file"), "img"), [evil])
    case("oci-symlink-then-file", base_recipe("oci:img:base"), 0, "base", [],
         absent=[escape_path("oci-symlink-file")])
    evil = tar_bytes([("etc", "dir", None, 0o755), ("etc/pw", "hardlink", "../" * 12 + "etc/passwd", 0o644)])
    oci_image(os.path.join(d("oci-hardlink-outside"), "img"), [evil])
    case("oci-hardlink-outside", base_recipe("oci:img:base"), 2, "base", ["hardlink"])

    # The same layers materialized for a run: step (the one place rockpack writes an image's tree to
    # disk): a symlink's target and absolute names resolve inside the sandbox root, as a container
    # runtime resolves them, so the build succeeds and nothing lands outside. Needs a static busybox.
    if BUSYBOX:
        with open(BUSYBOX, "rb") as fh:
            bb = fh.read()
        tool = [("bin", "dir", None, 0o755), f("bin/busybox", bb, 0o755)]
        run = "run:\n  - command: [/bin/busybox, 'true']\n"
        for name, members, target in (
                ("oci-run-symlink-then-file", [("escape", "symlink", OUTSIDE, 0o777),
                                               f("escape/oci-run-symlink-file", "pwned\n")], "oci-run-symlink-file"),
                ("oci-run-absolute-member", [("escape", "symlink", OUTSIDE, 0o777),
                                             f(escape_path("oci-run-abs"), "pwned\n"),
                                             f("escape/oci-run-symlink-file", "x\n")], "oci-run-abs"),
                ("oci-run-hardlink-through-link", [("escape", "symlink", "/", 0o777),
                                                   ("etc", "dir", None, 0o755),
                                                   ("etc/pw", "hardlink", "escape/etc/passwd", 0o644),
                                                   ("escape2", "symlink", OUTSIDE, 0o777),
                                                   f("escape/oci-run-symlink-file", "x\n")], "oci-run-link")):
            oci_image(os.path.join(d(name), "img"), [tar_bytes(tool + members)])
            # The hardlink's target, /etc/passwd through a link to /, is looked up in the root
            # (where there is none), never on the host: a damaged layer, exit 1.
            hard = "hardlink" in name
            case(name, "name: hostile\nbase: oci:img:base\n" + run, 1 if hard else 0, "base",
                 ["cannot link", "etc/pw"] if hard else [], absent=[escape_path(target)])

    # A decompression bomb: 1 MiB of gzip that inflates to 1 GiB of zeros; its diff_id is not that of
    # the inflated tar, so it is refused after streaming once, in bounded memory.
    bomb_path = os.path.join(d("oci-decompression-bomb"), "bomb.gz")
    os.makedirs(os.path.dirname(bomb_path), exist_ok=True)
    header = tarfile.TarInfo("zeros")
    header.size = 1 << 30
    header.mtime = MTIME
    co = zlib.compressobj(9, zlib.DEFLATED, 31)
    parts = [co.compress(header.tobuf(format=tarfile.GNU_FORMAT))]
    zero = bytes(MB)
    for _ in range(1024):
        parts.append(co.compress(zero))
    parts.append(co.compress(bytes(1024)))
    parts.append(co.flush())
    bomb = b"".join(parts)
    oci_image(os.path.join(d("oci-decompression-bomb"), "img"), [b"placeholder"], compressed=[bomb],
              diff_ids=["sha256:" + "1" * 64])
    case("oci-decompression-bomb", base_recipe("oci:img:base"), 1, "base", ["diff_id"])

    corrupt = bytearray(gz(good))
    for i in range(20, min(len(corrupt) - 8, 60)):
        corrupt[i] ^= 0x5A
    oci_image(os.path.join(d("oci-corrupt-gzip"), "img"), [good], compressed=[bytes(corrupt)])
    case("oci-corrupt-gzip", base_recipe("oci:img:base"), 1, "base", ["gzip"])

    lay = Layout(os.path.join(d("oci-index-not-json"), "img"))
    write(os.path.join(lay.path, "index.json"), "{\"manifests\": [ this is not json")
    # A damaged base image (not JSON, not a tar, a blob missing or not matching) fails its
    # verification: exit 1. A well-formed but hostile one (.. members) is refused as bad input: 2.
    case("oci-index-not-json", base_recipe("oci:img:base"), 1, "base", ["index.json", "JSON"])

    lay = oci_image(os.path.join(d("oci-manifest-not-json"), "img"), [good])
    junk = b"\x00\x01not json at all" * 10
    m = lay.blob(junk)
    lay.index([{"mediaType": MT_MANIFEST, **m, "annotations": {"org.opencontainers.image.ref.name": "base"}}])
    case("oci-manifest-not-json", base_recipe("oci:img:base"), 1, "base", ["manifest", "JSON"])

    # A manifest list that names itself: impossible with honest digests, so the blob is stored under
    # the digest it claims; a reader that does not check the digest loops.
    lay = Layout(os.path.join(d("oci-index-loop"), "img"))
    fake = "ab" * 32
    # The descriptor names the blob's own size: a fixed-width number (JSON allows the spaces).
    template = ('{"schemaVersion": 2, "mediaType": "%s", "manifests": [{"mediaType": "%s", '
                '"digest": "sha256:%s", "size": %%6d, "platform": {"architecture": "amd64", "os": "linux"}}]}'
                % (MT_INDEX, MT_INDEX, fake))
    body = (template % 0).encode()
    body = (template % len(body)).encode()
    write(os.path.join(lay.path, "blobs", "sha256", fake), body)
    lay.index([{"mediaType": MT_INDEX, "digest": "sha256:" + fake, "size": len(body),
                "annotations": {"org.opencontainers.image.ref.name": "base"}}])
    case("oci-index-loop", base_recipe("oci:img:base"), 1, "base", ["img:base", "multi-platform"])

    # 200 nested manifest lists, each honest.
    lay = Layout(os.path.join(d("oci-index-deep"), "img"))
    inner = lay.blob(json.dumps({"schemaVersion": 2, "mediaType": MT_MANIFEST,
                                 "config": {"mediaType": MT_CONFIG, **lay.blob(image_json([], []))},
                                 "layers": []}).encode())
    desc = {"mediaType": MT_MANIFEST, **inner, "platform": {"architecture": "amd64", "os": "linux"}}
    for _ in range(200):
        b = lay.blob(json.dumps({"schemaVersion": 2, "mediaType": MT_INDEX, "manifests": [desc]}).encode())
        desc = {"mediaType": MT_INDEX, **b, "platform": {"architecture": "amd64", "os": "linux"}}
    lay.index([{**desc, "annotations": {"org.opencontainers.image.ref.name": "base"}}])
    case("oci-index-deep", base_recipe("oci:img:base"), 1, "base", ["img:base", "multi-platform"])

    # A 16 MB manifest (a huge annotation value): over the bound on manifests, never parsed.
    lay = oci_image(os.path.join(d("oci-huge-manifest"), "img"), [good])
    cfg = lay.blob(image_json([good], ["sha256:" + sha256(good)]))
    manifest = {"schemaVersion": 2, "mediaType": MT_MANIFEST, "config": {"mediaType": MT_CONFIG, **cfg},
                "layers": [{"mediaType": MT_LAYER_GZ, **lay.blob(gz(good))}],
                "annotations": {"x": "y" * (16 * MB)}}
    m = lay.blob(json.dumps(manifest).encode())
    lay.index([{"mediaType": MT_MANIFEST, **m, "annotations": {"org.opencontainers.image.ref.name": "base"}}])
    case("oci-huge-manifest", base_recipe("oci:img:base"), 1, "base", ["manifest", "large"])

    oci_image(os.path.join(d("oci-tag-missing"), "img"), [good])
    case("oci-tag-missing", base_recipe("oci:img:" + "nosuch" * 2000), 2, "base", ["img", "tag"])

    # oci-archive: a tar of a layout.
    tmp = os.path.join(OUT, "tmp-layout-missing")
    oci_image(tmp, [good], tamper="missing")
    write(os.path.join(d("ociarch-missing-blob"), "img.tar"), tar_bytes(tar_dir(tmp)))
    case("ociarch-missing-blob", base_recipe("oci-archive:img.tar"), 1, "base", ["img.tar", "missing"])
    tmp = os.path.join(OUT, "tmp-layout-good")
    oci_image(tmp, [good])
    members = tar_dir(tmp) + [f(dotdot("ociarch-dotdot"), "pwned\n")]
    write(os.path.join(d("ociarch-dotdot-member"), "img.tar"), tar_bytes(members))
    # The archive's own members are read as a layout; one that is no blob of it is ignored.
    case("ociarch-dotdot-member", base_recipe("oci-archive:img.tar"), 0, "base", [],
         absent=[escape_path("ociarch-dotdot")])
    write(os.path.join(d("ociarch-not-a-tar"), "img.tar"), b"\x89PNG not a tar at all\n" * 100)
    case("ociarch-not-a-tar", base_recipe("oci-archive:img.tar"), 1, "base", ["img.tar", "archive"])
    shutil.rmtree(os.path.join(OUT, "tmp-layout-missing"))

    # docker-archive
    def docker_archive(name, layer_members, diff_ids=None, manifest=None, extra=()):
        cfg = image_json([], diff_ids or ["sha256:" + sha256(layer_members[1][2])])
        members = [f("config.json", cfg)] + list(layer_members) + list(extra)
        mf = manifest if manifest is not None else json.dumps(
            [{"Config": "config.json", "RepoTags": ["x:y"], "Layers": ["l1/layer.tar"]}]).encode()
        members.append(f("manifest.json", mf))
        write(os.path.join(d(name), "img.tar"), tar_bytes(members))

    loop_layers = [("l1", "dir", None, 0o755), f("l0/layer.tar", good),
                   ("l1/layer.tar", "symlink", "../l2/layer.tar", 0o777),
                   ("l2", "dir", None, 0o755), ("l2/layer.tar", "symlink", "../l1/layer.tar", 0o777)]
    docker_archive("docker-layer-symlink-loop", loop_layers, diff_ids=["sha256:" + sha256(good)])
    case("docker-layer-symlink-loop", base_recipe("docker-archive:img.tar"), 1, "base",
         ["img.tar", "l1/layer.tar", "missing"])
    esc = [("l1", "dir", None, 0o755), f("l0/layer.tar", good),
           ("l1/layer.tar", "symlink", "../" * 12 + "etc/passwd", 0o777)]
    docker_archive("docker-layer-symlink-escape", esc, diff_ids=["sha256:" + sha256(good)])
    case("docker-layer-symlink-escape", base_recipe("docker-archive:img.tar"), 1, "base",
         ["img.tar", "etc/passwd", "missing"])
    docker_archive("docker-manifest-not-json", [("l1", "dir", None, 0o755), f("l1/layer.tar", good)],
                   manifest=b"[{\"Config\": ")
    case("docker-manifest-not-json", base_recipe("docker-archive:img.tar"), 1, "base", ["manifest.json", "JSON"])
    docker_archive("docker-missing-layer", [("l1", "dir", None, 0o755), f("l9/layer.tar", good)],
                   diff_ids=["sha256:" + sha256(good)])
    case("docker-missing-layer", base_recipe("docker-archive:img.tar"), 1, "base", ["l1/layer.tar", "missing"])
    evil = tar_bytes([f(dotdot("docker-dotdot"), "pwned\n")])
    docker_archive("docker-dotdot-member", [("l1", "dir", None, 0o755), f("l1/layer.tar", evil)])
    case("docker-dotdot-member", base_recipe("docker-archive:img.tar"), 2, "base", [".."],
         absent=[escape_path("docker-dotdot")])
    docker_archive("docker-wrong-diffid", [("l1", "dir", None, 0o755), f("l1/layer.tar", good)],
                   diff_ids=["sha256:" + "2" * 64])
    case("docker-wrong-diffid", base_recipe("docker-archive:img.tar"), 1, "base", ["diff_id"])


# ---- cases: wheels --------------------------------------------------------------------------------

SYSCONFIG = """build_time_vars = {'ABIFLAGS': '',
 'INCLUDEPY': '/usr/include/python3.11',
 'LIBDIR': '/usr/lib/x86_64-linux-gnu',
 'MULTIARCH': 'x86_64-linux-gnu',
 'Py_DEBUG': 0,
 'Py_ENABLE_SHARED': 0,
 'SOABI': 'cpython-311-x86_64-linux-gnu',
 'VERSION': '3.11',
 'exec_prefix': '/usr',
 'prefix': '/usr'}
"""


def fake_libc():
    b = b"\x7fELF" + bytes(100) + b"GLIBC_2.2.5\0\0\0GLIBC_2.34\0"
    b += b"GNU C Library (Debian GLIBC 2.36-9+deb12u4) stable release version 2.36.\n" + bytes(50)
    return b


def python_root():
    """A fake Debian 12 python3.11 tree: what rockpack reads for the interpreter's facts (it never runs
    it). The wheel and rocm cases copy it in with files: (a fragment, so their src stays confined)."""
    root = os.path.join(OUT, "pybase", "pyroot")
    write(os.path.join(root, "usr/bin/python3.11"), b"\x7fELF python", 0o755)
    os.symlink("python3.11", os.path.join(root, "usr/bin/python3"))
    write(os.path.join(root, "usr/lib/python3.11/os.py"), "# os\n")
    write(os.path.join(root, "usr/lib/python3.11/_sysconfigdata__x86_64-linux-gnu.py"), SYSCONFIG)
    write(os.path.join(root, "usr/include/python3.11/patchlevel.h"), '#define PY_VERSION "3.11.2"\n')
    write(os.path.join(root, "usr/lib/x86_64-linux-gnu/libc.so.6"), fake_libc(), 0o755)
    write(os.path.join(root, "var/lib/dpkg/status"),
          "Package: libc6\nStatus: install ok installed\nVersion: 2.36-9+deb12u4\n\n"
          "Package: python3.11-minimal\nStatus: install ok installed\nVersion: 3.11.2-6+deb12u6\n\n")
    os.symlink("usr/lib", os.path.join(root, "lib"))
    os.symlink("usr/bin", os.path.join(root, "bin"))
    write(os.path.join(OUT, "pybase", "pybase.yaml"), "files:\n  - src: pyroot\n    dest: /\n")


def python_recipe(body):
    return ("name: hostile\ninclude: [../../pybase/pybase.yaml]\npython:\n  interpreter: /usr/bin/python3\n"
            "  venv: /opt/venv\n" + body)


def record_hash(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def wheel_bytes(name, version, members=(), metadata=None, record=None, extra_raw=(), dist=None):
    """A wheel: members [(path, bytes)], METADATA/WHEEL/RECORD made unless given; extra_raw members are
    written as given, after RECORD (duplicates, hostile names)."""
    dist = dist or f"{name.replace('-', '_')}-{version}.dist-info"
    meta = metadata if metadata is not None else f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n".encode()
    files = list(members) + [(f"{dist}/METADATA", meta),
                             (f"{dist}/WHEEL", b"Wheel-Version: 1.0\nGenerator: drill\nRoot-Is-Purelib: true\nTag: py3-none-any\n")]
    if record is None:
        rows = [f"{p},{record_hash(b)},{len(b)}" for p, b in files] + [f"{dist}/RECORD,,"]
        record = ("\n".join(rows) + "\n").encode()
    files.append((f"{dist}/RECORD", record))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for p, b in list(files) + list(extra_raw):
            zi = zipfile.ZipInfo(p, ZIP_TIME)
            zi.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(zi, b)
    return buf.getvalue()


def wheel_case(name, whl, exit_code, contains, absent=(), filename="rp_drill-1.0-py3-none-any.whl"):
    recipe = python_recipe(f"  wheels:\n    - path: {filename}\n      sha256: {sha256(whl)}\n")
    case(name, recipe, exit_code, "wheel", contains, absent=absent, files={filename: whl})


def wheel_cases():
    python_root()
    mod = [("rp_drill/__init__.py", b"x = 1\n")]
    wheel_case("whl-zip-slip", wheel_bytes("rp-drill", "1.0", mod + [(dotdot("whl-slip"), b"pwned\n")]), 2,
               ["rp_drill-1.0-py3-none-any.whl", ".."], absent=[escape_path("whl-slip")])
    wheel_case("whl-absolute-name", wheel_bytes("rp-drill", "1.0", mod + [(escape_path("whl-abs"), b"pwned\n")]), 2,
               ["rp_drill-1.0-py3-none-any.whl"], absent=[escape_path("whl-abs")])
    dist = "rp_drill-1.0.dist-info"
    rec = (f"rp_drill/__init__.py,{record_hash(b'x = 1')},5\n{dotdot('whl-record')},,\n{dist}/RECORD,,\n").encode()
    # RECORD rows only check the members; the installed RECORD is written anew from what was
    # installed, so a hostile row is never used as a path (exit 0).
    wheel_case("whl-record-dotdot", wheel_bytes("rp-drill", "1.0", mod, record=rec), 0, [],
               absent=[escape_path("whl-record")])
    # A 100 MB RECORD (deflates to about 100 KB): over the 64 MiB bound, refused without reading it whole.
    row = b"rp_drill/" + b"a" * 90 + b".py,,\n"
    big = row * ((100 * MB) // len(row))
    wheel_case("whl-huge-record", wheel_bytes("rp-drill", "1.0", mod, record=big), 2, ["RECORD"])
    # A zip bomb member: its headers say 10 bytes, its deflate stream inflates to 64 MiB.
    bomb = wheel_bytes("rp-drill", "1.0", mod + [("rp_drill/bomb.bin", bytes(64 * MB))])
    wheel_case("whl-zip-bomb-member", lie_about_size(bomb, "rp_drill/bomb.bin", 10), 1,
               ["bomb.bin", "larger than its recorded size"])
    wheel_case("whl-bad-metadata", wheel_bytes("rp-drill", "1.0", mod, metadata=b"\xff\xfe\x00garbage: :\n\n\n" * 5), 2,
               ["rp_drill-1.0-py3-none-any.whl", "METADATA"])
    wheel_case("whl-name-mismatch", wheel_bytes("rp-other", "2.0", mod, dist="rp_drill-1.0.dist-info"), 2,
               ["rp_drill-1.0-py3-none-any.whl", "rp-other"])
    wheel_case("whl-duplicate-members",
               wheel_bytes("rp-drill", "1.0", mod, extra_raw=[("rp_drill/__init__.py", b"y = 2\n")]), 2,
               ["rp_drill/__init__.py", "twice"])
    wheel_case("whl-not-a-zip", b"PK\x03\x04 this is no zip" * 50, 2, ["rp_drill-1.0-py3-none-any.whl", "zip"])
    # NUL and newline in member names: one name to the checks, another to every reader after them.
    # (zipfile cuts names at a NUL: the name is written with a marker byte, then patched in place.)
    nul_whl = wheel_bytes("rp-drill", "1.0", mod, extra_raw=[("rp_drill/a.py\x01.pth", b"x\n")])
    wheel_case("whl-nul-member", nul_whl.replace(b"a.py\x01.pth", b"a.py\x00.pth"), 2,
               ["rp_drill-1.0-py3-none-any.whl", "NUL"])
    wheel_case("whl-newline-member", wheel_bytes("rp-drill", "1.0", mod, extra_raw=[("rp_drill/a\n.py", b"x\n")]), 2,
               ["rp_drill-1.0-py3-none-any.whl", "newline"])
    wheel_case("whl-huge-filename", wheel_bytes("rp-drill", "1.0", mod), 2, ["wheel"],
               filename="rp_drill-1.0-" + "p" * 200 + "-none-any.whl")
    # From a loopback index: the zip-slip wheel fetched by name.
    idx = os.path.join(OUT, "index")
    write(os.path.join(idx, "rp_slip-1.0-py3-none-any.whl"),
          wheel_bytes("rp-slip", "1.0", [("rp_slip/__init__.py", b"")] + [(dotdot("whl-index-slip"), b"pwned\n")]))
    case("whl-index-zip-slip", python_recipe("  indexes:\n    - url: @INDEX@/simple/\n  packages: [rp-slip]\n"),
         2, "wheel", ["rp_slip-1.0-py3-none-any.whl", ".."], needs="index", absent=[escape_path("whl-index-slip")])


def lie_about_size(whl, member, size):
    """Rewrites the uncompressed size of `member` in its local header and central directory entry."""
    data = bytearray(whl)
    with zipfile.ZipFile(io.BytesIO(whl)) as z:
        info = z.getinfo(member)
    off = info.header_offset
    assert data[off:off + 4] == b"PK\x03\x04"
    struct.pack_into("<I", data, off + 22, size)
    # The central directory entry of the same member.
    name = member.encode()
    pos = 0
    while True:
        pos = data.find(b"PK\x01\x02", pos)
        if pos < 0:
            break
        n = struct.unpack_from("<H", data, pos + 28)[0]
        if data[pos + 46:pos + 46 + n] == name:
            struct.pack_into("<I", data, pos + 24, size)
            break
        pos += 4
    return bytes(data)


# ---- cases: Python index pages -------------------------------------------------------------------

def index_cases():
    st = os.path.join(OUT, "static")
    good = wheel_bytes("rp-page", "1.0", [("rp_page/__init__.py", b"")])
    fname = "rp_page-1.0-py3-none-any.whl"

    def page(name, body, ext="html", contains=(), exit_code=2):
        write(os.path.join(st, name, "simple", "rp-page", "index." + ext), body)
        write(os.path.join(st, name, "simple", "rp-page", fname), good)
        case(name, python_recipe(f"  indexes:\n    - url: @STATIC@/{name}/simple/\n  packages: [rp-page]\n"),
             exit_code, "index", list(contains), needs="static")

    # A 50 MB page with no link: nothing to install (exit 2), read in bounded memory.
    page("idx-50mb-page", "<html><body>" + "<p>" + "x" * (50 * MB) + "</p></body></html>",
         contains=["rp-page", "no installable wheel"])
    page("idx-huge-href", f'<html><body><a href="{"h" * (10 * MB)}.whl">x</a></body></html>',
         contains=["rp-page", "no installable wheel"])
    page("idx-bad-json", '{"meta": {"api-version": "1.0"}, "files": [ {"filename": ', ext="json",
         contains=["rp-page", "JSON"], exit_code=1)
    page("idx-broken-anchors", "<html><a href=\"" + fname + "<a <a href='x'><a href=\"\"\"><<<<a" * 1000 + "<a href=",
         contains=["rp-page"])
    page("idx-hash-mismatch", f'<a href="{fname}#sha256={"0" * 64}">{fname}</a>\n',
         contains=["rp-page", "0" * 64], exit_code=1)


# ---- cases: .debs and apt ------------------------------------------------------------------------

def ar(members):
    out = [b"!<arch>\n"]
    for name, data in members:
        hdr = f"{name:<16}{0:<12}{0:<6}{0:<6}{'100644':<8}{len(data):<10}`\n".encode()
        out += [hdr, data, b"\n" if len(data) % 2 else b""]
    return b"".join(out)


def deb(control_fields, data_members, raw_data=None):
    """A .deb; `raw_data` (a tar's bytes) replaces the data.tar made of `data_members`."""
    control = tar_bytes([("./", "dir", None, 0o755), f("./control", control_fields)])
    data = raw_data if raw_data is not None else tar_bytes(data_members)
    return ar([("debian-binary", b"2.0\n"), ("control.tar.gz", gz(control)), ("data.tar.gz", gz(data))])


def apt_case(name, debs, contains, exit_code=2, absent=(), packages_extra="", endless=False):
    """A flat repository (Packages + Release, trusted: true) holding these debs {package: (fields, bytes)}.
    With `endless`, the server streams zeros for each .deb instead (static_server.py's .endless)."""
    repo = os.path.join(OUT, "static", name)
    stanzas = []
    for pkg, (fields, data) in debs.items():
        fn = f"{pkg}_1.0_amd64.deb"
        write(os.path.join(repo, fn + (".endless" if endless else "")), data)
        stanzas.append(f"{fields}Filename: ./{fn}\nSize: {len(data)}\nSHA256: {sha256(data)}\n{packages_extra}")
    packages = "\n".join(stanzas).encode()
    write(os.path.join(repo, "Packages"), packages)
    release = (f"Origin: drill\nDate: Wed, 01 Jan 2020 00:00:00 UTC\nSHA256:\n {sha256(packages)} {len(packages)} Packages\n")
    write(os.path.join(repo, "Release"), release)
    recipe = (f"name: hostile\napt:\n  sources:\n    - url: @STATIC@/{name}\n      suite: ./\n      trusted: true\n"
              f"  packages: [{', '.join(debs)}]\n")
    case(name, recipe, exit_code, "apt", contains, absent=absent, needs="static")


def control(pkg, extra=""):
    return f"Package: {pkg}\nVersion: 1.0\nArchitecture: amd64\nMaintainer: drill\nDescription: drill\n{extra}"


def apt_cases():
    apt_case("deb-dotdot-member", {"rp-dotdot": (control("rp-dotdot"), deb(control("rp-dotdot"), [
        ("./", "dir", None, 0o755), f("./" + dotdot("deb-dotdot"), "pwned\n")]))},
        ["rp-dotdot", ".."], absent=[escape_path("deb-dotdot")])
    # Accepted (exit 0): an absolute name or a path through a symlink is a path inside the image
    # (as dpkg reads it); nothing is written to disk.
    apt_case("deb-absolute-member", {"rp-abs": (control("rp-abs"), deb(control("rp-abs"), [
        ("./", "dir", None, 0o755), f(escape_path("deb-abs"), "pwned\n")]))},
        [], exit_code=0, absent=[escape_path("deb-abs")])
    apt_case("deb-symlink-escape", {"rp-link": (control("rp-link"), deb(control("rp-link"), [
        ("./", "dir", None, 0o755), ("./usr", "dir", None, 0o755), ("./usr/esc", "symlink", OUTSIDE, 0o777),
        f("./usr/esc/deb-link", "pwned\n")]))},
        [], exit_code=0, absent=[escape_path("deb-link")])
    hostile = control("rp-fields", "Depends: " + ", ".join(f"dep{i} (>= 1)" for i in range(20000)) + "\n")
    apt_case("deb-hostile-control", {"rp-fields": (hostile, deb(hostile, [("./", "dir", None, 0o755)]))},
             ["rp-fields", "dep0"])
    weird = control("rp-weird", "Pre-Depends: " + "(" * 5000 + "\nConflicts: ;;;;,,,,|||\n")
    apt_case("deb-garbage-relations", {"rp-weird": (weird, deb(weird, [("./", "dir", None, 0o755)]))},
             ["rp-weird", "Pre-Depends"], exit_code=1)
    apt_case("deb-not-an-ar", {"rp-junk": (control("rp-junk"), b"!<arch>\nthis is not an ar member" * 10)},
             ["rp-junk"], exit_code=1)
    # A NUL in a PAX path: checked as "var/lib/dpkg/status\0forged", written where every reader
    # stops at the NUL (the image's dpkg database would list what the SBOM does not).
    nul = pax_tar([(None, b"./", "dir", b""), ({"path": b"./var/lib/dpkg/status\0forged"}, b"./placeholder", "file",
                                                 b"Package: forged\nStatus: install ok installed\nVersion: 6.6.6\n")])
    apt_case("deb-pax-nul-path", {"rp-nul": (control("rp-nul"), deb(control("rp-nul"), None, raw_data=nul))},
             ["rp-nul", "NUL", "var/lib/dpkg/status?forged"])
    nul_link = pax_tar([(None, b"./", "dir", b""), ({"linkpath": b"/etc/passwd\0x"}, b"./evil", "symlink", b"x")])
    apt_case("deb-pax-nul-linkpath", {"rp-nullink": (control("rp-nullink"), deb(control("rp-nullink"), None, raw_data=nul_link))},
             ["rp-nullink", "NUL", "link target"])
    # A newline in a member name would split dpkg's info/<package>.list into two paths.
    newline = pax_tar([(None, b"./", "dir", b""), ({"path": b"./usr/share/a\n/etc/shadow"}, b"./x", "file", b"x\n")])
    apt_case("deb-newline-member", {"rp-nl": (control("rp-nl"), deb(control("rp-nl"), None, raw_data=newline))},
             ["rp-nl", "newline"])
    # Hardlinks to a directory or to a symlink: dpkg refuses both; umoci cannot unpack the first.
    apt_case("deb-hardlink-to-dir", {"rp-hldir": (control("rp-hldir"), deb(control("rp-hldir"), [
        ("./", "dir", None, 0o755), ("./usr", "dir", None, 0o755), ("./usr/lnk", "hardlink", "./usr", 0o755)]))},
        ["rp-hldir", "hardlink", "directory"])
    apt_case("deb-hardlink-to-symlink", {"rp-hlsym": (control("rp-hlsym"), deb(control("rp-hlsym"), [
        ("./", "dir", None, 0o755), ("./s", "symlink", "/etc/passwd", 0o777), ("./h", "hardlink", "./s", 0o644)]))},
        ["rp-hlsym", "hardlink", "symlink"])
    # A mirror streaming an endless .deb whose (signed) Size is 2 KB: stops at the Size, fast.
    small = deb(control("rp-endless"), [("./", "dir", None, 0o755), f("./usr/x", "x" * 1000)])
    apt_case("deb-endless-stream", {"rp-endless": (control("rp-endless"), small)},
             ["rp-endless", "larger than the", str(len(small))], exit_code=1, endless=True)
    # A 200 KB line in conffiles is a warning, cut, not echoed whole (the drill caps the output).
    conf_control = tar_bytes([("./", "dir", None, 0o755), f("./control", control("rp-conf")),
                              f("./conffiles", "/etc/" + "c" * (200 * 1024) + "\n")])
    conf_deb = ar([("debian-binary", b"2.0\n"), ("control.tar.gz", gz(conf_control)),
                   ("data.tar.gz", gz(tar_bytes([("./", "dir", None, 0o755)])))])
    apt_case("deb-huge-conffile-line", {"rp-conf": (control("rp-conf"), conf_deb)}, ["conffile", "..."], exit_code=0)
    # Signed repositories (tests/integration/lib/apt_repo.sh): tampered indexes, missing or wrong signatures.
    for variant, words in (("tampered-packages", ["sha256", "Packages"]), ("unsigned", ["is not signed"]),
                           ("wrong-key", ["signature verification failed", "test.asc"]),
                           ("bad-signature", ["signature verification failed"])):
        recipe = (f"name: hostile\napt:\n  sources:\n    - url: @APT@/variants/{variant}\n      suite: rptest\n"
                  f"      components: [main]\n      signed_by: @APTKEYS@/test.asc\n  packages: [rp-hello]\n")
        case("apt-" + variant, recipe, 1, "apt", words, needs="apt")


# ---- cases: TheRock -------------------------------------------------------------------------------

def rocm_cases():
    """TheRock indexes: hostile pages at the index (the devel-tarball cases need a full mock index; the
    drill makes them from tests/tools/make_therock_index.py's output, see the shell)."""
    st = os.path.join(OUT, "static")
    for name, body, words, code in (
            ("rocm-index-garbage", b"\x00\xff" * 1000, ["rocm", "rocm-index-garbage"], 2),
            ("rocm-index-huge-href", b'<a href="' + b"t" * (8 * MB) + b'.whl">t</a>', ["rocm", "rocm-index-huge-href"], 2)):
        for proj in ("torch", "rocm", "rocm-sdk-core"):
            write(os.path.join(st, name, "gfx94X-dcgpu", proj, "index.html"), body)
        recipe = python_recipe(f"  packages: [torch]\nrocm:\n  source: therock\n  index: \"@STATIC@/{name}/{{family}}/\"\n"
                               "  targets: gfx942\n")
        case(name, recipe, code, "rocm", words, needs="static")


def devel_cases():
    """TheRock's rocm-sdk-devel wheel carries its tree as rocm_sdk_devel/_devel.tar, which a build expands
    (rocm: expand_devel, the default): a mock index (tests/tools/make_therock_index.py) whose devel
    wheel's tarball is replaced by a hostile one, its RECORD row and the index's #sha256= updated."""
    import subprocess
    gen = os.path.join(os.path.dirname(os.path.abspath(__file__)), "make_therock_index.py")
    good_layer = os.path.join(OUT, "tmp-therock")
    subprocess.run([sys.executable, gen, good_layer, "--family", "gfx94X-dcgpu", "--versions", "7.10.0a20251120",
                    "--python", "3.11"], check=True, stdout=subprocess.DEVNULL)
    root = "_rocm_sdk_devel"
    variants = {
        "rocm-devel-dotdot": [(root, "dir", None, 0o755), f(root + "/" + dotdot("rocm-devel-dotdot"), "pwned\n")],
        "rocm-devel-outside-root": [(root, "dir", None, 0o755), f("other/file", "x\n")],
        "rocm-devel-symlink-escape": [(root, "dir", None, 0o755), (root + "/esc", "symlink", OUTSIDE, 0o777),
                                      f(root + "/esc/rocm-devel-link", "pwned\n")],
        "rocm-devel-not-a-tar": None,
    }
    for name, members in variants.items():
        dest = os.path.join(OUT, "static", name)
        shutil.copytree(good_layer, dest)
        fam = os.path.join(dest, "gfx94X-dcgpu")
        whl = [w for w in os.listdir(fam) if w.startswith("rocm_sdk_devel-") and w.endswith(".whl")][0]
        path = os.path.join(fam, whl)
        with open(path, "rb") as fh:
            old = fh.read()
        tarball = b"\x00garbage, not a tar" * 1000 if members is None else tar_bytes(members, fmt=tarfile.PAX_FORMAT)
        new = replace_member(old, "rocm_sdk_devel/_devel.tar", tarball)
        write(path, new)
        for dirpath, _, files in os.walk(dest):
            for fn in files:
                if fn == "index.html":
                    p = os.path.join(dirpath, fn)
                    with open(p) as fh:
                        text = fh.read()
                    if sha256(old) in text:
                        write(p, text.replace(sha256(old), sha256(new)))
        recipe = python_recipe(f"  packages: [torch]\nrocm:\n  source: therock\n  index: \"@STATIC@/{name}/{{family}}/\"\n"
                               "  targets: gfx942\n")
        # A symlink in the tree, then a file through it: kept as written, inside the image (exit 0).
        ok = name == "rocm-devel-symlink-escape"
        case(name, recipe, 0 if ok else 2, "rocm", [] if ok else ["_devel.tar"], needs="static",
             absent=[escape_path("rocm-devel-dotdot"), escape_path("rocm-devel-link")])
    shutil.rmtree(good_layer)


def replace_member(whl, member, data):
    """The wheel with `member`'s bytes replaced and its RECORD row made to match."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(whl)) as zin, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            body = zin.read(info)
            if info.filename == member:
                body = data
            elif info.filename.endswith(".dist-info/RECORD"):
                rows = []
                for line in body.decode().splitlines():
                    if line.split(",", 1)[0] == member:
                        line = f"{member},{record_hash(data)},{len(data)}"
                    rows.append(line)
                body = ("\n".join(rows) + "\n").encode()
            zi = zipfile.ZipInfo(info.filename, ZIP_TIME)
            zi.compress_type = zipfile.ZIP_DEFLATED
            zi.external_attr = info.external_attr
            zout.writestr(zi, body)
    return out.getvalue()


def registry_cases():
    """Answers of a registry (tests/tools/hostile_registry.py over OUTDIR/registry): the base is
    @REGISTRY@/NAME:latest."""
    reg = os.path.join(OUT, "registry")

    def repo(name, manifests=None, blobs=(), any_manifest=None, any_blob=None, status=None):
        d = os.path.join(reg, name)
        os.makedirs(os.path.join(d, "manifests"), exist_ok=True)
        for ref, body in (manifests or {}).items():
            write(os.path.join(d, "manifests", ref), body)
        for body in blobs:
            write(os.path.join(d, "blobs", sha256(body)), body)
        if any_manifest is not None:
            write(os.path.join(d, "manifest-any"), any_manifest)
        if any_blob is not None:
            write(os.path.join(d, "blob-any"), any_blob)
        if status is not None:
            write(os.path.join(d, "status"), str(status))

    def image(layer_blob, diff_ids, config=None):
        cfg = config if config is not None else image_json([], diff_ids)
        m = {"schemaVersion": 2, "mediaType": MT_MANIFEST,
             "config": {"mediaType": MT_CONFIG, "digest": "sha256:" + sha256(cfg), "size": len(cfg)},
             "layers": [{"mediaType": MT_LAYER_GZ, "digest": "sha256:" + sha256(layer_blob), "size": len(layer_blob)}]}
        return json.dumps(m).encode(), cfg

    good = plain_layer()
    blob = gz(good)
    man, cfg = image(blob, ["sha256:" + sha256(good)])

    def reg_case(name, code, words):
        case(name, base_recipe(f"@REGISTRY@/{name}:latest"), code, "registry", words, needs="registry")

    repo("reg-manifest-huge", {"latest": json.dumps({"schemaVersion": 2, "mediaType": MT_MANIFEST,
                                                     "annotations": {"x": "y" * (50 * MB)}}).encode()})
    reg_case("reg-manifest-huge", 1, ["reg-manifest-huge", "manifest"])
    repo("reg-manifest-not-json", {"latest": b"\x00\x01 not json" * 100})
    reg_case("reg-manifest-not-json", 1, ["reg-manifest-not-json", "manifest"])
    # A manifest list whose entry names a digest the registry answers with the list itself.
    loop = json.dumps({"schemaVersion": 2, "mediaType": MT_INDEX, "manifests": [
        {"mediaType": MT_INDEX, "digest": "sha256:" + "cd" * 32, "size": 400,
         "platform": {"architecture": "amd64", "os": "linux"}}]}).encode()
    repo("reg-index-loop", any_manifest=loop)
    reg_case("reg-index-loop", 1, ["reg-index-loop"])
    repo("reg-blob-digest-mismatch", {"latest": man}, blobs=[cfg], any_blob=gz(b"other bytes" * 100))
    reg_case("reg-blob-digest-mismatch", 1, ["reg-blob-digest-mismatch", "sha256:"])
    bad_cfg = b"{ this config is not json"
    man2, _ = image(blob, [], config=bad_cfg)
    repo("reg-config-not-json", {"latest": man2}, blobs=[bad_cfg, blob])
    reg_case("reg-config-not-json", 1, ["reg-config-not-json", "config"])
    repo("reg-huge-error", {"latest": json.dumps({"errors": [{"code": "DENIED", "message": "m" * (50 * MB)}]}).encode()},
         status=403)
    reg_case("reg-huge-error", 1, ["reg-huge-error"])
    # A layer blob longer than its descriptor says (an endless download): cut at the size.
    man3, cfg3 = image(blob, ["sha256:" + sha256(good)])
    repo("reg-blob-too-long", {"latest": man3}, blobs=[cfg3], any_blob=blob + bytes(64 * MB))
    reg_case("reg-blob-too-long", 1, ["reg-blob-too-long"])


def main():
    global OUT, OUTSIDE, BUSYBOX
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--outside", required=True, help="directory traversal cases aim at")
    p.add_argument("--busybox", default="", help="a static busybox for the cases with a run: step")
    a = p.parse_args()
    OUT = os.path.abspath(a.out)
    OUTSIDE = os.path.abspath(a.outside)
    BUSYBOX = a.busybox
    os.makedirs(OUT, exist_ok=True)
    recipe_cases()
    base_cases()
    wheel_cases()
    index_cases()
    apt_cases()
    rocm_cases()
    devel_cases()
    registry_cases()
    n = len(os.listdir(os.path.join(OUT, "cases")))
    print(f"{n} cases in {OUT}/cases")


if __name__ == "__main__":
    sys.exit(main())
