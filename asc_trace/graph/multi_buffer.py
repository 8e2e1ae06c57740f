"""multi_buffer: give a UB buffer that every loop iteration refills its own copy per iteration parity,
so the copy-in of tile i+1 overlaps the compute of tile i (option `multi_buffer`: "auto" = 2 copies
where the Unified Buffer has room, a number of copies, or "off").

A static LocalTensor is multi-buffered over the innermost loop containing all its uses when
- it is used only inside that loop, at offsets that do not depend on the loop index (the user has not
  already rotated it by hand), by more than one pipe;
- each iteration writes what it reads before reading it (no value flows between iterations);
- its address and size, and those of every other static tensor, are known while tracing (constants or
  asc.ConstExpr), it overlaps no other tensor, and the copies fit in the UB.
The loop body then starts by placing the tensor at the copy of this iteration; insert_sync, which runs
next, finds that the buffer is reused only every k iterations and rotates event ids accordingly.
"""
from __future__ import annotations

from typing import Any

from .. import config
from .expr import Const, Expr, Var, binop, free_vars
from .kernel_graph import KernelGraph
from .node import Node, TensorRef, make_attrs
from .ops import read, written
from .ops.sync import FLAG_OPS


def _uses(g: KernelGraph, root: int) -> list[Node]:
    return [n for n in g if any(_refs(a, root) for a in n.args)]


def _refs(a: Any, root: int) -> bool:
    if isinstance(a, TensorRef):
        return a.root == root
    if isinstance(a, (tuple, list)):
        return any(_refs(x, root) for x in a)
    return False


def _retarget(a: Any, old: int, new: int) -> Any:
    if isinstance(a, TensorRef) and a.root == old:
        return TensorRef(new, a.space, a.dtype, a.offset)
    if isinstance(a, tuple):
        return tuple(_retarget(x, old, new) for x in a)
    return a


def _covered(uses: list[Node], root: int, body: tuple[int, ...]) -> bool:
    """Every read of the root is preceded, in program order, by a write of the same elements made in
    every iteration: by a node directly in the loop's `body` scope, not one in a branch or an inner
    loop that may not run (the iteration would then read what an earlier one left in the *other* copy)."""
    writes: set[tuple] = set()
    for n in uses:
        count = n.args[-1]
        for ref in read(n):
            if ref.root == root and (ref.offset, ref.dtype, count) not in writes:
                return False
        for ref in written(n):
            if ref.root == root and n.regions == body:
                writes.add((ref.offset, ref.dtype, count))
    return bool(writes)


