#!/usr/bin/env python3
"""Writes wheels (and sdists) for the installer and resolver tests, including the broken ones.

    make_wheel.py OUTDIR NAME VERSION [options]      one wheel (or with --sdist, one sdist)
    make_wheel.py --demo OUTDIR                      the end-to-end pair, see write_demo()

Prints the path of every file written, one per line. Output is deterministic: fixed zip timestamps,
sorted members, seeded blobs, so the same arguments always give the same bytes (and sha256).
Standard library only. RECORD is correct (sha256, sizes) unless --no-record-hash or
--wrong-record-hash asks otherwise.

Examples:
    make_wheel.py out rp-plat 1.0 --platlib --tag cp311-cp311-linux_x86_64 --file rp_plat/_x.so=@/dev/null
    make_wheel.py out rp-app 1.0 --requires 'rp-lib>=1' --extra cli:click --console-script 'rp=rp_app:main [cli]'
    make_wheel.py out rp-scripts 1.0 --data-script rp-hello --header rp.h --data share/rp/x.txt
    make_wheel.py out evil 1.0 --bad-path ../evil
    make_wheel.py out big 1.0 --size-mb 400 --blob-kind binary
    make_wheel.py out rp-sdist-only 1.0 --sdist
"""

import argparse
import base64
import csv
import gzip
import hashlib
import io
import os
import random
import re
import sys
import tarfile
import zipfile

# Zip timestamps cannot be before 1980; any fixed value makes the archive reproducible.
ZIP_TIME = (2020, 1, 1, 0, 0, 0)
TAR_MTIME = 1577836800  # the same instant, for sdists
BLOB_CHUNK = 1 << 20


def filename_component(name):
    """A distribution name as it appears in wheel/sdist filenames and the .dist-info directory."""
    return re.sub(r"[-_.]+", "_", name).lower()


def record_hash(data):
    digest = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def import_name(name):
    return filename_component(name)


class Blob:
    """A large member written in chunks, never whole in memory.

    kind 'random': incompressible; 'zeros': compresses to almost nothing; 'binary': each 64 KiB holds
    32 KiB of random bytes and 32 KiB of a repeated pattern, about 2:1 under deflate, like the shared
    libraries in torch or ROCm wheels.
    """

    def __init__(self, size, kind, seed):
        self.size, self.kind, self.seed = size, kind, seed

    def chunks(self):
        rng = random.Random(self.seed)
        left = self.size
        pattern = (b"rockpack-blob-" * 5000)[: 32 * 1024]
        while left > 0:
            n = min(BLOB_CHUNK, left)
            if self.kind == "random":
                chunk = rng.randbytes(n)
            elif self.kind == "zeros":
                chunk = bytes(n)
            else:
                parts = []
                for _ in range(0, n, 64 * 1024):
                    parts.append(rng.randbytes(32 * 1024))
                    parts.append(pattern)
                chunk = b"".join(parts)[:n]
            left -= n
            yield chunk


