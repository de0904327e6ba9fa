#!/usr/bin/env python3
"""Writes the seed corpus of the libFuzzer targets: fuzz/corpus/<target>/<seed>.

    tools/make_fuzz_corpus.py [OUT]        (default: fuzz/corpus next to this script)

The seeds are small real inputs: excerpts of this machine's Debian files (Packages, Release, dpkg
status, sources, _sysconfigdata), the project's recipes and examples, and archives made here with
the tests' own generators (tests/tools/make_wheel.py, dpkg-deb, tarfile). The result is checked in
(tools/fuzz.sh reads it in CI, so CI depends on nothing of the machine); run this again only to
refresh it. Host names of package mirrors are never copied (README: no mirror name in the repo):
excerpts keep the fields the parsers read and the test URLs are example.org ones.
Needs python3 and dpkg-deb.
"""
import gzip
import hashlib
import io
import json
import lzma
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
OUT = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else os.path.join(ROOT, "fuzz", "corpus")
MTIME = 1577836800


def put(target, name, data):
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def read(path, limit=None):
    with open(path, "rb") as f:
        return f.read() if limit is None else f.read(limit)


def stanzas(text, count, keep=None):
    """The first `count` stanzas of a deb822 text, each without the fields not in `keep`."""
    out = []
    for block in text.split("\n\n")[:count]:
        lines, keeping = [], True
        for line in block.splitlines():
            if line[:1] in (" ", "\t"):
                if keeping:
                    lines.append(line)
                continue
            field = line.split(":", 1)[0]
            keeping = keep is None or field in keep
            if keeping:
                lines.append(line)
        out.append("\n".join(lines))
    return "\n\n".join(out) + "\n"


def sanitize(text):
    """No URL of a real host (README rule): they become example.org ones."""
    return re.sub(r"https?://[^\s/>\"']+", "http://repo.example.org", text)


PACKAGE_FIELDS = {"Package", "Source", "Version", "Installed-Size", "Architecture", "Depends", "Pre-Depends",
                  "Recommends", "Provides", "Conflicts", "Breaks", "Replaces", "Multi-Arch", "Filename", "Size",
                  "SHA256", "Section", "Priority", "Status", "Essential", "Description", "Conffiles"}


