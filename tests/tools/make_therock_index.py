#!/usr/bin/env python3
"""Generates a mock TheRock package index: a directory servable as a static PEP 503 index.

The contents follow the facts in shared/reference/therock.md and therock-multiarch.md (TheRock's
packaging of ROCm as Python distributions): the `rocm` sdist whose setup.py computes its
requirements from `_dist_info.py`, `py3-none-linux_x86_64` runtime wheels, a devel wheel carrying
`_devel.tar` (os.walk member order) with relative symlinks into the runtime packages, TheRock torch
wheels with a `+rocm<ver>` local version, and the PyPI dependencies of torch mirrored next to them.
The sdist's `rocm-sdk` command does what TheRock's does for `init`/`path` (rocm_sdk/_devel.py: the
expansion rules, device links, RECORD rows, .devel_reconcile.lock), so pip + `rocm-sdk init` on
this index is the reference an image is compared with. Everything here is invented text; only the
shape is TheRock's. Output is deterministic: fixed zip and tar timestamps, sorted members.

    make_therock_index.py OUT [--layout per-family|multi-arch|whl-next] [--family F]... [--target T]...
                              [--versions A,B] [--python 3.11] [--scale small|rocm] [--drop-dep NAME]
                              [--include-checksums | --no-checksums]

per-family (legacy): one index per family under OUT/<family>/, rocm-sdk-libraries-<family>.
multi-arch: one flat index at OUT/ (../<file>#sha256= links) for the --target GPUs: arch-neutral
  rocm-sdk-libraries, rocm-sdk-device-<t> with .devel_links, torch split into a host wheel and
  amd-torch-device-<key> wheels (targets and sub-families, hex RECORD hashes), torchvision split
  likewise into amd-torchvision-device-<t> wheels (targets only), rocm-bootstrap, triton.
whl-next: the same packages in TheRock's structured layout: OUT/rocm/<core|pytorch>/whl-next/<pkg>/
  with same-directory links and no #sha256 (unless --include-checksums), the aggregate root
  OUT/rocm/whl-next/ and its routes (OUT/routes.json for tests/tools/static_server.py --routes).
Standard library only.
"""

import argparse
import base64
import csv
import gzip
import hashlib
import io
import json
import math
import os
import random
import re
import sys
import tarfile
import zipfile

ZIP_DATE = (2025, 1, 1, 0, 0, 0)
TAR_MTIME = 1735689600  # 2025-01-01T00:00:00Z

# TheRock's target -> family table (therock.md). The mock uses it to know which targets a family
# builds for (dist_info.json, device wheels).
FAMILY_TARGETS = {
    "gfx94X-dcgpu": ["gfx942"],
    "gfx950-dcgpu": ["gfx950"],
    "gfx110X-all": ["gfx1100", "gfx1101", "gfx1102", "gfx1103"],
    "gfx110X-dgpu": ["gfx1100", "gfx1101", "gfx1102"],
    "gfx1151": ["gfx1151"],
    "gfx120X-all": ["gfx1200", "gfx1201"],
    "gfx103X-all": ["gfx1030", "gfx1031", "gfx1032", "gfx1033", "gfx1034", "gfx1035", "gfx1036"],
    "gfx90a": ["gfx90a"],
    "gfx908": ["gfx908"],
    "gfx906": ["gfx906"],
    "gfx900": ["gfx900"],
}

# Launchers that `rocm-sdk init` leaves as symlinks (therock.md).
LAUNCHERS = ["amdclang", "amdclang++", "amdclang-cl", "amdclang-cpp", "amdflang", "amdlld", "amdllvm"]

TORCH_VERSION = "2.10.0a0"
VISION_VERSION = "0.25.0a0"
AUDIO_VERSION = "2.10.0a0"
TRITON_VERSION = "3.5.0"