class WheelWriter:
    """Collects members, then writes the zip with the .dist-info directory last and RECORD at the end."""

    def __init__(self, args):
        self.args = args
        self.members = {}  # archive path -> (bytes | Blob, executable)

    def add(self, path, content, executable=False):
        if isinstance(content, str):
            content = content.encode()
        if path in self.members:
            sys.exit(f"make_wheel: {path} given twice")
        self.members[path] = (content, executable)

    def write(self, out_path, dist_info):
        a = self.args
        rows = []
        ordered = sorted(p for p in self.members if not p.startswith(dist_info + "/"))
        ordered += sorted(p for p in self.members if p.startswith(dist_info + "/"))
        with zipfile.ZipFile(out_path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=a.compresslevel) as zf:
            for path in ordered:
                content, executable = self.members[path]
                info = zipfile.ZipInfo(path, ZIP_TIME)
                info.create_system = 3  # unix, so external_attr carries the mode
                info.external_attr = ((0o100755 if executable else 0o100644) & 0xFFFF) << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                digest = hashlib.sha256()
                size = 0
                if isinstance(content, Blob):
                    with zf.open(info, "w", force_zip64=content.size >= (1 << 31)) as w:
                        for chunk in content.chunks():
                            digest.update(chunk)
                            size += len(chunk)
                            w.write(chunk)
                else:
                    zf.writestr(info, content)
                    digest.update(content)
                    size = len(content)
                rows.append([path, "sha256=" + base64.urlsafe_b64encode(digest.digest()).rstrip(b"=").decode(), str(size)])
            record_path = dist_info + "/RECORD"
            out = io.StringIO()
            writer = csv.writer(out, lineterminator="\n")
            for path, digest, size in rows:
                if a.no_record_hash:
                    digest, size = "", ""
                elif a.wrong_record_hash and path.endswith(".py"):
                    digest = record_hash(b"not the content")
                writer.writerow([path, digest, size])
            writer.writerow([record_path, "", ""])
            info = zipfile.ZipInfo(record_path, ZIP_TIME)
            info.create_system = 3
            info.external_attr = (0o100644 & 0xFFFF) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, out.getvalue().encode())


def read_source(spec):
    """SOURCE is inline text, or @FILE."""
    if spec.startswith("@"):
        with open(spec[1:], "rb") as f:
            return f.read()
    return spec.encode()


def metadata_text(a, name):
    lines = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {a.version}",
             f"Summary: rockpack test wheel {a.name}"]
    if a.requires_python:
        lines.append(f"Requires-Python: {a.requires_python}")
    for req in a.requires:
        lines.append(f"Requires-Dist: {req}")
    extras = []
    for spec in a.extra:
        extra, _, req = spec.partition(":")
        if not extra or not req:
            sys.exit(f"make_wheel: --extra wants EXTRA:REQUIREMENT, got {spec!r}")
        if extra not in extras:
            extras.append(extra)
        lines.append(f'Requires-Dist: {req} ; extra == "{extra}"')
    for extra in extras:
        lines.append(f"Provides-Extra: {extra}")
    lines.extend(a.metadata_field)
    return "\n".join(lines) + "\n\nA wheel generated by rockpack's tests/tools/make_wheel.py.\n"


def entry_points_text(a):
    text = ""
    for section, specs in (("console_scripts", a.console_script), ("gui_scripts", a.gui_script)):
        if specs:
            text += f"[{section}]\n"
            for spec in specs:
                script, _, target = spec.partition("=")
                if not script or not target:
                    sys.exit(f"make_wheel: script wants NAME=MODULE:FUNC [EXTRAS], got {spec!r}")
                text += f"{script.strip()} = {target.strip()}\n"
            text += "\n"
    return text


