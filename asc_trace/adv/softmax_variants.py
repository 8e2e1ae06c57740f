"""SoftMax's variants (Ascend C `include/adv_api/activation/`): `SimpleSoftMax` (the softmax of rows whose
max and sum are given), under the snake_case of the vendor's name (pyasc has none of them) and in the argument
order of pyasc's `asc.adv.softmax` (tensors, tiling, then the temporary buffer)."""
from __future__ import annotations

from typing import Any

from ..dtypes import float32
from ..errors import AlignmentError, DTypeError, TraceError
from ..proxies.api import vec_operand
from ..proxies.source_loc import user_loc
from ._record import record
from .tiling import SoftmaxTiling, check_softmax_tiling, static_values


def _shape(name: str, values: tuple, shape: Any, src: Any, loc) -> tuple[int, int]:
    """(m, k): the tiling's srcM / srcK, else shape=(m, k), else src's [m, k] ShapeInfo."""
    if values[0] and values[1] and shape is not None and tuple(shape) != (values[0], values[1]):
        raise TraceError(f"shape={tuple(shape)} and the tiling's ({values[0]}, {values[1]}) disagree", loc)
    if shape is None and hasattr(src, "get_shape_info"):
        try:
            dims = tuple(src.get_shape_info().shape)
        except TraceError:
            dims = ()
        shape = dims if len(dims) == 2 else None
    m, k = (values[0], values[1]) if values[0] and values[1] else (shape or (0, 0))
    if not (isinstance(m, int) and isinstance(k, int) and m > 0 and k > 0):
        raise TraceError(f"asc.adv.{name} needs the shape [m, k]: a tiling with src_m / src_k, shape=(m, k), or an "
                         "[m, k] ShapeInfo on src", loc,
                         hint="asc.adv.softmax_tiling_func([m, k], type_size, tmp_bytes) fills one on the host")
    return m, k


def simple_softmax(dst: Any, in_sum: Any, in_max: Any, src: Any, tiling: SoftmaxTiling, temp_buffer: Any = None,
                   reuse_source: bool = False, basic_block: bool = False, data_format_nz: bool = False, *,
                   shape: tuple[int, int] | None = None) -> None:
    """Ascend C `SimpleSoftMax<T>(dst, inSum, inMax, src[, sharedTmpBuffer], tiling, shapeInfo)` (ND): dst =
    exp(src - in_max) / in_sum per row of [m, k], with the row statistics as SoftMax writes them (one 32-byte
    block a row; half src may take float statistics). The tiling is SoftMax's (softmax_tiling_func); all zero,
    the kernel fills it from the shape.

    Raises:
        TraceError: no shape, or shape and tiling disagree; a tiling that does not describe its shape;
            basic_block / data_format_nz (not modelled).
        AlignmentError: k x sizeof(T) not a multiple of 32 bytes (the vendor asserts it).
        DTypeError: src / dst not one type of half, float; in_sum / in_max not src's type (or float with half).
        OutOfBoundsError (at run time, before any write): dst and src of two GetSize()s (the vendor asserts).
        UBOverflowError (at run time, before any write): temp_buffer below what the call's split uses.
    """
    loc = user_loc()
    if not isinstance(tiling, SoftmaxTiling):
        raise TraceError(f"asc.adv.simple_softmax takes an asc.adv.SoftmaxTiling, got {type(tiling).__name__}", loc,
                         hint="asc.adv.softmax_tiling_func([m, k], type_size, tmp_bytes)")
    if basic_block or data_format_nz:
        raise TraceError("asc.adv.simple_softmax models the ND, non-basic-block SimpleSoftMax only", loc,
                         hint="call it with basic_block=False, data_format_nz=False")
    values = static_values(tiling, "the SoftmaxTiling")
    m, k = _shape("simple_softmax", values, shape, src, loc)
    s = vec_operand(src, "src", "adv.simple_softmax", loc)
    red = vec_operand(in_sum, "in_sum", "adv.simple_softmax", loc).dtype
    if vec_operand(in_max, "in_max", "adv.simple_softmax", loc).dtype is not red:
        raise DTypeError("in_sum and in_max of asc.adv.simple_softmax must have one type", loc)
    if vec_operand(dst, "dst", "adv.simple_softmax", loc).dtype is not s.dtype:
        raise DTypeError("dst and src of asc.adv.simple_softmax must have one type", loc)
    if red is not s.dtype and not (red is float32 and s.dtype.name == "float16"):
        raise DTypeError(f"in_sum / in_max of asc.adv.simple_softmax are {red}: they take src's type, or float with "
                         "half src", loc)
    if k * s.dtype.itemsize % 32:
        raise AlignmentError(f"asc.adv.simple_softmax's last axis is {k} x {s.dtype.itemsize} bytes, not a multiple "
                             "of 32 (the vendor asserts srcK is 32-byte aligned)", loc, hint="pad the rows to 32 bytes")
    if values[0] and values[1]:
        check_softmax_tiling(tiling, s.dtype.itemsize)
    record("adv_simple_softmax", {"dst": dst}, dict(sum=in_sum, max=in_max, src=src), temp_buffer,
           counted=False, dtype_of="src", shape=(m, k), tiling=values, reduce_dtype=red, sum_dtype=red,
           max_dtype=red)