def multi_buffer(g: KernelGraph, copies: Any = "auto") -> KernelGraph:
    if copies in (None, False, "off", 0, 1):
        return g
    k = 2 if copies in ("auto", True) else int(copies)
    raw = [n for n in g if n.op == "local_tensor"]
    if not raw or any(n.op == "tpipe" for n in g):
        return g
    candidates = [(r, c) for r in raw for c in _candidates(g, r)]
    if not candidates:
        return g
    extents: dict[int, tuple[int, int]] = {}
    for n in raw:
        addr, length = n.args[1], n.args[2]
        if not (isinstance(addr, Const) and isinstance(length, Const)):
            g = g.copy()
            r = candidates[0][0]
            g.notes.append(f"multi_buffer: %{r.id} ({r.loc.short}) stays single: the address or size of %{n.id} "
                           f"({n.loc.short}) depends on a runtime argument (an asc.ConstExpr would let the "
                           "scheduler double-buffer it)")
            return g
        size = length.value * n.attr("dtype").itemsize
        extents[n.id] = (addr.value, addr.value + size)
    top = -(-max(e for _, e in extents.values()) // config.UB_ALIGN) * config.UB_ALIGN
    out = g.copy()
    notes: list[str] = []
    placed: dict[int, int] = {}   # loop id -> tensors already placed at the top of its body
    alts: dict[int, int] = {}     # tensor -> where its other copies start (shared by its loops)
    for r, loop in candidates:
        lo, hi = extents[r.id]
        if any(o != r.id and lo < e and s0 < hi for o, (s0, e) in extents.items()):
            continue   # it aliases another tensor: its copies would not
        size = -(-(hi - lo) // config.UB_ALIGN) * config.UB_ALIGN
        if r.id not in alts:
            if top + (k - 1) * size > config.UB_USABLE:
                notes.append(f"multi_buffer: %{r.id} stays single: {k} copies do not fit in the UB")
                continue
            alts[r.id] = top
            top += (k - 1) * size
        alt = alts[r.id]
        _apply(out, r, loop, k, alt, size, placed.get(loop.id, 0))
        placed[loop.id] = placed.get(loop.id, 0) + 1
        notes.append(f"multi_buffer: %{r.id} ({r.loc.short}) x{k} over loop %{loop.id}, copies at {r.args[1].value}"
                     f" and {', '.join(str(alt + j * size) for j in range(k - 1))}")
    out.notes.extend(notes)
    return out


def _candidates(g: KernelGraph, r: Node) -> list[Node]:
    """The loops to multi-buffer `r` over: the innermost loop around all its uses, or, when the uses
    sit in several loops one after another (a row's max, sum and output passes over its tiles), each
    of those loops on its own, if every one of them qualifies."""
    uses = _uses(g, r.id)
    if not uses:
        return []
    whole = _candidate(g, r, uses)
    depth = len(_common(uses))
    groups: dict[int, list[Node]] = {}
    for n in uses:
        if len(n.regions) <= depth or g.node(n.regions[depth]).op != "for":
            groups.clear()
            break
        groups.setdefault(n.regions[depth], []).append(n)
    if len(groups) >= 2:
        loops = [_candidate(g, r, grp) for grp in groups.values()]
        if all(lp is not None for lp in loops):
            return loops
    return [whole] if whole is not None else []


def _common(uses: list[Node]) -> tuple[int, ...]:
    common = uses[0].regions
    for n in uses[1:]:
        i = 0
        while i < min(len(common), len(n.regions)) and common[i] == n.regions[i]:
            i += 1
        common = common[:i]
    return common


def _candidate(g: KernelGraph, r: Node, uses: list[Node]) -> Node | None:
    if not uses:
        return None
    common = _common(uses)
    while common and g.node(common[-1]).op != "for":
        common = common[:-1]       # a branch or while loop: the copies rotate with the `for` around it
    if len(common) <= len(r.regions):
        return None
    loop = g.node(common[-1])
    if any(n.op in FLAG_OPS and loop.id in n.regions for n in g):
        return None    # the kernel's own flags rely on the buffer being reused in every iteration
    var: Var = loop.args[0]
    pipes = {n.pipe for n in uses}
    if len(pipes) < 2:
        return None
    for n in uses:
        for a in n.args:
            if isinstance(a, TensorRef) and a.root == r.id and var in free_vars(a.offset):
                return None
    if not _covered(uses, r.id, loop.regions + (loop.id,)):
        return None
    return loop


def _apply(g: KernelGraph, r: Node, loop: Node, k: int, alt: int, size: int, already: int) -> None:
    var, start, _stop, step = loop.args
    it: Expr = binop("-", var, start)
    if not (isinstance(step, Const) and step.value == 1):
        it = binop("//", it, step)
    sel = binop("%", it, Const(k))
    base = r.args[1]
    if k == 2:
        addr = binop("+", base, binop("*", sel, binop("-", Const(alt), base)))
    else:
        first = binop("*", binop("min", sel, Const(1)), binop("-", Const(alt), base))
        rest = binop("*", binop("max", binop("-", sel, Const(1)), Const(0)), Const(size))
        addr = binop("+", base, binop("+", first, rest))
    scope = loop.regions + (loop.id,)
    new = g.new_node("local_tensor", (r.args[0], addr, r.args[2]), r.loc, scope, None,
                     make_attrs(dtype=r.attr("dtype"), why=f"multi-buffer of %{r.id}, {k} copies"))
    order = list(g.order)
    order.insert(order.index(loop.id) + 1 + already, new.id)
    g.set_order(order)
    for n in list(g):
        if n.id != new.id and loop.id in n.regions and any(_refs(a, r.id) for a in n.args):
            g.replace(Node(n.id, n.op, tuple(_retarget(a, r.id, new.id) for a in n.args), n.loc, n.regions, n.pipe,
                           n.attrs))
