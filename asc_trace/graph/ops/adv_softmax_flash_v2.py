"""SoftmaxFlashV2 (Ascend C `include/adv_api/activation/softmaxflashv2.h`, ND, not basic-block, the default
SoftmaxConfig): FlashAttention-2's softmax step over rows of [m, k], the vendor's A2 steps
(`impl/adv_api/detail/activation/softmax/membase/common/softmax_flashv2_impl/softmax_flashv2_no_update_impl.h`
and `softmax_flashv2_update_impl.h`), all in float (half widened first):

- isUpdate = false: max = rowmax(x); dst = exp(x - max) (not divided: the caller divides at the end);
  sum = rowsum(dst) (NewReduceSumLastNDImpl's order, the float exp before narrowing);
- isUpdate = true: max = Max(inMax, rowmax(x)) element by element over the row's block; dst = exp(x - max);
  expMax = exp(inMax - max); sum = expMax * inExpSum + rowsum(dst).

Half results are narrowed with A2's FLOAT2HALF_ROUND_MODE (CAST_ROUND). Statistics (sum, max, inExpSum, inMax)
are reduceK = 32 / sizeof(their type) elements a row (the tiling's reduceK is from the statistics' type here,
unlike SoftMax's); expMax has src's type and 32 / sizeof(src) elements a row (with half src and float
statistics the vendor broadcasts each row's float to 16 halves: BroadCastLastImpl). A lane j of the row reads
its max at element j % 8 of the row's block (GenericSubNDImpl).
With half src and float statistics asc_trace broadcasts expMax's element 0 of each row, as the vendor's
CPU-debug BroadCastLastCompute does; its NPU build copies with a counter-mode Copy instead; both agree when a
row's statistics are one value, as SoftmaxFlashV2's own outputs are.
"""
from __future__ import annotations

import numpy as np

from ...dtypes import float16, float32
from ..expr import Const
from .adv_common import AdvSpec, Steps, adv_record, operands, register_adv
from .adv_norm import FLOAT_REPEAT, SOFTMAX_FIELDS, SOFTMAX_TOL, _struct, softmax_row_sum

FLOAT_BLOCK = 8
STATS = ("sum", "max", "in_sum", "in_max")


def _per(node, name: str) -> int:
    """Elements a row of a statistics operand (exp_max: src's type)."""
    dt = node.attr("dtype") if name == "exp_max" else node.attr("reduce_dtype")
    return 32 // dt.itemsize


