"""asc_trace's import graph, read from the source with `ast`: no import cycles between modules
(imports inside functions count too) and no import that runs up the layer order of
docs/architecture.md. An exception is listed in ALLOWED with its reason."""
from __future__ import annotations

import ast
from functools import lru_cache
from pathlib import Path

import networkx as nx

PKG = Path(__file__).resolve().parents[1] / "asc_trace"

# Lowest first; a module may import its own layer and the layers below it.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("asc_trace._version", "asc_trace.config", "asc_trace.dtypes", "asc_trace.enums", "asc_trace.kernel_options",
     "asc_trace.graph.source_loc"),          # a plain dataclass the errors carry
    ("asc_trace.errors", "asc_trace.cube_enums"),
    ("asc_trace.graph",),
    ("asc_trace.proxies",),
    ("asc_trace.toolchain",),
    ("asc_trace.lower",),
    ("asc_trace.runtime",),
    ("asc_trace.options", "asc_trace.fingerprint", "asc_trace.recompile_watch", "asc_trace.jit_function"),
    ("asc_trace.tuning", "asc_trace.vendor_judge", "asc_trace.torch_library"),
    ("asc_trace.lib", "asc_trace.cli"),
    ("asc_trace", "asc_trace.__main__"),
)

# (importer, imported): why this edge is accepted
ALLOWED: dict[tuple[str, str], str] = {}

# Cycles not untangled yet, each with why; a new cycle, or one of these changing, fails the test,
# and an entry whose cycle is gone must be removed.
KNOWN_CYCLES: dict[frozenset[str], str] = {}


def module_name(path: Path) -> str:
    parts = path.relative_to(PKG.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@lru_cache(maxsize=1)
def import_graph() -> nx.DiGraph:
    """Module -> module it imports, at any depth of the file (module level or inside a function).
    `from pkg import name` points at pkg.name when that is a module, else at pkg."""
    files = {module_name(p): p for p in PKG.rglob("*.py")}
    g = nx.DiGraph()
    g.add_nodes_from(files)
    for mod, path in files.items():
        package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[:len(package.split(".")) - node.level + 1]
                    source = ".".join(base + ([node.module] if node.module else []))
                else:
                    source = node.module or ""
                subs = [f"{source}.{a.name}" for a in node.names if f"{source}.{a.name}" in files]
                targets = subs if len(subs) == len(node.names) else subs + [source]
            else:
                continue
            for t in targets:
                if t in files and t != mod:
                    g.add_edge(mod, t, line=node.lineno)
    return g


def layer_of(mod: str) -> int:
    best, level = -1, -1
    for i, prefixes in enumerate(LAYERS):
        for p in prefixes:
            if (mod == p or mod.startswith(p + ".")) and len(p) > best:
                best, level = len(p), i
    assert level >= 0, f"{mod} is in no layer: add it to LAYERS (and docs/architecture.md)"
    return level


def _edges(g: nx.DiGraph) -> nx.DiGraph:
    return nx.DiGraph([(a, b, d) for a, b, d in g.edges(data=True) if (a, b) not in ALLOWED])


def test_every_module_has_a_layer():
    for mod in import_graph():
        layer_of(mod)


def test_no_import_cycles():
    g = _edges(import_graph())
    cycles = {frozenset(c) for c in nx.strongly_connected_components(g) if len(c) > 1}
    new = [sorted(c) for c in cycles - set(KNOWN_CYCLES)]
    assert not new, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in new)
    gone = [sorted(c) for c in set(KNOWN_CYCLES) - cycles]
    assert not gone, "KNOWN_CYCLES lists cycles that are gone (remove them): " + repr(gone)


def test_no_upward_imports():
    g = _edges(import_graph())
    up = [f"{a}:{d['line']} imports {b}" for a, b, d in g.edges(data=True) if layer_of(b) > layer_of(a)]
    assert not up, "imports that run up a layer:\n" + "\n".join(sorted(up))


def test_the_checks_can_fail():
    g = nx.DiGraph([("asc_trace.errors", "asc_trace.graph.printer"), ("asc_trace.graph.printer", "asc_trace.errors")])
    assert layer_of("asc_trace.graph.printer") > layer_of("asc_trace.errors")
    assert any(len(c) > 1 for c in nx.strongly_connected_components(g))


def test_allowed_edges_exist():
    g = import_graph()
    stale = [e for e in ALLOWED if not g.has_edge(*e)]
    assert not stale, f"ALLOWED lists imports that are gone: {stale}"
