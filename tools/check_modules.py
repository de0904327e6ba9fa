#!/usr/bin/env python3
"""The module graph of src/: which folder includes which, checked against the declared layering.

    tools/check_modules.py [--src DIR] [--graph]       check; exit 1 on a cycle, an undeclared or an unused edge
    tools/check_modules.py --mermaid                    print the graph for docs/architecture.md

A module is a folder of src/. Module A depends on B when a file of A has `#include "B/..."`.
DEPENDS below declares, per module, what it may include; an include the declaration lacks is an
error (a new dependency must be declared here, on purpose), and so is a declared edge no file uses
(the table says what the code needs, not what it once needed) and any cycle in the declared or the
real graph. docs/architecture.md carries the --mermaid output between its GRAPH markers;
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
    # Image references ([registry/]repository[:tag][@digest]): names only, no transport.
    "reference": ["util", "net"],
    "output": ["util", "entries", "net", "image", "store", "assemble"],
    # assemble: the registry layer cache is an ExternalLayerCache the layer builder asks.
    "registry": ["util", "net", "reference", "image", "store", "assemble"],
    # Any image location (oci:, oci-archive:, docker-archive:, a registry reference) loaded through
    # the one transport it names: above the file transports (output) and the registry, side by side.
    "transports": ["util", "store", "image", "output", "reference", "registry"],
    # Ecosystem modules: they read the image through entries/FileTree, archives through
    # entries/MemberArchive, remote files through net/FileFetcher and caches through
    # util/RecordCache. They never reach store/, fetch/, assemble/, image/, registry/, output/ or plan/.
    "python": ["util", "entries", "net"],
    "therock": ["util", "entries", "net", "python"],
    "apt": ["util", "entries", "net"],
    # Runs commands on a root file system in namespaces and turns what they changed into entries.
    "sandbox": ["util", "entries"],
    # The recipe checks python requirement strings, GPU targets and base references as it loads.
    "recipe": ["util", "net", "reference", "python", "therock", "apt"],
    "plan": ["util", "entries", "net", "store", "image", "assemble", "fetch", "recipe", "python", "therock", "apt", "sandbox"],
    # What images hold (packages, files) and how two differ; reads any image, never builds one.
    "inventory": ["util", "entries", "store", "image"],
    # SBOM documents (SPDX, CycloneDX) from plain component records.
    "sbom": ["util", "net"],
    # The build report (JSON, Markdown, the reader of a previous one) from plain records.
    "report": ["util"],
    # One build as a library (build.Context in apko): plan, assemble, seal, outputs, push, records.
    "build": ["util", "net", "reference", "store", "image", "assemble", "output", "registry", "transports", "recipe",
              "plan", "inventory", "sbom", "report"],
    "cli": ["util", "net", "reference", "store", "image", "assemble", "output", "registry", "transports", "recipe",
            "python", "plan", "inventory", "report", "build"],
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


def check(src, depends, docs):
    """The errors of the tree under `src` against `depends` (and the graph in `docs`, when given)."""
    graph = real_graph(src)
    errors = []
    for module, edges in sorted(graph.items()):
        if module not in depends:
            errors.append("src/%s/ is not declared in tools/check_modules.py DEPENDS" % module)
            continue
        for dep, where in sorted(edges.items()):
            if dep not in depends[module]:
                errors.append("%s includes %s/ (%s), which DEPENDS[%r] does not declare" % (where, dep, where, module))
    for module, deps in sorted(depends.items()):
        if module not in graph:
            errors.append("DEPENDS declares %s, which is no folder of src/: remove it" % module)
            continue
        for dep in deps:
            if dep not in graph[module]:
                errors.append("DEPENDS[%r] declares %s/, which no file of src/%s/ includes: remove it" % (module, dep, module))
    for name, g in (("declared", depends), ("real", graph)):
        cycle = find_cycle(g)
        if cycle:
            errors.append("the %s module graph has a cycle: %s" % (name, " -> ".join(cycle)))
    if docs and os.path.exists(docs):
        text = open(docs, encoding="utf-8").read()
        m = re.search(r"<!-- GRAPH BEGIN.*?-->\n(.*?)\n<!-- GRAPH END -->", text, re.S)
        if not m or m.group(1).strip() != mermaid(graph).strip():
            errors.append("docs/architecture.md's module graph is stale: run tools/check_modules.py --mermaid "
                          "and paste it between the GRAPH markers")
    return errors


def self_test():
    """Each rule fails on a small tree that breaks it, and a tree that keeps them all passes."""
    import tempfile
    cases = [
        ({"util": [], "net": ["util"]}, {"net/a.cpp": '#include "util/x.hpp"'}, None),
        ({"util": [], "net": []}, {"net/a.cpp": '#include "util/x.hpp"'}, "does not declare"),
        ({"util": [], "net": ["util"]}, {"net/a.cpp": "int x;"}, "which no file of src/net/ includes"),
        ({"util": ["net"], "net": ["util"]}, {"net/a.cpp": '#include "util/x.hpp"', "util/b.cpp": '#include "net/y.hpp"'},
         "cycle"),
    ]
    for depends, files, want in cases:
        with tempfile.TemporaryDirectory() as tmp:
            for module in depends:
                os.makedirs(os.path.join(tmp, module), exist_ok=True)
            for path, text in files.items():
                with open(os.path.join(tmp, path), "w") as f:
                    f.write(text + "\n")
            errors = check(tmp, depends, None)
            ok = not errors if want is None else any(want in e for e in errors)
            if not ok:
                return "self-test: %r with %r gave %r, expected %s" % (files, depends, errors, want or "no error")
    return None


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    src = os.path.join(here, "..", "src")
    if "--src" in argv:
        src = argv[argv.index("--src") + 1]
    if "--mermaid" in argv:
        print(mermaid(real_graph(src)))
        return 0
    failed = self_test()
    if failed:
        print("check_modules: " + failed, file=sys.stderr)
        return 1
    docs = None if "--no-docs" in argv else os.path.join(src, "..", "docs", "architecture.md")
    errors = check(src, DEPENDS, docs)
    for e in errors:
        print("check_modules: " + e, file=sys.stderr)
    if "--graph" in argv:
        print(mermaid(real_graph(src)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
