"""verify(graph): the invariants every pass must keep (torch.fx `lint`, tinygrad `spec`).

Internal breakage raises GraphError; a user value used outside the loop that defines it is a
TraceError at the use, since that is a property of the kernel as written.
"""
from __future__ import annotations

from typing import Any

from ..errors import TraceError
from .expr import Var, free_vars
from .kernel_graph import KernelGraph, _producers
from .node import Node, ObjRef, TensorRef, exprs_in
from .ops import REGISTRY

TENSOR_ROOTS = frozenset({"global_tensor", "local_tensor", "alloc_tensor", "deque", "tbuf_get"})
OBJ_ROOTS = {"que": "tque", "tbuf": "tbuf", "pipe": "tpipe"}


class GraphError(Exception):
    """A broken graph invariant: a bug in asc_trace, not in the user's kernel."""


def verify(g: KernelGraph) -> KernelGraph:
    seen: dict[int, Node] = {}
    open_loops: list[Node] = []
    loop_vars: dict[str, Node] = {}
    for nid in g.order:
        if nid in seen:
            raise GraphError(f"node %{nid} appears twice in program order")
        if nid not in g:
            raise GraphError(f"program order names %{nid}, which is not in the graph")
        n = g.node(nid)
        if n.op not in REGISTRY:
            raise GraphError(f"%{nid}: unknown op {n.op!r}")
        if n.loc is None:
            raise GraphError(f"%{nid}: no source location")
        scope = tuple(l.id for l in open_loops)
        if n.op == "end_for":
            if not open_loops or open_loops[-1].id != n.args[0]:
                raise GraphError(f"%{nid}: end_for does not close the innermost loop")
            open_loops.pop()
            scope = tuple(l.id for l in open_loops)
        if n.loops != scope:
            raise GraphError(f"%{nid}: recorded loop scope {n.loops} but sits in {scope}")
        _check_operands(g, n, seen, loop_vars)
        if n.op == "for":
            open_loops.append(n)
            loop_vars[n.args[0].env_key] = n
        seen[nid] = n
    if open_loops:
        raise GraphError(f"loop %{open_loops[-1].id} is never closed")
    return g


def _check_operands(g: KernelGraph, n: Node, seen: dict[int, Node], loop_vars: dict[str, Node]) -> None:
    for idx, producer in _producers(n.args):
        p = seen.get(producer)
        if p is None:
            raise GraphError(f"%{n.id} uses %{producer}, which is not defined before it")
        if not _encloses(p.loops, n.loops):
            raise TraceError(f"this uses a value defined inside a runtime loop (at {p.loc.short}) after that loop "
                             "has ended", n.loc,
                             hint="use the value inside the loop, or unroll the loop with asc.static_range")
    for a in (n.args[1:] if n.op == "for" else n.args):
        _check_kinds(n, a, seen)
        for v in _vars(a):
            if v.kind == "loop" and (v.env_key not in loop_vars or loop_vars[v.env_key].id not in n.loops):
                raise TraceError(f"the loop index {v.name} is used outside its loop", n.loc,
                                 hint="keep uses of a runtime loop's index inside the loop body")


def _encloses(outer: tuple[int, ...], inner: tuple[int, ...]) -> bool:
    return inner[:len(outer)] == outer


def _check_kinds(n: Node, a: Any, seen: dict[int, Node]) -> None:
    if isinstance(a, TensorRef):
        if seen[a.root].op not in TENSOR_ROOTS:
            raise GraphError(f"%{n.id}: tensor operand rooted at %{a.root} ({seen[a.root].op})")
    elif isinstance(a, ObjRef):
        if seen[a.root].op != OBJ_ROOTS.get(a.kind):
            raise GraphError(f"%{n.id}: {a.kind} operand rooted at %{a.root} ({seen[a.root].op})")


def _vars(a: Any) -> set[Var]:
    out: set[Var] = set()
    for e in exprs_in(a):
        out |= free_vars(e)
    return out