def tar_bytes(members, fmt=tarfile.GNU_FORMAT, compression=""):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:" + compression, format=fmt) as t:
        for name, kind, data in members:
            info = tarfile.TarInfo(name)
            info.mtime = MTIME
            info.uname = info.gname = "root"
            if kind == "dir":
                info.type, info.mode = tarfile.DIRTYPE, 0o755
                t.addfile(info)
            elif kind == "symlink":
                info.type, info.linkname = tarfile.SYMTYPE, data
                t.addfile(info)
            elif kind == "hardlink":
                info.type, info.linkname = tarfile.LNKTYPE, data
                t.addfile(info)
            else:
                info.mode, info.size = 0o644, len(data)
                t.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def apt(tmp):
    status = read("/var/lib/dpkg/status").decode(errors="replace")
    status_excerpt = sanitize(stanzas(status, 6, PACKAGE_FIELDS))
    put("fuzz_apt_packages", "status", status_excerpt)
    put("fuzz_deb822", "status", status_excerpt)
    put("fuzz_inventory", "status", status_excerpt)
    lists = "/var/lib/apt/lists"
    packages = [f for f in sorted(os.listdir(lists)) if f.endswith("_Packages.lz4")] if os.path.isdir(lists) else []
    if packages:
        text = subprocess.run(["lz4", "-dc", os.path.join(lists, packages[0])], capture_output=True).stdout.decode()
        put("fuzz_apt_packages", "Packages", sanitize(stanzas(text, 6, PACKAGE_FIELDS)))
    releases = [f for f in sorted(os.listdir(lists)) if f.endswith("_InRelease")] if os.path.isdir(lists) else []
    if releases:
        text = read(os.path.join(lists, releases[0])).decode()
        body = text.split("\n\n", 1)[1].split("-----BEGIN PGP SIGNATURE-----")[0]
        head, _, files = body.partition("SHA256:\n")
        head = "\n".join(l for l in head.splitlines() if not l.startswith(("Changelogs", "Snapshots"))) + "\n"
        rows = [l for l in files.splitlines() if l.startswith(" ") and "/binary-amd64/Packages" in l][:4]
        release = head + "SHA256:\n" + "\n".join(rows) + "\n"
        put("fuzz_apt_release", "Release", release)
        put("fuzz_deb822", "Release", release)
        signed = text.split("-----BEGIN PGP SIGNATURE-----")
        put("fuzz_apt_release", "InRelease",
            "-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA256\n\n" + release +
            "-----BEGIN PGP SIGNATURE-----" + signed[1] if len(signed) > 1 else release)
    put("fuzz_apt_release", "date", "Date: Tue, 24 Nov 2026 02:12:15 UTC\nValid-Until: Tue, 01 Dec 2026 02:12:15 +0100\n"
        "Suite: stable\nCodename: test\nArchitectures: amd64\nComponents: main\nSHA256:\n"
        " e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 0 main/binary-amd64/Packages\n")
    put("fuzz_apt_sources", "one-line", "deb [arch=amd64 signed-by=/usr/share/keyrings/k.gpg] "
        "http://repo.example.org/debian bookworm main contrib\n"
        "deb-src http://repo.example.org/debian bookworm main\ndeb [trusted=yes] https://u:p@repo.example.org/flat ./\n")
    put("fuzz_apt_sources", "deb822", "Types: deb\nURIs: http://repo.example.org/debian\nSuites: bookworm bookworm-updates\n"
        "Components: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n\n"
        "Types: deb\nURIs: https://repo.example.org/rocm/apt/6.2\nSuites: jammy\nComponents: main\nArchitectures: amd64\n")
    put("fuzz_apt_sources", "alternatives", "#!/bin/sh\nset -e\nupdate-alternatives --install /usr/bin/editor editor "
        "/bin/nano 40 --slave /usr/share/man/man1/editor.1.gz editor.1.gz /usr/share/man/man1/nano.1.gz\n")
    put("fuzz_apt_version", "versions", "1:2.36-9+deb12u4\n2.36~rc1-1\n0.9.8a-1ubuntu0.1\n")
    put("fuzz_apt_version", "relations", "libc6 (>= 2.34), libssl3 (>= 3.0.0) | libssl1.1, foo:any [amd64] <!nocheck>\n"
        "rocm-hip-runtime (= 6.2.0.60200-66~22.04)\n")
    put("fuzz_apt_version", "request", "python3.11=3.11.2-6\nlibstdc++6\n")

    # A small .deb with every compressor dpkg-deb has, and the index compressions.
    pkg = os.path.join(tmp, "pkg")
    os.makedirs(os.path.join(pkg, "DEBIAN"))
    os.makedirs(os.path.join(pkg, "usr/share/doc/rp-hello"))
    with open(os.path.join(pkg, "DEBIAN/control"), "w") as f:
        f.write("Package: rp-hello\nVersion: 1.0-1\nArchitecture: all\nMaintainer: Test <t@example.org>\n"
                "Description: fuzz seed\n")
    with open(os.path.join(pkg, "DEBIAN/postinst"), "w") as f:
        f.write("#!/bin/sh\nset -e\n")
    os.chmod(os.path.join(pkg, "DEBIAN/postinst"), 0o755)
    with open(os.path.join(pkg, "usr/share/doc/rp-hello/README"), "w") as f:
        f.write("hello\n")
    os.symlink("README", os.path.join(pkg, "usr/share/doc/rp-hello/LINK"))
    env = dict(os.environ, SOURCE_DATE_EPOCH=str(MTIME))
    for comp in ("gzip", "xz", "zstd", "none"):
        deb = os.path.join(tmp, f"rp-hello-{comp}.deb")
        subprocess.run(["dpkg-deb", "--root-owner-group", f"-Z{comp}", "--build", pkg, deb], check=True,
                       capture_output=True, env=env)
        put("fuzz_deb_file", f"rp-hello-{comp}.deb", read(deb))
    index = sanitize(stanzas(status, 2, PACKAGE_FIELDS)).encode()
    put("fuzz_deb_file", "Packages.gz", gzip.compress(index, mtime=0))
    put("fuzz_deb_file", "Packages.xz", lzma.compress(index))


