"""The regions of a traced program, read once from its marker nodes: the structured tree (loops,
while loops, branches), which Vars each `yield` assigns, and what the value of each "local" Var (a
branch output or a carried value) can depend on, so that a question such as "can this address differ
between cores?" sees through it.

`KernelGraph.region_table()` keeps one `RegionTable` per program order; this module knows nothing of
KernelGraph (it reads a sequence of nodes), so the graph, the printer and the passes all sit above it.

Regions (all traced once):
- `for` (args: index Var, start, stop, step) ... `end_for` (args: for id);
- `while` (args: carried Vars, initial values, condition Expr over the carried Vars) ... `yield`
  (args: the carried Vars' next values) `end_while` (args: while id): `asc.while_loop`;
- `if` (args: predicate Expr, output Vars) ... `yield` (then-branch outputs) `else` (args: if id) ...
  `yield` (else-branch outputs) `end_if` (args: if id): `asc.cond`. The outputs are Vars of kind
  "local", assigned by the taken branch's `yield`.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, Iterable, Iterator, Sequence

from .expr import Expr, Var, free_vars
from .node import Node

REGION_OPEN = ("for", "if", "while")                  # opens a region (and a C block)
REGION_CLOSE = ("end_for", "end_if", "end_while")     # closes the innermost region
REGION_ELSE = "else"                                  # closes asc.cond's then-branch, opens its else-branch
REGION_YIELD = "yield"                                # assigns the region's outputs / carried values
REGION_OPS = (*REGION_OPEN, REGION_ELSE, REGION_YIELD, *REGION_CLOSE)
REGION_HEADS = frozenset({*REGION_OPEN, REGION_ELSE})     # the ids a node's scope (`Node.regions`) holds
REGION_ENDS = frozenset({*REGION_CLOSE, REGION_ELSE})


@dataclass(frozen=True, slots=True)
class Loop:
    """A structured loop: its `for` node and its body (nodes and nested loops) in order."""

    node: Node
    body: tuple["Item", ...]


@dataclass(frozen=True, slots=True)
class While:
    """An `asc.while_loop`: its `while` node and its body, which ends with the `yield` node."""

    node: Node
    body: tuple["Item", ...]


@dataclass(frozen=True, slots=True)
class Cond:
    """An `asc.cond`: its `if` node, the then-branch (ending with a `yield`), the `else` node and the
    else-branch (ending with a `yield`)."""

    node: Node
    then_body: tuple["Item", ...]
    else_node: Node
    else_body: tuple["Item", ...]


Item = Node | Loop | While | Cond


class RegionTable:
    """Everything about the regions of one program order, each fact computed when first asked for.
    The nodes are fixed at construction: KernelGraph builds a new table when its nodes or order change."""

    def __init__(self, nodes: Sequence[Node]) -> None:
        self.nodes = tuple(nodes)

    @cached_property
    def tree(self) -> tuple[Item, ...]:
        """Program order as a tree of nodes and regions; ValueError on a region marker out of place
        (verify() reports that properly, with the user's line)."""
        return _structure(self.nodes)

    @cached_property
    def yield_targets(self) -> dict[int, tuple[Var, ...]]:
        """yield node id -> the Vars it assigns, in order. Tolerates a malformed program (the printer
        shows graphs that verify() rejects)."""
        return _yield_targets(self.nodes)

    @cached_property
    def local_sources(self) -> dict[str, frozenset[str]]:
        """For each local Var (by env key): the kinds of the other variables ("param", "block_idx",
        "node", "loop", ...) its value can depend on, through the values assigned to it and the
        predicate or condition that chose them."""
        return _local_sources(self.nodes, self.yield_targets)


def region_targets(head: Node) -> tuple[Var, ...]:
    """The Vars a `yield` at the end of this region assigns (the if's outputs, the while's carried values)."""
    if head.op == "if":
        return tuple(head.args[1])
    if head.op == "while":
        return tuple(head.args[0])
    return ()


def _yield_targets(nodes: Iterable[Node]) -> dict[int, tuple[Var, ...]]:
    out: dict[int, tuple[Var, ...]] = {}
    stack: list[Node] = []
    for n in nodes:
        if n.op in REGION_CLOSE:
            if stack:
                stack.pop()
        elif n.op == REGION_ELSE:
            head = stack.pop() if stack else n
            stack.append(head)     # the else-branch assigns the if's outputs too
        elif n.op in REGION_OPEN:
            stack.append(n)
        elif n.op == REGION_YIELD:
            out[n.id] = region_targets(stack[-1]) if stack else ()
    return out


def _local_sources(nodes: Iterable[Node], targets: dict[int, tuple[Var, ...]]) -> dict[str, frozenset[str]]:
    defs: dict[str, list[Expr]] = {}
    for n in nodes:
        if n.op == "if":
            for v in n.args[1]:
                defs.setdefault(v.env_key, []).append(n.args[0])
        elif n.op == "while":
            carried, inits, cond = n.args
            for v, e in zip(carried, inits):
                defs.setdefault(v.env_key, []).extend((e, cond))
        elif n.op == REGION_YIELD:
            for v, e in zip(targets.get(n.id, ()), n.args):
                defs.setdefault(v.env_key, []).append(e)
    out: dict[str, frozenset[str]] = {k: frozenset() for k in defs}
    changed = True
    while changed:            # a fixpoint: carried values depend on each other through the loop
        changed = False
        for k, exprs in defs.items():
            kinds = set(out[k])
            for e in exprs:
                kinds |= expr_kinds(e, out)
            if kinds != out[k]:
                out[k] = frozenset(kinds)
                changed = True
    return out


def _structure(nodes: Iterable[Node]) -> tuple[Item, ...]:
    # stack entries: (region head, items of the current body, then-items of an `if` once `else` is seen)
    stack: list[list[Any]] = [[None, [], None]]
    for n in nodes:
        if n.op in REGION_OPEN:
            stack.append([n, [], None])
        elif n.op == REGION_ELSE:
            top = stack[-1]
            top[2] = (tuple(top[1]), n)
            top[1] = []
        elif n.op in REGION_CLOSE:
            head, body, then = stack.pop()
            if head is None:
                raise ValueError(f"%{n.id}: {n.op} without its region")  # verify() reports this properly
            if head.op == "for":
                item: Item = Loop(head, tuple(body))
            elif head.op == "while":
                item = While(head, tuple(body))
            elif then is None:
                item = Cond(head, tuple(body), n, ())
            else:
                item = Cond(head, then[0], then[1], tuple(body))
            stack[-1][1].append(item)
        else:
            stack[-1][1].append(n)
    return tuple(stack[0][1])


def walk_items(items: tuple[Item, ...]) -> Iterator[Node]:
    """Every node of a structured body in program order, region heads included (not their ends)."""
    for it in items:
        if isinstance(it, (Loop, While)):
            yield it.node
            yield from walk_items(it.body)
        elif isinstance(it, Cond):
            yield it.node
            yield from walk_items(it.then_body)
            yield it.else_node
            yield from walk_items(it.else_body)
        else:
            yield it


def loop_var(for_node: Node) -> Var:
    return for_node.args[0]


def expr_kinds(e: Expr, sources: dict[str, frozenset[str]]) -> set[str]:
    """The kinds of variables `e` depends on, local Vars replaced by what they depend on."""
    kinds: set[str] = set()
    for v in free_vars(e):
        if v.kind == "local":
            kinds |= sources.get(v.env_key, frozenset())
        else:
            kinds.add(v.kind)
    return kinds


def depends_through(e: Expr, kinds: Iterable[str], sources: dict[str, frozenset[str]]) -> bool:
    """depends_on(e, kinds), seeing through local Vars."""
    return not expr_kinds(e, sources).isdisjoint(kinds)
