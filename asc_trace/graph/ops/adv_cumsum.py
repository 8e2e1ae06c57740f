"""CumSum (include/adv_api/math/cumsum.h), the A2 steps of impl/adv_api/detail/math/cumsum/cumsum_common_impl.h
on a [outter, inner] source (inner x sizeof(T) a multiple of 32 bytes):

- last axis: TransDataTo5HD to [inner, outter padded to 16] (data movement), half Cast to float, then row by row
  Add in float (a sequential prefix sum, each step rounded to float), half Cast back (CAST_NONE), transposed back,
  and copied to dst by Adds(x, 0) in T (so -0.0 comes out as +0.0). Split into passes of whole 16-row groups by
  the temporary buffer's size (rows are independent: the split changes no value).
- first axis: half: Cast to float, row by row Add in float, Cast back (no Adds, -0.0 stays); float: row 0 by
  Adds(x, 0), then dst[r] = dst[r - 1] + src[r] in float.
- outputLastRow: lastRow = Adds(dst's last row, 0).

GetCumSumMaxMinTmpSize (impl/adv_api/tiling/math/cumsum_tiling_impl.cpp) for [outter, inner]: first axis half
max = min = outter x inner x 4, float 0; last axis min = (half: inner x 16 x 2) + 16 x inner x size x 2, max =
(half: inner x alignOutter x 2) + alignOutter x inner x size x 2 (alignOutter: outter rounded up to 16).
"""
from __future__ import annotations

import numpy as np

from ..expr import Const
from .adv_common import AdvSpec, Steps, adv_fields, adv_record, register_adv

FLOATS = frozenset({"float16", "float32"})
ROWS = 16                # NCHW_CONV_ADDR_LIST_SIZE: TransDataTo5HD moves 16 rows at once
TOL = {"float16": (0.0, 0.0), "float32": (0.0, 0.0)}     # exact against the float32 sequential sum


def cumsum_tmp(outter: int, inner: int, itemsize: int, last_axis: bool) -> tuple[int, int]:
    """GetCumSumMaxMinTmpSize -> (max, min) bytes."""
    if not last_axis:
        v = outter * inner * 4 if itemsize == 2 else 0
        return v, v
    align = -(-outter // ROWS) * ROWS
    lo = (inner * ROWS * 2 if itemsize == 2 else 0) + ROWS * inner * itemsize * 2
    hi = (inner * align * 2 if itemsize == 2 else 0) + align * inner * itemsize * 2
    return hi, lo


def _plus_zero(x: np.ndarray) -> np.ndarray:
    """Adds(x, 0): IEEE x + 0, which turns -0.0 into +0.0 and keeps every other value."""
    return (x + x.dtype.type(0)).astype(x.dtype)


def _cumsum(st: Steps, ins, sc, node) -> dict:
    o, i = node.attr("info")
    src = np.asarray(ins["src"])
    t = src.dtype
    x = src.reshape(src.shape[:-1] + (o, i)).astype(np.float32)   # half -> float is exact
    last = bool(node.attr("last_axis"))
    axis = -1 if last else -2
    acc = np.add.accumulate(x, axis=axis, dtype=np.float32)       # sequential: each Add rounded to float
    steps = (i if last else o) - 1
    for _ in range(max(steps, 0)):
        st._note_n("add", x, (-(-o // ROWS) * ROWS) if last else i)
    if t == np.float16:
        st._note_n("cast", x, o * i)
        st._note_n("cast", x, o * i)
    y = acc.astype(t)                                            # Cast CAST_NONE: nearest even
    if last:
        y = _plus_zero(y)
        st._note_n("adds", y, o * i)
    elif t != np.float16:
        y[..., 0, :] = _plus_zero(y[..., 0, :])
    out = {"dst": y.reshape(src.shape)}
    if node.attr("last_row"):
        st._note_n("adds", y, i)
        out["last_row"] = _plus_zero(y[..., -1, :])
    return out


def _tmp(node) -> tuple[int, int]:
    o, i = node.attr("info")
    return cumsum_tmp(o, i, node.attr("dtype").itemsize, bool(node.attr("last_axis")))


def _extent(node, name: str):
    o, i = node.attr("info")
    if name == "last_row":
        return Const(i if node.attr("last_row") else 0)
    return Const(o * i)


def _emit(ctx, node) -> str:
    f = adv_fields(ctx, node)
    cfg = f"asct_cumsum_cfg{node.id}"
    # a template argument: an object of static storage (C++17 allows a local one); {isLastAxis, isReuseSource,
    # outputLastRow}, the fields CANN 8.1 and asc-devkit share
    last, row = ("true" if node.attr(a) else "false" for a in ("last_axis", "last_row"))
    ctx.pre.append(f"static constexpr AscendC::CumSumConfig {cfg} = {{{last}, false, {row}}};")
    o, i = node.attr("info")
    tmp = f"{f['tmp']}, " if f["tmp"] else ""
    return (f"AscendC::CumSum<{f['T']}, {cfg}>({f['dst']}, {f['last_row']}, {f['src']}, {tmp}"
            f"AscendC::CumSumInfo{{{o}U, {i}U}});")


DECLARED = {
    "CumSum<>/5": ("include/adv_api/math/cumsum.h:61", "lib/math/cumsum.h:47"),
    "CumSum<>/4": ("include/adv_api/math/cumsum.h:84", "lib/math/cumsum.h:67"),
    "CumSumConfig": ("include/adv_api/math/cumsum_utils.h:29", "lib/math/cumsum_utils.h:20"),
    "CumSumInfo": ("include/adv_api/math/cumsum_utils.h:36", "lib/../impl/math/cumsum/cumsum_common_impl.h:25"),
}

register_adv(adv_record(
    "adv_cumsum", "CumSum",
    AdvSpec(("dst", "last_row"), ("src",), _cumsum, lambda nd, n: _tmp(nd)[1], lambda nd, n: _tmp(nd)[0],
            counted=False, extent=_extent, distinct=(("dst", "src"), ("last_row", "src")),
            tmp_helper="asc.adv.get_cumsum_max_min_tmp_size"),
    _emit, FLOATS, DECLARED, TOL, header="math/cumsum.h"))
__all__ = ["cumsum_tmp"]