def _flash_v2(st: Steps, ins, sc, node) -> dict:
    m, k = node.attr("shape")
    update = bool(node.attr("update"))
    src = ins["src"]
    cores = src.shape[0]
    half = src.dtype == np.float16
    red_half = node.attr("reduce_dtype").itemsize == 2
    per = 32 // node.attr("reduce_dtype").itemsize
    x = src.reshape(cores, m, k)
    w = st.cast(x, float32) if half else x
    rmax = np.repeat(st.row_max(w)[..., None], per, axis=-1)        # NewReduceMaxLastNDImpl, broadcast to reduceK

    def stat_in(name: str) -> np.ndarray:
        v = ins[name].reshape(cores, m, per)
        return st.cast(v, float32) if v.dtype == np.float16 else v

    if update:
        in_max = stat_in("in_max")
        new_max = st.binary("max", in_max, rmax)
    else:
        new_max = rmax
    lanes = np.arange(k) % FLOAT_BLOCK
    e = st.unary("exp", st.binary("sub", w, new_max[..., lanes]))
    s = np.repeat(softmax_row_sum(st, e)[..., None], per, axis=-1)

    def stat_out(v: np.ndarray) -> np.ndarray:
        v = st.cast(v, float16, "round") if red_half else v
        return v.reshape(cores, m * per)
    out = {"dst": (st.cast(e, float16, "round") if half else e).reshape(cores, m * k), "max": stat_out(new_max)}
    if not update:
        out["sum"] = stat_out(s)
        return out
    em = st.unary("exp", st.binary("sub", in_max, new_max))
    out["sum"] = stat_out(st.binary("add", st.binary("mul", em, stat_in("in_sum")), s))
    if half and not red_half:      # BroadCastLastImpl: each row's value over 16 halves
        em = np.repeat(em[..., :1], 32 // 2, axis=-1)
    out["exp_max"] = (st.cast(em, float16, "round") if half else em).reshape(cores, -1)
    return out


def _extent(node, name: str):
    m, k = node.attr("shape")
    if name in ("exp_max", "in_sum", "in_max") and not node.attr("update"):
        return Const(0)          # isUpdate = false: neither read nor written
    if name in STATS or name == "exp_max":
        return Const(m * _per(node, name))
    return Const(m * k)


def _row_floats(node) -> int:
    """Floats of work buffer a row (SoftMaxFlashV2TilingFunc's divisor, non-basic-block):
    half src 2 x reduceK + k + 64, float src reduceK + 64."""
    _m, k = node.attr("shape")
    per = 32 // node.attr("reduce_dtype").itemsize
    return 2 * per + k + FLOAT_REPEAT if node.attr("dtype").itemsize == 2 else per + FLOAT_REPEAT


def flash_v2_min_tmp(node, _n=None) -> int:
    """A filled tiling: its split's rows x the row's floats; a zero one is filled in the kernel from the buffer,
    which must hold one row (GetSoftMaxFlashV2MinTmpSize)."""
    m, k = node.attr("shape")
    t = dict(zip(SOFTMAX_FIELDS, node.attr("tiling")))
    rows = int(t["splitM"]) if (t["srcM"], t["srcK"]) == (m, k) else 1
    return rows * _row_floats(node) * 4


def flash_v2_max_tmp(node, _n=None) -> int:
    m, _k = node.attr("shape")
    return m * _row_floats(node) * 4


def _emit(ctx, node) -> str:
    tens, tmp, _s, _c = operands(node)
    m, k = node.attr("shape")
    tiling = _struct(ctx, node, "SoftMaxTiling", SOFTMAX_FIELDS)
    shape = f"asct_shape{node.id}"
    ctx.pre.append(f"AscendC::SoftMaxShapeInfo {shape} = {{{m}U, {k}U, {m}U, {k}U}};")
    t = node.attr("dtype").c_name
    tmp_arg = f"{ctx.ref(tmp)}, " if tmp is not None else ""
    args = ", ".join(ctx.ref(tens[n]) for n in ("dst", "sum", "max", "src", "exp_max", "in_sum", "in_max"))
    update = "true" if node.attr("update") else "false"
    return f"AscendC::SoftmaxFlashV2<{t}, {update}>({args}, {tmp_arg}{tiling}, {shape});"


DECLARED = {
    "SoftmaxFlashV2<>/10": ("include/adv_api/activation/softmaxflashv2.h:191", "lib/activation/softmaxflashv2.h:158"),
    "SoftmaxFlashV2<>/9": ("include/adv_api/activation/softmaxflashv2.h:96", "lib/activation/softmaxflashv2.h:75"),
}

register_adv(
    adv_record("adv_softmax_flash_v2", "SoftmaxFlashV2",
               AdvSpec(("dst", "sum", "max", "exp_max"), ("src", "in_sum", "in_max"), _flash_v2, flash_v2_min_tmp,
                       flash_v2_max_tmp, counted=False, extent=_extent,
                       # softmax_flashv2_check_common.h checks no pair for reuse (the update reads inMax into a
                       # work buffer before it writes max); it asserts dst.GetSize() == src.GetSize()
                       distinct=(), same_size=(("dst", "src"),),
                       tmp_helper="for a filled tiling, what its split takes; "
                                  "asc.adv.get_softmax_flash_v2_min_tmp_size"),
               _emit, frozenset({"float16", "float32"}), DECLARED, SOFTMAX_TOL, header="activation/softmaxflashv2.h"),
)
