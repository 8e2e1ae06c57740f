"""A raw LocalTensor over bytes a TQue / TBuf / TBufPool owns is an alias of them, for the one overlap rule.

The analysis and the proof (graph/analysis.py `_overlap`, used by graph/sync_proof.py) keep each queue
buffer, TBuf and reused pool block in its own address space, so that a queue's buffers can be told apart
without knowing where the TPipe puts them. A raw `LocalTensor(pos, addr, len)` lives in the plain ("ub",)
space at its own byte address; this module says which of those owned buffers its bytes may cover, so that
the scheduler orders it against every access of them it may overlap (issue 18).

TPipe.init_buffer hands out the UB from byte 0 upward in program order, each buffer rounded up to 32 bytes
(the simulator, runtime/executors.py, and the vendor's TPipe do the same); a TBufPool's block is taken the
same way and the pool's buffers lie inside it. Where that layout is not known while compiling (a buffer
with a runtime size, a buffer in the cube's memories, whose cursor the simulator shares) or a raw range
is not affine in known terms, the sound answer is used: the raw tensor may alias every owned buffer.

A raw access's space is ("ub", hits) with `hits` the frozenset of the owned spaces it may overlap
(("que", q, slot), ("tbuf", t), ("arena", top)); the bare ("ub",) means "may overlap any of them".
"""
from __future__ import annotations

from functools import lru_cache
from weakref import WeakKeyDictionary

from .. import config
from .expr import Const
from .kernel_graph import KernelGraph
from .linear import Lin, disjoint, linearize

# (owned space key, first byte, end) for every buffer the TPipe hands out; None: the layout is unknown
Layout = tuple[tuple[tuple, int, int], ...] | None

_CACHE: "WeakKeyDictionary[KernelGraph, tuple[Layout, frozenset[int]]]" = WeakKeyDictionary()
ANY_OWNED: tuple = ("ub",)      # a raw access that may alias every owned buffer
# spaces that are not UB bytes; any other space a raw access meets is a buffer the TPipe hands out (a space
# added later is then taken as one: a sound default)
NOT_UB = frozenset({"gm", "cmpmask", "flag"})


def _round(n: int) -> int:
    return -(-n // config.UB_ALIGN) * config.UB_ALIGN


def _int(e: object) -> int | None:
    return e.value if isinstance(e, Const) and isinstance(e.value, int) else None


def _cube(pos: object) -> bool:
    from ..cube_enums import CUBE_MEMORY
    return pos in CUBE_MEMORY


def owned_layout(g: KernelGraph) -> Layout:
    """Where the TPipe puts each queue buffer, TBuf and pool block of `g` (None: not known while compiling)."""
    return _analyse(g)[0]


def aliased_queues(g: KernelGraph) -> frozenset[int]:
    """The queues some raw LocalTensor of `g` may overlap: their buffers are not interchangeable
    (graph/sync_proof_symmetry.py renames a queue's buffers only when nothing tells them apart)."""
    return _analyse(g)[1]


def raw_space(layout: Layout, start: Lin, length: Lin) -> tuple:
    """The space of a raw UB access of bytes [start, start + length): ("ub", the owned spaces it may overlap)."""
    if layout is None:
        return ANY_OWNED
    return ("ub", _hits(layout, start, length))


@lru_cache(maxsize=65536)
def _hits(layout: tuple, start: Lin, length: Lin) -> frozenset:
    # `disjoint` assumes runtime atoms are non-negative (an address is): a raw range starting at
    # `base + 4096` is past buffers that end at 4096 whatever `base` is, and one at `base` may cover any
    return frozenset(key for key, lo, hi in layout
                     if not disjoint(start, length, Lin((), lo), Lin((), hi - lo)))


def may_alias(raw: tuple, owned: tuple) -> bool:
    """Whether a raw access in space `raw` (("ub", hits) or ("ub",)) may overlap an owned buffer's access in
    space `owned` (a queue buffer whose slot is not known, None, may be any of the queue's)."""
    if owned[0] in NOT_UB:
        return False
    if len(raw) == 1:
        return True
    hits = raw[1]
    if owned[0] == "que" and owned[2] is None:
        return any(h[0] == "que" and h[1] == owned[1] for h in hits)
    return owned in hits


def _analyse(g: KernelGraph) -> tuple[Layout, frozenset[int]]:
    hit = _CACHE.get(g)
    if hit is None:
        layout = _layout(g)
        hit = _CACHE[g] = (layout, _aliased(g, layout))
    return hit


def _layout(g: KernelGraph) -> Layout:
    out: list[tuple[tuple, int, int]] = []
    block: dict[int, tuple[int, int]] = {}      # pool -> its top pool's block in the UB
    nxt = 0
    for n in g:
        if n.op == "init_buf_pool":
            parent, pool, length, share = n.args
            if share is not None:
                if share.root not in block:
                    return None
                block[pool.root] = block[share.root]
            elif parent.kind == "pipe":
                size = _round(length.value)
                block[pool.root] = (nxt, nxt + size)
                out.append((("arena", pool.root), nxt, nxt + size))
                nxt += size
            elif parent.root in block:
                block[pool.root] = block[parent.root]
            else:
                return None
        elif n.op == "init_buffer":
            obj, num, nbytes = n.args
            pos = g.node(obj.root).args[0] if obj.root in g else None
            k, size = _int(num), _int(nbytes)
            if k is None or size is None or k < 1 or size < 1 or _cube(pos):
                return None     # a runtime size, or the cube's memories: what follows is not known
            size = _round(size)
            pool = n.attr("pool")
            if pool is not None:
                if pool not in block:
                    return None
                lo, hi = block[pool]        # somewhere in the pool's block (a sound over-approximation)
                keys = [("tbuf", obj.root)] if obj.kind != "que" else [("que", obj.root, i) for i in range(k)]
                out += [(key, lo, hi) for key in keys]
                continue
            if obj.kind == "que":
                out += [(("que", obj.root, i), nxt + i * size, nxt + (i + 1) * size) for i in range(k)]
            else:
                out.append((("tbuf", obj.root), nxt, nxt + k * size))
            nxt += k * size
    return tuple(out)


def _aliased(g: KernelGraph, layout: Layout) -> frozenset[int]:
    ques = {n.args[0].root for n in g if n.op == "init_buffer" and n.args[0].kind == "que"}
    out: set[int] = set()
    for n in g:
        if n.op != "local_tensor":
            continue
        addr, count = linearize(n.args[1]) if n.args[1] is not None else None, _int(n.args[2])
        if layout is None or addr is None or count is None:
            return frozenset(ques)
        space = raw_space(layout, addr, Lin((), count * n.attr("dtype").itemsize))
        out |= {q for q in ques if may_alias(space, ("que", q, None))}
    return frozenset(out)
