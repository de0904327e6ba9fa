#!/usr/bin/env python3
"""Generates a mock TheRock package index: a directory servable as a static PEP 503 index.

The contents follow the facts in shared/reference/therock.md (TheRock's packaging of ROCm as Python
distributions): the `rocm` sdist whose setup.py computes its requirements from `_dist_info.py`,
`py3-none-linux_x86_64` runtime wheels, a devel wheel carrying `_devel.tar` with relative symlinks
into the runtime packages, a TheRock torch wheel with a `+rocm<ver>` local version, and the PyPI
dependencies of torch mirrored next to them. Everything here is invented text; only the shape is
TheRock's. Output is deterministic: fixed zip and tar timestamps, sorted members, no owner names.

    make_therock_index.py OUT [--layout per-family|multi-arch] [--family F]... [--versions A,B]
                              [--python 3.11] [--scale small|rocm] [--drop-dep NAME]

per-family layout: one index per family under OUT/<family>/. multi-arch layout: one index at OUT/.
Standard library only.
"""

import argparse
import base64
import csv
import gzip
import hashlib
import io
import json
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


def chunks_of(data):
    if isinstance(data, FileSource):
        with open(data.path, "rb") as f:
            yield from iter(lambda: f.read(1 << 20), b"")
    elif isinstance(data, tuple):
        yield from binary_chunks(*data)
    else:
        yield data


