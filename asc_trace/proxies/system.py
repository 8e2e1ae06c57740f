"""pyasc's cache and system calls (asc.language.basic cache / sys_var / common / block_sync): each records one
node of graph/ops/system.py. The model's memories are coherent, so the cache calls change no data; their
operands are still checked at the user's line."""
from __future__ import annotations

from typing import Any

from ..dtypes import uint64
from ..enums import CacheLine, DcciDst, MemDsbT, member
from ..errors import DTypeError, TraceError
from ..graph.params import ShapeInfo
from ..graph.source_loc import SourceLoc
from .api import count_expr
from .context import current
from .source_loc import user_loc
from .tensors import GlobalTensor, tensor_ref


def _enum(cls: type, value: Any, what: str, loc: SourceLoc) -> Any:
    try:
        return member(cls, value)
    except (ValueError, TypeError):
        raise TraceError(f"{what} is an asc.{cls.__name__}, got {value!r}", loc) from None


def _gm(t: Any, what: str, loc: SourceLoc) -> Any:
    if not isinstance(t, GlobalTensor):
        raise TraceError(f"{what} is a GlobalTensor, got {type(t).__name__}", loc,
                         hint="g = asc.GlobalTensor(); g.set_global_buffer(addr)")
    return tensor_ref(t, what)


def data_cache_clean_and_invalid(entire_type: Any, dst: Any = None, dcci_dst: Any = None) -> None:
    """`DataCacheCleanAndInvalid<T, entire_type[, dcci_dst]>(dst)`: write back and drop the data cache lines
    of `dst` (or the whole data cache).

    Raises:
        TraceError: `dst` is not a bound GlobalTensor, or an enum is not CacheLine / DcciDst.
    """
    ctx = current("asc.data_cache_clean_and_invalid")
    loc = user_loc()
    entire = _enum(CacheLine, entire_type, "entire_type", loc)
    target = None if dcci_dst is None else _enum(DcciDst, dcci_dst, "dcci_dst", loc)
    ctx.record("data_cache_clean_and_invalid", (_gm(dst, "dst", loc), entire, target), loc)


def data_cache_preload(src: Any, cache_offset: Any) -> None:
    """`DataCachePreload(src, cache_offset)`: prefetch the data cache line at `cache_offset` bytes from `src`.

    Raises:
        DTypeError: `src` is not a GlobalTensor of uint64 (the call's only form).
    """
    ctx = current("asc.data_cache_preload")
    loc = user_loc()
    ref = _gm(src, "src", loc)
    if ref.dtype is not uint64:
        raise DTypeError(f"data_cache_preload takes a GlobalTensor of uint64 (DataCachePreload's only form), got "
                         f"{ref.dtype}", loc, hint="g = asc.GlobalTensor(); g.set_global_buffer(addr) with a uint64 "
                         "array, or reinterpret the address")
    ctx.record("data_cache_preload", (ref, count_expr(cache_offset, loc, "cache offset")), loc)


def icache_preload(pre_fetch_len: Any) -> None:
    """`ICachePreLoad(pre_fetch_len)`: prefetch `pre_fetch_len` instruction cache lines."""
    ctx = current("asc.icache_preload")
    loc = user_loc()
    ctx.record("icache_preload", (count_expr(pre_fetch_len, loc, "prefetch length"),), loc)


def get_icache_preload_status() -> Any:
    """`GetICachePreloadStatus()`: 0 when the instruction cache is idle, 1 while a preload runs. The model has no
    instruction cache, so it reads 0."""
    ctx = current("asc.get_icache_preload_status")
    nid = ctx.record("get_icache_preload_status", (), user_loc())
    return ctx.node_value(nid, "int")


def data_sync_barrier(arg0: Any) -> None:
    """`DataSyncBarrier<arg0>()`: the memory accesses before it complete before the instructions after it."""
    ctx = current("asc.data_sync_barrier")
    loc = user_loc()
    ctx.record("data_sync_barrier", (_enum(MemDsbT, arg0, "the barrier scope", loc),), loc)


def get_arch_version(core_version: Any) -> None:
    """`GetArchVersion(core_version)`: Ascend C writes the version into its argument; pyasc's form returns
    nothing, so the value is not visible to the kernel."""
    ctx = current("asc.get_arch_version")
    loc = user_loc()
    ctx.record("get_arch_version", (count_expr(core_version, loc, "core version"),), loc)


def trap() -> None:
    """`Trap()`: stop the kernel with an error (every backend reports it at this line)."""
    ctx = current("asc.trap")
    ctx.record("trap", (), user_loc())


def init_soc_state() -> None:
    """`InitSocState()`: reset the core's control registers to their launch state (a no-op on the model,
    whose registers start in that state)."""
    ctx = current("asc.init_soc_state")
    ctx.record("init_soc_state", (), user_loc())


def get_shape_size(shape_info: Any) -> int:
    """`GetShapeSize(shape_info)`: the product of the ShapeInfo's dimensions (1 for none), known while
    tracing."""
    if not isinstance(shape_info, ShapeInfo):
        raise TraceError(f"get_shape_size takes an asc.ShapeInfo, got {type(shape_info).__name__}", user_loc())
    size = 1
    for d in shape_info.shape:
        size *= int(d)
    return size