def build_wheel(a):
    base = filename_component(a.name)
    dist_info = f"{base}-{a.version}.dist-info"
    data = f"{base}-{a.version}.data"
    w = WheelWriter(a)

    # A dotted name that is the parent of another becomes PKG/__init__.py; parents nobody gave are
    # empty packages. Without --module, the wheel holds the package IMPORT_NAME with __version__.
    modules = dict(spec.partition("=")[::2] for spec in a.module)
    if not modules and not a.file:
        modules[import_name(a.name)] = f"__version__ = {a.version!r}\n"
    if a.size_mb:
        modules.setdefault(import_name(a.name), "")
    parents = {".".join(d.split(".")[:i]) for d in modules for i in range(1, d.count(".") + 1)}
    if a.size_mb:
        parents.add(import_name(a.name))
    for dotted in sorted(parents | set(modules)):
        path = dotted.replace(".", "/") + ("/__init__.py" if dotted in parents else ".py")
        w.add(path, read_source(modules.get(dotted, "")))
    for spec in a.file:
        path, _, source = spec.partition("=")
        w.add(path, read_source(source), executable=path.endswith(".so"))
    for name in a.data_script:
        w.add(f"{data}/scripts/{name}", f"#!python\nprint({(name + ' data script ok')!r})\n", executable=True)
    for header in a.header:
        w.add(f"{data}/headers/{header}", f"/* {header} from {a.name} */\n#define RP_TEST_HEADER 1\n")
    for path in a.data:
        w.add(f"{data}/data/{path}", f"data file {path} of {a.name}\n")
    for spec in a.data_raw:
        path, _, source = spec.partition("=")
        w.add(f"{data}/{path}", read_source(source or f"raw .data member {path}\n"))
    for path in a.bad_path:
        w.add(path, b"this file must never be written\n")
    if a.size_mb:
        w.add(f"{import_name(a.name)}/blob.bin", Blob(int(a.size_mb * 1024 * 1024), a.blob_kind, a.name + a.version))

    meta_name = a.name + "-other" if a.metadata_name_mismatch else a.name
    w.add(f"{dist_info}/METADATA", metadata_text(a, meta_name))
    purelib = "false" if a.platlib else "true"
    build = f"Build: {a.build}\n" if a.build else ""
    w.add(f"{dist_info}/WHEEL",
          f"Wheel-Version: 1.0\nGenerator: rockpack-make-wheel 1\nRoot-Is-Purelib: {purelib}\n{build}" +
          "".join(f"Tag: {t}\n" for t in expand_tags(a.tag)))
    entry_points = entry_points_text(a)
    if entry_points:
        w.add(f"{dist_info}/entry_points.txt", entry_points)
    w.add(f"{dist_info}/top_level.txt", import_name(a.name) + "\n")

    build_part = f"-{a.build}" if a.build else ""
    out_path = os.path.join(a.outdir, f"{base}-{a.version}{build_part}-{a.tag}.whl")
    w.write(out_path, dist_info)
    return out_path


def expand_tags(tag):
    """A compressed tag set like py2.py3-none-any gives one Tag line per combination."""
    try:
        py, abi, plat = tag.split("-")
    except ValueError:
        sys.exit(f"make_wheel: --tag wants PY-ABI-PLATFORM, got {tag!r}")
    return [f"{x}-{y}-{z}" for x in py.split(".") for y in abi.split(".") for z in plat.split(".")]


def build_sdist(a):
    base = f"{filename_component(a.name)}-{a.version}"
    files = {
        "PKG-INFO": metadata_text(a, a.name),
        "pyproject.toml": '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n\n'
                          f'[project]\nname = "{a.name}"\nversion = "{a.version}"\n',
        f"src/{import_name(a.name)}/__init__.py": f"__version__ = {a.version!r}\n",
    }
    out_path = os.path.join(a.outdir, base + ".tar.gz")
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tf:
        for path in sorted(files):
            data = files[path].encode()
            info = tarfile.TarInfo(f"{base}/{path}")
            info.size, info.mtime, info.mode = len(data), TAR_MTIME, 0o644
            tf.addfile(info, io.BytesIO(data))
    with open(out_path, "wb") as f, gzip.GzipFile(fileobj=f, mode="wb", mtime=0, filename="") as gz:
        gz.write(raw.getvalue())
    return out_path


# The end-to-end pair: rp-demo-app's console script imports rp-demo-lib and prints
#   rp-demo-app 2.0.0 using rp-demo-lib 1.0.1: hello from the image
DEMO_OUTPUT = "rp-demo-app 2.0.0 using rp-demo-lib 1.0.1: hello from the image"