def images():
    layer = tar_bytes([("etc", "dir", b""), ("etc/motd", "file", b"hello\n"), ("bin/sh", "symlink", "busybox")])
    layer_gz = gzip.compress(layer, mtime=0)
    ldigest = "sha256:" + hashlib.sha256(layer_gz).hexdigest()
    diff_id = "sha256:" + hashlib.sha256(layer).hexdigest()
    config = json.dumps({"architecture": "amd64", "os": "linux", "config": {"Env": ["PATH=/bin"], "Cmd": ["sh"]},
                         "rootfs": {"type": "layers", "diff_ids": [diff_id]},
                         "history": [{"created_by": "rockpack"}]}, sort_keys=True).encode()
    cdigest = "sha256:" + hashlib.sha256(config).hexdigest()
    manifest = json.dumps({"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
                           "config": {"mediaType": "application/vnd.oci.image.config.v1+json", "digest": cdigest,
                                      "size": len(config)},
                           "layers": [{"mediaType": "application/vnd.oci.image.layer.v1.tar+gzip",
                                       "digest": ldigest, "size": len(layer_gz)}]}, sort_keys=True).encode()
    mdigest = "sha256:" + hashlib.sha256(manifest).hexdigest()
    index = json.dumps({"schemaVersion": 2, "manifests": [
        {"mediaType": "application/vnd.oci.image.manifest.v1+json", "digest": mdigest, "size": len(manifest),
         "annotations": {"org.opencontainers.image.ref.name": "latest"}}]}).encode()
    blob = lambda d: "blobs/sha256/" + d.split(":")[1]
    put("fuzz_image_archive", "oci-archive.tar", tar_bytes([
        ("oci-layout", "file", b'{"imageLayoutVersion":"1.0.0"}'), ("index.json", "file", index),
        ("blobs", "dir", b""), ("blobs/sha256", "dir", b""), (blob(mdigest), "file", manifest),
        (blob(cdigest), "file", config), (blob(ldigest), "file", layer_gz)], fmt=tarfile.USTAR_FORMAT))
    docker_manifest = json.dumps([{"Config": blob(cdigest), "RepoTags": ["quickstart:latest"],
                                   "Layers": [blob(ldigest), "again/layer.tar"]}]).encode()
    put("fuzz_image_archive", "docker-archive.tar", tar_bytes([
        ("manifest.json", "file", docker_manifest), (blob(cdigest), "file", config),
        (blob(ldigest), "file", layer_gz), ("again", "dir", b""),
        ("again/layer.tar", "symlink", "../" + blob(ldigest))], fmt=tarfile.USTAR_FORMAT))
    # fuzz_docker_manifest: manifest.json, then "#"-separated members (name line, content; "A -> B" a link).
    put("fuzz_docker_manifest", "docker", docker_manifest + b"\n#\n" + blob(cdigest).encode() + b"\n" + config +
        b"\n#\n" + blob(ldigest).encode() + b"\nLAYER\n#\nagain/layer.tar -> " + blob(ldigest).encode() + b"\n")
    legacy = json.dumps([{"Config": "abc.json", "RepoTags": None, "Layers": ["abc/layer.tar"]}]).encode()
    put("fuzz_docker_manifest", "legacy", legacy + b"\n#\nabc.json\n" + config + b"\n#\nabc/layer.tar\n")
    put("fuzz_image_json", "manifest-config", manifest + b"\n" + config)
    put("fuzz_image_json", "docker-v2", json.dumps({
        "schemaVersion": 2, "mediaType": "application/vnd.docker.distribution.manifest.v2+json",
        "config": {"mediaType": "application/vnd.docker.container.image.v1+json", "digest": cdigest, "size": 7},
        "layers": []}).encode() + b"\n{}")
    put("fuzz_sandbox_inputs", "layer.tar", layer)
    put("fuzz_sandbox_inputs", "links.tar", tar_bytes([
        ("usr", "dir", b""), ("usr/lib", "dir", b""), ("lib", "symlink", "usr/lib"), ("lib/x.so", "file", b"x"),
        ("usr/lib/y.so", "hardlink", "usr/lib/x.so"), ("up", "symlink", "../../etc")]))
    put("fuzz_sandbox_inputs", "triggers", "pkg\ninterest-noawait /usr/lib/x86_64-linux-gnu/gdk-pixbuf-2.0\n"
        "activate-noawait ldconfig\n")
    # An image config's User/Env/WorkingDir and account files, as the sandbox's spec takes them.
    put("fuzz_oci_spec", "config.json",
        '{"User":"app:video","Env":["PATH=/usr/bin:/bin","HOME=/home/app"],"WorkingDir":"/work"}\n')
    put("fuzz_oci_spec", "passwd", "root:x:0:0:root:/root:/bin/sh\napp:x:1000:1000::/home/app:/bin/sh\nvideo:x:44:\n")
    put("fuzz_oci_spec", "lines", "app\n/tmp/build\nA=b\n")
    # Tars as the tar index reads them: ustar, PAX (long names, owners), GNU long names.
    long = "usr/share/doc/" + "very-long-directory-name/" * 5 + "file.txt"
    members = [("usr", "dir", b""), ("usr/bin", "dir", b""), ("usr/bin/tool", "file", b"#!/bin/sh\necho hi\n"),
               ("usr/bin/alias", "symlink", "tool"), ("usr/bin/hard", "hardlink", "usr/bin/tool"),
               (long, "file", b"long\n")]
    put("fuzz_tar_index", "ustar.tar", tar_bytes(members[:5], fmt=tarfile.USTAR_FORMAT))
    put("fuzz_tar_index", "pax.tar", tar_bytes(members, fmt=tarfile.PAX_FORMAT))
    put("fuzz_tar_index", "gnu.tar", tar_bytes(members, fmt=tarfile.GNU_FORMAT))
    put("fuzz_tar_index", "record.json", json.dumps({"version": 2, "tar": ldigest, "members": [
        {"path": "usr/bin/tool", "type": "file", "mode": 493, "size": 18, "offset": 1536},
        {"path": "usr/bin/alias", "type": "symlink", "mode": 511, "link": "tool", "uname": "root"}]}))


