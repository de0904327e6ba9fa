#!/usr/bin/env python3
"""Where the time of bench/apt_latency_bench.sh goes, for rockpack and for apt-get.

    apt_breakdown.py ROCKPACK_LOG PEER_TIMES DPKG_LOG

ROCKPACK_LOG: `rockpack -v --log-format json build` output: each line has its time; the `phase ...`
lines (util/phase_clock.hpp) give wall, CPU and child-process CPU of the apt step's phases, the
`stage ...` lines the build's stages, and the `[apt scripts]` lines (dpkg's own output) when the
maintainer scripts reached "Setting up" and "Processing triggers".
PEER_TIMES: lines `start T`, `updated T`, `end T` (epoch seconds) written around apt-get update and
install, `pre T` / `post T` written by DPkg::Pre-Invoke and Post-Invoke hooks, and `dpkg T USER SYS`
after each dpkg run (its and its maintainer scripts' CPU, as sh's `times` prints it).
DPKG_LOG: the chroot's /var/log/dpkg.log (times to the second): the last `install` or `upgrade` line
(one per package dpkg unpacks) ends the unpacking.
"""
import calendar
import json
import re
import sys
import time

PHASE = re.compile(r"^phase (.*): ([0-9.]+) s wall, ([0-9.]+) s CPU, ([0-9.]+) s CPU in child processes$")
STAGE = re.compile(r"^stage (\w+): ([0-9.]+) s wall, ([0-9.]+) s CPU")


def rockpack(path):
    lines = []
    for raw in open(path, errors="replace"):
        raw = raw.strip()
        if raw.startswith("{"):
            try:
                lines.append(json.loads(raw))
            except json.JSONDecodeError:
                pass
    if not lines:
        print("  (no JSON log lines from rockpack)")
        return
    t0 = lines[0]["time_ms"] / 1000
    rows, scripts = [], []
    script_start = script_end = None
    for j in lines:
        msg, t = j.get("msg", ""), j["time_ms"] / 1000  # events have no msg
        m = PHASE.match(msg)
        if m:
            name, wall, cpu, children = m.group(1), float(m.group(2)), float(m.group(3)), float(m.group(4))
            rows.append((f"  {name}", wall, cpu, children, t - t0))
            if name.startswith("sandbox root (apt scripts"):
                script_start = t
            if name.startswith("sandbox command (apt scripts"):
                script_end = t
            continue
        m = STAGE.match(msg)
        if m:
            rows.append((f"stage {m.group(1)}", float(m.group(2)), float(m.group(3)), None, t - t0))
            continue
        if msg.startswith("sandbox: removed the sandbox's root in "):
            rows.append(("  sandbox root removed (unlinking every file of the image)", float(msg.split()[-2]), None, None, t - t0))
            continue
        if msg.startswith("[apt scripts] "):
            scripts.append((t, msg[len("[apt scripts] "):]))
    print(f"  rockpack, from its first log line (t = seconds since it; CPU of rockpack's threads / of its"
          f" child processes):")
    print(f"    {'phase':<66} {'wall':>7} {'CPU':>7} {'child CPU':>9} {'ends at t':>9}")
    for name, wall, cpu, children, at in rows:
        c = "" if children is None else f"{children:.2f}"
        u = "" if cpu is None else f"{cpu:.2f}"
        print(f"    {name:<66} {wall:7.2f} {u:>7} {c:>9} {at:9.2f}")
    if script_start and script_end and scripts:
        setting = [t for t, m in scripts if m.startswith("Setting up ")]
        triggers = [t for t, m in scripts if m.startswith("Processing triggers for ")]
        first_setup = setting[0] if setting else script_end
        last_setup = setting[-1] if setting else script_end
        first_trigger = min([t for t in triggers if t >= last_setup] or [script_end])
        print("    the maintainer scripts, from dpkg's output lines (wall):")
        print(f"      {'preinsts and the first configure, up to the first Setting up':<64} {first_setup - script_start:7.2f}")
        print(f"      {'Setting up ... (configure: postinsts), %d packages' % len(setting):<64} {last_setup - first_setup:7.2f}")
        print(f"      {'the last postinst, then the triggers up to the first of them':<64} {first_trigger - last_setup:7.2f}")
        print(f"      {'triggers (%d lines), ldconfig, normalisation' % len(triggers):<64} {script_end - first_trigger:7.2f}")


def peer(times_path, dpkg_log):
    marks, dpkg_cpu = {}, 0.0
    for line in open(times_path):
        parts = line.split()
        if len(parts) == 2:
            marks.setdefault(parts[0], float(parts[1]))  # the first pre, the first post
        elif len(parts) == 4 and parts[0] == "dpkg":  # dpkg T 0m1.23s 0m0.45s: its children's user, system
            for t in parts[2:]:
                m, sec = t.rstrip("s").split("m")
                dpkg_cpu += int(m) * 60 + float(sec)
    if not {"start", "updated", "end"} <= marks.keys():
        print("  (apt-get's marks are missing)")
        return
    print("  apt-get (wall; CPU where measurable):")
    print(f"    {'apt-get update (InRelease, Packages, apt caches)':<66} {marks['updated'] - marks['start']:7.2f}")
    if "pre" not in marks or "post" not in marks:
        print(f"    {'apt-get install':<66} {marks['end'] - marks['updated']:7.2f}")
        return
    pre_t, post_t = marks["pre"], marks["post"]
    last_unpack = None
    for line in open(dpkg_log, errors="replace"):
        parts = line.split()
        if len(parts) >= 3 and parts[2] in ("install", "upgrade"):  # dpkg logs an unpack so
            last_unpack = calendar.timegm(time.strptime(parts[0] + " " + parts[1], "%Y-%m-%d %H:%M:%S"))
    print(f"    {'apt-get install: resolution and downloads (up to dpkg)':<66} {pre_t - marks['updated']:7.2f}")
    print(f"    {'dpkg: unpack, configure, triggers (CPU: every dpkg run with its scripts)':<66} {post_t - pre_t:7.2f} {dpkg_cpu:7.2f}")
    if last_unpack:
        # dpkg's log has whole seconds: the split is good to a second.
        print(f"    {'  of which unpacking (to the last unpack in dpkg.log, +-1 s)':<66} {last_unpack + 0.5 - pre_t:7.2f}")
        print(f"    {'  of which configuring and triggers':<66} {post_t - last_unpack - 0.5:7.2f}")
    print(f"    {'after dpkg (apt-get ends)':<66} {marks['end'] - post_t:7.2f}")


def main():
    rockpack(sys.argv[1])
    peer(sys.argv[2], sys.argv[3])


if __name__ == "__main__":
    main()
