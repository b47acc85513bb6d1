#!/usr/bin/python3
"""Checks that the pmubench Python package imports only down its layers.

scripts/pmubench is split into layers, a folder each (base, runs,
verdicts, render, report, convert, history); LAYERS in
scripts/pmubench/__init__.py lists them bottom up, each with the layers
right below it. The Python counterpart of check_rooms.py, which holds the
C++ rooms to the same rule.

  scripts/dev/check_layers.py [--root DIR]

Exit 0 when the layers form a ladder (each layer's layers below it come
earlier in the list), every module sits in a layer, every import of a
pmubench module (at the top of a file or inside a function) goes to the
module's own layer or one below it, and no modules import each other in a
circle; exit 1 listing each offence otherwise.
"""

import argparse
import ast
import pathlib
import sys

PACKAGE = "pmubench"


def read_layers(init_text):
    """[(layer, [layers right below it])] from the LAYERS assignment of
    the package's __init__.py (read, not imported)."""
    for node in ast.parse(init_text).body:
        if (isinstance(node, ast.Assign) and len(node.targets) == 1
                and getattr(node.targets[0], "id", None) == "LAYERS"):
            return [(layer, list(below))
                    for layer, below in ast.literal_eval(node.value)]
    return []


def ladder_offences(layers):
    """Layers that name an unknown layer, or one not listed before them."""
    offences, seen = [], set()
    for layer, below in layers:
        offences += [f"layer {layer} may import {b}, which is not a layer "
                     f"listed before it (LAYERS lists layers bottom up)"
                     for b in below if b not in seen]
        seen.add(layer)
    return offences


def reachable(layers):
    """{layer: layers it may import: itself and every layer below it}."""
    out = {}
    for layer, below in layers:
        out[layer] = {layer}.union(*(out.get(b, {b}) for b in below))
    return out


def module_name(path):
    """"runs/benchjson.py" -> "pmubench.runs.benchjson" (a package's
    __init__.py is the package)."""
    parts = [PACKAGE] + path[:-len(".py")].split("/")
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported(text, modules):
    """The pmubench modules a file's text imports, anywhere in it: for
    `from pmubench.x import y`, pmubench.x.y when that is a module, else
    pmubench.x."""
    out = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in modules
                     else node.module for a in node.names]
        else:
            continue
        out.update(n for n in names if n.split(".")[0] == PACKAGE)
    return out


def import_graph(files):
    """{module: pmubench modules it imports} of `files` (path under the
    package -> text), leaving out the package's own __init__ (it only
    documents the layers)."""
    modules = {module_name(path) for path in files}
    return {module_name(path): imported(text, modules) - {PACKAGE}
            for path, text in files.items()}


def layer_of(module):
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


def layer_offences(files, layers):
    """Modules outside a layer and imports that run up the layers."""
    allowed = reachable(layers)
    offences = []
    for path in sorted(files):
        layer = path.split("/")[0] if "/" in path else None
        if layer is None and path != "__init__.py" or layer and layer not in allowed:
            offences.append(f"scripts/{PACKAGE}/{path}: not in a layer "
                            f"(layers: {', '.join(allowed)})")
    for module, targets in sorted(import_graph(files).items()):
        layer = layer_of(module)
        if layer not in allowed:
            continue
        offences += [f"{module} imports {target}: layer {layer} may import "
                     f"only {', '.join(sorted(allowed[layer]))}"
                     for target in sorted(targets)
                     if layer_of(target) not in allowed[layer]]
    return offences


def circles(graph):
    """Each set of modules that import each other in a circle, as
    "a -> b -> a", by Tarjan's strongly connected components."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1 or node in graph.get(node, ()):
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return [" -> ".join(c + [c[0]]) for c in sorted(found)]


def check(root):
    """Every offence of the package under `root`, as lines."""
    package = root / "scripts" / PACKAGE
    layers = read_layers((package / "__init__.py").read_text())
    if not layers:
        return [f"scripts/{PACKAGE}/__init__.py: no LAYERS list"]
    files = {str(p.relative_to(package)): p.read_text()
             for p in sorted(package.rglob("*.py"))}
    offences = ladder_offences(layers) + layer_offences(files, layers)
    offences += [f"import circle: {c}" for c in circles(import_graph(files))]
    return offences


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=pathlib.Path,
                        default=pathlib.Path(__file__).resolve().parents[2],
                        help="the source tree (default: this checkout)")
    args = parser.parse_args(argv)
    if not (args.root / "scripts" / PACKAGE / "__init__.py").is_file():
        parser.error(f"--root {args.root}: no scripts/{PACKAGE}/__init__.py "
                     f"there; pass the pmubench source tree")
    offences = check(args.root)
    for line in offences:
        print(line, file=sys.stderr)
    if not offences:
        print(f"check_layers: every import under {args.root}/scripts/{PACKAGE} "
              f"runs down its layers, in no circle")
    return 1 if offences else 0


if __name__ == "__main__":
    sys.exit(main())
