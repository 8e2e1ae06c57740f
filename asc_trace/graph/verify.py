"""verify(graph): the invariants every pass must keep (torch.fx `lint`, tinygrad `spec`).

Internal breakage raises GraphError; a user value used outside the region that defines it is a
TraceError at the use, since that is a property of the kernel as written.

Regions (graph/regions.py): `for` ... `end_for`, `while` ... `yield` `end_while`, `if` ... `yield`
`else` ... `yield` `end_if`. They nest properly; a `yield` ends every while body and every branch
(and appears nowhere else), with one value per Var it assigns, of that Var's kind; each node's
`regions` is the ids of its open regions (the `else` node's id for the else-branch). A "local" Var (a
branch output, a carried value) is defined once and used only where it has a value: outputs after
their `end_if`, carried values in their loop's condition and body and after the loop, always within
the region that encloses the defining one.
"""
from __future__ import annotations

from typing import Any

from ..errors import TraceError
from .expr import Var, vars_of
from .kernel_graph import KernelGraph, _producers
from .node import Node, ObjRef, TensorRef, exprs_in
from .ops import REGISTRY

# the ops whose node is a tensor's root, and the op that creates each kind of ObjRef (their records' `defines`)
TENSOR_ROOTS = frozenset(op.name for op in REGISTRY.values() if op.defines == "tensor")
OBJ_ROOTS = {op.defines: op.name for op in REGISTRY.values() if op.defines not in ("", "tensor")}
# closing node -> the op of the region it closes
_CLOSES = {"end_for": "for", "end_while": "while", "else": "if", "end_if": "else"}
_OPENS = frozenset({"for", "while", "if", "else"})
_YIELDING = frozenset({"while", "if", "else"})


class GraphError(Exception):
    """A broken graph invariant: a bug in asc_trace, not in the user's kernel."""


class _State:
    def __init__(self) -> None:
        self.seen: dict[int, Node] = {}
        self.regions: list[Node] = []           # the open region heads
        self.last: list[Node | None] = [None]   # the last node directly in each open body (index 0: top level)
        self.loop_vars: dict[str, Node] = {}
        self.local_scope: dict[str, tuple[int, ...] | None] = {}    # None: defined, no value yet
        self.local_def: dict[str, Node] = {}

    def scope(self) -> tuple[int, ...]:
        return tuple(r.id for r in self.regions)

    def targets(self, head: Node) -> tuple[Var, ...]:
        if head.op == "else":
            head = self.seen[head.args[0]]
        if head.op == "if":
            return tuple(head.args[1])
        if head.op == "while":
            return tuple(head.args[0])
        return ()


def verify(g: KernelGraph) -> KernelGraph:
    st = _State()
    for nid in g.order:
        if nid in st.seen:
            raise GraphError(f"node %{nid} appears twice in program order")
        if nid not in g:
            raise GraphError(f"program order names %{nid}, which is not in the graph")
        n = g.node(nid)
        if n.op not in REGISTRY:
            raise GraphError(f"%{nid}: unknown op {n.op!r}")
        if n.loc is None:
            raise GraphError(f"%{nid}: no source location")
        if n.op in _CLOSES:
            _close(st, n)
        elif st.last[-1] is not None and st.last[-1].op == "yield":
            raise GraphError(f"%{nid} follows the yield %{st.last[-1].id}, which must end its region")
        scope = st.scope()
        if n.regions != scope:
            raise GraphError(f"%{nid}: recorded loop scope {n.regions} but sits in {scope}")
        if n.op == "yield":
            _check_yield(st, n)
        _check_operands(g, n, st)
        st.last[-1] = n
        if n.op in _OPENS:
            st.regions.append(n)
            st.last.append(None)
            if n.op == "for":
                st.loop_vars[n.args[0].env_key] = n
        st.seen[nid] = n
    if st.regions:
        raise GraphError(f"region %{st.regions[-1].id} ({st.regions[-1].op}) is never closed")
    return g


def _close(st: _State, n: Node) -> None:
    want = _CLOSES[n.op]
    head = st.regions[-1] if st.regions else None
    if head is None or head.op != want or (head.id if want != "else" else head.args[0]) != n.args[0]:
        raise GraphError(f"%{n.id}: {n.op} does not close the innermost region")
    if head.op in _YIELDING and (st.last[-1] is None or st.last[-1].op != "yield"):
        raise GraphError(f"%{head.id}: the {head.op} region does not end with a yield")
    st.regions.pop()
    st.last.pop()
    if n.op == "end_if":
        if_node = st.seen[n.args[0]]
        for v in if_node.args[1]:
            st.local_scope[v.env_key] = if_node.regions
    elif n.op == "end_while":
        for v in head.args[0]:
            st.local_scope[v.env_key] = head.regions


