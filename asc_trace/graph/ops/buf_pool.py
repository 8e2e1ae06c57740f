"""TBufPool: a block of the TPipe's memory that queues and TBufs are initialised from, and that can be reset
and handed out again (asc-devkit impl/basic_api/kernel_tbufpool_impl.h, kernel_tpipe_impl.h InitBufPool).

`pipe.init_buf_pool(pool, len)` carves `len` bytes (rounded up to 32) from the TPipe's memory after what it
gave before; `parent.init_buf_pool(pool, len, share)` gives `pool` the memory of `share` instead (same start,
the parent's cursor does not move); `pool.init_buffer(que, num, len)` / `pool.init_buffer(tbuf, len)` carve
from the pool (an `init_buffer` node with the pool in its `pool` attribute); `pool.reset()` waits the free
events of its buffers and leaves the pool without memory, as Ascend C's Reset / ResetPool do.
None is an instruction of a compute pipe.
"""
from __future__ import annotations

from ...errors import ToolchainError
from .opdef import CppModel, OpDef, register


def _parent(ctx, obj) -> str:
    return ctx.pipe_var if obj.kind == "pipe" else f"asct_t{obj.root}"


def _init_buf_pool(ctx, n) -> str:
    _newer_only(ctx, n)
    parent, pool, length, share = n.args
    tail = "" if share is None else f", asct_t{share.root}"
    return f"{_parent(ctx, parent)}.InitBufPool(asct_t{pool.root}, {ctx.cast(length, 'uint32_t')}{tail});"


# asc-devkit's declarations; CANN 8.1.RC1's headers were not checked for TBufPool, so lowering for CANN 8.x
# refuses it rather than emit what may not be there
_DECL_POOL = {"TBufPool": ("include/basic_api/kernel_tpipe.h:263", "-")}
_DECL_INIT = {".InitBufPool/2": ("include/basic_api/kernel_tpipe.h:465", "-"),
              ".InitBufPool/3": ("include/basic_api/kernel_tpipe.h:467", "-")}
_DECL_RESET = {".Reset/0": ("include/basic_api/kernel_tpipe.h:278", "-")}


def _newer_only(ctx, n) -> None:
    if ctx.generation == 8:
        raise ToolchainError("TBufPool is lowered for CANN 8.5 and later (asc-devkit); asc_trace has not checked "
                             "CANN 8.x's headers for it", n.loc, hint="build with CANN 8.5 or later")


def _tbufpool(ctx, n) -> str:
    _newer_only(ctx, n)
    return f"AscendC::TBufPool<AscendC::TPosition::{n.args[0].name}, {n.args[1].value}> asct_t{n.id};"

register(
    OpDef("tbufpool", "buf_pool", None, "TBufPool", cpp_model=CppModel(header="TBufPool"), doc="asc.TBufPool", defines="pool",
          emit=_tbufpool, declared=_DECL_POOL),
    OpDef("init_buf_pool", "buf_pool", None, "InitBufPool", emit=_init_buf_pool, declared=_DECL_INIT,
          cpp_model=CppModel(header="TPipe::InitBufPool / TBufPool::InitBufPool"), doc="init_buf_pool"),
    OpDef("pool_reset", "buf_pool", None, "Reset", cpp_model=CppModel(header="TBufPool::Reset"), declared=_DECL_RESET,
          emit=lambda ctx, n: f"asct_t{n.args[0].root}.Reset();", doc="TBufPool.reset"),
)