def record_hash(digest):
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def write_wheel(out_dir, name, version, tag, payload, requires=(), extras=None, entry_points=None,
                summary="", requires_python=None, purelib=False, compresslevel=6):
    """Writes one wheel; returns its file name. `extras` maps extra -> list of requirements."""
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
    metadata = ("\n".join(meta) + "\n\n").encode()
    wheel_file = (
        "Wheel-Version: 1.0\nGenerator: make_therock_index.py\n"
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
            records.append((member, record_hash(h.digest()), str(size)))

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
    size = data[1] if isinstance(data, tuple) else len(data)  # never a FileSource
    tar.addfile(tar_info(name, tarfile.REGTYPE, mode, size), _ChunkReader(chunks_of(data)))


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
    all_targets = []
    for f in di.AVAILABLE_TARGET_FAMILIES:
        all_targets += [t for t in di.targets_of(f) if t not in all_targets]
    device = packages["device"]
    extras["libraries"] += [pin(device.dist_package_name(family, t), di) for t in di.targets_of(family)]
    extras["device"] = [pin(device.dist_package_name(family, t), di) for t in di.targets_of(family)]
    extras["device-all"] = [pin(device.dist_package_name(family, t), di) for t in all_targets]
    for t in all_targets:
        extras["device-" + t] = [pin(device.dist_package_name(family, t), di)]
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

MAIN_PY = r'''"""The rocm-sdk command: version, targets, path, init."""
import argparse
import json
import os
import sys
import tarfile
from pathlib import Path

from . import _dist_info

SITE = Path(__file__).resolve().parent.parent
DEVEL = SITE / "_rocm_sdk_devel"
LAUNCHERS = {"amdclang", "amdclang++", "amdclang-cl", "amdclang-cpp", "amdflang", "amdlld", "amdllvm"}


def dist_info_dir(prefix):
    # The .dist-info of an installed distribution whose normalized name starts with `prefix`.
    for d in sorted(SITE.glob("*.dist-info")):
        if d.name.lower().startswith(prefix):
            return d
    return None


def devel_tarball():
    for name in ("_devel.tar", "_devel.tar.xz"):
        p = SITE / "rocm_sdk_devel" / name
        if p.exists():
            return p
    return None


def is_expanded():
    return (DEVEL / "__init__.py").exists() and devel_tarball() is None


def expand_devel():
    if is_expanded():
        return
    tarball = devel_tarball()
    if tarball is None:
        raise SystemExit("rocm-sdk: the devel package is not installed (install rocm[devel])")
    added = []
    with tarfile.open(tarball) as tar:
        members = tar.getmembers()
        for m in members:
            if not (m.name == "_rocm_sdk_devel" or m.name.startswith("_rocm_sdk_devel/")) or ".." in m.name.split("/"):
                raise SystemExit(f"rocm-sdk: unexpected member {m.name} in {tarball}")
        links = {m.name: m.linkname for m in members if m.issym()}
        # Regular files and directories first, so that links can point at them.
        for m in members:
            dest = SITE / m.name
            if m.isdir():
                dest.mkdir(parents=True, exist_ok=True)
            elif m.isfile():
                dest.parent.mkdir(parents=True, exist_ok=True)
                if dest.is_symlink() or dest.exists():
                    dest.unlink()
                with tar.extractfile(m) as src, open(dest, "wb") as out:
                    out.write(src.read())
                os.chmod(dest, 0o755 if m.mode & 0o111 else 0o644)
                added.append(m.name)
        # Then links: launchers and directories stay symlinks, files become hardlinks to what the
        # chain of links finally names.
        for m in members:
            if not m.issym():
                continue
            dest = SITE / m.name
            dest.parent.mkdir(parents=True, exist_ok=True)
            if dest.is_symlink() or dest.exists():
                dest.unlink()
            final = m.name
            for _ in range(40):
                if final not in links:
                    break
                final = os.path.normpath(os.path.join(os.path.dirname(final), links[final]))
            target = Path(os.path.realpath(SITE / final))
            if target.is_dir() or dest.name in LAUNCHERS:
                os.symlink(m.linkname, dest)
            else:
                os.link(target, dest)
            added.append(m.name)
    record = dist_info_dir("rocm_sdk_devel-")
    if record is not None:
        with open(record / "RECORD", "a") as f:
            f.writelines(f"{p},,\n" for p in added)
    expand_device_links()
    tarball.unlink()


def expand_device_links():
    links_dir = SITE / "_rocm_sdk_libraries" / ".devel_links"
    if not links_dir.is_dir():
        return
    for spec in sorted(links_dir.glob("*.json")):
        data = json.loads(spec.read_text())
        added = []
        for link in data["links"]:
            dest = DEVEL / link["relpath"]
            dest.parent.mkdir(parents=True, exist_ok=True)
            if dest.exists():
                dest.unlink()
            os.link(SITE / link["target"], dest)
            added.append("_rocm_sdk_devel/" + link["relpath"])
        record = dist_info_dir("rocm_sdk_device_" + spec.stem + "-")
        if record is not None:
            with open(record / "RECORD", "a") as f:
                f.writelines(f"{p},,\n" for p in added)


def targets():
    info = json.loads((SITE / "_rocm_sdk_core" / "share" / "therock" / "dist_info.json").read_text())
    return info["dist_amdgpu_targets"]


def main(argv=None):
    parser = argparse.ArgumentParser(prog="rocm-sdk")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("version")
    sub.add_parser("targets")
    sub.add_parser("init")
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
        expand_devel()
    elif args.command == "path":
        expand_devel()
        if args.root:
            print(DEVEL)
        elif args.bin:
            print(DEVEL / "bin")
        else:
            print(DEVEL / "lib" / "cmake")
    return 0


if __name__ == "__main__":
    sys.exit(main())
'''


def dist_info_py(version, families, multi_arch):
    text = DIST_INFO_BODY
    if multi_arch:
        text += DIST_INFO_DEVICE
    table = "{\n" + "".join(f"    {f!r}: {FAMILY_TARGETS.get(f, [f])!r},\n" for f in families) + "}"
    text += DIST_INFO_TAIL % table
    text += f'__version__ = "{version}"\n'
    text += f'DEFAULT_TARGET_FAMILY = "{families[0]}"\n'
    for f in families:
        text += f'AVAILABLE_TARGET_FAMILIES.append("{f}")\n'
    if multi_arch:
        text += 'ALL_PACKAGES["libraries"].dist_package_template = "rocm-sdk-libraries"\n'
        text += 'ALL_PACKAGES["libraries"].py_package_template = "_rocm_sdk_libraries"\n'
    return text.encode()


def write_sdist(out_dir, version, families, multi_arch):
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
        f"{root}/src/rocm_sdk/_dist_info.py": dist_info_py(version, families, multi_arch),
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
        self.core_libs = (120, 2_000_000) if self.rocm else (3, 2000)
        self.llvm_bins = (8, 40_000_000) if self.rocm else (2, 3000)
        self.library_libs = (1500, 1_000_000) if self.rocm else (4, 2000)
        self.device_files = (200, 500_000) if self.rocm else (2, 1000)
        self.headers = (20000, 12_000) if self.rocm else (6, 300)
        self.torch_libs = (20, 10_000_000) if self.rocm else (2, 2000)
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


def libraries_payload(pkg_dir, scale, arch_neutral_only=False):
    p = Payload()
    p.add(f"{pkg_dir}/__init__.py", b'"""ROCm SDK math and ML libraries (mock)."""\n')
    for name in numbered(LIBRARY_NAMES, scale.library_libs[0], "libmock_library{0}.so.1"):
        p.add_binary(f"{pkg_dir}/lib/{name}", scale.library_libs[1])
    if not arch_neutral_only:
        p.add(f"{pkg_dir}/lib/rocblas/library/TensileLibrary.dat", binary(pkg_dir + "tensile", 800), 0o644)
    return p


def device_payload(version, target, scale):
    p = Payload()
    links = []
    for i in range(scale.device_files[0]):
        rel = f"lib/rocblas/library/TensileLibrary_{target}_{i}.co"
        p.add_binary(f"_rocm_sdk_libraries/{rel}", scale.device_files[1], 0o644)
        links.append({"relpath": rel, "target": f"_rocm_sdk_libraries/{rel}"})
    spec = {"version": version, "links": links}
    p.add(f"_rocm_sdk_libraries/.devel_links/{target}.json", (json.dumps(spec, indent=2) + "\n").encode())
    return p


HIPCC = b"""#!/usr/bin/env python3
# hipcc (mock): compiles through amdclang++ next to it.
import os, sys
here = os.path.dirname(os.path.abspath(__file__))
os.execv(os.path.join(here, "amdclang++"), [os.path.join(here, "amdclang++")] + sys.argv[1:])
"""


def devel_tar(path, core, scale):
    """Writes _devel.tar: headers, cmake files, hipcc; relative symlinks into core for shared files."""
    root = "_rocm_sdk_devel"
    with tarfile.open(path, mode="w", format=tarfile.PAX_FORMAT) as tar:
        seen = set()
        entries = {}  # name -> ("file", data, mode) | ("link", target)
        entries[f"{root}/__init__.py"] = ("file", b'"""Expanded ROCm SDK devel tree (mock)."""\n', 0o644)
        for i, name in enumerate(numbered(HEADER_NAMES, scale.headers[0], "rocm_mock/detail{0}/api.h")):
            if i >= len(HEADER_NAMES):
                name = f"rocm_mock/d{i // 500}/api{i}.h"
            entries[f"{root}/include/{name}"] = ("file", header_text(name, scale.headers[1]), 0o644)
        entries[f"{root}/lib/cmake/hip/hip-config.cmake"] = (
            "file", b"# hip-config.cmake (mock)\nset(HIP_FOUND TRUE)\n", 0o644)
        entries[f"{root}/bin/hipcc"] = ("file", HIPCC, 0o755)
        # Files shipped by core appear as relative symlinks into _rocm_sdk_core.
        for path in sorted(core.files):
            rel = path[len("_rocm_sdk_core/"):]
            if rel.startswith("lib/llvm/") or rel == "__init__.py" or rel.startswith("share/"):
                continue
            depth = rel.count("/") + 1
            entries[f"{root}/{rel}"] = ("link", "../" * depth + f"_rocm_sdk_core/{rel}")
        # A symlink inside the tree to another symlink (the unversioned .so name).
        entries[f"{root}/lib/libamdhip64.so"] = ("link", "libamdhip64.so.7")
        # The compiler directory is one directory symlink.
        entries[f"{root}/lib/llvm"] = ("link", "../../_rocm_sdk_core/lib/llvm")
        for launcher in LAUNCHERS:
            entries[f"{root}/bin/{launcher}"] = ("link", f"../../_rocm_sdk_core/lib/llvm/bin/{launcher}")
        tar.addfile(tar_info(root, tarfile.DIRTYPE, 0o755))
        seen.add(root)
        for name in sorted(entries):
            tar_add_dirs(tar, [name], seen)
            kind = entries[name]
            if kind[0] == "file":
                tar_add_file(tar, name, kind[1], kind[2])
            else:
                tar.addfile(tar_info(name, tarfile.SYMTYPE, 0o777, linkname=kind[1]))


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
# The index pages.

def write_index(out_dir, files_by_project):
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
                h = hashlib.sha256()
                with open(os.path.join(out_dir, filename), "rb") as src:
                    for chunk in iter(lambda: src.read(1 << 20), b""):
                        h.update(chunk)
                href = "../" + filename.replace("+", "%2B")
                f.write(f'<a href="{href}#sha256={h.hexdigest()}">{filename}</a><br>\n')
            f.write("</body>\n</html>\n")


def build_index(out_dir, families, versions, python, scale, multi_arch, drop):
    os.makedirs(out_dir, exist_ok=True)
    major, minor = python.split(".")
    cp = f"cp{major}{minor}"
    manylinux = "manylinux_2_27_x86_64.manylinux_2_28_x86_64"
    projects = {}

    def add(name, filename):
        projects.setdefault(normalize(name), []).append(filename)

    def wheel(name, version, tag, payload, requires=(), entry_points=None, extras=None, **kw):
        if normalize(name) in drop:
            return
        add(name, write_wheel(out_dir, name, version, tag, payload, requires, extras, entry_points,
                              compresslevel=scale.compresslevel, **kw))

    targets = []
    for f in families:
        targets += [t for t in FAMILY_TARGETS.get(f, [f]) if t not in targets]
    for version in versions:
        if "rocm" not in drop:
            add("rocm", write_sdist(out_dir, version, families, multi_arch))
        core = core_payload(version, targets, scale)
        wheel("rocm-sdk-core", version, ROCM_TAG, core)
        if multi_arch:
            wheel("rocm-sdk-libraries", version, ROCM_TAG,
                  libraries_payload("_rocm_sdk_libraries", scale, arch_neutral_only=True))
            for t in targets:
                wheel(f"rocm-sdk-device-{t}", version, ROCM_TAG, device_payload(version, t, scale))
        else:
            for f in families:
                # TheRock's file names carry the family lower-cased; the package keeps its case.
                p = libraries_payload(f"_rocm_sdk_libraries_{f.replace('-', '_')}", scale)
                wheel(f"rocm-sdk-libraries-{f}".lower(), version, ROCM_TAG, p)
        devel = Payload()
        devel.add("rocm_sdk_devel/__init__.py", b'"""ROCm SDK development files, as a tarball (mock)."""\n')
        tar_path = os.path.join(out_dir, ".devel.tar.tmp")
        devel_tar(tar_path, core, scale)
        devel.add("rocm_sdk_devel/_devel.tar", FileSource(tar_path))
        wheel("rocm-sdk-devel", version, ROCM_TAG, devel)
        os.remove(tar_path)
        wheel("rocm-profiler", version, ROCM_TAG, profiler_payload(scale))
        for name, ver, tag, payload, requires, eps, extras in torch_wheels(version, cp, scale, targets, multi_arch):
            wheel(name, ver, tag, payload, requires, eps, extras, requires_python=f">={major}.{minor}")
    wheels, pyreq = pypi_wheels(cp, manylinux)
    for name, ver, tag, payload, requires, eps in wheels:
        wheel(name, ver, tag, payload, requires, eps, purelib=tag.endswith("any"), requires_python=pyreq)
    write_index(out_dir, projects)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", help="output directory")
    parser.add_argument("--layout", choices=["per-family", "multi-arch"], default="per-family")
    parser.add_argument("--family", action="append", help="target family (repeatable); default gfx94X-dcgpu")
    parser.add_argument("--versions", default="7.10.0a20251120,7.10.0a20251121",
                        help="comma-separated ROCm versions (nightlies)")
    parser.add_argument("--python", default="3.11", help="Python version of the torch wheels (X.Y)")
    parser.add_argument("--scale", choices=["small", "rocm"], default="small")
    parser.add_argument("--drop-dep", action="append", default=[], help="leave this project off the index")
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
    if args.layout == "multi-arch":
        build_index(args.out, families, versions, args.python, scale, True, drop)
    else:
        for f in families:
            build_index(os.path.join(args.out, f), [f], versions, args.python, scale, False, drop)
    return 0


if __name__ == "__main__":
    sys.exit(main())
