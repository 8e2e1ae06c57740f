"""DeepNorm (Ascend C `include/adv_api/normalization/deepnorm.h`: LayerNorm(alpha * x + gx) over rows of [B, S, H]
with a DeepNormTiling, the LayerNormTiling's fields), the vendor's A2 steps for the general (not basic-block) form
(`impl/adv_api/detail/normalization/deepnorm/deepnorm_common_impl.h`), in float (half widened with CAST_NONE,
narrowed with CAST_NONE), one round per bsCurLength rows (loopRound rounds and a tail):

- x1 = gx + x * float(alpha) (Muls, then Add);
- mean: x1 * lastDimValueBack (1 / originalH), each row summed over its first originalH lanes by RepeatReduceSum
  levels (DeepNormReduceSumImpl: 64 lanes a repeat until one value is left; not LayerNorm's block adds);
- d = x1 + (-mean) (Adds of the scalar unit's GetValue after a V_S flag), variance the same sum of
  d * d * lastDimValueBack;
- r = 1 / sqrt(variance + float(epsilon)) (Sqrt, then Div of a block of ones), d * r per row (Muls of GetValue
  after a V_S flag), then * gamma + beta per row;
- the row mean and variance written one per row (the `rstdLocal` operand receives the variance, as the vendor's
  code writes it; half: narrowed after the last round).
"""
from __future__ import annotations

import numpy as np

from ...dtypes import float16, float32
from ...enums import HardEvent
from ..expr import Const
from ..node import Pipe
from .adv_common import AdvSpec, Steps, adv_record, operands, register_adv
from .adv_layernorm import LAYERNORM_FIELDS
from .adv_math import TOL_STEPS
from .adv_norm import _struct


def _tiling(node) -> dict:
    return dict(zip(LAYERNORM_FIELDS, node.attr("tiling")))


def _rounds(t: dict) -> list[tuple[int, int]]:
    """(first row, rows) of each round: loopRound rounds of bsCurLength rows, then the tail."""
    out = [(i * int(t["meanVarRoundSize"]), int(t["meanVarRoundSize"])) for i in range(int(t["loopRound"]))]
    if t["inputTailSize"]:
        out.append((int(t["meanVarTailPos"]), int(t["meanVarTailSize"])))
    return out


def _round(st: Steps, x: np.ndarray, gx: np.ndarray, gamma: np.ndarray, beta: np.ndarray, t: dict, alpha, eps,
           oh: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """DeepNormExec + DeepNormLayerNormExec on (cores, rows, h) float rows -> (y, mean, variance) in float."""
    inv = np.float32(t["lastDimValueBack"])
    x1 = st.binary("add", gx, st.scalar("muls", x, alpha))
    mean = st.row_sum(st.scalar("muls", x1, inv)[..., :oh])
    d = st.scalar("adds", x1, -mean)
    var = st.row_sum(st.scalar("muls", st.binary("mul", d, d), inv)[..., :oh])
    a = st.unary("sqrt", st.scalar("adds", var, eps))
    st._note_n("duplicate", var, var.shape[-1])
    r = st.binary("div", np.ones_like(a), a)
    y = st.scalar("muls", d, r)
    y = st.binary("add", st.binary("mul", y, gamma), beta)
    return y, mean, var


def _deepnorm(st: Steps, ins, sc, node) -> dict:
    b, s, h, oh = node.attr("shape")
    t = _tiling(node)
    src = ins["src"]
    half = src.dtype == np.float16
    cores, rows = src.shape[0], b * s

    def wide(v: np.ndarray) -> np.ndarray:
        return st.cast(v, float32) if half else v

    def out(v: np.ndarray) -> np.ndarray:
        return st.cast(v, float16, "none") if half else v
    x, gx = src.reshape(cores, rows, h), ins["gx"].reshape(cores, rows, h)
    alpha = np.asarray(sc["alpha"]).astype(np.float32)        # the T alpha and epsilon, as float
    eps = np.asarray(sc["epsilon"]).astype(np.float32)
    y_all = np.zeros((cores, rows, h), src.dtype)
    m_all, v_all = np.zeros((cores, rows), np.float32), np.zeros((cores, rows), np.float32)
    for r0, n in _rounds(t):
        g = wide(ins["gamma"].reshape(cores, 1, h))
        be = wide(ins["beta"].reshape(cores, 1, h))
        y, m, v = _round(st, wide(x[:, r0:r0 + n]), wide(gx[:, r0:r0 + n]), g, be, t, alpha, eps, oh)
        y_all[:, r0:r0 + n], m_all[:, r0:r0 + n], v_all[:, r0:r0 + n] = out(y), m, v
    return {"dst": y_all.reshape(cores, rows * h), "mean": out(m_all), "rstd": out(v_all)}


def _extent(node, name):
    b, s, h, _oh = node.attr("shape")
    return Const({"gamma": h, "beta": h, "mean": b * s, "rstd": b * s}.get(name, b * s * h))


def deepnorm_tmp(node, _n=None) -> int:
    """What the call takes with this tiling: its tmpBufSize floats (IsStackBufferValid asserts the buffer holds
    them; the work tensors sit at the tiling's positions inside)."""
    return int(_tiling(node)["tmpBufSize"]) * 4


def _sync(node, value) -> tuple:
    """DeepNormVarianceByForLoop and DeepNormOutputByForLoop each set and wait V_S (FetchEventID), every round."""
    return ((Pipe.V, "set", HardEvent.V_S), (Pipe.S, "wait", HardEvent.V_S)) * (2 * len(_rounds(_tiling(node))))


def _emit(ctx, node) -> str:
    tens, tmp, sc, _c = operands(node)
    tiling = _struct(ctx, node, "DeepNormTiling", LAYERNORM_FIELDS)
    dt = node.attr("dtype")
    tmp_arg = f"{ctx.ref(tmp)}, " if tmp is not None else ""
    args = ", ".join(ctx.ref(tens[n]) for n in ("dst", "mean", "rstd", "src", "gx", "beta", "gamma"))
    return (f"AscendC::DeepNorm<{dt.c_name}>({args}, {tmp_arg}{ctx.scalar(sc['alpha'], dt)}, "
            f"{ctx.scalar(sc['epsilon'], dt)}, {tiling});")


DECLARED = {
    "DeepNorm<>/11": ("include/adv_api/normalization/deepnorm.h:67", "lib/normalization/deepnorm.h:54"),
    "DeepNorm<>/10": ("include/adv_api/normalization/deepnorm.h:106", "lib/normalization/deepnorm.h:89"),
}

register_adv(
    adv_record("adv_deepnorm", "DeepNorm",
               # the vendor's order: beta before gamma
               AdvSpec(("dst", "mean", "rstd"), ("src", "gx", "beta", "gamma"), _deepnorm, deepnorm_tmp,
                       deepnorm_tmp, scalars=("alpha", "epsilon"), counted=False, extent=_extent,
                       distinct=()),       # deepnorm_check_common.h checks no operand pair
               _emit, frozenset({"float16", "float32"}), DECLARED, TOL_STEPS, header="normalization/deepnorm.h",
               api_sync=_sync, api_events=(HardEvent.V_S,)),
)
