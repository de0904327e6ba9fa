#!/usr/bin/env python3
"""Where a rockpack build spends its CPU, by stage, from a `perf record` profile.

    perf record -F 499 -o perf.data -- rockpack build ...
    bench/stage_breakdown.py perf.data

Reads `perf report --no-children --sort dso,sym` (self time of each function, all threads) and sums
the samples into the stages a layer goes through: inflate, hash (SHA-256: the diff_id, blob digests,
downloads and RECORD checks), crc (CRC-32 of zip members and gzip members), compress, memcpy, the
kernel (read/write system calls copying into and out of the page cache, page faults, the loopback
network), and the rest (tar headers, planning, JSON, locks...). The shares are of CPU time, not of
wall time: stages run side by side on all cores. Not a test; rocm_bench.sh --perf runs it.

Debian's libraries are stripped, so most samples in them have an address and no name. They are
told apart by library: libcrypto is SHA-256 here (no TLS on loopback), zlib inflates (rockpack
compresses with libdeflate and zstd only), libzstd compresses. libdeflate does both: its samples
are split by address, along the boundaries of the source files it is linked from, which its
exported symbols mark (deflate_decompress.c comes first and ends with the decompress entry points,
then utils.c, deflate_compress.c up to libdeflate_deflate_compress_bound, adler32, the zlib
wrappers, crc32.c up to libdeflate_crc32, the gzip wrappers).
"""
import re
import subprocess
import sys

STAGES = ["inflate", "hash (SHA-256)", "crc (CRC-32)", "compress", "memcpy/memset", "kernel", "other"]


def libdeflate_ranges(path):
    """(stage, end) pairs: an address below `end` (and above the previous end) is that stage."""
    syms = {}
    for line in subprocess.run(["nm", "-D", "--defined-only", path], capture_output=True, text=True).stdout.splitlines():
        parts = line.split()
        if len(parts) == 3:
            syms[parts[2]] = int(parts[0], 16)
    need = ["libdeflate_set_memory_allocator", "libdeflate_deflate_compress_bound", "libdeflate_zlib_compress_bound",
            "libdeflate_crc32"]
    if not all(n in syms for n in need):
        return None
    return [("inflate", syms["libdeflate_set_memory_allocator"]),
            ("compress", syms["libdeflate_deflate_compress_bound"] + 0x20),
            ("other", syms["libdeflate_zlib_compress_bound"] + 0x20),
            ("crc (CRC-32)", syms["libdeflate_crc32"] + 0x20),
            ("other", 1 << 62)]


def find_library(name):
    out = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True).stdout
    for line in out.splitlines():
        if name in line and "x86-64" in line:
            return line.split("=>")[-1].strip()
    return None


def stage_of(dso, sym, deflate_ranges):
    if dso.startswith("[kernel"):
        return "kernel"
    if re.search(r"__mem(cpy|move|set)|^mem(cpy|move|set)", sym):
        return "memcpy/memset"
    if dso.startswith("libdeflate"):
        if re.search(r"decompress", sym):
            return "inflate"
        if re.search(r"crc32", sym):
            return "crc (CRC-32)"
        m = re.match(r"0x([0-9a-f]+)", sym)
        if m and deflate_ranges:
            addr = int(m.group(1), 16)
            for stage, end in deflate_ranges:
                if addr < end:
                    return stage
        return "compress"
    if dso.startswith("libcrypto"):
        return "hash (SHA-256)"
    if dso.startswith("libz."):
        return "crc (CRC-32)" if "crc32" in sym else "inflate"
    if dso.startswith("libzstd"):
        return "compress"
    if re.search(r"sha256|SHA256", sym):
        return "hash (SHA-256)"
    return "other"


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: stage_breakdown.py PERF_DATA")
    out = subprocess.run(
        ["perf", "report", "-i", sys.argv[1], "--no-children", "--sort", "dso,sym", "--stdio",
         "--percent-limit", "0", "-F", "overhead,dso,sym"],
        capture_output=True, text=True, check=True).stdout
    lib = find_library("libdeflate.so.0")
    deflate_ranges = libdeflate_ranges(lib) if lib else None
    totals = {s: 0.0 for s in STAGES}
    other = []
    for line in out.splitlines():
        m = re.match(r"\s*([\d.]+)%\s+(\S+)\s+\[[.kKgu]\]\s+(.*)$", line)
        if not m:
            continue
        pct, dso, sym = float(m.group(1)), m.group(2), m.group(3).strip()
        stage = stage_of(dso, sym, deflate_ranges)
        totals[stage] += pct
        if stage == "other":
            other.append((pct, f"{dso} {sym}"))
    for s in STAGES:
        print(f"  {s:<16} {totals[s]:5.1f}%")
    other.sort(reverse=True)
    if other:
        print("  largest in other: " + "; ".join(f"{t[:50]} {p:.1f}%" for p, t in other[:4]))


if __name__ == "__main__":
    main()
