"""BatchNorm (Ascend C `include/adv_api/normalization/batchnorm.h`, [B, S, H] normalised over B with a
BatchNormTiling), the vendor's A2 steps for the general (not basic-block) form
(`impl/adv_api/detail/normalization/batchnorm/batchnorm_common_impl.h` BatchNormCompute / BatchNormExeImpl and
`batchnorm_common_pre_impl.h`), in float (half widened first with CAST_NONE, narrowed with CAST_NONE at the end),
one pass per shCurLength columns of S*H (loopRound passes and a tail):

- mean: x * firstDimValueBack (1 / B) for each of the B rows, then GetReduceAddResult: row 0 copied, rows 1..B-1
  added onto it in turn;
- variance: d = x - mean per row, d * d * (1 / B), reduced the same way;
- r = exp(-0.5 * ln(variance + float(epsilon))) (no Rsqrt), d * r per row;
- y = gamma[b] * (d * r) + beta[b], gamma and beta broadcast per row by Duplicate of the scalar unit's
  GetValue(b) (half: gamma and beta widened first, the cast followed by a V_S flag);
- mean and variance [S, H] written once per column (half: narrowed), the float path into the outputs directly.
"""
from __future__ import annotations

import numpy as np

from ...dtypes import float16, float32
from ...enums import HardEvent
from ..expr import Const
from ..node import Pipe
from .adv_common import AdvSpec, Steps, adv_record, operands, register_adv
from .adv_math import TOL_STEPS
from .adv_norm import _struct

BATCHNORM_FIELDS = ("originalBLength", "meanVarSize", "meanTmpTensorPos", "varianceTmpTensorPos", "tmpBufSize",
                    "oneTmpSize", "firstTmpStartPos", "secondTmpStartPos", "thirdTmpStartPos", "loopRound",
                    "inputTailSize", "inputTailPos", "meanVarTailSize", "meanVarTailPos", "bshCurLength",
                    "shCurLength", "firstDimValueBack", "castHalfRepStride", "shCurLengthBlockNum",
                    "castHalfOutRepStride")


def _tiling(node) -> dict:
    return dict(zip(BATCHNORM_FIELDS, node.attr("tiling")))


def _passes(t: dict) -> list[tuple[int, int]]:
    """(first column, columns) of each pass: loopRound passes of shCurLength, then the tail."""
    out = [(i * int(t["shCurLength"]), int(t["shCurLength"])) for i in range(int(t["loopRound"]))]
    if t["inputTailSize"]:
        out.append((int(t["meanVarTailPos"]), int(t["meanVarTailSize"])))
    return out


def _reduce_rows(st: Steps, v: np.ndarray) -> np.ndarray:
    """GetReduceAddResult on (cores, B, sh): DataCopy of row 0, then Add(dst, dst, row b) for b = 1 .. B-1."""
    st._note_n("copy", v[:, 0], v.shape[-1])      # the UB -> UB DataCopy
    acc = v[:, 0]
    for b in range(1, v.shape[1]):
        acc = st.binary("add", acc, v[:, b])
    return acc


