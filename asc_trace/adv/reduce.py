"""`asc.adv.sum` / `asc.adv.mean`: Ascend C `Sum` and `Mean` (include/adv_api/reduce), the last axis of
`outter` rows, one value per row. pyasc has neither; the names are the snake_case of the vendor's."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..dtypes import DataType, float16, float32
from ..errors import DTypeError, TraceError
from ..graph.ops.adv_reduce import mean_tmp, sum_tmp
from ..proxies.api import vec_operand
from ..proxies.source_loc import user_loc
from ._record import record
from .dequant import _known
from .tiling import whole


@dataclass(frozen=True)
class SumParams:
    """Ascend C SumParams {outter, inner, n}: outter rows of n values, rows inner elements apart (inner = n
    rounded up to 32 bytes of T)."""
    outter: int
    inner: int
    n: int


MeanParams = SumParams      # the vendor's MeanParams has the same three fields


def _params(p: Any, t: DataType, what: str, src: Any, dst: Any, loc) -> tuple[int, int, int]:
    """The vendor's CheckSumParams / CheckMeanParams, where sizes are known when tracing."""
    if not isinstance(p, SumParams) or not all(isinstance(v, int) for v in (p.outter, p.inner, p.n)):
        raise TraceError(f"asc.adv.{what} takes an asc.adv.{'Sum' if what == 'sum' else 'Mean'}Params of ints, "
                         f"got {p!r}", loc)
    if p.outter <= 0 or p.inner <= 0 or p.inner * t.itemsize % 32:
        raise TraceError(f"asc.adv.{what}: inner {p.inner} must be a positive multiple of 32 bytes of {t} and "
                         f"outter {p.outter} positive (the vendor's check)", loc)
    if not 1 <= p.n <= p.inner:
        raise TraceError(f"asc.adv.{what}: n {p.n} must be in [1, inner = {p.inner}] (the vendor's check)", loc)
    src_n, dst_n = _known(src), _known(dst)
    if src_n is not None and src_n < p.outter * p.inner:
        raise TraceError(f"asc.adv.{what}: src holds {src_n} elements, fewer than outter x inner = "
                         f"{p.outter * p.inner} (the vendor's check)", loc)
    per = 32 // t.itemsize
    if dst_n is not None and dst_n < -(-p.outter // per) * per:
        raise TraceError(f"asc.adv.{what}: dst holds {dst_n} elements; the vendor asks outter rounded up to a "
                         f"32-byte block ({-(-p.outter // per) * per})", loc)
    return p.outter, p.inner, p.n


def sum(dst: Any, src: Any, params: SumParams, temp_buffer: Any = None) -> None:  # noqa: A001 - the vendor's name
    """dst[r] = the sum of src's row r (its first n), for each of outter rows (Ascend C `Sum<T>`), in T.

    Raises:
        DTypeError: not half / float, or dst and src of different types.
        TraceError: the vendor's parameter checks (inner 32-byte aligned, 1 <= n <= inner, sizes).
        UBOverflowError (at run time, before any write): temp_buffer below get_sum_max_min_tmp_size.
    """
    loc = user_loc()
    t = _same(dst, src, "sum", loc)
    record("adv_sum", {"dst": dst}, {"src": src}, temp_buffer, counted=False,
           params=_params(params, t, "sum", src, dst, loc))


def mean(dst: Any, src: Any, params: SumParams, temp_buffer: Any = None, acc_dtype: Any = None) -> None:
    """dst[r] = the mean of src's row r (Ascend C `Mean<T, accType>`): in T, or for a half src with
    `acc_dtype=asc.float32` summed in float.

    Raises:
        DTypeError: not half / float; acc_dtype neither T nor float with half.
        TraceError: the vendor's parameter checks.
        UBOverflowError (at run time, before any write): temp_buffer below get_mean_max_min_tmp_size.
    """
    loc = user_loc()
    t = _same(dst, src, "mean", loc)
    acc = None
    if acc_dtype is not None and acc_dtype is not t:
        if not (t is float16 and acc_dtype is float32):
            raise DTypeError(f"asc.adv.mean accumulates in T or, for half, in float; got {acc_dtype} with {t}", loc)
        acc = float32
    record("adv_mean", {"dst": dst}, {"src": src}, temp_buffer, counted=False,
           params=_params(params, t, "mean", src, dst, loc), acc=acc)


def _same(dst: Any, src: Any, what: str, loc) -> DataType:
    d, s = vec_operand(dst, "dst", f"adv.{what}", loc), vec_operand(src, "src", f"adv.{what}", loc)
    if d.dtype is not s.dtype:
        raise DTypeError(f"asc.adv.{what} takes dst and src of one type, got {d.dtype} and {s.dtype}", loc)
    return s.dtype


def get_sum_max_min_tmp_size(n: int, type_size: int, is_reuse_source: bool = False) -> tuple[int, int]:
    """GetSumMaxMinTmpSize -> (max, min) bytes (equal) for rows of n elements of type_size bytes."""
    if whole(type_size) not in (2, 4) or (whole(n) or 0) <= 0:
        raise TraceError(f"GetSumMaxMinTmpSize takes n > 0 and type size 2 or 4, got {n!r}, {type_size!r}",
                         user_loc())
    n, type_size = int(n), int(type_size)
    v = sum_tmp(n, type_size)
    return v, v


def get_mean_max_min_tmp_size(n: int, src_type_size: int, acc_type_size: int,
                              is_reuse_source: bool = False) -> tuple[int, int]:
    """GetMeanMaxMinTmpSize -> (max, min) bytes (equal)."""
    if (whole(src_type_size), whole(acc_type_size)) not in ((2, 2), (4, 4), (2, 4)) or (whole(n) or 0) <= 0:
        raise TraceError(f"GetMeanMaxMinTmpSize takes n > 0 and (src, acc) type sizes (2, 2), (4, 4) or (2, 4), got "
                         f"{n}, ({src_type_size}, {acc_type_size})", user_loc())
    v = mean_tmp(int(n), int(src_type_size), int(acc_type_size))
    return v, v


GetSumMaxMinTmpSize = get_sum_max_min_tmp_size
GetMeanMaxMinTmpSize = get_mean_max_min_tmp_size
__all__ = ["sum", "mean", "SumParams", "MeanParams", "get_sum_max_min_tmp_size", "get_mean_max_min_tmp_size",
           "GetSumMaxMinTmpSize", "GetMeanMaxMinTmpSize"]
