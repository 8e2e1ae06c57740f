"""Where each TBufPool buffer lies, for the scheduler: a buffer of a pool whose memory is handed out more than
once (a pool initialised with `share_buf`) is placed in its top pool's block,
so the analysis and the proof see two such buffers over the same bytes as one memory (an "arena" space) and
derive the order the reuse needs (the old VECOUT buffer's MTE3 read before the new VECIN buffer's MTE2
write, say). Pools lay out as Ascend C's InitBufPool / InitBuffer / Reset do (graph/ops/buf_pool.py); their
sizes are constants (proxies/buf_pool.py). Buffers of pools without reuse keep their own spaces.
"""
from __future__ import annotations

from weakref import WeakKeyDictionary

from .. import config
from .kernel_graph import KernelGraph

_CACHE: "WeakKeyDictionary[KernelGraph, dict[tuple, tuple[int, int]]]" = WeakKeyDictionary()


def _round(n: int) -> int:
    return -(-n // config.UB_ALIGN) * config.UB_ALIGN


def pool_layout(g: KernelGraph) -> dict[tuple, tuple[int, int]]:
    """(que, queue, slot) / (tbuf, TBuf) -> (top pool, byte offset in its block), for the buffers of
    pools whose bytes are handed out more than once."""
    hit = _CACHE.get(g)
    if hit is not None:
        return hit
    start: dict[int, tuple[int, int]] = {}     # pool -> (top pool, offset of its block)
    cursor: dict[int, int] = {}
    placed: list[tuple[tuple, int, int, int]] = []   # (key, top, first byte, end)
    for n in g:
        if n.op == "init_buf_pool":
            parent, pool, length, share = n.args
            if share is not None and share.root in start:
                start[pool.root] = start[share.root]
            elif parent.kind == "pipe":
                start[pool.root] = (pool.root, 0)
            elif parent.root in start:
                top, _ = start[parent.root]
                start[pool.root] = (top, cursor[parent.root])
                cursor[parent.root] += _round(length.value)
            else:
                continue
            cursor[pool.root] = start[pool.root][1]
        elif n.op == "pool_reset":
            start.pop(n.args[0].root, None)     # Reset leaves the pool no memory (ResetPool)
        elif n.op == "init_buffer" and n.attr("pool") in start:
            pool = n.attr("pool")
            obj, num, length = n.args
            top, _ = start[pool]
            size = _round(length.value)
            base = cursor[pool]
            if obj.kind != "que":           # a TBuf: its access root is (kind, TBuf)
                placed.append(((obj.kind, obj.root), top, base, base + size))
            else:
                for i in range(num.value):
                    placed.append((("que", obj.root, i), top, base + i * size, base + (i + 1) * size))
            cursor[pool] = base + num.value * size
    reused = {a[1] for i, a in enumerate(placed) for b in placed[i + 1:]
              if a[1] == b[1] and a[0][:2] != b[0][:2] and a[2] < b[3] and b[2] < a[3]}
    out = {key: (top, lo) for key, top, lo, _ in placed if top in reused}
    _CACHE[g] = out
    return out


def arena_root(layout: dict[tuple, tuple[int, int]], root: tuple) -> tuple:
    """An access root (analysis.py) of a pooled buffer in a reused block as ("arena", top, offset)."""
    if root and root[0] != "ub" and root[0] != "gm":    # a queue's or a TBuf's buffer
        hit = layout.get(root if root[0] == "que" else root[:2])
        if hit is not None:
            return ("arena", hit[0], hit[1])
    return root


def arena_queues(g: KernelGraph) -> frozenset[int]:
    """The queues with a buffer in a reused block: their buffers are not interchangeable (sync_proof_symmetry)."""
    return frozenset(k[1] for k in pool_layout(g) if k[0] == "que")
