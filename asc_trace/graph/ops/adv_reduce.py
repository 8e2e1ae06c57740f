"""Sum and Mean of the high-level API (Ascend C `include/adv_api/reduce/sum.h`, `mean.h`), the vendor's A2
steps (`impl/adv_api/detail/reduce/sum/sum_common_impl.h`, `mean/mean_common_impl.h`):

- Sum<T>: per row of `outter` (rows `inner` apart, the first n of each read), RepeatReduceSum levels in T
  (each 256-byte repeat to one value, until one is left) into dst[row]: dst holds one value per row.
- Mean<T, T>: the same sums, then one Muls of all rows by T(1.0f / n).
- Mean<half, float>: per row: Cast to float, the sums in float, * (1.0f / n) in float, Cast to half
  (CAST_NONE), and a one-element RepeatReduceSum<half> into dst[row].

Temporary buffer (GetSumMaxMinTmpSize, GetMeanMaxMinTmpSize in impl/adv_api/tiling/reduce): Sum the first
level's partial sums rounded up to a block of T; Mean `ceil(repeats / 32) x 32` bytes (+ inner floats for
half with a float accumulator). The Mean size is in bytes where the partials are T: for more than 16 half
(8 float) partial sums it is smaller than what the call writes - the vendor's sizing, kept as it is
(docs/adv.md).
"""
from __future__ import annotations

import numpy as np

from ...dtypes import float16, float32
from ..expr import Const
from .adv_common import ONE_REPEAT, AdvSpec, Steps, adv_fields, adv_record, register_adv
from .opdef import CppModel

BLOCK = 32
FLOATS = frozenset({"float16", "float32"})


def _rows(node, x: np.ndarray) -> np.ndarray:
    """src as (..., outter, n): each row's first n elements (rows inner apart)."""
    outter, inner, n = node.attr("params")
    x = np.asarray(x)
    lead = x.shape[:-1]
    full = np.concatenate([x, np.zeros(lead + (outter * inner - x.shape[-1],), x.dtype)], axis=-1)
    return full.reshape(lead + (outter, inner))[..., :n]


def _sum(st: Steps, ins, sc, node) -> dict:
    return {"dst": st.row_sum(_rows(node, ins["src"]))}


def _mean(st: Steps, ins, sc, node) -> dict:
    outter, inner, n = node.attr("params")
    x = _rows(node, ins["src"])
    if node.attr("acc") is float32 and x.dtype == np.float16:
        w = st.cast(x, float32)
        s = st.row_sum(w)
        s = st.scalar("muls", s, np.float32(1.0) / np.float32(n))
        h = st.cast(s, float16, "none")
        st._note("whole_reduce_sum", h)      # the one-element RepeatReduceSum<half> that stores it
        return {"dst": h}
    s = st.row_sum(x)
    inv = np.float32(1.0) / np.float32(n)
    return {"dst": st.scalar("muls", s, inv.astype(x.dtype))}


def _extent(node, name: str):
    outter, inner, n = node.attr("params")
    return Const(outter if name == "dst" else (outter - 1) * inner + n)


def sum_tmp(n: int, itemsize: int) -> int:
    """GetSumMaxMinTmpSize (max = min): the first level's partial sums, rounded up to a block of T."""
    per_blk, per_rep = BLOCK // itemsize, ONE_REPEAT // itemsize
    reps = -(-n // per_rep)
    return -(-reps // per_blk) * per_blk * itemsize


def mean_tmp(n: int, itemsize: int, acc_itemsize: int) -> int:
    """GetMeanMaxMinTmpSize (max = min), as the vendor computes it."""
    reps = -(-n // (ONE_REPEAT // itemsize))
    if itemsize == 2 and acc_itemsize == 4:
        inner = -(-n * itemsize // BLOCK) * BLOCK // itemsize
        reps = -(-n // 64)          # float partial sums
        return -(-reps // BLOCK) * BLOCK + inner * 4
    return -(-reps // BLOCK) * BLOCK


def _sum_tmp(node, count) -> int:
    n = node.attr("params")[2]
    return 0 if n * node.attr("dtype").itemsize <= ONE_REPEAT else sum_tmp(n, node.attr("dtype").itemsize)


def _mean_tmp(node, count) -> int:
    n = node.attr("params")[2]
    acc = node.attr("acc") or node.attr("dtype")
    if acc.itemsize == node.attr("dtype").itemsize and n * acc.itemsize <= ONE_REPEAT:
        return 0                    # MeanForOneRepeatTime: no temporary buffer
    return mean_tmp(n, node.attr("dtype").itemsize, acc.itemsize)


def _emit(name: str):
    def emit(ctx, node) -> str:
        f = adv_fields(ctx, node)
        tmpl = f["T"]
        if name == "Mean" and node.attr("acc") is not None:
            tmpl += f", {node.attr('acc').c_name}"
        tmp = f"{f['tmp']}, " if f["tmp"] else ""
        return "AscendC::%s<%s>(%s, %s, %s{%d, %d, %d});" % ((name, tmpl, f["dst"], f["src"], tmp)
                                                            + tuple(node.attr("params")))
    return emit


DECLARED = {
    "Sum<>/4": ("include/adv_api/reduce/sum.h:55", "lib/reduce/sum.h:39"),
    "Sum<>/3": ("include/adv_api/reduce/sum.h:76", "lib/reduce/sum.h:59"),
}
DECLARED_MEAN = {
    "Mean<>/4": ("include/adv_api/reduce/mean.h:58", "lib/reduce/mean.h:43"),
    "Mean<>/3": ("include/adv_api/reduce/mean.h:81", "lib/reduce/mean.h:79"),
}
# against a float64 sum of the row: the repeat-wise order in T (half sums in half: n ulps at worst)
TOL_SUM = {"float16": (4e-3, 4e-3), "float32": (2e-6, 1e-6)}

register_adv(
    adv_record("adv_sum", "Sum", AdvSpec(("dst",), ("src",), _sum, _sum_tmp, _sum_tmp, counted=False,
                                         extent=_extent),
               _emit("Sum"), FLOATS, DECLARED, TOL_SUM, header="reduce/sum.h",
               cpp_model=CppModel(header="Sum (toolchain/include/asc_trace_adv.h)")),
    adv_record("adv_mean", "Mean", AdvSpec(("dst",), ("src",), _mean, _mean_tmp, _mean_tmp, counted=False,
                                           extent=_extent),
               _emit("Mean"), FLOATS, DECLARED_MEAN, TOL_SUM, header="reduce/mean.h",
               cpp_model=CppModel(header="Mean (toolchain/include/asc_trace_adv.h)")),
)
__all__ = ["sum_tmp", "mean_tmp"]
