"""`asc.adv.dequant`: Ascend C `AscendDequant` (int32 -> half / float / bfloat16 with per-column scales), its
`DequantParams`, `DeQuantMode` and host helper. pyasc has no dequant; the names are the snake_case of the
vendor's, the arguments its order."""
from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any, Sequence

from ..dtypes import DataType, float16, float32, int32, uint64
from ..errors import DTypeError, OutOfBoundsError, TraceError
from ..graph.expr import Const
from ..graph.ops.adv_dequant import dequant_tmp, dst_extent, dst_inner, update_params
from ..proxies.api import vec_operand
from ..proxies.source_loc import user_loc
from ._record import record
from .tiling import shape_ints, whole


class DeQuantMode(enum.Enum):
    """Ascend C DeQuantMode: how a one-row DequantParams {1, m n, n} is read."""
    DEQUANT_WITH_SINGLE_ROW = 0     # {1, m n, n} = {m, n, n}: the n scales reused for each n elements
    DEQUANT_WITH_MULTI_ROW = 1      # {1, m n, n} is one row: only its first n elements are scaled


@dataclass(frozen=True)
class DequantParams:
    """Ascend C DequantParams {m, n, calCount}: m rows of n int32 (n a multiple of 8), the first calCount of
    each row scaled; dst rows are n rounded up to a 32-byte block of dst."""
    m: int
    n: int
    cal_count: int


# dst type -> the scale types the vendor's IsTemplateValid accepts on A2 (tensor form; scalar form: no uint64)
_COMBOS = {"float16": ("uint64",), "float32": ("float32", "bfloat16"), "bfloat16": ("bfloat16", "float32")}


def _known(x: Any) -> int | None:
    try:
        e = x.get_size()
    except TraceError:
        return None
    e = getattr(e, "expr", e)
    return e.value if isinstance(e, Const) else e if isinstance(e, int) else None


def dequant(dst: Any, src: Any, deq_scale: Any, params: Any = None, temp_buffer: Any = None, count: Any = None,
            mode: DeQuantMode = DeQuantMode.DEQUANT_WITH_SINGLE_ROW) -> None:
    """dst = src (int32) x deq_scale, per column (Ascend C `AscendDequant<dstT, scaleT[, mode]>`).

    Forms, as the vendor's overloads: `params=DequantParams(m, n, cal_count)`; `count=` (calCount: the scales
    are deq_scale's GetSize() columns); neither (all of src). `deq_scale` is a LocalTensor (uint64 with a half
    dst, float or bfloat16 with a float / bfloat16 dst) or, with params, a float scalar.

    Raises:
        DTypeError: src not int32; a (dst, scale) pair the vendor does not take on A2.
        TraceError: params not a DequantParams of ints; the vendor's parameter checks (n % 8, calCount in
            (0, n], m n within src, m rows of dst within dst, calCount within deq_scale, GetSize divisibility).
        UBOverflowError / OutOfBoundsError (at run time, before any write): temp_buffer below the minimum of
            get_ascend_dequant_max_min_tmp_size; an operand beyond its tensor.
    """
    loc = user_loc()
    d = vec_operand(dst, "dst", "adv.dequant", loc)
    s = vec_operand(src, "src", "adv.dequant", loc)
    if s.dtype is not int32:
        raise DTypeError(f"asc.adv.dequant reads an int32 src, got {s.dtype}", loc)
    if not isinstance(mode, DeQuantMode):
        raise TraceError(f"mode of asc.adv.dequant is an asc.adv.DeQuantMode, got {mode!r}", loc)
    tensor_scale = hasattr(deq_scale, "get_size")
    sdt: DataType = vec_operand(deq_scale, "deq_scale", "adv.dequant", loc).dtype if tensor_scale else float32
    if d.dtype.name in _COMBOS and sdt.name not in _COMBOS[d.dtype.name]:
        raise DTypeError(f"asc.adv.dequant: a {d.dtype} dst takes a deq_scale of "
                         f"{' or '.join(_COMBOS[d.dtype.name])} on A2 (the vendor's IsTemplateValid), got {sdt}", loc)
    if not tensor_scale and (params is None or d.dtype is float16):
        raise TraceError("asc.adv.dequant with a scalar deq_scale takes params=DequantParams(...) and a float or "
                         "bfloat16 dst (the vendor's scalar overloads)", loc)
    src_n, dst_n = _known(src), _known(dst)
    scale_n = _known(deq_scale) if tensor_scale else None
    if params is not None:
        if count is not None:
            raise TraceError("asc.adv.dequant takes params= or count=, not both (the vendor's overloads)", loc)
        if not isinstance(params, DequantParams) or not all(isinstance(v, int) for v in
                                                             (params.m, params.n, params.cal_count)):
            raise TraceError(f"params of asc.adv.dequant is an asc.adv.DequantParams of ints, got {params!r}", loc)
        m, n, cal = params.m, params.n, params.cal_count
        form, total = "params", m * n
    else:
        if src_n is None or scale_n is None:
            raise TraceError("asc.adv.dequant without params reads src.GetSize() and deq_scale.GetSize(): give "
                             "both tensors a size known when tracing, or pass params=DequantParams(...)", loc)
        if src_n % scale_n:
            raise TraceError(f"asc.adv.dequant without params: src.GetSize() {src_n} is not a multiple of "
                             f"deq_scale.GetSize() {scale_n} (the vendor's IsWithoutDequantParamsValid)", loc)
        if sdt is uint64 and scale_n % 8:
            raise TraceError(f"asc.adv.dequant with uint64 scales: deq_scale.GetSize() {scale_n} is not a multiple "
                             "of 8 (the vendor's check)", loc)
        m, n, cal = src_n // scale_n, scale_n, scale_n
        form = "count" if count is not None else "size"
        total = count if count is not None else src_n
    _check(m, n, cal, d.dtype, src_n, dst_n, scale_n, total, loc)
    um, un, ucal = update_params(m, n, cal, d.dtype.itemsize, mode is DeQuantMode.DEQUANT_WITH_SINGLE_ROW)
    known_total = total if isinstance(total, int) else None
    if known_total is None and dst_inner(un, d.dtype.itemsize) != un:
        raise TraceError(f"asc.adv.dequant with a count known only at run time needs dst rows without padding "
                         f"(n = {un} a multiple of {32 // d.dtype.itemsize} for {d.dtype})", loc)
    if known_total is not None and dst_n is not None:
        need = dst_extent(known_total, un, dst_inner(un, d.dtype.itemsize))
        if need > dst_n:
            raise OutOfBoundsError(f"asc.adv.dequant writes {need} elements of dst (rows of {un} at a pitch of "
                                   f"{dst_inner(un, d.dtype.itemsize)}); dst holds {dst_n}", loc)
    ins = {"src": src, "scale": deq_scale, "dst_in": dst} if tensor_scale else {"src": src, "dst_in": dst}
    record("adv_dequant" if tensor_scale else "adv_dequant_scalar", {"dst": dst}, ins, temp_buffer,
           None if tensor_scale else {"scale": deq_scale}, total, dtype_of="dst", params=(um, un, ucal),
           given=(m, n, cal), form=form, total=known_total, scale_dtype=sdt,
           multi_row=mode is DeQuantMode.DEQUANT_WITH_MULTI_ROW or None)


