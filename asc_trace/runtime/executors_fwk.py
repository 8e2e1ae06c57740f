"""Executors of the TPipe's event-id pool (graph/ops/event_pool.py: the ids were handed out while tracing
and checked there, so at run time a reservation changes nothing the model keeps) and of TBufPool
(graph/ops/buf_pool.py: each pool is a block [start, end) of the TPipe's UB bytes with a cursor)."""
from __future__ import annotations

from .. import config
from ..errors import QueueError, UBOverflowError
from ..graph.node import Node
from ..graph.ops import OpDef
from .executor_base import Step, binder
from .machine import Machine


@binder("event_pool")
def _bind_event_pool(node: Node, op: OpDef) -> Step:
    return lambda m: None


# -- TBufPool (graph/ops/buf_pool.py) -------------------------------------------------------------------------

@binder("tbufpool")
def _bind_tbufpool(node: Node, op: OpDef) -> Step:
    def run(m: Machine) -> None:
        m.pools[node.id] = None
    return run


@binder("init_buf_pool")
def _bind_init_buf_pool(node: Node, op: OpDef) -> Step:
    parent, pool, length, share = node.args
    nbytes = -(-length.value // config.UB_ALIGN) * config.UB_ALIGN     # rounded up to 32 B, as InitBufPool does

    def run(m: Machine) -> None:
        if parent.kind == "pipe" and m.pipe_node is None:
            raise QueueError("init_buf_pool before any TPipe was created", node=node, hint="pipe = asc.TPipe() first")
        if share is not None:
            src = m.pools.get(share.root)
            if src is None:
                raise QueueError("init_buf_pool shares the memory of a pool that has none", node=node)
            m.pools[pool.root] = [src[0], src[1], src[0]]
            return
        if parent.kind == "pipe":
            start = m.pipe_next
            end = start + nbytes
            if end > config.UB_USABLE:
                raise UBOverflowError(f"init_buf_pool asks for {nbytes} bytes at UB byte {start}, ending at {end}; only "
                                      f"{config.UB_USABLE} bytes of the 192 KB Unified Buffer are usable", node=node,
                                      hint="use a smaller pool")
            m.pipe_next = end
        else:
            start, end = pool_take(m, parent.root, nbytes, node)
        m.pools[pool.root] = [start, end, start]
    return run


@binder("pool_reset")
def _bind_pool_reset(node: Node, op: OpDef) -> Step:
    (pool,) = node.args

    def run(m: Machine) -> None:
        m.pools[pool.root] = None       # Reset zeroes the pool's start and length (ResetPool)
    return run


def pool_take(m: Machine, pool: int, nbytes: int, node: Node) -> tuple[int, int]:
    """The next `nbytes` of TBufPool `pool`'s block: (start, end)."""
    p = m.pools.get(pool)
    if p is None:
        raise QueueError("init_buffer from a TBufPool that has no memory yet", node=node,
                         hint="give it memory first: pipe.init_buf_pool(pool, len_bytes)")
    start, end = p[2], p[2] + nbytes
    if end > p[1]:
        raise UBOverflowError(f"the TBufPool holds bytes [{p[0]}, {p[1]}) of the Unified Buffer; {nbytes} more from byte "
                              f"{start} would end at {end}", node=node, hint="give the pool more memory in init_buf_pool")
    p[2] = end
    return start, end
