"""Facts about the regions of asc.cond and asc.while_loop that several layers need: which Vars each
`yield` assigns, and what the value of each "local" Var (a branch output or a carried value) can
depend on, so that a question such as "can this address differ between cores?" sees through it.
"""
from __future__ import annotations

from typing import Iterable

from .expr import Expr, Var, free_vars
from .kernel_graph import KernelGraph
from .node import Node

REGION_HEADS = frozenset({"for", "while", "if", "else"})
REGION_ENDS = frozenset({"end_for", "end_while", "end_if", "else"})


def region_targets(head: Node) -> tuple[Var, ...]:
    """The Vars a `yield` at the end of this region assigns (the if's outputs, the while's carried values)."""
    if head.op == "if":
        return tuple(head.args[1])
    if head.op == "while":
        return tuple(head.args[0])
    return ()


def yield_targets(g: KernelGraph) -> dict[int, tuple[Var, ...]]:
    """yield node id -> the Vars it assigns, in order."""
    out: dict[int, tuple[Var, ...]] = {}
    stack: list[Node] = []
    for n in g:
        if n.op in ("end_for", "end_while", "end_if"):
            if stack:
                stack.pop()
        elif n.op == "else":
            head = stack.pop() if stack else n
            stack.append(head)     # the else-branch assigns the if's outputs too
        elif n.op in ("for", "while", "if"):
            stack.append(n)
        elif n.op == "yield":
            out[n.id] = region_targets(stack[-1]) if stack else ()
    return out


def local_sources(g: KernelGraph) -> dict[str, frozenset[str]]:
    """For each local Var (by env key): the kinds of the other variables ("param", "block_idx",
    "node", "loop", ...) its value can depend on, through the values assigned to it and the
    predicate or condition that chose them."""
    defs: dict[str, list[Expr]] = {}
    targets = yield_targets(g)
    for n in g:
        if n.op == "if":
            for v in n.args[1]:
                defs.setdefault(v.env_key, []).append(n.args[0])
        elif n.op == "while":
            carried, inits, cond = n.args
            for v, e in zip(carried, inits):
                defs.setdefault(v.env_key, []).extend((e, cond))
        elif n.op == "yield":
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
