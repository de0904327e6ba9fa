#!/usr/bin/env python3
"""Compares two installed site-packages trees: one pip + `rocm-sdk init` made (the reference) and
one from an image rockpack built. Exits 1 listing every difference.

    compare_site_trees.py REFERENCE IMAGE_SITE

Compared: the set of paths; each path's type, permission bits and symlink target; which files are
hardlinked together (groups of paths sharing an inode, within the tree); every RECORD as a set of
rows. Documented differences, not compared:
  - __pycache__ directories and their rows in RECORD (pip compiles bytecode, rockpack does not);
  - what `python -m venv` seeds the pip venv with (pip, setuptools, wheel and their helpers), which
    the image's venv does not have;
  - the contents (hash, size) of RECORD rows for INSTALLER ("pip" vs "rockpack") and for the
    console-script launchers outside site-packages (each installer writes its own launcher text);
  - the RECORD rows of rocm-<V>.dist-info (pip builds a wheel from the rocm sdist with setuptools;
    rockpack writes the dist-info that build would leave, with its own hashes): paths only.
Standard library only.
"""
import csv
import os
import stat
import sys


SEED = ("pip", "setuptools", "wheel", "pkg_resources", "_distutils_hack", "distutils-precedence.pth")


def skipped(rel):
    parts = rel.split("/")
    top = parts[0]
    seed = top in SEED or any(top.startswith(s + "-") and top.endswith(".dist-info") for s in SEED)
    return seed or "__pycache__" in parts


def scan(root):
    entries, inodes = {}, {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            full = os.path.join(dirpath, name)
            rel = os.path.relpath(full, root)
            if skipped(rel):
                continue
            st = os.lstat(full)
            if stat.S_ISLNK(st.st_mode):
                entries[rel] = ("symlink", os.readlink(full))
            elif stat.S_ISDIR(st.st_mode):
                entries[rel] = ("dir", oct(st.st_mode & 0o7777))
            else:
                entries[rel] = ("file", oct(st.st_mode & 0o7777))
                if st.st_nlink > 1:
                    inodes.setdefault((st.st_dev, st.st_ino), []).append(rel)
    groups = {frozenset(g) for g in inodes.values() if len(g) > 1}
    return entries, groups


def record_rows(root, rel):
    rows = set()
    rocm_dist = os.path.basename(os.path.dirname(rel)).startswith("rocm-") and rel.endswith(".dist-info/RECORD") \
        and not os.path.basename(os.path.dirname(rel)).startswith("rocm-sdk")
    with open(os.path.join(root, rel), newline="") as f:
        for row in csv.reader(f):
            if not row or skipped(row[0]):
                continue
            path = row[0]
            hash_, size = (row[1] if len(row) > 1 else ""), (row[2] if len(row) > 2 else "")
            if rocm_dist or path.endswith("/INSTALLER") or path.startswith("../"):
                hash_ = size = "*"
            rows.add((path, hash_, size))
    return rows


def main():
    ref, img = sys.argv[1], sys.argv[2]
    a, ga = scan(ref)
    b, gb = scan(img)
    problems = []
    for rel in sorted(set(a) | set(b)):
        if rel not in b:
            problems.append(f"only in the pip tree: {rel} {a[rel]}")
        elif rel not in a:
            problems.append(f"only in the image: {rel} {b[rel]}")
        elif a[rel] != b[rel]:
            problems.append(f"{rel}: pip {a[rel]}, image {b[rel]}")
    for g in sorted(ga - gb, key=sorted):
        problems.append(f"hardlinked together in the pip tree only: {sorted(g)}")
    for g in sorted(gb - ga, key=sorted):
        problems.append(f"hardlinked together in the image only: {sorted(g)}")
    for rel in sorted(r for r in set(a) & set(b) if r.endswith(".dist-info/RECORD")):
        ra, rb = record_rows(ref, rel), record_rows(img, rel)
        for row in sorted(ra - rb):
            problems.append(f"{rel}: row only in the pip tree: {','.join(row)}")
        for row in sorted(rb - ra):
            problems.append(f"{rel}: row only in the image: {','.join(row)}")
    if problems:
        print(f"{len(problems)} difference(s) between {ref} (pip + rocm-sdk init) and {img} (rockpack):")
        for p in problems[:200]:
            print("  " + p)
        return 1
    print(f"same trees: {len(a)} paths, {len(ga)} hardlink groups")
    return 0


if __name__ == "__main__":
    sys.exit(main())
