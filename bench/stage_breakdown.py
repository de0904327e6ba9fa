#!/usr/bin/env python3
"""Where a rockpack build spends its CPU, by stage, from a `perf record` profile.

    perf record -F 499 -o perf.data -- rockpack build ...
    bench/stage_breakdown.py perf.data

Reads `perf report --no-children --sort dso,sym` (self time of each function, all threads) and sums
the samples into the stages a layer goes through: inflate (zlib, libdeflate), hash (SHA-256 of
the diff_id, blob digests and RECORD checks), crc (gzip's CRC-32), compress (libdeflate's deflate,
zstd), memcpy, the kernel (read/write system calls: copying into and out of the page cache; page
faults), and the rest (tar headers, planning, JSON, locks...). The shares are of CPU time, not
wall time: stages run side by side on all cores. Not a test; rocm_bench.sh --perf runs it.
"""
import re
import subprocess
import sys

# First match wins: (stage, regex over "dso symbol").
STAGES = [
    ("inflate", r"inflate|libdeflate_.*decompress|deflate_decompress|decompress_block|build_decode_table|ZSTD_decompress|ZSTD_decode|HUF_decompress|FSE_decompress"),
    ("hash (SHA-256)", r"sha256|SHA256|sha_block"),
    ("crc (CRC-32)", r"crc32"),
    ("compress", r"libdeflate_deflate_compress|deflate_compress|compress_block|deflate_flush|ZSTD_|HUF_|FSE_|HIST_|bt_matchfinder|hc_matchfinder|ht_matchfinder|choose_|libdeflate\.so|libzstd\.so"),
    ("memcpy/memmove", r"__mem(cpy|move|set)|memcpy|memmove"),
    ("kernel (syscalls, page cache, faults)", r"^\[kernel"),
]


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: stage_breakdown.py PERF_DATA")
    out = subprocess.run(
        ["perf", "report", "-i", sys.argv[1], "--no-children", "--sort", "dso,sym", "--stdio",
         "--percent-limit", "0", "-F", "overhead,dso,sym"],
        capture_output=True, text=True, check=True).stdout
    totals = {name: 0.0 for name, _ in STAGES}
    other = 0.0
    top_other = []
    for line in out.splitlines():
        m = re.match(r"\s*([\d.]+)%\s+(\S+)\s+\[[.kKgu]\]\s+(.*)$", line)
        if not m:
            continue
        pct, dso, sym = float(m.group(1)), m.group(2), m.group(3).strip()
        text = f"{dso} {sym}"
        for name, pattern in STAGES:
            if re.search(pattern, text):
                totals[name] += pct
                break
        else:
            other += pct
            top_other.append((pct, text))
    for name, _ in STAGES:
        print(f"  {name:<40} {totals[name]:5.1f}%")
    print(f"  {'other (tar, planning, JSON, locks...)':<40} {other:5.1f}%")
    top_other.sort(reverse=True)
    if top_other:
        print("  largest in other: " + "; ".join(f"{t[:60]} {p:.1f}%" for p, t in top_other[:4]))


if __name__ == "__main__":
    main()