def normalize(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def wheel_name_part(name):
    # Distribution names in wheel file names: runs of -_. become '_' (case kept, as TheRock's files
    # show `rocm_sdk_libraries_gfx94x_dcgpu`: lower-cased by their build).
    return re.sub(r"[-_.]+", "_", name)


# ---------------------------------------------------------------------------------------------
# Content generation. Binaries are pseudo-random with some text mixed in, so they compress about
# 2:1 like real shared objects; headers are C text. Same path -> same bytes.

_FILLER = (b"\x00" * 512) + (b"__hip_module_ctor .text .rodata .eh_frame GLIBC_2.17 " * 30)[:1536]


def binary_chunks(seed, size):
    rng = random.Random(seed)
    remaining = size
    head = b"\x7fELF\x02\x01\x01\x00" + b"\x00" * 8
    first = True
    while remaining > 0:
        chunk = rng.randbytes(2048) + _FILLER
        if first:
            chunk = head + chunk[len(head):]
            first = False
        chunk = chunk[:remaining]
        remaining -= len(chunk)
        yield chunk


def binary(seed, size):
    return b"".join(binary_chunks(seed, size))


def header_text(path, size):
    guard = re.sub(r"[^A-Za-z0-9]", "_", path).upper()
    lines = [f"// {path}: mock ROCm header generated for tests.", f"#ifndef {guard}", f"#define {guard}", ""]
    length = sum(len(x) + 1 for x in lines) + len(guard) + 16
    n = 0
    body = []
    while length < size:
        body.append(f"int {guard.lower()}_fn{n}(const void* arg{n}, unsigned long size{n});")
        length += len(body[-1]) + 1
        n += 1
    return ("\n".join(lines + body + ["", f"#endif  // {guard}", ""])).encode()


class Payload:
    """Files of a wheel: relative path -> (bytes or (seed, size) for generated binaries, mode)."""

    def __init__(self):
        self.files = {}

    def add(self, path, data, mode=0o644):
        self.files[path] = (data, mode)

    def add_binary(self, path, size, mode=0o755):
        self.files[path] = ((path, size), mode)


class FileSource:
    """Contents taken from a file on disk (the devel tarball, too big to hold in memory at scale)."""

    def __init__(self, path):
        self.path = path


# ---------------------------------------------------------------------------------------------
# The devel tree at rocm scale: what a real TheRock devel tree carries besides the runtime wheels'
# files (static libraries, tools, headers, CMake packages), as content that compresses like the
# real thing. Calibrated on a Debian machine's llvm-14 development files: its static libraries
# (lib*.a, median 314 KB, p90 4.7 MB) compress 3.6:1 with gzip -1 and 4.1:1 with gzip -6, its
# executables 2.4:1 and 2.6:1, /usr/include (median 4.9 KB, p90 37 KB) 4.5:1 and 5.6:1.
# Content is built from fresh pseudo-random bytes (machine code), skewed bytes (relocations,
# tables), slices of a large pool of symbol names or C declarations (string tables, header text)
# and zero padding, mixed per 4 KB block: fast to generate, and no block repeats another within a
# compressor's window (the pools are larger than zstd's window at the levels used).

# Skewed bytes: most become 0, some a small value, the rest stay random (about 3 bits a byte).
_SKEW = bytes((0 if b < 176 else (b - 176) % 16 if b < 232 else b) for b in range(256))
_POOL_SIZE = 24 << 20
_pools = {}


_PARTS = ["hip", "rocblas", "miopen", "kernel", "launch", "tensor", "desc", "get", "set", "create", "destroy",
          "stream", "event", "impl", "detail", "gemm", "conv", "fwd", "bwd", "batch", "strided", "half", "float",
          "int8", "workspace", "solver", "handle", "status", "device", "memory", "alloc", "copy", "async", "module",
          "func", "arg", "size", "ptr", "dim", "grid", "block", "llvm", "clang", "sema", "codegen", "pass", "value"]


def _pool(kind):
    """A deterministic pool of text: NUL-separated mangled symbols ("symbols") or C declarations
    ("c"), over a vocabulary of a few thousand names, each used many times as in real code."""
    if kind not in _pools:
        rng = random.Random("pool-" + kind)
        vocab = ["_".join(rng.choices(_PARTS, k=rng.randint(2, 4))) + str(rng.randint(0, 99)) for _ in range(1500)]
        namespaces = rng.sample(vocab, 40)
        out, size = [], 0
        while size < _POOL_SIZE:
            if kind == "symbols":
                ns = rng.choice(namespaces)
                piece = "\0".join(f"_ZN{len(ns)}{ns}{len(w)}{w}E{rng.choice(['v', 'i', 'PKvm', 'Pvj', 'RKS0_', 'ii'])}"
                                   for w in rng.choices(vocab, k=64)) + "\0"
            else:
                lines = []
                for w in rng.choices(vocab, k=32):
                    v = rng.choice(vocab)
                    lines.append(rng.choice([
                        f"{rng.choice(['int', 'void', 'size_t', 'hipError_t', 'rocblas_status'])} {w}("
                        f"{rng.choice(['const void* ptr', 'hipStream_t stream', 'int n', 'float alpha, const float* x'])});",
                        f"#define {w.upper()} {rng.randint(0, 255)}",
                        f"  // {w.replace('_', ' ')}: see the documentation of {v}.",
                        f"struct {w} {{\n  int {v};\n  void* data;\n}};",
                        f"template <typename T>\ninline T {w}(T a) {{\n  return a * {rng.randint(2, 9)};\n}}",
                        f"/**\n * @brief {w.replace('_', ' ')}\n *\n * @param[in] handle the library handle\n"
                        f" * @param[in] stream the stream to enqueue on\n * @return the status of the call\n */",
                        f"namespace {w} {{\n\n}}  // namespace {w}\n#include <hip/hip_runtime.h>",
                    ]))
                piece = "\n".join(lines) + "\n"
            out.append(piece.encode())
            size += len(out[-1])
        _pools[kind] = b"".join(out)
    return _pools[kind]


# Per 4 KB block: (machine code, skewed, pool text, zeros) bytes, and the pool. Tuned so that
# deflate gives static libraries about 3:1 at level 1 and 3.4:1 at level 6, executables 2.3:1 and
# 2.5:1, headers 5:1 and 6.4:1 (measured figures in docs/performance.md).
DEVEL_PROFILES = {
    "static": ((380, 760, 2260, 696), "symbols"),
    "exe": ((800, 950, 1750, 596), "symbols"),
    "header": ((0, 0, 4096, 0), "c"),
}


class Generated:
    """`size` bytes of one DEVEL_PROFILES kind, the same for the same seed."""

    def __init__(self, kind, seed, size):
        self.kind, self.seed, self.size = kind, seed, size

    def chunks(self):
        (code, skew, text, zeros), pool_kind = DEVEL_PROFILES[self.kind]
        pool = _pool(pool_kind)
        rng = random.Random(self.seed)
        head = b"!<arch>\n" if self.kind == "static" else (b"\x7fELF\x02\x01\x01\x00" + b"\x00" * 8 if self.kind == "exe" else
                                                       f"// {self.seed}: mock ROCm header\n#pragma once\n".encode())
        remaining = self.size
        first = True
        while remaining > 0:
            at = rng.randrange(len(pool) - text)
            block = rng.randbytes(code) + rng.randbytes(skew).translate(_SKEW) + pool[at:at + text] + b"\0" * zeros
            if first:
                block = head + block[len(head):]
                first = False
            block = block[:remaining]
            remaining -= len(block)
            yield block


def chunks_of(data):
    if isinstance(data, Generated):
        yield from data.chunks()
    elif isinstance(data, FileSource):
        with open(data.path, "rb") as f:
            yield from iter(lambda: f.read(1 << 20), b"")
    elif isinstance(data, tuple):
        yield from binary_chunks(*data)
    else:
        yield data


def record_hash(digest):
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def write_wheel(out_dir, name, version, tag, payload, requires=(), extras=None, entry_points=None,
                summary="", requires_python=None, purelib=False, compresslevel=6, metadata=None, split=False,
                generator="make_therock_index.py"):
    """Writes one wheel; returns its file name. `extras` maps extra -> list of requirements.
    `metadata` replaces the METADATA text; `split` writes RECORD as rocm_kpack's wheel splitter does
    (hex sha256, no row for RECORD itself, members in sorted path order with the dist-info first)."""
    dist = wheel_name_part(name).lower()
    filename = f"{dist}-{version}-{tag}.whl"
    dist_info = f"{dist}-{version}.dist-info"
    meta = [
        "Metadata-Version: 2.1",
        f"Name: {name}",
        f"Version: {version}",
        f"Summary: {summary or name + ' (mock for rockpack tests)'}",
    ]
    if requires_python:
        meta.append(f"Requires-Python: {requires_python}")
    for r in requires:
        meta.append(f"Requires-Dist: {r}")
    for extra, reqs in (extras or {}).items():
        meta.append(f"Provides-Extra: {extra}")
        for r in reqs:
            meta.append(f'Requires-Dist: {r} ; extra == "{extra}"')
    metadata = metadata.encode() if metadata is not None else ("\n".join(meta) + "\n\n").encode()
    wheel_file = (
        f"Wheel-Version: 1.0\nGenerator: {generator}\n"
        f"Root-Is-Purelib: {'true' if purelib else 'false'}\nTag: {tag}\n\n"
    ).encode()
    meta_files = {f"{dist_info}/METADATA": metadata, f"{dist_info}/WHEEL": wheel_file}
    if entry_points:
        text = ""
        for group in sorted(entry_points):
            text += f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in sorted(entry_points[group].items())) + "\n"
        meta_files[f"{dist_info}/entry_points.txt"] = text.encode()

    records = []
    path = os.path.join(out_dir, filename)
    with zipfile.ZipFile(path + ".tmp", "w", zipfile.ZIP_DEFLATED, compresslevel=compresslevel) as z:
        def put(member, data, mode):
            info = zipfile.ZipInfo(member, ZIP_DATE)
            info.external_attr = ((0o100000 | mode) << 16)
            info.compress_type = zipfile.ZIP_DEFLATED
            h = hashlib.sha256()
            size = 0
            with z.open(info, "w", force_zip64=True) as f:
                for chunk in chunks_of(data):
                    h.update(chunk)
                    size += len(chunk)
                    f.write(chunk)
            records.append((member, "sha256=" + h.hexdigest() if split else record_hash(h.digest()), str(size)))

        if split:
            everything = dict(meta_files)
            everything.update({m: payload.files[m] for m in payload.files})
            for member in sorted(everything):
                data = everything[member]
                put(member, data[0], data[1]) if isinstance(data, tuple) and len(data) == 2 and isinstance(data[1], int) \
                    else put(member, data, 0o644)
        else:
            for member in sorted(payload.files):
                data, mode = payload.files[member]
                put(member, data, mode)
            for member in sorted(meta_files):
                put(member, meta_files[member], 0o644)
            records.append((f"{dist_info}/RECORD", "", ""))
        buf = io.StringIO()
        csv.writer(buf, lineterminator="\n").writerows(records)
        info = zipfile.ZipInfo(f"{dist_info}/RECORD", ZIP_DATE)
        info.external_attr = (0o100644 << 16)
        info.compress_type = zipfile.ZIP_DEFLATED
        z.writestr(info, buf.getvalue())
    os.replace(path + ".tmp", path)
    return filename


# ---------------------------------------------------------------------------------------------
# Tar helpers (sdist and _devel.tar): PAX, fixed mtime, uid/gid 0, no owner names.

def tar_info(name, kind, mode, size=0, linkname=""):
    info = tarfile.TarInfo(name)
    info.type = kind
    info.mode = mode
    info.size = size
    info.linkname = linkname
    info.mtime = TAR_MTIME
    info.uid = info.gid = 0
    info.uname = info.gname = ""
    return info


class _ChunkReader(io.RawIOBase):
    def __init__(self, chunks):
        self._it = iter(chunks)
        self._buf = b""

    def readable(self):
        return True

    def readinto(self, b):
        while not self._buf:
            try:
                self._buf = next(self._it)
            except StopIteration:
                return 0
        n = min(len(b), len(self._buf))
        b[:n] = self._buf[:n]
        self._buf = self._buf[n:]
        return n


def tar_add_file(tar, name, data, mode=0o644):
    # never a FileSource
    size = data[1] if isinstance(data, tuple) else data.size if isinstance(data, Generated) else len(data)
    # Buffered: tarfile wants full reads, and generated contents come in 4 KB blocks.
    tar.addfile(tar_info(name, tarfile.REGTYPE, mode, size), io.BufferedReader(_ChunkReader(chunks_of(data)), 1 << 20))