def _pass(st: Steps, x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, inv: np.float32, eps: np.float32
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One BatchNormExeImpl on (cores, B, sh) float columns -> (y, mean, variance) in float."""
    mean = _reduce_rows(st, st.scalar("muls", x, inv))
    d = st.binary("sub", x, mean[:, None])
    var = _reduce_rows(st, st.scalar("muls", st.binary("mul", d, d), inv))
    r = st.unary("exp", st.scalar("muls", st.unary("ln", st.scalar("adds", var, eps)), -0.5))
    d = st.binary("mul", d, r[:, None])

    def brc(p: np.ndarray) -> np.ndarray:          # BrcFirstDimByDup: one Duplicate per row of GetValue(b)
        for _ in range(x.shape[1]):
            st._note_n("duplicate", x[:, 0], x.shape[-1])
        return np.broadcast_to(p[..., None], x.shape).astype(np.float32)
    y = st.binary("mul", brc(gamma), d)
    y = st.binary("add", brc(beta), y)
    return y, mean, var


def _batchnorm(st: Steps, ins, sc, node) -> dict:
    b, s, h = node.attr("shape")
    t = _tiling(node)
    src = ins["src"]
    half = src.dtype == np.float16
    cores, sh = src.shape[0], s * h
    x3 = src.reshape(cores, b, sh)
    inv = np.float32(t["firstDimValueBack"])
    eps = np.asarray(sc["epsilon"]).astype(np.float32)       # the T epsilon, as the float parameter

    def wide(v: np.ndarray) -> np.ndarray:
        return st.cast(v, float32) if half else v

    def out(v: np.ndarray) -> np.ndarray:
        return st.cast(v, float16, "none") if half else v
    dt = src.dtype
    y_all, m_all, v_all = np.zeros((cores, b, sh), dt), np.zeros((cores, sh), dt), np.zeros((cores, sh), dt)
    for c0, n in _passes(t):
        g, be = wide(ins["gamma"][:, :b]), wide(ins["beta"][:, :b])   # CastGammBeta each pass (half)
        y, mean, var = _pass(st, wide(x3[..., c0:c0 + n]), g, be, inv, eps)
        y_all[..., c0:c0 + n], m_all[:, c0:c0 + n], v_all[:, c0:c0 + n] = out(y), out(mean), out(var)
    return {"dst": y_all.reshape(cores, b * sh), "mean": m_all, "variance": v_all}


def _extent(node, name):
    b, s, h = node.attr("shape")
    return Const({"gamma": b, "beta": b, "mean": s * h, "variance": s * h}.get(name, b * s * h))


def batchnorm_tmp(node, _n=None) -> int:
    """What the call takes with this tiling: its tmpBufSize floats (StackBufferChecker asserts the buffer holds
    them; the work tensors sit at the tiling's positions inside)."""
    return int(_tiling(node)["tmpBufSize"]) * 4


def _sync(node, value) -> tuple:
    """Half: CastGammBeta sets and waits V_S (FetchEventID) after widening gamma and after beta, each pass, before
    the scalar unit reads them; float reads gamma and beta with no flag."""
    if node.attr("dtype").itemsize != 2:
        return ()
    return ((Pipe.V, "set", HardEvent.V_S), (Pipe.S, "wait", HardEvent.V_S)) * (2 * len(_passes(_tiling(node))))


def _emit(ctx, node) -> str:
    tens, tmp, sc, _c = operands(node)
    tiling = _struct(ctx, node, "BatchNormTiling", BATCHNORM_FIELDS)
    dt = node.attr("dtype")
    tmp_arg = f"{ctx.ref(tmp)}, " if tmp is not None else ""
    args = ", ".join(ctx.ref(tens[n]) for n in ("dst", "mean", "variance", "src", "gamma", "beta"))
    return f"AscendC::BatchNorm<{dt.c_name}>({args}, {tmp_arg}{ctx.scalar(sc['epsilon'], dt)}, {tiling});"


DECLARED = {
    "BatchNorm<>/9": ("include/adv_api/normalization/batchnorm.h:58", "lib/normalization/batchnorm.h:45"),
    "BatchNorm<>/8": ("include/adv_api/normalization/batchnorm.h:73", "lib/normalization/batchnorm.h:57"),
}

register_adv(
    adv_record("adv_batchnorm", "BatchNorm",
               AdvSpec(("dst", "mean", "variance"), ("src", "gamma", "beta"), _batchnorm, batchnorm_tmp,
                       batchnorm_tmp, scalars=("epsilon",), counted=False, extent=_extent,
                       # batchnorm_check_common.h: TensorReuseVerifyingParameters(output, outputMean, outputVariance)
                       distinct=(("dst", "mean"), ("dst", "variance"), ("mean", "variance"))),
               _emit, frozenset({"float16", "float32"}), DECLARED, TOL_STEPS, header="normalization/batchnorm.h",
               api_sync=_sync, api_events=(HardEvent.V_S,)),
)
