#!/usr/bin/env python3
"""Prints the Markdown build summary of the TheRock nightly (for $GITHUB_STEP_SUMMARY).

    nightly_summary.py METADATA.json RESOLVED.json [IMAGE_REF]

METADATA is `rockpack build --metadata-file`, RESOLVED is `rockpack build --resolved`. Keys that a
build did not write (no rocm section, nothing pushed) are left out of the summary, not errors.
Standard library only.
"""

import json
import sys


def human(size):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:.1f} {unit}" if unit != "B" else f"{size} B"
        size /= 1024
    return f"{size} B"


def package_version(resolved, name):
    for p in resolved.get("python", {}).get("packages", []):
        if p.get("name") == name:
            return p.get("version", "?")
    return None


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    with open(argv[1]) as f:
        meta = json.load(f)
    with open(argv[2]) as f:
        resolved = json.load(f)
    image_ref = argv[3] if len(argv) > 3 else ""

    out = [f"## {meta.get('name', 'image')}", ""]
    if image_ref:
        out.append(f"Image: `{image_ref}`")
    out.append(f"Manifest digest: `{meta.get('manifest_digest', '?')}`")
    base = meta.get("base")
    if base:
        out.append(f"Base: `{base.get('name', '?')}` (`{base.get('digest', '?')}`)")
    pushed = meta.get("pushed") or []
    out.append("Pushed: " + (", ".join(f"`{p}`" for p in pushed) if pushed else "nothing (push disabled)"))
    out.append("")

    rocm = resolved.get("rocm")
    if rocm:
        out += ["| ROCm | |", "|---|---|"]
        for key in ("version", "layout", "targets", "families", "indexes", "components", "root"):
            value = rocm.get(key)
            if isinstance(value, list):
                value = ", ".join(str(v) for v in value)
            if value is not None:
                out.append(f"| {key} | `{value}` |")
        out.append("")

    python = resolved.get("python", {})
    interp = python.get("interpreter", {})
    if python:
        out.append(f"Python {interp.get('version', '?')} at `{python.get('target', '?')}`; "
                   f"{len(python.get('packages', []))} packages")
        wanted = ["torch", "torchvision", "torchaudio", "pytorch-triton-rocm", "rocm", "rocm-sdk-core"]
        rows = [(n, package_version(resolved, n)) for n in wanted]
        rows = [(n, v) for n, v in rows if v]
        if rows:
            out += ["", "| package | version |", "|---|---|"] + [f"| {n} | `{v}` |" for n, v in rows]
        out.append("")

    layers = meta.get("layers", [])
    if layers:
        total = sum(layer.get("size", 0) for layer in layers)
        out.append(f"{len(layers)} layers, {human(total)} compressed")
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
