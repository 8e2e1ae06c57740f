"""GroupNorm (Ascend C `include/adv_api/normalization/groupnorm.h`: [N, C, H, W] in groups of d = C / g channels
with a GroupNormTiling), the vendor's A2 steps (`impl/adv_api/detail/normalization/groupnorm/
groupnorm_common_impl.h`), in float (half widened with CAST_NONE, narrowed with CAST_NONE), one round per
bsCurLength groups (loopRound rounds and a tail), h * w a whole number of 32-byte blocks:

- mean: each group's d * h * w values summed, times factor (1 / (d h w)): the general path by ReduceSum over the
  group; the small-shape path (h w at most 64, the group at most 64 x k floats) by WholeReduceSum of mask1 lanes
  (64, or the largest multiple of 8 dividing the group), the partials 8 floats apart with zeros between, then a
  second WholeReduceSum of those lanes;
- d = x + (-mean) (Adds of the scalar unit's GetValue after a V_S flag), variance the same sum of d * d;
- r = 1 / sqrt(variance + float(epsilon)) (Sqrt, then Div of ones), y = d * r per group, then * gamma[ch] and
  + beta[ch] per channel (Muls / Adds of GetValue);
- mean and variance one per group (half: narrowed after the last round).
"""
from __future__ import annotations

import numpy as np

from ...dtypes import float16, float32
from ...enums import HardEvent
from ..expr import Const
from ..node import Pipe
from ..numerics import tree_sum
from .adv_common import AdvSpec, Steps, adv_record, operands, register_adv
from .adv_math import TOL_STEPS
from .adv_norm import _struct

GROUPNORM_FIELDS = ("n", "c", "hw", "g", "d", "hwAlignSize", "dhwAlignSize", "inputXSize", "meanVarSize",
                    "numberOfTmpBuf", "meanTmpTensorPos", "meanTmpTensorSize", "varianceTmpTensorPos",
                    "varianceTmpTensorSize", "tmpBufSize", "oneTmpSize", "firstTmpStartPos", "secondTmpStartPos",
                    "thirdTmpStartPos", "loopRound", "inputRoundSize", "inputTailSize", "inputTailPos",
                    "meanVarRoundSize", "meanVarTailSize", "meanVarTailPos", "bshCurLength", "bsCurLength", "factor",
                    "smallShape")
REPEAT = 64


def _tiling(node) -> dict:
    return dict(zip(GROUPNORM_FIELDS, node.attr("tiling")))


def _rounds(t: dict) -> list[tuple[int, int]]:
    """(first group, groups) of each round."""
    out = [(i * int(t["bsCurLength"]), int(t["bsCurLength"])) for i in range(int(t["loopRound"]))]
    if t["inputTailSize"]:
        out.append((int(t["meanVarTailPos"]), int(t["meanVarTailSize"])))
    return out


def mask1_of(dhw: int) -> int:
    """GetGroupNormWholeReduceMask1: the whole group up to 64 lanes, else the largest multiple of 8 dividing it."""
    if dhw <= REPEAT:
        return dhw
    m = REPEAT
    while m and dhw % m:
        m -= 8
    return m