def tar_add_dirs(tar, names, seen):
    for name in names:
        parts = name.split("/")
        for i in range(1, len(parts)):
            d = "/".join(parts[:i])
            if d not in seen:
                seen.add(d)
                tar.addfile(tar_info(d, tarfile.DIRTYPE, 0o755))


# ---------------------------------------------------------------------------------------------
# The rocm sdist.

DIST_INFO_BODY = '''\
"""Which distribution packages make up the ROCm SDK on this index, and how they are named.

setup.py reads this module to compute the requirements of each extra; the rocm_sdk package reads
it at run time to find the installed pieces. The index build appends its version and target
families at the end of this file.
"""

ALL_PACKAGES = {}


class PackageEntry:
    """One distribution package of the SDK.

    dist_package_template names the distribution, py_package_template the top-level directory it
    installs into site-packages; both may contain {target_family} or {target}.
    """

    def __init__(self, logical_name, dist_package_template, *, py_package_template,
                 required=False, is_target_specific=False):
        self.logical_name = logical_name
        self.dist_package_template = dist_package_template
        self.py_package_template = py_package_template
        self.required = required
        self.is_target_specific = is_target_specific
        ALL_PACKAGES[logical_name] = self

    def dist_package_name(self, target_family=None, target=None):
        return self.dist_package_template.format(target_family=target_family, target=target)

    def py_package_name(self, target_family=None, target=None):
        return self.py_package_template.format(target_family=target_family, target=target)


PackageEntry("core", "rocm-sdk-core", py_package_template="_rocm_sdk_core", required=True)
PackageEntry(
    "libraries",
    "rocm-sdk-libraries-{target_family}",
    py_package_template="_rocm_sdk_libraries_{target_family}",
    is_target_specific=True,
)
PackageEntry("devel", "rocm-sdk-devel", py_package_template="rocm_sdk_devel")
PackageEntry("profiler", "rocm-profiler", py_package_template="_rocm_profiler")
'''

DIST_INFO_DEVICE = '''\
PackageEntry(
    "device",
    "rocm-sdk-device-{target}",
    py_package_template="_rocm_sdk_libraries",
    is_target_specific=True,
)
'''

DIST_INFO_TAIL = '''
# The targets each family is built for (device extras on multi-arch indexes).
FAMILY_TARGETS = %s

AVAILABLE_TARGET_FAMILIES = []
DEFAULT_TARGET_FAMILY = None
__version__ = None


def targets_of(family):
    return FAMILY_TARGETS.get(family, [family])

# --- appended by the index build ---
'''

SETUP_PY = '''\
"""Computes the requirements of the rocm meta package from src/rocm_sdk/_dist_info.py."""
import importlib.util
import os
import shutil
import subprocess

from setuptools import setup

HERE = os.path.dirname(os.path.abspath(__file__))


def load_dist_info():
    spec = importlib.util.spec_from_file_location(
        "_dist_info", os.path.join(HERE, "src", "rocm_sdk", "_dist_info.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def detect_family(di):
    family = os.environ.get("ROCM_SDK_TARGET_FAMILY")
    if not family and shutil.which("offload-arch"):
        try:
            archs = subprocess.run(["offload-arch"], capture_output=True, text=True).stdout.split()
        except OSError:
            archs = []
        for arch in archs:
            candidates = [arch[:-1] + "X" + s for s in ("-all", "-dgpu", "-igpu", "-dcgpu")] + [arch]
            found = [c for c in candidates if c in di.AVAILABLE_TARGET_FAMILIES]
            if found:
                family = found[0]
                break
    if not family:
        family = di.DEFAULT_TARGET_FAMILY
    if family not in di.AVAILABLE_TARGET_FAMILIES:
        raise SystemExit(f"ROCm target family {family!r} is not available; "
                         f"this index has: {', '.join(di.AVAILABLE_TARGET_FAMILIES)}")
    return family


def pin(name, di):
    return f"{name}=={di.__version__}"


di = load_dist_info()
family = detect_family(di)
packages = di.ALL_PACKAGES
install_requires = [pin(packages["core"].dist_package_name(family), di)]
extras = {
    "devel": [pin(packages["devel"].dist_package_name(family), di)],
    "profiler": [pin(packages["profiler"].dist_package_name(family), di)],
    "libraries": [pin(packages["libraries"].dist_package_name(family), di)],
}
if "device" in packages:
    # Multi-arch (TheRock's templates/rocm/setup.py): `device` is the detected target's package;
    # with two or more base targets, device-<t> for each and device-all. A target on only one
    # platform's list gets that platform's marker.
    device = packages["device"]
    extras["device"] = [pin(device.dist_package_name(family, family.split(":")[0]), di)]
    base = []
    for t in di.AVAILABLE_TARGET_FAMILIES:
        b = t.split(":")[0]
        if b not in base:
            base.append(b)
    if len(base) >= 2:
        everything = []
        for t in base:
            req = pin(device.dist_package_name(None, t), di)
            on_linux, on_windows = t in di.LINUX_TARGET_FAMILIES, t in di.WINDOWS_TARGET_FAMILIES
            if on_linux and not on_windows:
                req += '; sys_platform == "linux"'
            elif on_windows and not on_linux:
                req += '; sys_platform == "win32"'
            extras["device-" + t] = [req]
            everything.append(req)
        extras["device-all"] = everything
else:
    extras["device"] = []

setup(
    name="rocm",
    version=di.__version__,
    description="ROCm SDK meta package (mock for rockpack tests)",
    package_dir={"": "src"},
    packages=["rocm_sdk"],
    install_requires=install_requires,
    extras_require=extras,
    entry_points={"console_scripts": ["rocm-sdk = rocm_sdk.__main__:main"]},
    python_requires=">=3.9",
)
'''

INIT_PY = '''\
"""ROCm SDK python packages (mock for rockpack tests)."""
from ._dist_info import __version__  # noqa: F401
'''

