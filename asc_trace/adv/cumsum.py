"""`asc.adv.cumsum`: Ascend C `CumSum<T, config>(dst, lastRow, src[, sharedTmpBuffer], CumSumInfo)` with its
`CumSumInfo` and host helper. pyasc has no CumSum; the names are the snake_case of the vendor's, the arguments its
order, and the template's CumSumConfig fields are keywords (is_last_axis, output_last_row)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from ..errors import DTypeError, TraceError
from ..graph.ops.adv_cumsum import cumsum_tmp
from ..proxies.api import vec_operand
from ..proxies.source_loc import user_loc
from ._record import record
from .tiling import shape_ints


@dataclass(frozen=True)
class CumSumInfo:
    """Ascend C CumSumInfo {outter, inner}: the source is [outter, inner], inner x sizeof(T) a multiple of 32."""
    outter: int
    inner: int


def cumsum(dst: Any, last_row: Any, src: Any, info: CumSumInfo, temp_buffer: Any = None, *,
           is_last_axis: bool = True, output_last_row: bool = False) -> None:
    """Prefix sums of a [outter, inner] source along its last axis (`is_last_axis=True`) or its first, summed in
    float; with `output_last_row`, last_row receives dst's last row. The vendor's default config
    (defaultCumSumConfig) is {isLastAxis true, outputLastRow true}; here output_last_row is asked for explicitly.

    Raises:
        DTypeError: T not half / float.
        TraceError: info not a CumSumInfo of positive ints; inner x sizeof(T) not a multiple of 32 bytes (the
            vendor's requirement); src or dst smaller than outter x inner, last_row smaller than inner.
        UBOverflowError (at run time, before any write): temp_buffer below GetCumSumMaxMinTmpSize's minimum.
    """
    loc = user_loc()
    if not isinstance(info, CumSumInfo) or any(not isinstance(v, int) or isinstance(v, bool) or v <= 0
                                               for v in (info.outter, info.inner)):
        raise TraceError(f"asc.adv.cumsum needs info=asc.adv.CumSumInfo(outter, inner) of positive ints, not {info!r}",
                         loc)
    d = vec_operand(dst, "dst", "adv.cumsum", loc)
    if d.dtype.name not in ("float16", "float32"):
        raise DTypeError(f"asc.adv.cumsum does not support {d.dtype} (the vendor's CumSum takes half, float)", loc)
    if info.inner * d.dtype.itemsize % 32:
        raise TraceError(f"asc.adv.cumsum: inner = {info.inner} x {d.dtype.itemsize} bytes is not a multiple of 32 "
                         "(the vendor's CumSum needs 32-byte rows)", loc)
    n = info.outter * info.inner
    for name, t, need in (("dst", dst, n), ("src", src, n), ("last_row", last_row, info.inner if output_last_row
                                                                 else 0)):
        have = _known_size(t)
        if have is not None and have < need:
            raise TraceError(f"asc.adv.cumsum: {name} holds {have} elements; CumSumInfo({info.outter}, {info.inner}) "
                             f"needs {need}", loc)
    record("adv_cumsum", {"dst": dst, "last_row": last_row}, {"src": src}, temp_buffer, counted=False,
           info=(info.outter, info.inner), last_axis=bool(is_last_axis) or None,
           last_row=bool(output_last_row) or None)


def _known_size(t: Any) -> int | None:
    try:
        e = t.get_size()
    except (TraceError, AttributeError):
        return None
    e = getattr(e, "expr", e)
    v = getattr(e, "value", e)
    return v if isinstance(v, int) else None


def get_cumsum_max_min_tmp_size(src_shape: Sequence[int], type_size: int, is_last_axis: bool,
                                is_reuse_source: bool = False) -> tuple[int, int]:
    """GetCumSumMaxMinTmpSize -> (max, min) bytes for a [outter, inner] source.

    Raises:
        TraceError: a shape that is not two positive ints, inner not 32-byte rows, type_size not 2 or 4.
    """
    dims = shape_ints(src_shape)
    if dims is None or len(dims) != 2 or min(dims) <= 0:
        raise TraceError(f"get_cumsum_max_min_tmp_size: the source shape is [outter, inner], not {src_shape!r}", None)
    if type_size not in (2, 4):
        raise TraceError(f"get_cumsum_max_min_tmp_size: type_size is 2 (half) or 4 (float), not {type_size!r}", None)
    if dims[1] * type_size % 32:
        raise TraceError("get_cumsum_max_min_tmp_size: the inner dim must be 32-byte aligned", None)
    return cumsum_tmp(dims[0], dims[1], type_size, bool(is_last_axis))


GetCumSumMaxMinTmpSize = get_cumsum_max_min_tmp_size
__all__ = ["CumSumInfo", "cumsum", "get_cumsum_max_min_tmp_size", "GetCumSumMaxMinTmpSize"]