def python(tmp):
    make_wheel = os.path.join(ROOT, "tests", "tools", "make_wheel.py")
    wheels = os.path.join(tmp, "wheels")

    def wheel(*args):
        out = subprocess.run([sys.executable, make_wheel, wheels, *args], check=True, capture_output=True, text=True)
        return [l for l in out.stdout.splitlines() if l.endswith(".whl")][0]

    seeds = {
        "plain.whl": wheel("rp-lib", "1.0", "--module", "rp_lib=X = 1\n"),
        "scripts.whl": wheel("rp-app", "2.0", "--requires", "rp-lib>=1", "--console-script", "rp=rp_app:main",
                             "--data-script", "rp-hello", "--header", "rp.h", "--data", "share/rp/x.txt"),
        "platlib.whl": wheel("rp-plat", "1.0", "--platlib", "--tag", "cp311-cp311-linux_x86_64",
                             "--file", "rp_plat/_x.so=ELF"),
        "nohash.whl": wheel("rp-nohash", "1.0", "--no-record-hash"),
        "wronghash.whl": wheel("rp-wrong", "1.0", "--module", "rp_wrong=Y = 2\n", "--wrong-record-hash"),
    }
    for name, path in seeds.items():
        put("fuzz_wheel_archive", name, read(path))
        put("fuzz_remote_zip", name, read(path))
    with zipfile.ZipFile(seeds["scripts.whl"]) as z:
        for member in z.namelist():
            if member.endswith(("/METADATA", "/WHEEL", "/entry_points.txt")):
                put("fuzz_python_metadata", os.path.basename(member), z.read(member))
                if member.endswith("/METADATA"):
                    put("fuzz_inventory", "METADATA", z.read(member))
    put("fuzz_python_metadata", "filename", "torch-2.5.1+rocm6.2-cp311-cp311-manylinux_2_28_x86_64.whl")
    put("fuzz_python_metadata", "url", "https://repo.example.org/simple/torch/\n../../packages/torch-2.5.1.whl#sha256=00")
    put("fuzz_python_requirement", "extras-marker", 'requests[security,socks]>=2.8.1,==2.8.* ; python_version < "3.12" '
        'and (sys_platform == "linux" or extra == "rocm")')
    put("fuzz_python_requirement", "url", "pip @ https://repo.example.org/pip-23.0.1-py3-none-any.whl")
    put("fuzz_python_version", "local", "2.5.1+rocm6.2")
    put("fuzz_python_version", "specifier", ">=1.0.post1,!=1.3.*,<2!3.0a1.dev4,~=1.4")
    put("fuzz_python_simple_html", "project.html",
        '<!DOCTYPE html>\n<html><head><meta name="pypi:repository-version" content="1.1"></head><body>\n'
        '<a href="../../packages/rp-lib-1.0-py3-none-any.whl#sha256=' + "0" * 64 + '" '
        'data-requires-python="&gt;=3.8" data-dist-info-metadata="sha256=' + "1" * 64 + '">rp-lib-1.0-py3-none-any.whl</a>\n'
        '<a href="rp-lib-0.9.tar.gz" data-yanked="broken">rp-lib-0.9.tar.gz</a>\n</body></html>\n')
    put("fuzz_python_simple_html", "root.html", '<html><body><a href="/simple/rp-lib/">rp-lib</a>\n'
        '<a href="rp-app/">rp_app</a></body></html>\n')
    put("fuzz_python_simple_json", "project.json", json.dumps({
        "meta": {"api-version": "1.1"}, "name": "rp-lib", "versions": ["0.9", "1.0"],
        "files": [{"filename": "rp_lib-1.0-py3-none-any.whl", "url": "../../packages/rp_lib-1.0-py3-none-any.whl",
                   "hashes": {"sha256": "0" * 64}, "requires-python": ">=3.8", "core-metadata": {"sha256": "1" * 64},
                   "yanked": False, "size": 1234},
                  {"filename": "rp-lib-0.9.tar.gz", "url": "rp-lib-0.9.tar.gz", "hashes": {}, "yanked": "broken"}]}))
    put("fuzz_python_simple_json", "root.json", json.dumps({"meta": {"api-version": "1.0"},
                                                            "projects": [{"name": "rp-lib"}, {"name": "rp_app"}]}))
    sysconfig = [p for p in ("/usr/lib/python3.11/_sysconfigdata__x86_64-linux-gnu.py",) if os.path.exists(p)]
    if sysconfig:
        text = read(sysconfig[0]).decode()
        lines = text.splitlines()
        keep = [l for l in lines if not l.startswith(" ") or any(
            k in l for k in ("'EXT_SUFFIX'", "'SOABI'", "'LDLIBRARY'", "'VERSION'", "'MULTIARCH'", "'Py_ENABLE_SHARED'",
                             "'LIBDIR'", "'INCLUDEPY'", "'HOST_GNU_TYPE'", "'CC'"))]
        put("fuzz_sysconfigdata", "sysconfigdata.py", sanitize("\n".join(keep) + "\n"))
    put("fuzz_sysconfigdata", "patchlevel.h", "#define PY_MAJOR_VERSION 3\n#define PY_MINOR_VERSION 11\n"
        "#define PY_MICRO_VERSION 2\n#define PY_VERSION \"3.11.2\"\n")
    put("fuzz_sysconfigdata", "status", "Package: python3.11-minimal\nStatus: install ok installed\nVersion: 3.11.2-6+deb12u6\n")
    put("fuzz_sysconfigdata", "glibc", b"\x7fELF\x02\x01GNU C Library (Debian GLIBC 2.36-9+deb12u4) stable release version 2.36.\n")


