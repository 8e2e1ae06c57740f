"""What a pyasc kernel file holds, read from its syntax tree: its `@asc.jit` functions, the pyasc names
each uses (with the keywords of each call), which are launched, and which test exercises which kernel.

Names are pyasc paths without `asc.`: `data_copy`, `TPosition.VECIN`, `adv.softmax`; a method call on
a value is `.method` (its class is not known from the syntax alone).
"""
from __future__ import annotations

import ast
from collections import Counter
from dataclasses import dataclass, field

# Attributes that are values, not API: a kernel's `x.dtype` or `dtype.sizeof()` is asc's DataType.
_VALUE_ATTRS = frozenset({"dtype"})


@dataclass
class Kernel:
    name: str
    qualname: str           # as Python spells it: test_add.<locals>.add_kernel
    line: int               # the first decorator's line (a function's co_firstlineno)
    def_line: int
    options: dict[str, str]  # the @asc.jit(...) keywords, as source text
    test: str | None        # the module-level test function it is defined in, if any
    names: Counter = field(default_factory=Counter)              # pyasc name -> uses
    keywords: dict[str, Counter] = field(default_factory=dict)   # pyasc name -> keyword -> uses
    calls: set[str] = field(default_factory=set)                 # other functions of the file it calls
    launched: bool = False


def _dotted(node: ast.AST) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def _is_jit(dec: ast.AST) -> dict[str, str] | None:
    """The options of an `@asc.jit` / `@asc.jit(...)` decorator, or None for another decorator."""
    target = dec.func if isinstance(dec, ast.Call) else dec
    if _dotted(target) not in ("asc.jit", "jit"):
        return None
    if isinstance(dec, ast.Call):
        return {k.arg or "**": ast.unparse(k.value) for k in dec.keywords}
    return {}


class _NameUse(ast.NodeVisitor):
    """Collect the pyasc names a function body uses."""

    def __init__(self, kernel: Kernel, aliases: set[str]) -> None:
        self.k = kernel
        self.aliases = aliases      # local names bound to the asc module (normally just "asc")

    def _name(self, node: ast.AST) -> str | None:
        path = _dotted(node)
        if path is None:
            return None
        head, _, rest = path.partition(".")
        if head in self.aliases and rest:
            return rest
        return None

    def visit_Attribute(self, node: ast.Attribute) -> None:
        name = self._name(node)
        if name is not None:
            self.k.names[name] += 1
            return          # do not count asc.TPosition as well as asc.TPosition.VECIN
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        name = self._name(node.func)
        if name is None and isinstance(node.func, ast.Attribute) and node.func.attr not in _VALUE_ATTRS:
            if _dotted(node.func.value) != "asc":
                name = "." + node.func.attr
                self.k.names[name] += 1
        if name is None and isinstance(node.func, ast.Name):
            self.k.calls.add(node.func.id)
        if name is not None:
            kw = self.k.keywords.setdefault(name, Counter())
            for k in node.keywords:
                kw[k.arg or "**"] += 1
            kw[f"#{len(node.args)} positional"] += 1
        self.generic_visit(node)


def scan(source: str) -> list[Kernel]:
    """Every `@asc.jit` function of a file, with the names it uses; `launched` is set for those the file
    launches (`k[...](...)`, or hands to pyasc's `filecheck` fixture)."""
    tree = ast.parse(source)
    aliases = {"asc"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            aliases |= {a.asname for a in node.names if a.asname and a.name in ("asc", "asc.language")}
    kernels: list[Kernel] = []

    def visit(body: list[ast.stmt], prefix: str, test: str | None) -> None:
        for node in body:
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            options = next((o for o in map(_is_jit, node.decorator_list) if o is not None), None)
            qual = f"{prefix}{node.name}"
            if options is not None:
                first = min([node.lineno] + [d.lineno for d in node.decorator_list])
                k = Kernel(node.name, qual, first, node.lineno, options, test)
                _NameUse(k, aliases).visit(ast.Module(body=node.body, type_ignores=[]))
                kernels.append(k)
            visit(node.body, f"{qual}.<locals>.", test or (node.name if node.name.startswith("test") else None))

    visit(tree.body, "", None)
    subscripted = {n.value.id for n in ast.walk(tree) if isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name)}
    checked = {ast.unparse(n.func.args[0]) for n in ast.walk(tree)
               if isinstance(n, ast.Call) and isinstance(n.func, ast.Call) and _dotted(n.func.func) == "filecheck"
               and n.func.args}
    for k in kernels:
        k.launched = k.name in subscripted or k.name in checked
    return kernels


def closure(kernel: Kernel, kernels: list[Kernel]) -> tuple[Counter, set[str]]:
    """The names a launched kernel uses, its sub-kernels' included, and the options of all of them."""
    by_name = {k.name: k for k in kernels}
    seen: set[str] = set()
    names: Counter = Counter()
    options: set[str] = set()
    todo = [kernel.name]
    while todo:
        k = by_name.get(todo.pop())
        if k is None or k.name in seen:
            continue
        seen.add(k.name)
        names.update(k.names)
        options |= set(k.options)
        todo.extend(k.calls)
    return names, options


def shadowed_tests(source: str) -> set[str]:
    """Module-level test functions defined twice: pytest runs only the last definition."""
    tree = ast.parse(source)
    counts = Counter(n.name for n in tree.body if isinstance(n, ast.FunctionDef))
    return {name for name, c in counts.items() if c > 1}


def shadowed_lines(source: str) -> set[int]:
    """The lines of test functions that a later definition of the same name replaces."""
    tree = ast.parse(source)
    last: dict[str, ast.FunctionDef] = {}
    dead: set[int] = set()
    for n in tree.body:
        if isinstance(n, ast.FunctionDef):
            if n.name in last:
                prev = last[n.name]
                dead |= set(range(prev.lineno, (prev.end_lineno or prev.lineno) + 1))
            last[n.name] = n
    return dead