def _check_yield(st: _State, n: Node) -> None:
    head = st.regions[-1] if st.regions else None
    if head is None or head.op not in _YIELDING:
        raise GraphError(f"%{n.id}: a yield outside a while body or a branch")
    targets = st.targets(head)
    if len(targets) != len(n.args):
        raise GraphError(f"%{n.id}: yields {len(n.args)} values for {len(targets)} Vars")
    for v, e in zip(targets, n.args):
        if (v.type == "float") != (e.type == "float"):
            raise GraphError(f"%{n.id}: yields a {e.type} to the {v.type} {v.name}")


def _define_locals(st: _State, n: Node, vs: Any, scope: tuple[int, ...] | None) -> None:
    for v in vs:
        if not isinstance(v, Var) or v.kind != "local":
            raise GraphError(f"%{n.id}: {n.op} defines {v!r}, which is not a local Var")
        if v.env_key in st.local_scope:
            raise GraphError(f"%{n.id}: {v.name} is defined twice")
        st.local_scope[v.env_key] = scope
        st.local_def[v.env_key] = n


def _check_operands(g: KernelGraph, n: Node, st: _State) -> None:
    for idx, producer in _producers(n.args):
        p = st.seen.get(producer)
        if p is None:
            raise GraphError(f"%{n.id} uses %{producer}, which is not defined before it")
        if not _encloses(p.regions, n.regions):
            raise _outside(st, p, p.regions, n)
    if n.op == "for":
        used = n.args[1:]
    elif n.op == "if":
        used = (n.args[0],)
        _define_locals(st, n, n.args[1], None)
    elif n.op == "while":
        _check_uses(st, n, n.args[1], n.regions)
        _define_locals(st, n, n.args[0], n.regions + (n.id,))
        used = (n.args[2],)
        _check_uses(st, n, used, n.regions + (n.id,))
        return
    else:
        used = n.args
    _check_uses(st, n, used, n.regions)


def _check_uses(st: _State, n: Node, used: Any, where: tuple[int, ...]) -> None:
    for a in used:
        _check_kinds(n, a, st.seen)
        for v in _vars(a):
            if v.kind == "loop" and (v.env_key not in st.loop_vars or st.loop_vars[v.env_key].id not in where):
                raise TraceError(f"the loop index {v.name} is used outside its loop", n.loc,
                                 hint="keep uses of a runtime loop's index inside the loop body")
            if v.kind == "local":
                if v.env_key not in st.local_scope:
                    raise GraphError(f"%{n.id} uses {v.name}, which no asc.cond or asc.while_loop defines before it")
                scope = st.local_scope[v.env_key]
                d = st.local_def[v.env_key]
                if scope is None:
                    raise GraphError(f"%{n.id} uses {v.name} inside the asc.cond that computes it")
                if not _encloses(scope, where):
                    raise _outside(st, d, scope, n)


def _outside(st: _State, p: Node, scope: tuple[int, ...], n: Node) -> TraceError:
    """The TraceError for a use at `n` of a value that only exists inside the regions `scope` (at `p`)."""
    common = 0
    while common < min(len(scope), len(n.regions)) and scope[common] == n.regions[common]:
        common += 1
    head = st.seen.get(scope[common]) if common < len(scope) else None
    if head is None or head.op == "for":
        return TraceError(f"this uses a value defined inside a runtime loop (at {p.loc.short}) after that loop "
                          "has ended", n.loc,
                          hint="use the value inside the loop, or unroll the loop with asc.static_range")
    if head.op == "while":
        return TraceError(f"this uses a value defined inside the body of an asc.while_loop (at {p.loc.short}) "
                          "outside it", n.loc,
                          hint="carry it: add it to init and return its next value from body_fn")
    return TraceError(f"this uses a value defined inside a branch of an asc.cond (at {p.loc.short}) outside "
                      "that branch", n.loc,
                      hint="return it from both branches (branches return scalars), or use it inside the branch")


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
        out |= vars_of(e)       # (the set kept on the expression: read here, not changed)
    return out