__all__ = ["simple_softmax"]


def softmax_flash_v2(dst: Any, exp_sum: Any, max: Any, src: Any, exp_max: Any, in_exp_sum: Any,  # noqa: A002
                     in_max: Any, tiling: SoftmaxTiling, temp_buffer: Any = None, is_update: bool = False,
                     reuse_source: bool = False, basic_block: bool = False, data_format_nz: bool = False, *,
                     shape: tuple[int, int] | None = None) -> None:
    """Ascend C `SoftmaxFlashV2<T, isUpdate>(dst, expSum, max, src, expMax, inExpSum, inMax[, sharedTmpBuffer],
    tiling, shapeInfo)` (ND): FlashAttention-2's step over rows of [m, k]. Without update: max = rowmax(x),
    dst = exp(x - max), exp_sum = rowsum(dst). With is_update: max = max(in_max, rowmax(x)), dst = exp(x - max),
    exp_max = exp(in_max - max), exp_sum = exp_max * in_exp_sum + rowsum(dst). Statistics are one 32-byte block a
    row of their type (src's, or float with half src); exp_max has src's type. The tiling is
    softmax_flash_v2_tiling_func's; all zero, the kernel fills it from the shape.

    Raises:
        TraceError: no shape, or shape and tiling disagree; a tiling that does not describe its shape;
            basic_block / data_format_nz (not modelled).
        AlignmentError: k x sizeof(T) not a multiple of 32 bytes (the vendor asserts it).
        DTypeError: dst / src / exp_max not one type of half, float; the statistics not one type, src's (or float
            with half src).
        OutOfBoundsError (at run time, before any write): dst and src of two GetSize()s (the vendor asserts).
        UBOverflowError (at run time, before any write): temp_buffer below what the call's split uses.
    """
    loc = user_loc()
    if not isinstance(tiling, SoftmaxTiling):
        raise TraceError(f"asc.adv.softmax_flash_v2 takes an asc.adv.SoftmaxTiling, got {type(tiling).__name__}",
                         loc, hint="asc.adv.softmax_flash_v2_tiling_func([m, k], size1, size2, tmp_bytes)")
    if basic_block or data_format_nz:
        raise TraceError("asc.adv.softmax_flash_v2 models the ND, non-basic-block SoftmaxFlashV2 only", loc,
                         hint="call it with basic_block=False, data_format_nz=False")
    if not isinstance(is_update, bool):
        raise TraceError(f"is_update of asc.adv.softmax_flash_v2 is a template argument: True or False, got "
                         f"{is_update!r}", loc)
    values = static_values(tiling, "the SoftmaxTiling")
    m, k = _shape("softmax_flash_v2", values, shape, src, loc)
    refs = {n: vec_operand(t, n, "adv.softmax_flash_v2", loc) for n, t in
            dict(dst=dst, exp_sum=exp_sum, max=max, src=src, exp_max=exp_max, in_exp_sum=in_exp_sum,
                 in_max=in_max).items()}
    s = refs["src"].dtype
    if refs["dst"].dtype is not s or refs["exp_max"].dtype is not s:
        raise DTypeError(f"dst, src and exp_max of asc.adv.softmax_flash_v2 must have one type (dst is "
                         f"{refs['dst'].dtype}, src {s}, exp_max {refs['exp_max'].dtype})", loc)
    red = refs["exp_sum"].dtype
    stats = [n for n in refs if n not in ("dst", "src", "exp_max")]      # exp_sum, max, in_exp_sum, in_max
    if any(refs[n].dtype is not red for n in stats):
        raise DTypeError("exp_sum, max, in_exp_sum and in_max of asc.adv.softmax_flash_v2 must have one type (" +
                         ", ".join(f"{n} is {refs[n].dtype}" for n in stats) + ")", loc)
    if red is not s and not (red is float32 and s.name == "float16"):
        raise DTypeError(f"the statistics of asc.adv.softmax_flash_v2 are {red}: they take src's type, or float "
                         "with half src", loc)
    if k * s.itemsize % 32:
        raise AlignmentError(f"asc.adv.softmax_flash_v2's last axis is {k} x {s.itemsize} bytes, not a multiple of "
                             "32 (the vendor asserts srcK is 32-byte aligned)", loc, hint="pad the rows to 32 bytes")
    if values[0] and values[1]:
        check_softmax_tiling(tiling, red.itemsize, "softmax_flash_v2_tiling_func([m, k], size1, size2, tmp_bytes)")
    record("adv_softmax_flash_v2", dict(dst=dst, sum=exp_sum, max=max, exp_max=exp_max),
           dict(src=src, in_sum=in_exp_sum, in_max=in_max), temp_buffer, counted=False, dtype_of="src",
           shape=(m, k), tiling=values, reduce_dtype=red, in_sum_dtype=red, in_max_dtype=red, update=is_update)


__all__ += ["softmax_flash_v2"]
