"""auto_place: UB addresses for pyasc's compiler-managed tensors (`asc.LocalTensorAuto`).

A LocalTensorAuto is recorded as a static `local_tensor` whose address is left to this pass (attr
`auto`). Each one is live from its creation to its last use in program order; a use inside a loop that
the tensor was created outside of keeps it live to the end of that loop (every iteration reads it).
Tensors whose live ranges do not meet may share bytes, like registers; the first 32-byte-aligned gap
that no live tensor (and no fixed static LocalTensor) occupies is taken. The scheduler, which runs
next, derives the synchronisation the reuse needs from the byte ranges (pyasc's `insert_sync`).

A kernel whose live tensors need more than the Unified Buffer gets a UBOverflowError naming the
tensors live at that point.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..config import UB_USABLE
from ..errors import TraceError, UBOverflowError
from .expr import Const
from .kernel_graph import KernelGraph
from .node import Node, TensorRef

ALIGN = 32


def _roots(a: Any) -> set[int]:
    if isinstance(a, TensorRef):
        return {a.root}
    if isinstance(a, (tuple, list)):
        out: set[int] = set()
        for x in a:
            out |= _roots(x)
        return out
    return set()


def _live_ranges(g: KernelGraph, autos: list[Node]) -> dict[int, tuple[int, int]]:
    nodes = list(g)
    pos = {n.id: i for i, n in enumerate(nodes)}
    scope_start: dict[int, int] = {}
    scope_end: dict[int, int] = {}
    for i, n in enumerate(nodes):
        for s in n.regions:
            scope_start.setdefault(s, i)
            scope_end[s] = i
    wanted = {a.id for a in autos}
    first: dict[int, int] = {a.id: pos[a.id] for a in autos}
    last: dict[int, int] = dict(first)
    for i, n in enumerate(nodes):
        for r in _roots(n.args) & wanted:
            end = i
            outer = g.node(r).regions
            for s in n.regions:        # a loop the tensor was made outside of: live for all of it
                if s not in outer:
                    end = max(end, scope_end[s])
                    break
            if i < pos[r] and outer:
                # used before it is made: the value of the previous iteration, live around the whole loop
                s = outer[-1]
                first[r] = min(first[r], scope_start[s])
                end = max(end, scope_end[s])
            last[r] = max(last[r], end)
    return {a.id: (first[a.id], last[a.id]) for a in autos}


def _nbytes(n: Node) -> int:
    return -(-n.args[2].value * n.attr("dtype").itemsize // ALIGN) * ALIGN


def auto_place(g: KernelGraph) -> KernelGraph:
    autos = [n for n in g if n.op == "local_tensor" and n.attr("auto")]
    if not autos:
        return g
    # a TPipe that places no buffer (pyasc's insert_sync matmul kernels make one only to register the Matmul)
    # leaves the UB to the auto tensors: only init_buffer puts tensors in it (a TBufPool's too go through it)
    pipe = next((n for n in g if n.op == "init_buffer"), None)
    if pipe is not None:
        raise TraceError("asc.LocalTensorAuto places tensors itself and cannot share the UB with a TPipe", autos[0].loc,
                         related=[("the TPipe's buffer", pipe.loc)],
                         hint="use TQue / TBuf tensors or LocalTensorAuto in a kernel, not both")
    fixed: list[tuple[int, int]] = []
    for n in g:
        if n.op == "local_tensor" and not n.attr("auto"):
            addr, size = n.args[1], n.args[2]
            if not (isinstance(addr, Const) and isinstance(size, Const)):
                raise TraceError("a static LocalTensor next to LocalTensorAuto needs an address and length known "
                                 "while tracing", n.loc, hint="use asc.ConstExpr values, or LocalTensorAuto for it too")
            fixed.append((addr.value, addr.value + size.value * n.attr("dtype").itemsize))
    ranges = _live_ranges(g, autos)
    placed: list[tuple[int, int, int, int, Node]] = []    # (start, end) live, [lo, hi) bytes, node
    out = g.copy()
    for n in sorted(autos, key=lambda a: ranges[a.id][0]):
        s, e = ranges[n.id]
        live = [(lo, hi) for (ps, pe, lo, hi, _) in placed if ps <= e and s <= pe] + fixed
        size = _nbytes(n)
        addr = 0
        for lo, hi in sorted(live):
            if addr + size <= lo:
                break
            addr = max(addr, -(-hi // ALIGN) * ALIGN)
        if addr + size > UB_USABLE:
            names = [p for p in placed if p[0] <= e and s <= p[1]]
            detail = "; ".join(f"{p[4].loc.short} ({p[3] - p[2]} bytes)" for p in names)
            raise UBOverflowError(f"the LocalTensorAuto tensors live here need {sum(p[3] - p[2] for p in names) + size}"
                                  f" bytes of the {UB_USABLE} usable bytes of the Unified Buffer; live with this one "
                                  f"({size} bytes): {detail or 'none'}", n.loc,
                                  related=[("live here", p[4].loc) for p in names],
                                  hint="make the tiles smaller, or end a tensor's use before the next is made")
        placed.append((s, e, addr, addr + size, n))
        out.replace(replace(n, args=(n.args[0], Const(addr), n.args[2])))
    return out