def recipes():
    sources = [os.path.join(ROOT, "examples", "quickstart", "recipe.yaml"), os.path.join(ROOT, "examples", "therock", "mock.yaml"),
               os.path.join(ROOT, "examples", "flash-attention", "recipe.yaml")]  # a matrix: with include/exclude
    sources += [os.path.join(ROOT, "recipes", f) for f in sorted(os.listdir(os.path.join(ROOT, "recipes")))][:3]
    for path in sources:
        if os.path.exists(path):
            put("fuzz_recipe", os.path.basename(os.path.dirname(path)) + "-" + os.path.basename(path),
                sanitize(read(path).decode()))
    put("fuzz_registry", "bearer", 'Bearer realm="https://auth.example.org/token",service="registry.example.org",'
        'scope="repository:rocm/pytorch:pull,push"')
    put("fuzz_registry", "basic", 'Basic realm="Registry Realm", Bearer realm="http://127.0.0.1:5000/token"')
    put("fuzz_registry", "error", json.dumps({"errors": [{"code": "MANIFEST_UNKNOWN", "message": "manifest unknown",
                                                           "detail": {"Tag": "latest"}}]}))
    put("fuzz_registry", "range", "0-1048575")
    put("fuzz_registry", "retry", "Wed, 21 Oct 2015 07:28:00 GMT")
    put("fuzz_registry", "reference", "localhost:5000/rocm/pytorch:rocm6.2@sha256:" + "a" * 64)


