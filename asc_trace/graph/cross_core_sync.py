"""auto_sync across the cores of a mixed kernel: the cross-core flags the dataflow through GM needs.

The cube core hands its results to the vector cores through GM (Atlas A2 has no L0C -> UB path,
ascend-cube-facts §6). For each GM argument the cube side writes (Fixpipe) and the vector side reads:
- "ready": `CrossCoreSetFlag<2, PIPE_FIX>(a)` after the cube's last write, `CrossCoreWaitFlag(a)` on each
  vector core before its first read (mode 2: one set raises both vector cores' counters);
- "free", when the writes and the reads share a loop (the workspace slot is written again next
  iteration): each vector core sets `CrossCoreSetFlag<2, PIPE_MTE2>(b)` after its last read, and the cube
  waits for it before writing again (mode 2: the cube's counter rises once both vector cores have set).
  The vector cores pre-set it once before the loop and the cube drains it after the loop, as the cube's
  own "buffer free" flags are primed and drained (graph/cube_sync.py): every set has its wait.
Writes and reads are taken at the level of their innermost common loop: the set follows the whole loop
or statement that holds the last write, the wait precedes the one that holds the first read.
A kernel with cross-core flags of its own is left as written (the simulator checks it)."""
from __future__ import annotations

from typing import Any

from ..enums import PipeID
from ..errors import NotProvidedError, SyncError
from .expr import Const
from .kernel_graph import KernelGraph
from .regions import REGION_CLOSE, REGION_OPEN
from .mix_split import sides
from .node import Node, Pipe, make_attrs
from .ops import read as op_read, written as op_written
from .ops.cross_core import CROSS_CORE_OPS, FLAG_IDS

_PIPE_ID = {Pipe.FIX: PipeID.PIPE_FIX, Pipe.MTE2: PipeID.PIPE_MTE2, Pipe.MTE3: PipeID.PIPE_MTE3,
            Pipe.V: PipeID.PIPE_V, Pipe.S: PipeID.PIPE_S, Pipe.M: PipeID.PIPE_M, Pipe.MTE1: PipeID.PIPE_MTE1}


def _gm_params(g: KernelGraph, n: Node, refs: list) -> set[int]:
    out = set()
    for r in refs:
        if r.space == "gm":
            root = g.node(r.root)
            if root.op == "global_tensor":
                out.add(root.args[0].index)
    return out


def _ends(g: KernelGraph) -> dict[int, int]:
    """Region head id -> the position of its end in program order."""
    stack, out = [], {}
    for pos, nid in enumerate(g.order):
        op = g.node(nid).op
        if op in REGION_OPEN:
            stack.append(nid)
        elif op in REGION_CLOSE:
            out[stack.pop()] = pos
    return out


def insert_cross_core_sync(g: KernelGraph) -> KernelGraph:
    """The mixed kernel with the cross-core flags its GM dataflow needs (see the module docstring)."""
    if any(n.op in CROSS_CORE_OPS for n in g):
        return g
    where = sides(g)
    pos = {nid: i for i, nid in enumerate(g.order)}
    writes: dict[int, list[Node]] = {}      # by the cube core
    reads: dict[int, list[Node]] = {}       # by the vector cores
    vec_writes: dict[int, Node] = {}
    cube_reads: dict[int, Node] = {}
    for n in g:
        s = where.get(n.id)
        for p in _gm_params(g, n, op_written(n)):
            if s == "aic":
                writes.setdefault(p, []).append(n)
            else:
                vec_writes.setdefault(p, n)
        for p in _gm_params(g, n, op_read(n)):
            if s == "aiv":
                reads.setdefault(p, []).append(n)
            else:
                cube_reads.setdefault(p, n)
    for p, n in vec_writes.items():
        if p in cube_reads:
            raise NotProvidedError("auto_sync of a mixed kernel whose vector cores write GM that the cube core reads "
                                   "(a vector -> cube hand-off) is not provided yet: write its cross-core flags",
                                   node=n, related=[("the cube's read", cube_reads[p].loc)])
    ends = _ends(g)
    out = g.copy()
    before: dict[int, list[Node]] = {}       # position -> nodes to insert before it
    after: dict[int, list[Node]] = {}        # position -> nodes to insert after it
    ids = iter(FLAG_IDS)
    loc_of = {}
    for p, ws in sorted(writes.items()):
        rs = [n for n in reads.get(p, ()) if where.get(n.id) == "aiv"]
        if not rs:
            continue
        common = _common([n.regions for n in ws + rs])
        d = len(common)
        wb = [_block(n, d, pos, ends) for n in ws]
        rb = [_block(n, d, pos, ends) for n in rs]
        last_w = max(wb, key=lambda b: b[1])
        first_r = min(rb, key=lambda b: b[0])
        if last_w[1] >= first_r[0]:
            raise NotProvidedError("auto_sync of a mixed kernel where the vector cores read a GM tensor before the "
                                   "cube core has written it, in program order, is not provided: write the "
                                   "cross-core flags", node=rs[0], related=[("the cube's write", ws[-1].loc)])
        try:
            ready = next(ids)
            free = next(ids) if d else None
        except StopIteration:
            raise SyncError("auto_sync needs more than 11 cross-core flag ids (0..10) for this kernel's GM "
                            "hand-offs", node=rs[0]) from None
        wpipe = ws[-1].pipe or Pipe.FIX
        mk = lambda op, fid, pipe, side, loops, at: out.new_node(  # noqa: E731
            op, (Const(fid), 2, _PIPE_ID[pipe]), at.loc, loops, pipe if op == "cross_core_set_flag" else Pipe.S,
            make_attrs(side=side, auto=True))
        after.setdefault(last_w[1], []).append(mk("cross_core_set_flag", ready, wpipe, "aic", common, ws[-1]))
        before.setdefault(first_r[0], []).append(mk("cross_core_wait_flag", ready, Pipe.S, "aiv", common, rs[0]))
        if free is not None:
            last_r = max(rb, key=lambda b: b[1])
            first_w = min(wb, key=lambda b: b[0])
            rpipe = rs[-1].pipe or Pipe.MTE2
            after.setdefault(last_r[1], []).append(mk("cross_core_set_flag", free, rpipe, "aiv", common, rs[-1]))
            before.setdefault(first_w[0], []).append(mk("cross_core_wait_flag", free, Pipe.S, "aic", common, ws[0]))
            loop = common[-1]
            outer = common[:-1]
            before.setdefault(pos[loop], []).append(mk("cross_core_set_flag", free, rpipe, "aiv", outer, rs[-1]))
            after.setdefault(ends[loop], []).append(mk("cross_core_wait_flag", free, Pipe.S, "aic", outer, ws[0]))
        loc_of[p] = ws[-1].loc
    if not loc_of:
        return g
    order = []
    for i, nid in enumerate(g.order):
        order += [n.id for n in before.get(i, ())]
        order.append(nid)
        order += [n.id for n in after.get(i, ())]
    out.set_order(order)
    return out


def _common(loops: list[tuple[int, ...]]) -> tuple[int, ...]:
    first = loops[0]
    k = 0
    while all(len(l) > k and l[k] == first[k] for l in loops):
        k += 1
    return first[:k]


def _block(n: Node, depth: int, pos: dict[int, int], ends: dict[int, int]) -> tuple[int, int, Any]:
    """(first position, last position, position of the node) of the statement at loop depth `depth` that
    holds `n`: the loop `n.regions[depth]` when `n` is deeper, else `n` itself."""
    if len(n.regions) > depth:
        head = n.regions[depth]
        return pos[head], ends[head], pos[n.id]
    return pos[n.id], pos[n.id], pos[n.id]
