"""The loops of graph/sync_proof.py: what their bodies define, and how an access's range is
carried over a back edge and out of a loop (memoized: pure functions of their arguments)."""
from __future__ import annotations

from functools import lru_cache

from .expr import Expr, Var, free_vars, substitute, vars_of
from .kernel_graph import Cond, KernelGraph, Loop, While, walk_items
from .linear import Lin, linearize
from .node import Node, exprs_in

MAX_PERIOD = 12


@lru_cache(maxsize=65536)
def carry_back(start: Lin, length: Lin, olds: tuple, m: Var, d: Var, older: Expr) -> tuple[Lin, Lin] | None:
    """An access's range carried over a loop's back edge (None: unchanged): what the body defines becomes
    an older unknown, the round counter M an older round M - 1 - D (once: D already there means older)."""
    names = _lin_vars(start) | _lin_vars(length)
    mapping = tuple((v, o) for v, o in olds if v in names)
    if m in names and d not in names:
        mapping += ((m, older),)
    return None if not mapping else (_rewrite_lin(start, mapping), _rewrite_lin(length, mapping))


@lru_cache(maxsize=65536)
def carry_exit(start: Lin, length: Lin, olds: tuple, m: Var, anyv: Var) -> tuple[Lin, Lin] | None:
    """An access's range carried out of a loop (None: unchanged): any round, older body values."""
    names = _lin_vars(start) | _lin_vars(length)
    mapping = tuple((v, o) for v, o in olds if v in names)
    if m in names:
        mapping += ((m, anyv),)
    return None if not mapping else (_rewrite_lin(start, mapping), _rewrite_lin(length, mapping))


@lru_cache(maxsize=65536)
def _rewrite_lin(lin: Lin, mapping: tuple) -> Lin:
    out = linearize(substitute(lin.to_expr(), dict(mapping)))
    return out if out is not None else Lin(((Var("local", -1, "unknown"), 1),), 0)


@lru_cache(maxsize=65536)
def _lin_vars(lin: Lin) -> frozenset:
    out: set = set()
    for a, _c in lin.terms:
        out |= free_vars(a)
    return frozenset(out)


def loop_items(items: tuple):
    for it in items:
        if isinstance(it, (Loop, While)):
            yield it
            yield from loop_items(it.body)
        elif isinstance(it, Cond):
            yield from loop_items(it.then_body)
            yield from loop_items(it.else_body)


def trip_count_of(n: Node) -> int | None:
    from .analysis import trip_count
    return trip_count(n)


def defined_by(g: KernelGraph, body: tuple) -> set[Var]:
    """The Vars whose value the body sets: inner indices, branch outputs, carried values, node values."""
    out: set[Var] = set()
    ids = set()
    seen: set[Var] = set()      # every variable the body's operands name (one walk; filtered once at the end)
    for n in walk_items(body):
        ids.add(n.id)
        if n.op == "for":
            out.add(n.args[0])
        elif n.op == "while":
            out.update(n.args[0])
        elif n.op == "if":
            out.update(n.args[1])
        for e in exprs_in(n.args):
            seen |= vars_of(e)
    out.update(v for v in seen if v.kind == "node" and v.key in ids)
    return out