MAIN_PY = r'''"""The rocm-sdk command: version, targets, path, init (TheRock's rocm_sdk/_devel.py rules)."""
import argparse
import csv
import fcntl
import json
import os
import re
import shutil
import sys
import tarfile
from pathlib import Path

from . import _dist_info

SITE = Path(__file__).resolve().parent.parent
DEVEL = SITE / "_rocm_sdk_devel"
LAUNCHERS = {"amdclang", "amdclang++", "amdclang-cl", "amdclang-cpp", "amdflang", "amdlld", "amdllvm"}


def normalize(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def installed():
    """(dist-info dir, Name, Version) of every distribution in site-packages."""
    for d in sorted(SITE.glob("*.dist-info")):
        name = version = None
        for line in (d / "METADATA").read_text(errors="replace").splitlines():
            if not line:
                break
            if line.startswith("Name:"):
                name = line[5:].strip()
            elif line.startswith("Version:"):
                version = line[8:].strip()
        if name:
            yield d, name, version


def dist_info_of(dist):
    for d, name, _ in installed():
        if normalize(name) == dist:
            return d
    return None


def devel_tarball():
    for name in ("_devel.tar.xz", "_devel.tar"):
        p = SITE / "rocm_sdk_devel" / name
        if p.exists():
            return p
    return None


def is_expanded():
    return (DEVEL / "__init__.py").exists() and devel_tarball() is None


def read_rows(record):
    with open(record, newline="") as f:
        return [row for row in csv.reader(f)]


def expand_devel():
    if is_expanded():
        return
    tarball = devel_tarball()
    if tarball is None:
        raise SystemExit("rocm-sdk: the devel package is not installed (install rocm[devel])")
    record = dist_info_of("rocm-sdk-devel") / "RECORD"
    listed = {row[0] for row in read_rows(record) if row}
    touched = set()

    def touch(rel):
        # The first time a directory is touched, whatever was there goes.
        if rel in touched:
            return
        touched.add(rel)
        if (SITE / rel).is_dir() and not (SITE / rel).is_symlink():
            shutil.rmtree(SITE / rel)

    with open(record, "a", newline="") as out, tarfile.open(tarball) as tar:
        fcntl.lockf(out, fcntl.LOCK_EX)
        writer = csv.writer(out, lineterminator="\n")
        for m in tar:
            if not m.name.startswith("_rocm_sdk_devel/") or ".." in m.name.split("/"):
                raise SystemExit(f"rocm-sdk: unexpected member {m.name} in {tarball}")
            dest = SITE / m.name
            if m.isdir():
                touch(m.name)
                dest.mkdir(parents=True, exist_ok=True)
                continue
            parent = m.name.rsplit("/", 1)[0]
            touch(parent)
            dest.parent.mkdir(parents=True, exist_ok=True)
            if m.name not in listed:
                writer.writerow([m.name, "", ""])
                listed.add(m.name)
            if m.issym():
                target = dest.parent / m.linkname
                launcher = dest.name in LAUNCHERS and dest.parent.name == "bin" and \
                    dest.parent.parent.name.startswith("_rocm_sdk_devel")
                if not launcher and target.is_file():
                    os.link(target, dest)
                    continue
            tar.extract(m, SITE, set_attrs=False)
            if m.isfile():
                os.chmod(dest, 0o755 if m.mode & 0o111 else 0o644)
    tarball.unlink()


def reconcile_device_links():
    """Hardlinks every installed device wheel's .devel_links into the devel tree."""
    version = re.sub(r"\.post\d+$", "", _dist_info.__version__)
    work = []
    for d, name, dist_version in installed():
        n = normalize(name)
        if not (n == "rocm-sdk-device" or n.startswith("rocm-sdk-device-")):
            continue
        if re.sub(r"\.post\d+$", "", dist_version or "") != version:
            print(f"rocm-sdk: {name} {dist_version} does not match rocm {version}; skipped", file=sys.stderr)
            continue
        rows = read_rows(d / "RECORD")
        specs = [r[0] for r in rows if r and "/.devel_links/" in r[0] and r[0].endswith(".json")]
        links = []
        for spec in specs:
            links += json.loads((SITE / spec).read_text())["links"]
        work.append((d, rows, links))
    def done(d, rows, links):
        have = {r[0] for r in rows if r}
        for link in links:
            dest = DEVEL / link["relpath"]
            source = Path(os.path.normpath(dest.parent / link["target"]))
            if "_rocm_sdk_devel/" + link["relpath"] not in have:
                return False
            if source.exists() and not (dest.is_file() and not dest.is_symlink() and os.path.samefile(dest, source)):
                return False
        return True
    if all(done(*w) for w in work):
        return
    DEVEL.mkdir(parents=True, exist_ok=True)
    with open(DEVEL / ".devel_reconcile.lock", "w") as lock:
        fcntl.lockf(lock, fcntl.LOCK_EX)
        for d, rows, links in work:
            for link in links:
                dest = DEVEL / link["relpath"]
                source = Path(os.path.normpath(dest.parent / link["target"]))
                if not source.exists():
                    continue
                if dest.is_file() and not dest.is_symlink() and os.path.samefile(dest, source):
                    continue
                dest.parent.mkdir(parents=True, exist_ok=True)
                if dest.is_symlink() or dest.exists():
                    dest.unlink()
                os.link(source, dest)
            seen, kept = set(), []
            for r in rows:
                if r and r[0] not in seen:
                    seen.add(r[0])
                    kept.append(r)
            for link in links:
                p = "_rocm_sdk_devel/" + link["relpath"]
                if p not in seen:
                    seen.add(p)
                    kept.append([p, "", ""])
            with open(d / "RECORD", "w", newline="") as f:
                csv.writer(f, lineterminator="\n").writerows(kept)


def get_devel_root():
    if dist_info_of("rocm-sdk-devel") is None:
        raise SystemExit("rocm-sdk: the devel package is not installed (install rocm[devel])")
    expand_devel()
    reconcile_device_links()
    return DEVEL


def targets():
    info = json.loads((SITE / "_rocm_sdk_core" / "share" / "therock" / "dist_info.json").read_text())
    return info["dist_amdgpu_targets"]


def main(argv=None):
    parser = argparse.ArgumentParser(prog="rocm-sdk")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("version")
    sub.add_parser("targets")
    init = sub.add_parser("init")
    init.add_argument("--quiet", action="store_true")
    path = sub.add_parser("path")
    which = path.add_mutually_exclusive_group(required=True)
    which.add_argument("--root", action="store_true")
    which.add_argument("--bin", action="store_true")
    which.add_argument("--cmake", action="store_true")
    args = parser.parse_args(argv)
    if args.command == "version":
        print(_dist_info.__version__)
    elif args.command == "targets":
        print(targets())
    elif args.command == "init":
        root = get_devel_root()
        if not args.quiet:
            print(f"Devel contents expanded to '{root}'")
    elif args.command == "path":
        root = get_devel_root()
        if args.root:
            print(root)
        elif args.bin:
            print(root / "bin")
        else:
            print(root / "lib" / "cmake")
    return 0


if __name__ == "__main__":
    sys.exit(main())
'''


def dist_info_py(version, families, targets):
    """targets: None for a per-family sdist, else the multi-arch release's GPU targets."""
    text = DIST_INFO_BODY
    multi_arch = targets is not None
    if multi_arch:
        text += DIST_INFO_DEVICE
    table = "{\n" + "".join(f"    {f!r}: {FAMILY_TARGETS.get(f, [f])!r},\n" for f in families) + "}"
    text += DIST_INFO_TAIL % table
    if not multi_arch:
        text += f'__version__ = "{version}"\n'
        text += f'DEFAULT_TARGET_FAMILY = "{families[0]}"\n'
        for f in families:
            text += f'AVAILABLE_TARGET_FAMILIES.append("{f}")\n'
        return text.encode()
    # What TheRock's build appends for a multi-arch release (py_packaging.py): GPU targets, not
    # families; the default is the first of the sorted Linux and Windows targets.
    linux = list(targets)
    windows = [t for t in targets if t not in LINUX_ONLY]
    both = sorted(set(linux) & set(windows))
    text += "LINUX_TARGET_FAMILIES = []\nWINDOWS_TARGET_FAMILIES = []\n"
    text += f"__version__ = '{version}'\n"
    text += "PY_PACKAGE_SUFFIX_NONCE = ''\n"
    text += 'ALL_PACKAGES["libraries"].dist_package_template = "rocm-sdk-libraries"\n'
    text += f"DEFAULT_TARGET_FAMILY = '{both[0] if both else sorted(targets)[0]}'\n"
    for t in sorted(targets):
        text += f"AVAILABLE_TARGET_FAMILIES.append('{t}')\n"
    for t in linux:
        text += f"LINUX_TARGET_FAMILIES.append('{t}')\n"
    for t in windows:
        text += f"WINDOWS_TARGET_FAMILIES.append('{t}')\n"
    text += "THIS_TARGET_FAMILY = None\n"
    return text.encode()


# A multi-arch target published for Linux only (its device extra carries a sys_platform marker).
LINUX_ONLY = {"gfx950"}


def write_sdist(out_dir, version, families, targets):
    root = f"rocm-{version}"
    pkg_info = (
        f"Metadata-Version: 2.1\nName: rocm\nVersion: {version}\n"
        "Summary: ROCm SDK meta package (mock for rockpack tests)\nRequires-Python: >=3.9\n\n"
    ).encode()
    files = {
        f"{root}/PKG-INFO": pkg_info,
        f"{root}/setup.py": SETUP_PY.encode(),
        f"{root}/setup.cfg": b"[egg_info]\ntag_build = \ntag_date = 0\n\n",
        f"{root}/src/rocm_sdk/__init__.py": INIT_PY.encode(),
        f"{root}/src/rocm_sdk/__main__.py": MAIN_PY.encode(),
        f"{root}/src/rocm_sdk/_dist_info.py": dist_info_py(version, families, targets),
    }
    filename = f"rocm-{version}.tar.gz"
    path = os.path.join(out_dir, filename)
    with open(path + ".tmp", "wb") as raw:
        with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as gz:
            with tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar:
                seen = set()
                tar.addfile(tar_info(root, tarfile.DIRTYPE, 0o755))
                seen.add(root)
                for name in sorted(files):
                    tar_add_dirs(tar, [name], seen)
                    tar_add_file(tar, name, files[name])
    os.replace(path + ".tmp", path)
    return filename


