#!/usr/bin/env python3
"""The module graph of src/: which folder includes which, checked against the declared layering.

    tools/check_modules.py [--src DIR] [--graph]       check; exit 1 on a cycle or an undeclared edge
    tools/check_modules.py --mermaid                    print the graph for docs/architecture.md

A module is a folder of src/. Module A depends on B when a file of A has `#include "B/..."`.
DEPENDS below declares, per module, what it may include; an include the declaration lacks is an
error (a new dependency must be declared here, on purpose), and so is any cycle in the declared or
the real graph. docs/architecture.md carries the --mermaid output between its GRAPH markers;
the check fails when that copy is stale.
"""
import os
import re
import sys

# What each module may include (besides itself). Keep it a DAG, lowest modules first.
DEPENDS = {
    "util": [],
    "entries": ["util"],
    "net": ["util"],
    "store": ["util"],
    "image": ["util", "entries", "store"],
    "assemble": ["util", "entries", "image", "store"],
    "fetch": ["util", "net", "store"],
    "output": ["util", "entries", "net", "image", "store", "assemble"],
    # assemble: the registry layer cache is an ExternalLayerCache the layer builder asks.
    "registry": ["util", "net", "image", "store", "assemble", "output"],
    # Ecosystem modules: they read the image through entries/FileTree, archives through
    # entries/MemberArchive, remote files through net/FileFetcher and caches through
    # util/RecordCache. They never reach store/, fetch/, assemble/, image/, registry/, output/ or plan/.
    "python": ["util", "entries", "net"],
    "therock": ["util", "entries", "net", "python"],
    "apt": ["util", "entries", "net"],
    # Runs commands on a root file system in namespaces and turns what they changed into entries.
    "sandbox": ["util", "entries"],
    # The recipe checks python requirement strings, GPU targets and base references as it loads.
    "recipe": ["util", "net", "image", "python", "therock", "registry", "apt"],
    "plan": ["util", "entries", "net", "store", "image", "assemble", "fetch", "recipe", "python", "therock", "apt", "sandbox"],
    # What images hold (packages, files) and how two differ; reads any image, never builds one.
    "inventory": ["util", "entries", "store", "image", "output", "registry"],
    # SBOM documents (SPDX, CycloneDX) from plain component records.
    "sbom": ["util", "net"],
    # The build report (JSON, Markdown, the reader of a previous one) from plain records.
    "report": ["util"],
    "cli": ["util", "entries", "net", "store", "image", "assemble", "fetch", "output", "registry", "recipe", "python",
            "therock", "plan", "inventory", "sbom", "report"],
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/', re.M)


def real_graph(src):
    graph = {}
    for module in sorted(os.listdir(src)):
        path = os.path.join(src, module)
        if not os.path.isdir(path):
            continue
        edges = graph.setdefault(module, {})
        for root, _, files in os.walk(path):
            for f in files:
                if not f.endswith((".cpp", ".hpp")):
                    continue
                rel = os.path.relpath(os.path.join(root, f), src)
                with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
                    for m in INCLUDE.finditer(fh.read()):
                        dep = m.group(1)
                        if dep != module and os.path.isdir(os.path.join(src, dep)):
                            edges.setdefault(dep, rel)
    return graph


def find_cycle(graph):
    state, stack = {}, []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for d in sorted(graph.get(n, ())):
            if state.get(d) == 1:
                return stack[stack.index(d):] + [d]
            if not state.get(d):
                c = visit(d)
                if c:
                    return c
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(graph):
        if not state.get(n):
            c = visit(n)
            if c:
                return c
    return None


def mermaid(graph):
    lines = ["```mermaid", "graph TD"]
    for module in sorted(graph):
        for dep in sorted(graph[module]):
            lines.append("  %s --> %s" % (module, dep))
    lines.append("```")
    return "\n".join(lines)


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    src = os.path.join(here, "..", "src")
    if "--src" in argv:
        src = argv[argv.index("--src") + 1]
    graph = real_graph(src)
    if "--mermaid" in argv:
        print(mermaid(graph))
        return 0
    errors = []
    for module, edges in sorted(graph.items()):
        if module not in DEPENDS:
            errors.append("src/%s/ is not declared in tools/check_modules.py DEPENDS" % module)
            continue
        for dep, where in sorted(edges.items()):
            if dep not in DEPENDS[module]:
                errors.append("%s includes %s/ (%s), which DEPENDS[%r] does not declare" % (where, dep, where, module))
    for name, g in (("declared", DEPENDS), ("real", graph)):
        cycle = find_cycle(g)
        if cycle:
            errors.append("the %s module graph has a cycle: %s" % (name, " -> ".join(cycle)))
    docs = os.path.join(src, "..", "docs", "architecture.md")
    if os.path.exists(docs) and "--no-docs" not in argv:
        text = open(docs, encoding="utf-8").read()
        m = re.search(r"<!-- GRAPH BEGIN.*?-->\n(.*?)\n<!-- GRAPH END -->", text, re.S)
        if not m or m.group(1).strip() != mermaid(graph).strip():
            errors.append("docs/architecture.md's module graph is stale: run tools/check_modules.py --mermaid "
                          "and paste it between the GRAPH markers")
    for e in errors:
        print("check_modules: " + e, file=sys.stderr)
    if "--graph" in argv:
        print(mermaid(graph))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