def write_demo(outdir, compresslevel):
    lib = parser().parse_args([outdir, "rp-demo-lib", "1.0.1", "--compresslevel", str(compresslevel),
                               "--module", "rp_demo_lib=__version__ = '1.0.1'\n"
                               "def greeting():\n    return 'hello from the image'\n"])
    app = parser().parse_args([outdir, "rp-demo-app", "2.0.0", "--compresslevel", str(compresslevel),
                               "--requires", "rp-demo-lib>=1.0",
                               "--console-script", "rp-demo=rp_demo_app.cli:main",
                               "--data-script", "rp-demo-data",
                               "--module", "rp_demo_app=__version__ = '2.0.0'\n",
                               "--module", "rp_demo_app.cli=import rp_demo_lib\n\n"
                               "def main():\n"
                               "    print('rp-demo-app 2.0.0 using rp-demo-lib ' + rp_demo_lib.__version__ + ': ' + "
                               "rp_demo_lib.greeting())\n"
                               "    return 0\n"])
    return [build_wheel(lib), build_wheel(app)]


def parser():
    p = argparse.ArgumentParser(description="Write a deterministic test wheel (or sdist).")
    p.add_argument("outdir")
    p.add_argument("name", nargs="?")
    p.add_argument("version", nargs="?")
    p.add_argument("--demo", action="store_true", help="write the end-to-end pair rp-demo-lib + rp-demo-app")
    p.add_argument("--sdist", action="store_true", help="write NAME-VERSION.tar.gz instead of a wheel")
    p.add_argument("--tag", default="py3-none-any", help="PY-ABI-PLATFORM (default py3-none-any)")
    p.add_argument("--build", help="build tag (must start with a digit)")
    p.add_argument("--requires", action="append", default=[], help="Requires-Dist (PEP 508, may have a marker)")
    p.add_argument("--extra", action="append", default=[], help="EXTRA:REQUIREMENT")
    p.add_argument("--requires-python")
    p.add_argument("--console-script", action="append", default=[], help="NAME=MODULE:FUNC [EXTRAS]")
    p.add_argument("--gui-script", action="append", default=[], help="NAME=MODULE:FUNC [EXTRAS]")
    p.add_argument("--platlib", action="store_true", help="Root-Is-Purelib: false")
    p.add_argument("--module", action="append", default=[], help="DOTTED.NAME=SOURCE (or =@FILE)")
    p.add_argument("--file", action="append", default=[], help="ROOT/PATH=CONTENT (or =@FILE)")
    p.add_argument("--data-script", action="append", default=[], help=".data/scripts/NAME with a #!python shebang")
    p.add_argument("--header", action="append", default=[], help=".data/headers/PATH")
    p.add_argument("--data", action="append", default=[], help=".data/data/PATH")
    p.add_argument("--data-raw", action="append", default=[],
                   help="KEY/PATH[=CONTENT]: any .data member, e.g. purelib/x.py or an invalid key")
    p.add_argument("--bad-path", action="append", default=[], help="a member with this exact (hostile) name")
    p.add_argument("--size-mb", type=float, default=0, help="add IMPORT_NAME/blob.bin of this many MiB")
    p.add_argument("--blob-kind", choices=["random", "zeros", "binary"], default="binary")
    p.add_argument("--compresslevel", type=int, default=6)
    p.add_argument("--no-record-hash", action="store_true", help="RECORD rows without hash and size")
    p.add_argument("--wrong-record-hash", action="store_true", help="RECORD hashes of .py files are wrong")
    p.add_argument("--metadata-field", action="append", default=[],
                   help='one more METADATA line, as written: "License-Expression: MIT", "Classifier: License :: ..."')
    p.add_argument("--metadata-name-mismatch", action="store_true", help="METADATA Name differs from the filename")
    return p


def main():
    a = parser().parse_args()
    os.makedirs(a.outdir, exist_ok=True)
    if a.demo:
        for path in write_demo(a.outdir, a.compresslevel):
            print(path)
        return
    if not a.name or not a.version:
        sys.exit("make_wheel: NAME and VERSION are required (or --demo)")
    if a.build and not a.build[0].isdigit():
        sys.exit("make_wheel: a build tag starts with a digit")
    print(build_sdist(a) if a.sdist else build_wheel(a))


if __name__ == "__main__":
    main()