# ---------------------------------------------------------------------------------------------
# ROCm wheels.

ROCM_TAG = "py3-none-linux_x86_64"


class Scale:
    def __init__(self, name):
        self.rocm = name == "rocm"
        # (count, size) of generated things. small: a few KB in total per wheel.
        # rocm: a third of TheRock's gfx94X `rocm[libraries,devel]` download (3.06 GiB) in about the
        # same shares: core 19%, libraries and device files 37%, devel 44% (therock.md).
        self.core_libs = (60, 2_000_000) if self.rocm else (3, 2000)
        self.llvm_bins = (8, 40_000_000) if self.rocm else (2, 3000)
        self.library_libs = (650, 1_000_000) if self.rocm else (4, 2000)
        self.device_files = (200, 500_000) if self.rocm else (2, 1000)
        # Headers: (count, size); at rocm scale sizes vary as real headers do (devel_sizes).
        self.headers = (20000, None) if self.rocm else (6, 300)
        # The devel tree's own binaries (rocm only): static libraries and tools, bytes in all.
        self.devel_static_bytes = 1_075_000_000 if self.rocm else 0
        self.devel_tool_bytes = 150_000_000 if self.rocm else 0
        self.torch_libs = (20, 10_000_000) if self.rocm else (2, 2000)
        # Reaches only members added by name; write_wheel adds every member as a ZipInfo, which
        # zipfile deflates at zlib's default level (6), as TheRock's wheels are.
        self.compresslevel = 1 if self.rocm else 6


CORE_LIB_NAMES = ["libamdhip64.so.7", "libhsa-runtime64.so.1", "libamd_comgr.so.3"]
LIBRARY_NAMES = ["librocblas.so.5", "libhipblas.so.3", "libMIOpen.so.1", "librccl.so.1"]
HEADER_NAMES = ["hip/hip_runtime.h", "hip/hip_runtime_api.h", "hip/hip_version.h",
                "rocblas/rocblas.h", "hipblas/hipblas.h", "miopen/miopen.h"]


def numbered(names, count, pattern):
    out = list(names[:count])
    i = 0
    while len(out) < count:
        out.append(pattern.format(i))
        i += 1
    return out


def core_payload(version, targets, scale):
    p = Payload()
    base = "_rocm_sdk_core"
    p.add(f"{base}/__init__.py", b'"""ROCm SDK core runtime (mock)."""\n')
    for name in numbered(CORE_LIB_NAMES, scale.core_libs[0], "libcore_mock{0}.so.1"):
        p.add_binary(f"{base}/lib/{name}", scale.core_libs[1])
    for name in numbered(["clang", "lld"], scale.llvm_bins[0], "llvm-tool{0}"):
        if name == "clang":  # answers --version, so `hipcc --version` works in a mock image
            p.add(f"{base}/lib/llvm/bin/clang",
                  b"#!/bin/sh\necho 'AMD clang version 20.0.0 (mock)'\necho 'Target: x86_64-unknown-linux-gnu'\n",
                  0o755)
            continue
        p.add_binary(f"{base}/lib/llvm/bin/{name}", scale.llvm_bins[1])
    for launcher in LAUNCHERS:
        tool = "flang" if "flang" in launcher else ("lld" if "lld" in launcher else "clang")
        # Through the link: the devel tree's bin/ has the launchers as symlinks into lib/llvm/bin.
        p.add(f"{base}/lib/llvm/bin/{launcher}",
              f'#!/bin/sh\nexec "$(dirname "$(readlink -f "$0")")/{tool}" "$@"\n'.encode(), 0o755)
    p.add(f"{base}/lib/llvm/amdgcn/bitcode/ockl.bc", binary("ockl.bc", 1000), 0o644)
    p.add(f"{base}/bin/hipconfig", b"#!/bin/sh\necho HIP version: 7.10 (mock)\n", 0o755)
    p.add(f"{base}/bin/rocminfo", b"#!/bin/sh\necho 'ROCk module is NOT loaded (mock)'\n", 0o755)
    info = {"dist_amdgpu_targets": ";".join(targets), "rocm_version": version}
    p.add(f"{base}/share/therock/dist_info.json", (json.dumps(info, indent=2, sort_keys=True) + "\n").encode())
    return p


# Shipped by rocm-sdk-libraries and by every device wheel (the device setup.py declares the package).
LIBRARIES_INIT = b'"""ROCm SDK math and ML libraries (mock)."""\n'


def libraries_payload(pkg_dir, scale, arch_neutral_only=False):
    p = Payload()
    p.add(f"{pkg_dir}/__init__.py", LIBRARIES_INIT)
    for name in numbered(LIBRARY_NAMES, scale.library_libs[0], "libmock_library{0}.so.1"):
        p.add_binary(f"{pkg_dir}/lib/{name}", scale.library_libs[1])
    if not arch_neutral_only:
        p.add(f"{pkg_dir}/lib/rocblas/library/TensileLibrary.dat", binary(pkg_dir + "tensile", 800), 0o644)
    else:
        p.add(f"{pkg_dir}/.kpack/blas_lib.kpm", b"kpack manifest (mock)\n", 0o644)
    return p


def device_payload(version, target, scale):
    """rocm-sdk-device-<t>: kpack archives, Tensile files and MIOpen dbs under _rocm_sdk_libraries,
    and .devel_links/<t>.json naming each as a link target relative to the link's directory."""
    p = Payload()
    p.add("_rocm_sdk_libraries/__init__.py", LIBRARIES_INIT)
    rels = [f".kpack/blas_lib_{target}.kpack", f"share/miopen/db/{target}.kdb"]
    rels += [f"lib/rocblas/library/TensileLibrary_{target}_{i}.co" for i in range(scale.device_files[0])]
    links = []
    for rel in rels:
        p.add_binary(f"_rocm_sdk_libraries/{rel}", scale.device_files[1], 0o644)
        depth = rel.count("/") + 1
        links.append({"relpath": rel, "target": "../" * depth + "_rocm_sdk_libraries/" + rel})
    spec = {"version": version, "links": links}
    p.add(f"_rocm_sdk_libraries/.devel_links/{target}.json", (json.dumps(spec, indent=2) + "\n").encode())
    return p


HIPCC = b"""#!/usr/bin/env python3
# hipcc (mock): compiles through amdclang++ next to it.
import os, sys
here = os.path.dirname(os.path.abspath(__file__))
os.execv(os.path.join(here, "amdclang++"), [os.path.join(here, "amdclang++")] + sys.argv[1:])
"""


def walk_order(names):
    """The order os.walk gives a build tree: a directory's files, then each subdirectory (its entry,
    then its contents), sorted by name; no entry for the root itself."""
    tree = {}
    for name in names:
        node = tree
        parts = name.split("/")
        for d in parts[1:-1]:
            node = node.setdefault(d + "/", {})
        node[parts[-1]] = name
    out = []

    def visit(node, prefix):
        subdirs = sorted(k for k in node if k.endswith("/"))
        for k in sorted(k for k in node if not k.endswith("/")):
            out.append(("entry", node[k]))
        for d in subdirs:
            out.append(("dir", prefix + d[:-1]))
            visit(node[d], prefix + d)
    visit(tree, names[0].split("/")[0] + "/")
    return out


def devel_sizes(scale):
    """Member sizes of the devel tree at rocm scale, drawn from log-normal distributions fitted to
    Debian's llvm-14 development files (headers: median 4.9 KB, p90 37 KB; static libraries:
    median 314 KB, p90 4.7 MB; executables: median 89 KB, a few of tens of MB), the binaries until
    their byte budgets are spent. Deterministic."""
    if not scale.rocm:
        return {}
    rng = random.Random("devel-sizes")
    headers = [min(max(int(rng.lognormvariate(math.log(4900), 1.58)), 200), 2_500_000) for _ in range(scale.headers[0])]

    def spend(budget, median, sigma, low, high):
        sizes = []
        while budget > 0:
            size = min(max(int(rng.lognormvariate(math.log(median), sigma)), low), high, budget)
            sizes.append(size)
            budget -= size
        return sizes
    return {"header": headers, "static": spend(scale.devel_static_bytes, 400_000, 1.8, 8_000, 80_000_000),
            "exe": spend(scale.devel_tool_bytes, 600_000, 1.9, 16_000, 40_000_000)}