def _check(m: int, n: int, cal: int, ddt: DataType, src_n, dst_n, scale_n, total, loc) -> None:
    """The vendor's IsDequantParamsValid / IsCalCountValid, where the sizes are known when tracing."""
    def bad(msg: str) -> None:
        raise TraceError(f"asc.adv.dequant: {msg} (the vendor's AscendDequant check)", loc)
    if n <= 0 or m <= 0 or n % 8:
        bad(f"n = {n} must be a positive multiple of 8 (32 bytes of int32), m = {m} positive")
    if not 0 < cal <= n:
        bad(f"calCount {cal} must be in (0, n = {n}]")
    if src_n is not None and m * n > src_n:
        bad(f"m x n = {m * n} is more than src holds ({src_n})")
    if dst_n is not None and m * dst_inner(n, ddt.itemsize) > dst_n:
        bad(f"dst holds {dst_n} elements, fewer than m rows of {dst_inner(n, ddt.itemsize)}")
    if scale_n is not None and cal > scale_n:
        bad(f"calCount {cal} is more than deq_scale holds ({scale_n})")
    if isinstance(total, int) and src_n is not None and not 0 < total <= src_n:
        bad(f"calCount {total} must be in (0, src.GetSize() = {src_n}]")


def get_ascend_dequant_max_min_tmp_size(src_shape: Sequence[int], type_size: int) -> tuple[int, int]:
    """GetAscendDequantMaxMinTmpSize -> (max, min) bytes for a [m, n] (or [n]) int32 source (type_size 4)."""
    dims = shape_ints(src_shape)
    if whole(type_size) != 4 or dims is None or not 1 <= len(dims) <= 2 or any(v <= 0 for v in dims):
        raise TraceError(f"GetAscendDequantMaxMinTmpSize takes a 1- or 2-D shape of positive sizes and type size 4 "
                         f"(int32), got {src_shape!r}, {type_size!r}", user_loc())
    m, n = (1, dims[0]) if len(dims) == 1 else (dims[0], dims[1])
    return dequant_tmp(m, n)


GetAscendDequantMaxMinTmpSize = get_ascend_dequant_max_min_tmp_size
__all__ = ["dequant", "DequantParams", "DeQuantMode", "get_ascend_dequant_max_min_tmp_size",
           "GetAscendDequantMaxMinTmpSize"]


def dequant_scalar(dst: Any, src: Any, deq_scale: float, params: DequantParams, temp_buffer: Any = None,
                   mode: DeQuantMode = DeQuantMode.DEQUANT_WITH_SINGLE_ROW) -> None:
    """The scalar overload of AscendDequant (one float scale for every column); `dequant` with a Python or
    traced float scale is the same call."""
    if hasattr(deq_scale, "get_size"):
        raise TraceError("asc.adv.dequant_scalar takes a scalar deq_scale; pass a LocalTensor to asc.adv.dequant",
                         user_loc())
    dequant(dst, src, deq_scale, params, temp_buffer, None, mode)


__all__.append("dequant_scalar")
