"""A raw LocalTensor over bytes a TQue or TBuf owns: refused when the trace already knows both ranges.

The scheduler and the race checker keep each queue's and TBuf's buffers in their own address spaces
(graph/analysis.py), so an access through a raw `LocalTensor(pos, addr, len)` that overlaps them would
not be ordered against the queue's accesses: the flags it needs would be missing. Until raw tensors
are identified by address range against the TPipe's buffers (issue 18), a raw tensor whose bytes
overlap those the TPipe hands out is refused while compiling, on every backend. TPipe.init_buffer
hands out the UB from byte 0 upward in program order, each buffer rounded up to 32 bytes (as the
simulator and the vendor's TPipe do). Only constant addresses, lengths and buffer sizes are compared:
with a runtime size the allocation is not known while compiling and is not checked.
"""
from __future__ import annotations

from .. import config
from ..errors import QueueError
from .expr import Const
from .kernel_graph import KernelGraph
from .node import Node


def _const(e: object) -> int | None:
    return e.value if isinstance(e, Const) and isinstance(e.value, int) else None


def refuse_raw_over_pipe_buffers(g: KernelGraph) -> None:
    owned: list[tuple[int, int, Node]] = []
    raw: list[tuple[int, int, Node]] = []
    nxt: int | None = 0
    for n in g:
        if n.op == "init_buffer" and n.attr("pool") is not None:
            continue            # inside a TBufPool's block, which the pool's own init_buf_pool owns
        if n.op == "init_buf_pool" and nxt is not None:
            if n.args[0].kind == "pipe" and n.args[3] is None:      # a block carved from the TPipe
                size = -(-n.args[2].value // config.UB_ALIGN) * config.UB_ALIGN
                owned.append((nxt, nxt + size, n))
                nxt += size
            continue
        if n.op == "init_buffer" and nxt is not None:
            k, nbytes = _const(n.args[1]), _const(n.args[2])
            if k is None or nbytes is None or k < 1 or nbytes < 1:
                nxt = None      # a runtime size: what follows is not known while compiling
                continue
            size = k * (-(-nbytes // config.UB_ALIGN) * config.UB_ALIGN)
            owned.append((nxt, nxt + size, n))
            nxt += size
        # a LocalTensorAuto has no address yet; graph/auto_place.py refuses one next to a TPipe
        elif n.op == "local_tensor" and not n.attr("multi_buffer_of") and not n.attr("auto") \
                and not _cube_memory(n.args[0]):      # L1 / L0 / the bias table are not the UB
            addr, length = _const(n.args[1]), _const(n.args[2])
            if addr is not None and length is not None and length > 0:
                raw.append((addr, addr + length * n.attr("dtype").itemsize, n))
    for lo, hi, r in raw:
        for olo, ohi, o in owned:
            if lo < ohi and olo < hi:
                kind = "TBufPool" if o.op == "init_buf_pool" else "TBuf" if o.args[0].kind == "tbuf" else "TQue"
                raise QueueError(f"this LocalTensor covers UB bytes {lo}..{hi}, which overlap bytes {olo}..{ohi} "
                                 f"that pipe.init_buffer gives a {kind}: the scheduler keeps the {kind}'s buffers "
                                 "apart from raw tensors, so accesses through the two would not be ordered",
                                 node=r, related=[("the init_buffer", o.loc)],
                                 hint=f"place the raw LocalTensor at byte {ohi} or above (after the TPipe's "
                                      f"buffers), or take the memory from the {kind} itself "
                                      "(alloc_tensor / tbuf.get)")


def _cube_memory(pos: object) -> bool:
    from ..cube_enums import CUBE_MEMORY
    return pos in CUBE_MEMORY