def devel_tar(path, core, scale, libraries=None):
    """Writes _devel.tar: headers, cmake files, hipcc; relative symlinks into core (and the
    libraries) for shared files; members in os.walk order as TheRock's build writes them."""
    root = "_rocm_sdk_devel"
    entries = {}  # name -> ("file", data, mode) | ("link", target)
    entries[f"{root}/__init__.py"] = ("file", b'"""Expanded ROCm SDK devel tree (mock)."""\n', 0o644)
    sizes = devel_sizes(scale)
    for i, name in enumerate(numbered(HEADER_NAMES, scale.headers[0], "rocm_mock/detail{0}/api.h")):
        if i >= len(HEADER_NAMES):
            name = f"rocm_mock/d{i // 500}/api{i}.h"
        data = Generated("header", name, sizes["header"][i]) if scale.rocm else header_text(name, scale.headers[1])
        entries[f"{root}/include/{name}"] = ("file", data, 0o644)
    if scale.rocm:
        # What makes a real devel wheel heavy: static libraries, tools and CMake packages.
        for i, size in enumerate(sizes["static"]):
            entries[f"{root}/lib/libmock_devel{i}.a"] = ("file", Generated("static", f"static{i}", size), 0o644)
        for i, size in enumerate(sizes["exe"]):
            entries[f"{root}/bin/mock_tool{i}"] = ("file", Generated("exe", f"tool{i}", size), 0o755)
        for i in range(60):
            for part in ("config", "config-version", "targets", "targets-release"):
                text = f"# mock-package{i}-{part}.cmake (mock)\nset(MOCK_PACKAGE{i}_FOUND TRUE)\n" * (8 if part == "targets" else 2)
                entries[f"{root}/lib/cmake/mock-package{i}/mock-package{i}-{part}.cmake"] = ("file", text.encode(), 0o644)
    entries[f"{root}/lib/cmake/hip/hip-config.cmake"] = (
        "file", b"# hip-config.cmake (mock)\nset(HIP_FOUND TRUE)\n", 0o644)
    entries[f"{root}/bin/hipcc"] = ("file", HIPCC, 0o755)
    # Files shipped by runtime wheels appear as relative symlinks into their packages.
    for pkg, payload in (("_rocm_sdk_core", core), ("_rocm_sdk_libraries", libraries)):
        if payload is None:
            continue
        for path_ in sorted(payload.files):
            rel = path_[len(pkg) + 1:]
            if rel.startswith(("lib/llvm/", ".kpack/")) or rel == "__init__.py" or rel.startswith("share/"):
                continue
            depth = rel.count("/") + 1
            entries[f"{root}/{rel}"] = ("link", "../" * depth + f"{pkg}/{rel}")
    # A symlink inside the tree to another symlink that comes later in the tar (the unversioned .so
    # name): `rocm-sdk init` keeps it a symlink.
    entries[f"{root}/lib/libamdhip64.so"] = ("link", "libamdhip64.so.7")
    # The compiler directory is one directory symlink.
    entries[f"{root}/lib/llvm"] = ("link", "../../_rocm_sdk_core/lib/llvm")
    for launcher in LAUNCHERS:
        entries[f"{root}/bin/{launcher}"] = ("link", f"../../_rocm_sdk_core/lib/llvm/bin/{launcher}")
    with tarfile.open(path, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for kind, name in walk_order(sorted(entries)):
            if kind == "dir":
                tar.addfile(tar_info(name, tarfile.DIRTYPE, 0o755))
                continue
            entry = entries[name]
            if entry[0] == "file":
                tar_add_file(tar, name, entry[1], entry[2])
            else:
                tar.addfile(tar_info(name, tarfile.SYMTYPE, 0o777, linkname=entry[1]))


def profiler_payload(scale):
    p = Payload()
    p.add("_rocm_profiler/__init__.py", b'"""ROCm profiler (mock)."""\n')
    p.add("_rocm_profiler/bin/rocprofv3", b"#!/bin/sh\necho rocprofv3 mock\n", 0o755)
    p.add_binary("_rocm_profiler/lib/librocprofiler-sdk.so.1", scale.core_libs[1])
    return p


# ---------------------------------------------------------------------------------------------
# torch and its PyPI dependencies.

def simple_module(package, text=""):
    p = Payload()
    p.add(f"{package}/__init__.py", (f'"""{package} (mock)."""\n__version__ = "0"\n' + text).encode())
    return p


def pypi_wheels(cp, manylinux):
    """(name, version, tag, payload, requires, entry_points)"""
    pyreq = ">=3.9"
    return [
        ("filelock", "3.20.0", "py3-none-any", simple_module("filelock"), [], None),
        ("typing_extensions", "4.15.0", "py3-none-any", simple_module("typing_extensions"), [], None),
        ("mpmath", "1.3.0", "py3-none-any", simple_module("mpmath"), [], None),
        ("sympy", "1.14.0", "py3-none-any", simple_module("sympy"), ["mpmath<1.4,>=1.1.0"],
         {"console_scripts": {"isympy": "isympy:main"}}),
        ("networkx", "3.5", "py3-none-any", simple_module("networkx"), [], None),
        ("MarkupSafe", "3.0.3", f"{cp}-{cp}-{manylinux}", simple_module("markupsafe"), [], None),
        ("jinja2", "3.1.6", "py3-none-any", simple_module("jinja2"), ["MarkupSafe>=2.0"], None),
        ("fsspec", "2025.9.0", "py3-none-any", simple_module("fsspec"), [], None),
        ("numpy", "2.3.4", f"{cp}-{cp}-{manylinux}", simple_module("numpy"), [],
         {"console_scripts": {"f2py": "numpy.f2py.f2py2e:main", "numpy-config": "numpy._configtool:main"}}),
    ], pyreq


def torch_wheels(version, cp, scale, targets, multi_arch):
    local = f"+rocm{version}"
    tag = f"{cp}-{cp}-linux_x86_64"
    torch_ver = TORCH_VERSION + local
    triton_ver = TRITON_VERSION + local
    torch = Payload()
    torch.add("torch/__init__.py", f'"""PyTorch (mock)."""\nfrom . import version\n__version__ = "{torch_ver}"\n'.encode())
    torch.add("torch/version.py", f'__version__ = "{torch_ver}"\nhip = "{version}"\ncuda = None\n'.encode())
    torch.add("torch/distributed/__init__.py", b"")
    torch.add("torch/distributed/run.py", b"def main():\n    print('torchrun (mock)')\n")
    for i in range(scale.torch_libs[0]):
        torch.add_binary(f"torch/lib/libtorch_hip_{i}.so", scale.torch_libs[1])
    requires = [
        f"rocm[libraries]=={version}",
        "filelock", "typing-extensions>=4.10.0", "sympy>=1.13.3", "networkx>=2.5.1", "jinja2", "fsspec>=0.8.5",
        f'pytorch-triton-rocm=={triton_ver} ; platform_system == "Linux"',
    ]
    extras = {}
    device_wheels = []
    if multi_arch:
        for t in targets:
            extras[f"device-{t}"] = [f"amd-torch-device-{t}=={torch_ver}"]
            p = Payload()
            p.add(f"torch/lib/kernels_{t}.co", binary("torch" + t, 1000))
            device_wheels.append((f"amd-torch-device-{t}", torch_ver, ROCM_TAG, p,
                                  [f"rocm-sdk-device-{t}=={version}"], None, None))
    out = [
        ("torch", torch_ver, tag, torch, requires,
         {"console_scripts": {"torchrun": "torch.distributed.run:main"}}, extras),
        ("torchvision", VISION_VERSION + local, tag, simple_module("torchvision"),
         [f"torch=={torch_ver}", "numpy"], None, None),
        ("torchaudio", AUDIO_VERSION + local, tag, simple_module("torchaudio"), [f"torch=={torch_ver}"], None, None),
        ("pytorch-triton-rocm", triton_ver, tag, simple_module("triton"), [], None, None),
    ]
    return out + device_wheels


# ---------------------------------------------------------------------------------------------
# Multi-arch torch, and the index pages.

def torch_subfamily(target):
    """The published torch sub-family bundle of a target (the ownership yaml: gfx110x, gfx115x, gfx12-0)."""
    for prefix, key in (("gfx110", "gfx110x"), ("gfx115", "gfx115x"), ("gfx120", "gfx12-0")):
        if target.startswith(prefix):
            return key
    return None


def split_torch_wheels(version, cp, scale, targets):
    """torch as TheRock publishes it on multi-arch indexes: a host wheel whose METADATA the kpack
    splitter extended with rocm-bootstrap and device-<t> extras, and amd-torch-device-<key> wheels
    (per target and per sub-family) with hex RECORD hashes."""
    local = f"+rocm{version}"
    tag = f"{cp}-{cp}-linux_x86_64"
    tv = TORCH_VERSION + local
    triton_ver = TRITON_VERSION + local
    torch = Payload()
    torch.add("torch/__init__.py", f'"""PyTorch (mock)."""\nfrom . import version\n__version__ = "{tv}"\n'.encode())
    torch.add("torch/version.py", f'__version__ = "{tv}"\nhip = "{version}"\ncuda = None\n'.encode())
    torch.add("torch/distributed/__init__.py", b"")
    torch.add("torch/distributed/run.py", b"def main():\n    print('torchrun (mock)')\n")
    for i in range(scale.torch_libs[0]):
        torch.add_binary(f"torch/lib/libtorch_hip_{i}.so", scale.torch_libs[1])
    keys = {}  # device key -> its parent key (or None)
    for t in targets:
        sub = torch_subfamily(t)
        keys[t] = sub
        if sub:
            keys.setdefault(sub, None)
    meta = [
        "Metadata-Version: 2.4", "Name: torch", f"Version: {tv}", "Summary: PyTorch (mock for rockpack tests)",
        f"Requires-Python: >={cp[2]}.{cp[3:]}",
        f"Requires-Dist: rocm[libraries]=={version}", "Requires-Dist: filelock", "Requires-Dist: typing-extensions>=4.10.0",
        "Requires-Dist: sympy>=1.13.3", "Requires-Dist: networkx>=2.5.1", "Requires-Dist: jinja2", "Requires-Dist: fsspec>=0.8.5",
        f"Requires-Dist: triton=={triton_ver}",
        "Requires-Dist: rocm-bootstrap",
    ]
    for t in targets:
        meta.append(f"Provides-Extra: device-{t}")
        for key in [t] + ([keys[t]] if keys[t] else []):
            meta.append(f'Requires-Dist: amd-torch-device-{key} == {tv}; extra == "device-{t}"')
    meta.append("Provides-Extra: device-all")
    for key in sorted(keys):
        meta.append(f'Requires-Dist: amd-torch-device-{key} == {tv}; extra == "device-all"')
    out = [dict(name="torch", version=tv, tag=tag, payload=torch, metadata="\n".join(meta) + "\n\n",
                entry_points={"console_scripts": {"torchrun": "torch.distributed.run:main"}})]
    for key, parent in sorted(keys.items()):
        p = Payload()
        if key in targets:
            p.add(f"torch/.kpack/torch_{key}.kpack", binary("torch" + key, scale.device_files[1]))
        else:
            p.add(f"torch/lib/aotriton.images/{key}/kernels.aks2", binary("aotriton" + key, scale.device_files[1]))
        p.add(f"{wheel_name_part('amd-torch-device-' + key).lower()}-{tv}.dist-info/top_level.txt", b"torch\n")
        lines = [f"Metadata-Version: 2.4", f"Name: amd-torch-device-{key}", f"Version: {tv}",
                 f"Summary: AMD device kernels ({key}) for torch", f"Requires-Dist: torch == {tv}"]
        if key in targets:
            lines.append(f"Requires-Dist: rocm-sdk-device-{key} == {version}")
            if parent:
                lines.append(f"Requires-Dist: amd-torch-device-{parent} == {tv}")
        out.append(dict(name=f"amd-torch-device-{key}", version=tv, tag=tag, payload=p, metadata="\n".join(lines),
                        split=True, generator="rocm-kpack-split-python-wheels"))
    # torchvision is split like torch, per gfx target only (no sub-family bundles): the host wheel
    # gets device-<t> extras, amd-torchvision-device-<t> carries torchvision/.kpack/torchvision_<t>.kpack.
    vv = VISION_VERSION + local
    vmeta = [
        "Metadata-Version: 2.4", "Name: torchvision", f"Version: {vv}", "Summary: torchvision (mock for rockpack tests)",
        f"Requires-Python: >={cp[2]}.{cp[3:]}", f"Requires-Dist: torch=={tv}", "Requires-Dist: numpy",
        "Requires-Dist: rocm-bootstrap",
    ]
    for t in targets:
        vmeta.append(f"Provides-Extra: device-{t}")
        vmeta.append(f'Requires-Dist: amd-torchvision-device-{t} == {vv}; extra == "device-{t}"')
    vmeta.append("Provides-Extra: device-all")
    for t in sorted(targets):
        vmeta.append(f'Requires-Dist: amd-torchvision-device-{t} == {vv}; extra == "device-all"')
    out.append(dict(name="torchvision", version=vv, tag=tag, payload=simple_module("torchvision"),
                    metadata="\n".join(vmeta) + "\n\n"))
    for t in sorted(targets):
        p = Payload()
        p.add(f"torchvision/.kpack/torchvision_{t}.kpack", binary("torchvision" + t, scale.device_files[1]))
        p.add(f"{wheel_name_part('amd-torchvision-device-' + t).lower()}-{vv}.dist-info/top_level.txt", b"torchvision\n")
        lines = ["Metadata-Version: 2.4", f"Name: amd-torchvision-device-{t}", f"Version: {vv}",
                 f"Summary: AMD device kernels ({t}) for torchvision", f"Requires-Dist: torchvision == {vv}",
                 f"Requires-Dist: rocm-sdk-device-{t} == {version}"]
        out.append(dict(name=f"amd-torchvision-device-{t}", version=vv, tag=tag, payload=p, metadata="\n".join(lines),
                        split=True, generator="rocm-kpack-split-python-wheels"))
    out += [
        dict(name="torchaudio", version=AUDIO_VERSION + local, tag=tag, payload=simple_module("torchaudio"),
             requires=[f"torch=={tv}"]),
        dict(name="triton", version=triton_ver, tag=tag, payload=simple_module("triton")),
    ]
    return out


def write_index(out_dir, files_by_project, checksums=True):
    names = sorted(files_by_project)
    with open(os.path.join(out_dir, "index.html"), "w") as f:
        f.write("<!DOCTYPE html>\n<html>\n<body>\n")
        for n in names:
            f.write(f'<a href="{n}/">{n}</a><br>\n')
        f.write("</body>\n</html>\n")
    for n in names:
        os.makedirs(os.path.join(out_dir, n), exist_ok=True)
        with open(os.path.join(out_dir, n, "index.html"), "w") as f:
            f.write(f"<!DOCTYPE html>\n<html>\n<body>\n<h1>Links for {n}</h1>\n")
            for filename in sorted(files_by_project[n]):
                href = "../" + filename.replace("+", "%2B")
                if checksums:
                    href += "#sha256=" + sha256_file(os.path.join(out_dir, filename))
                f.write(f'<a href="{href}">{filename}</a><br>\n')
            f.write("</body>\n</html>\n")


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as src:
        for chunk in iter(lambda: src.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


PYTORCH_OWNED = {"torch", "torchvision", "torchaudio", "triton", "pytorch-triton-rocm", "apex"}


def write_whl_next(out_dir, flat_dir, files_by_project, checksums):
    """The structured layout (manage_structured.py, aggregate_index.py): each package in its owner
    product's directory with same-directory links, an aggregate root listing all of them, and the
    routes a CDN applies (rocm-whl-next-routes.json; routes.json is the static_server's form)."""
    routes, server_routes = {}, {}
    for name in sorted(files_by_project):
        owner = "pytorch" if name in PYTORCH_OWNED or name.startswith(("amd-torch", "amd-torchvision")) else "core"
        pkg_dir = os.path.join(out_dir, "rocm", owner, "whl-next", name)
        os.makedirs(pkg_dir, exist_ok=True)
        with open(os.path.join(pkg_dir, "index.html"), "w") as f:
            f.write(f"<!DOCTYPE html>\n<html>\n<body>\n<h1>Links for {name}</h1>\n")
            for filename in sorted(files_by_project[name]):
                os.replace(os.path.join(flat_dir, filename), os.path.join(pkg_dir, filename))
                href = filename.replace("+", "%2B")
                if checksums:
                    href += "#sha256=" + sha256_file(os.path.join(pkg_dir, filename))
                f.write(f'<a href="{href}">{filename}</a><br/>\n')
            f.write("</body>\n</html>\n")
        routes[name] = f"/rocm/{owner}/whl-next/{name}/"
        server_routes[f"/rocm/whl-next/{name}/"] = routes[name]
    root = os.path.join(out_dir, "rocm", "whl-next")
    os.makedirs(root, exist_ok=True)
    with open(os.path.join(root, "index.html"), "w") as f:
        f.write("<!DOCTYPE html>\n<html>\n<body>\n")
        for n in sorted(files_by_project):
            f.write(f'<a href="{n}/">{n}</a><br/>\n')
        f.write("</body>\n</html>\n")
    with open(os.path.join(root, "rocm-whl-next-routes.json"), "w") as f:
        json.dump(routes, f, indent=2, sort_keys=True)
    with open(os.path.join(out_dir, "routes.json"), "w") as f:
        json.dump(server_routes, f, indent=2, sort_keys=True)


def build_index(out_dir, families, versions, python, scale, targets, drop, layout="per-family", checksums=True):
    """targets: None for a per-family index, else the multi-arch release's GPU targets."""
    multi_arch = targets is not None
    flat_dir = os.path.join(out_dir, ".flat") if layout == "whl-next" else out_dir
    os.makedirs(flat_dir, exist_ok=True)
    major, minor = python.split(".")
    cp = f"cp{major}{minor}"
    manylinux = "manylinux_2_27_x86_64.manylinux_2_28_x86_64"
    projects = {}

    def add(name, filename):
        projects.setdefault(normalize(name), []).append(filename)

    def wheel(name, version, tag, payload, requires=(), entry_points=None, extras=None, **kw):
        if normalize(name) in drop:
            return
        add(name, write_wheel(flat_dir, name, version, tag, payload, requires, extras, entry_points,
                              compresslevel=scale.compresslevel, **kw))

    all_targets = list(targets) if multi_arch else []
    if not multi_arch:
        for f in families:
            all_targets += [t for t in FAMILY_TARGETS.get(f, [f]) if t not in all_targets]
    for version in versions:
        if "rocm" not in drop:
            add("rocm", write_sdist(flat_dir, version, families, targets))
        core = core_payload(version, all_targets, scale)
        wheel("rocm-sdk-core", version, ROCM_TAG, core)
        libraries = None
        if multi_arch:
            libraries = libraries_payload("_rocm_sdk_libraries", scale, arch_neutral_only=True)
            wheel("rocm-sdk-libraries", version, ROCM_TAG, libraries)
            for t in targets:
                wheel(f"rocm-sdk-device-{t}", version, ROCM_TAG, device_payload(version, t, scale),
                      requires=[f"rocm-sdk-libraries=={version}"])
        else:
            for f in families:
                # TheRock's file names carry the family lower-cased; the package keeps its case.
                p = libraries_payload(f"_rocm_sdk_libraries_{f.replace('-', '_')}", scale)
                wheel(f"rocm-sdk-libraries-{f}".lower(), version, ROCM_TAG, p)
        devel = Payload()
        devel.add("rocm_sdk_devel/__init__.py", b'"""ROCm SDK development files, as a tarball (mock)."""\n')
        tar_path = os.path.join(flat_dir, ".devel.tar.tmp")
        devel_tar(tar_path, core, scale, libraries)
        devel.add("rocm_sdk_devel/_devel.tar", FileSource(tar_path))
        wheel("rocm-sdk-devel", version, ROCM_TAG, devel)
        os.remove(tar_path)
        wheel("rocm-profiler", version, ROCM_TAG, profiler_payload(scale))
        if multi_arch:
            for w in split_torch_wheels(version, cp, scale, targets):
                w = dict(w)
                wheel(w.pop("name"), w.pop("version"), w.pop("tag"), w.pop("payload"), w.pop("requires", ()),
                      w.pop("entry_points", None), None, requires_python=f">={major}.{minor}", **w)
        else:
            for name, ver, tag, payload, requires, eps, extras in torch_wheels(version, cp, scale, all_targets, False):
                wheel(name, ver, tag, payload, requires, eps, extras, requires_python=f">={major}.{minor}")
    if multi_arch:
        boot = simple_module("rocm_bootstrap")
        wheel("rocm-bootstrap", "0.2.0", "py3-none-any", boot, (),
              {"console_scripts": {"rocm-bootstrap-detect": "rocm_bootstrap:main"}}, purelib=True,
              requires_python=">=3.9")
    wheels, pyreq = pypi_wheels(cp, manylinux)
    for name, ver, tag, payload, requires, eps in wheels:
        wheel(name, ver, tag, payload, requires, eps, purelib=tag.endswith("any"), requires_python=pyreq)
    if multi_arch and "amd-torch-device-" + targets[0] in projects:
        # A PEP 817 variant wheel next to the classic one (six dash fields, for variant-aware
        # installers only; TheRock's release workflow does not make them, its splitter can): pip and
        # rockpack must both skip it.
        name = "amd-torch-device-" + targets[0]
        classic = sorted(projects[name])[-1]
        variant = classic[:-len(".whl")] + "-amd_" + targets[0] + ".whl"
        with open(os.path.join(flat_dir, classic), "rb") as src, open(os.path.join(flat_dir, variant), "wb") as dst:
            dst.write(src.read())
        projects[name].append(variant)
    if layout == "whl-next":
        write_whl_next(out_dir, flat_dir, projects, checksums)
        os.rmdir(flat_dir)
    else:
        write_index(out_dir, projects, checksums)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", help="output directory")
    parser.add_argument("--layout", choices=["per-family", "multi-arch", "whl-next"], default="per-family")
    parser.add_argument("--family", action="append", help="per-family: target family (repeatable); default gfx94X-dcgpu")
    parser.add_argument("--target", action="append",
                        help="multi-arch, whl-next: a GPU target of the release (repeatable); default gfx942, gfx950, gfx1100")
    parser.add_argument("--versions", default="7.10.0a20251120,7.10.0a20251121",
                        help="comma-separated ROCm versions (nightlies)")
    parser.add_argument("--python", default="3.11", help="Python version of the torch wheels (X.Y)")
    parser.add_argument("--scale", choices=["small", "rocm"], default="small")
    parser.add_argument("--drop-dep", action="append", default=[], help="leave this project off the index")
    checks = parser.add_mutually_exclusive_group()
    checks.add_argument("--include-checksums", dest="checksums", action="store_true", default=None,
                        help="#sha256= on the links (default for per-family and multi-arch; whl-next omits them)")
    checks.add_argument("--no-checksums", dest="checksums", action="store_false")
    args = parser.parse_args(argv)

    families = args.family or ["gfx94X-dcgpu"]
    for f in families:
        if f not in FAMILY_TARGETS:
            parser.error(f"unknown family {f}; known: {', '.join(FAMILY_TARGETS)}")
    if not re.fullmatch(r"\d+\.\d+", args.python):
        parser.error("--python takes X.Y, e.g. 3.11")
    versions = [v.strip() for v in args.versions.split(",") if v.strip()]
    drop = {normalize(n) for n in args.drop_dep}
    scale = Scale(args.scale)
    checksums = args.checksums if args.checksums is not None else args.layout != "whl-next"
    if args.layout == "per-family":
        for f in families:
            build_index(os.path.join(args.out, f), [f], versions, args.python, scale, None, drop, "per-family", checksums)
    else:
        targets = args.target or ["gfx942", "gfx950", "gfx1100"]
        build_index(args.out, families, versions, args.python, scale, targets, drop, args.layout, checksums)
    return 0


if __name__ == "__main__":
    sys.exit(main())
