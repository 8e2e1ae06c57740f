"""SimpleSoftMax (Ascend C `include/adv_api/activation/simplesoftmax.h`, ND, not basic-block): the softmax of
rows of [m, k] with the row max and sum given (SoftMax's outputs), the vendor's A2 steps
(`impl/adv_api/detail/activation/softmax/membase/common/simple_softmax_common_impl.h` SimpleSoftMaxGenericNDImpl):

- half: src widened to float (and half sum / max widened); x - max; Exp; / sum (GenericSubNDImpl /
  GenericDivNDImpl); narrowed with A2's FLOAT2HALF_ROUND_MODE (CAST_ROUND: ties away from zero);
- float: the same steps in place, no temporary buffer used.

Which element of the row's statistics a lane reads: GenericSubNDImpl / GenericDivNDImpl take one 32-byte
block of the row's reduceK elements and repeat it along the row, so lane j of row r reads stat[r, j % 8] (the
vendor's SoftMax writes the value broadcast over the block, so every lane reads the row's value; statistics
that differ inside a block give per-lane results, as on the NPU).

Where row r's statistics start: with a filled tiling (srcM / srcK = the shape) the tiling's reduceK
(32 / sizeof(src)) a row, except that the half-src / float-stat path advances between splits by
reduceM x 8 floats (FLOAT_NUM_PER_BLK), not reduceM x reduceK = 16: rows of a second split read the first
split's statistics. asc_trace models that as the vendor's code has it. With a zero tiling the kernel fills it
from the shape with sizeof(sum) (SoftMaxTilingFunc(workLocal.GetSize(), ..., sizeof(T1), sizeof(T2))): then
reduceK is 32 / sizeof(sum), 8 floats a row with float statistics.
"""
from __future__ import annotations

import numpy as np

from ...dtypes import float16, float32
from ..expr import Const
from .adv_common import AdvSpec, Steps, operands, register_adv, adv_record
from .adv_norm import FLOAT_REPEAT, SOFTMAX_FIELDS, SOFTMAX_TOL, _struct
from .opdef import CppModel

FLOAT_BLOCK = 8


def _filled(node) -> dict | None:
    """The tiling's fields when it describes the call's shape (the vendor then uses it as given), else None."""
    m, k = node.attr("shape")
    t = dict(zip(SOFTMAX_FIELDS, node.attr("tiling")))
    return t if (t["srcM"], t["srcK"]) == (m, k) else None


def reduce_k(node) -> int:
    """Elements of sum / max a row: the filled tiling's reduceK (32 / sizeof(src)), else 32 / sizeof(sum)."""
    if _filled(node) is not None:
        return 32 // node.attr("dtype").itemsize
    return 32 // node.attr("reduce_dtype").itemsize


def stat_rows(node) -> np.ndarray:
    """The element where each row's statistics start (SimpleSoftMaxNDImpl's offset2 + the row in its split)."""
    m, _k = node.attr("shape")
    rk = reduce_k(node)
    t = _filled(node)
    rows = np.arange(m)
    half_float = node.attr("dtype").itemsize == 2 and node.attr("reduce_dtype").itemsize == 4
    if t is None or not half_float:
        return rows * rk
    split = int(t["splitM"])
    # offset2 = i * tiling.reduceM * FLOAT_NUM_PER_BLK (8), then GenericSubNDImpl's row stride reduceK (16)
    return (rows // split) * int(t["reduceM"]) * FLOAT_BLOCK + (rows % split) * rk


def _simple_softmax(st: Steps, ins, sc, node) -> dict:
    m, k = node.attr("shape")
    src = ins["src"]
    cores = src.shape[0]
    half = src.dtype == np.float16
    x = src.reshape(cores, m, k)
    w = st.cast(x, float32) if half else x
    lanes = stat_rows(node)[:, None] + np.arange(k)[None, :] % FLOAT_BLOCK     # (m, k) element of the stat read

    def stat(name: str) -> np.ndarray:
        v = ins[name]
        v = st.cast(v, float32) if v.dtype == np.float16 else v
        return v[:, lanes]
    y = st.binary("div", st.unary("exp", st.binary("sub", w, stat("max"))), stat("sum"))
    out = st.cast(y, float16, "round") if half else y
    return {"dst": out.reshape(cores, m * k)}


def _extent(node, name: str):
    m, k = node.attr("shape")
    if name in ("sum", "max"):
        return Const(int(stat_rows(node).max()) + reduce_k(node))
    return Const(m * k)


def simple_softmax_tmp(node, _n=None) -> int:
    """Bytes the call's split uses: half src: splitSize floats for x, and reduceSize more for half statistics
    widened; float: none (the steps run in dst). A zero tiling is filled in the kernel from the buffer, which
    must then hold one row: GetSoftMaxMinTmpSize, (32 / sizeof(T) + k + 64) floats."""
    _m, k = node.attr("shape")
    t = _filled(node)
    if t is None:
        return (32 // node.attr("dtype").itemsize + k + FLOAT_REPEAT) * 4
    if node.attr("dtype").itemsize == 4:
        return 0
    extra = t["reduceSize"] if node.attr("reduce_dtype").itemsize == 2 else 0
    return int(t["splitSize"] + extra) * 4


def simple_softmax_max_tmp(node, _n=None) -> int:
    m, k = node.attr("shape")
    return max(simple_softmax_tmp(node), m * (32 // node.attr("dtype").itemsize + k + FLOAT_REPEAT) * 4)


def _emit(ctx, node) -> str:
    tens, tmp, _s, _c = operands(node)
    m, k = node.attr("shape")
    tiling = _struct(ctx, node, "SoftMaxTiling", SOFTMAX_FIELDS)
    shape = f"asct_shape{node.id}"
    ctx.pre.append(f"AscendC::SoftMaxShapeInfo {shape} = {{{m}U, {k}U, {m}U, {k}U}};")
    t = node.attr("dtype").c_name
    tmp_arg = f"{ctx.ref(tmp)}, " if tmp is not None else ""
    args = ", ".join(ctx.ref(tens[n]) for n in ("dst", "sum", "max", "src"))
    return f"AscendC::SimpleSoftMax<{t}>({args}, {tmp_arg}{tiling}, {shape});"


DECLARED = {
    "SimpleSoftMax<>/7": ("include/adv_api/activation/simplesoftmax.h:125", "lib/activation/simplesoftmax.h:101"),
    "SimpleSoftMax<>/6": ("include/adv_api/activation/simplesoftmax.h:58", "lib/activation/simplesoftmax.h:44"),
}

register_adv(
    adv_record("adv_simple_softmax", "SimpleSoftMax",
               AdvSpec(("dst",), ("sum", "max", "src"), _simple_softmax, simple_softmax_tmp, simple_softmax_max_tmp,
                       counted=False, extent=_extent,
                       # simple_softmax_check_common.h checks no pair for reuse (dst may be src); it asserts
                       # dst.GetSize() == src.GetSize()
                       distinct=(), same_size=(("dst", "src"),),
                       tmp_helper="for a filled tiling, what its split takes; asc.adv.get_softmax_min_tmp_size"),
               _emit, frozenset({"float16", "float32"}), DECLARED, SOFTMAX_TOL, header="activation/simplesoftmax.h",
               cpp_model=CppModel(header="SimpleSoftMax (toolchain/include/asc_trace_adv.h)")),
)