def _group_sum(st: Steps, v: np.ndarray, small: bool) -> np.ndarray:
    """(cores, groups, dhw) floats -> (cores, groups)."""
    dhw = v.shape[-1]
    if not small:                                 # ReduceSum<float>(dst, src, tmp, dhw) per group
        st._note_n("reduce_sum", v, int(np.prod(v.shape[1:])))
        return tree_sum(v, np.float32, REPEAT)
    m1 = mask1_of(dhw)
    st._note_n("whole_reduce_sum", v, int(np.prod(v.shape[1:])))
    part = tree_sum(v.reshape(v.shape[:-1] + (dhw // m1, m1)), np.float32, REPEAT)     # one per mask1 lanes
    lanes = np.zeros(part.shape + (8,), np.float32)          # dstRepStride 8: the partials 8 floats apart,
    lanes[..., 0] = part                                     # the lanes between zeroed beforehand (Duplicate)
    st._note_n("whole_reduce_sum", part, int(np.prod(part.shape[1:])) * 8)
    return tree_sum(lanes.reshape(part.shape[:-1] + (-1,)), np.float32, REPEAT)


def _round(st: Steps, x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, t: dict, eps, first_ch: int
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One GroupNormExe(SmallShape) on (cores, groups, d, hw) floats -> (y, mean, variance) in float."""
    small = bool(t["smallShape"])
    factor = np.float32(t["factor"])
    cores, groups, d, hw = x.shape
    flat = x.reshape(cores, groups, d * hw)
    mean = st.scalar("muls", _group_sum(st, flat, small), factor)
    dev = st.scalar("adds", flat, -mean)
    var = st.scalar("muls", _group_sum(st, st.binary("mul", dev, dev), small), factor)
    a = st.unary("sqrt", st.scalar("adds", var, eps))
    st._note_n("duplicate", var, var.shape[-1])
    r = st.binary("div", np.ones_like(a), a)
    y = st.scalar("muls", dev, r).reshape(cores, groups * d, hw)
    c = int(t["c"])
    ch = (first_ch + np.arange(groups * d)) % c               # gamma.GetValue(channelIndex % c)
    y = st.scalar("muls", y, gamma[:, ch])
    y = st.scalar("adds", y, beta[:, ch])
    return y.reshape(cores, groups, d * hw), mean, var


def _groupnorm(st: Steps, ins, sc, node) -> dict:
    t = _tiling(node)
    src = ins["src"]
    half = src.dtype == np.float16
    cores = src.shape[0]
    ng, d, hw = int(t["meanVarSize"]), int(t["d"]), int(t["hw"])

    def wide(v: np.ndarray) -> np.ndarray:
        return st.cast(v, float32) if half else v

    def out(v: np.ndarray) -> np.ndarray:
        return st.cast(v, float16, "none") if half else v
    x = src.reshape(cores, ng, d, hw)
    eps = np.asarray(sc["epsilon"]).astype(np.float32)        # the T epsilon, as float
    g, be = wide(ins["gamma"]), wide(ins["beta"])
    y_all = np.zeros((cores, ng, d * hw), src.dtype)
    m_all, v_all = np.zeros((cores, ng), np.float32), np.zeros((cores, ng), np.float32)
    for g0, n in _rounds(t):
        y, m, v = _round(st, wide(x[:, g0:g0 + n]), g, be, t, eps, g0 * d)
        y_all[:, g0:g0 + n], m_all[:, g0:g0 + n], v_all[:, g0:g0 + n] = out(y), m, v
    return {"dst": y_all.reshape(cores, ng * d * hw), "mean": out(m_all), "variance": out(v_all)}


def _extent(node, name):
    t = _tiling(node)
    return Const({"gamma": t["c"], "beta": t["c"], "mean": t["meanVarSize"],
                  "variance": t["meanVarSize"]}.get(name, t["inputXSize"]))


def groupnorm_tmp(node, _n=None) -> int:
    """The tiling's tmpBufSize floats (GetGroupNormNDTensorInfo asserts the buffer holds them)."""
    return int(_tiling(node)["tmpBufSize"]) * 4


def _sync(node, value) -> tuple:
    """Each round sets and waits V_S three times (after the mean, before and after reading the 1 / sqrt factors;
    the last one fetches an S_V id for a V_S flag, as the vendor writes it)."""
    return ((Pipe.V, "set", HardEvent.V_S), (Pipe.S, "wait", HardEvent.V_S)) * (3 * len(_rounds(_tiling(node))))


def _emit(ctx, node) -> str:
    tens, tmp, sc, _c = operands(node)
    tiling = _struct(ctx, node, "GroupNormTiling", GROUPNORM_FIELDS)
    dt = node.attr("dtype")
    tmp_arg = f"{ctx.ref(tmp)}, " if tmp is not None else ""
    args = ", ".join(ctx.ref(tens[n]) for n in ("dst", "mean", "variance", "src", "gamma", "beta"))
    return f"AscendC::GroupNorm<{dt.c_name}>({args}, {tmp_arg}{ctx.scalar(sc['epsilon'], dt)}, {tiling});"


DECLARED = {
    "GroupNorm<>/9": ("include/adv_api/normalization/groupnorm.h:52", "lib/normalization/groupnorm.h:41"),
    "GroupNorm<>/8": ("include/adv_api/normalization/groupnorm.h:79", "lib/normalization/groupnorm.h:64"),
}

register_adv(
    adv_record("adv_groupnorm", "GroupNorm",
               AdvSpec(("dst", "mean", "variance"), ("src", "gamma", "beta"), _groupnorm, groupnorm_tmp,
                       groupnorm_tmp, scalars=("epsilon",), counted=False, extent=_extent,
                       # groupnorm_check_common.h: TensorReuseVerifyingParameters(output, outputMean, outputVariance)
                       distinct=(("dst", "mean"), ("dst", "variance"), ("mean", "variance"))),
               _emit, frozenset({"float16", "float32"}), DECLARED, TOL_STEPS, header="normalization/groupnorm.h",
               api_sync=_sync, api_events=(HardEvent.V_S,)),
)