def therock(tmp):
    idx = os.path.join(tmp, "therock")
    subprocess.run([sys.executable, os.path.join(ROOT, "tests", "tools", "make_therock_index.py"), idx], check=True,
                   capture_output=True)
    family = os.path.join(idx, "gfx94X-dcgpu")
    for f in sorted(os.listdir(family)) if os.path.isdir(family) else []:
        path = os.path.join(family, f)
        if f.startswith("rocm-") and f.endswith(".tar.gz") and os.path.getsize(path) < 64 << 10:
            put("fuzz_therock_dist_info", "sdist.tar.gz", read(path))
            with tarfile.open(path) as t:
                for m in t.getmembers():
                    if m.name.endswith("_dist_info.py"):
                        put("fuzz_therock_dist_info", "_dist_info.py", t.extractfile(m).read())
        if f.startswith("rocm_sdk_devel-") and f.endswith(".whl"):
            with zipfile.ZipFile(path) as z:
                for m in z.namelist():
                    if m.endswith("_devel.tar") and z.getinfo(m).file_size < 64 << 10:
                        put("fuzz_therock_devel_tar", "devel.tar", z.read(m))


def main():
    if os.path.isdir(OUT):
        shutil.rmtree(OUT)
    with tempfile.TemporaryDirectory() as tmp:
        apt(tmp)
        images()
        python(tmp)
        recipes()
        therock(tmp)
    total = 0
    for d, _, files in os.walk(OUT):
        total += sum(os.path.getsize(os.path.join(d, f)) for f in files)
    print(f"{OUT}: {total // 1024} KiB")


if __name__ == "__main__":
    main()
