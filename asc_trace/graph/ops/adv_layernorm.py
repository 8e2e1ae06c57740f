"""LayerNorm (Ascend C `include/adv_api/normalization/layernorm.h`, the [B, S, H] form with a LayerNormTiling),
the vendor's A2 steps (`impl/adv_api/detail/normalization/layernorm/layernorm_common_impl.h` LayerNormExe and
`layernorm_common_basic_impl.h`), all in float (half widened first, narrowed at the end):

- mean: x * lastDimValueBack (1 / originalH), then per row LayerNormReduceSumImpl: the row's 64-float blocks
  added onto the first in turn, the tail added onto the first lanes, one WholeReduceSum of the 64 (or h) lanes;
- variance: d = x - mean (the mean broadcast by Select), d * d * lastDimValueBack, reduced the same way;
- r = 1 / sqrt(variance + float(epsilon)) (Div of a block of ones: not Rsqrt), y = r * d * gamma + beta;
- the row mean and variance are written one per row (half: narrowed at the end, GetOutputMeanVariance).

The reduction runs over all h lanes (originalH only sets the 1/h factor), as the vendor's does.
"""
from __future__ import annotations

import itertools

import numpy as np

from ...dtypes import float16, float32
from ..expr import Const
from ..numerics import tree_sum
from .adv_common import AdvSpec, Steps, adv_record, operands, register_adv
from .adv_math import TOL_STEPS
from .adv_norm import _struct
from .opdef import CppModel

FLOAT_REPEAT = 64

LAYERNORM_FIELDS = ("bLength", "sLength", "hLength", "originalHLength", "inputXSize", "meanVarSize",
                    "numberOfTmpBuf", "meanTmpTensorPos", "meanTmpTensorSize", "varianceTmpTensorPos",
                    "varianceTmpTensorSize", "tmpBufSize", "oneTmpSize", "firstTmpStartPos", "secondTmpStartPos",
                    "thirdTmpStartPos", "loopRound", "inputRoundSize", "inputTailSize", "inputTailPos",
                    "meanVarRoundSize", "meanVarTailSize", "meanVarTailPos", "bshCurLength", "bsCurLength",
                    "lastDimValueBack")


def layernorm_row_sum(st: Steps, x: np.ndarray) -> np.ndarray:
    """LayerNormReduceSumImpl on (cores, rows, h) floats -> (cores, rows)."""
    h = x.shape[-1]
    acc = x
    if h > FLOAT_REPEAT:
        blocks = h // FLOAT_REPEAT
        acc = x[..., :FLOAT_REPEAT]
        for b in range(1, blocks):       # Add(dst, src[64], dst) with dst repeat stride 0: block b onto block 0
            acc = st.binary("add", x[..., b * FLOAT_REPEAT:(b + 1) * FLOAT_REPEAT], acc)
        tail = h - blocks * FLOAT_REPEAT
        if tail:                         # the tail onto the first lanes
            acc = acc.copy()
            acc[..., :tail] = st.binary("add", x[..., blocks * FLOAT_REPEAT:], acc[..., :tail])
    st._note_n("whole_reduce_sum", acc, int(np.prod(acc.shape[1:])))
    return tree_sum(acc, np.float32, FLOAT_REPEAT)


def _broadcast(st: Steps, v: np.ndarray, like: np.ndarray) -> np.ndarray:
    """BroadcastLastDim: a Muls on the compare mask, then one Select per row (exact copies)."""
    st._note_n("muls", like, FLOAT_REPEAT)
    for _ in range(like.shape[-2]):
        st._note_n("select", like, like.shape[-1])
    return np.broadcast_to(v[..., None], like.shape).astype(np.float32)


def _layernorm(st: Steps, ins, sc, node) -> dict:
    b, s, h, _oh = node.attr("shape")
    t = dict(zip(LAYERNORM_FIELDS, node.attr("tiling")))
    src = ins["src"]
    half = src.dtype == np.float16
    cores = src.shape[0]
    x = src.reshape(cores, b * s, h)
    x = st.cast(x, float32) if half else x
    inv = np.float32(t["lastDimValueBack"])
    mean = layernorm_row_sum(st, st.scalar("muls", x, inv))
    d = st.binary("sub", x, _broadcast(st, mean, x))
    var = layernorm_row_sum(st, st.scalar("muls", st.binary("mul", d, d), inv))
    eps = np.asarray(sc["epsilon"]).astype(np.float32)       # the T epsilon, static_cast<float>
    sd = st.unary("sqrt", st.scalar("adds", _broadcast(st, var, x), eps))
    st._note_n("duplicate", x, 8)
    r = st.binary("div", np.ones_like(sd), sd)
    y = st.binary("mul", r, d)

    def param(name: str) -> np.ndarray:
        p = ins[name].reshape(cores, 1, h)
        return st.cast(p, float32) if half else p
    y = st.binary("add", st.binary("mul", y, param("gamma")), param("beta"))

    def out(v: np.ndarray) -> np.ndarray:
        return st.cast(v, float16, "none") if half else v
    return {"dst": out(y).reshape(cores, b * s * h), "mean": out(mean), "variance": out(var)}


def _extent(node, name):
    b, s, h, _oh = node.attr("shape")
    return Const({"gamma": h, "beta": h, "mean": b * s, "variance": b * s}.get(name, b * s * h))


def layernorm_tmp(node, _n=None) -> int:
    """What the call takes with this tiling: its tmpBufSize floats (LayerNormImpl asserts the buffer holds
    them; the work tensors sit at the tiling's positions inside)."""
    return int(dict(zip(LAYERNORM_FIELDS, node.attr("tiling")))["tmpBufSize"]) * 4


def _emit(ctx, node) -> str:
    tens, tmp, sc, _c = operands(node)
    tiling = _struct(ctx, node, "LayerNormTiling", LAYERNORM_FIELDS)
    dt = node.attr("dtype")
    tmp_arg = f"{ctx.ref(tmp)}, " if tmp is not None else ""
    args = ", ".join(ctx.ref(tens[n]) for n in ("dst", "mean", "variance", "src", "gamma", "beta"))
    return f"AscendC::LayerNorm<{dt.c_name}>({args}, {tmp_arg}{ctx.scalar(sc['epsilon'], dt)}, {tiling});"


DECLARED = {
    "LayerNorm<>/9": ("include/adv_api/normalization/layernorm.h:59", "lib/normalization/layernorm.h:42"),
    "LayerNorm<>/8": ("include/adv_api/normalization/layernorm.h:87", "lib/normalization/layernorm.h:65"),
}

# layernorm_check_common.h: no two of (output, mean, variance, gamma), of (.., beta), of (mean, variance, inputX)
# are one tensor; output may be inputX
_DISTINCT = tuple(sorted({p for group in (("dst", "mean", "variance", "gamma"), ("dst", "mean", "variance", "beta"),
                                          ("mean", "variance", "src"))
                          for p in itertools.combinations(group, 2)}))

register_adv(
    adv_record("adv_layernorm", "LayerNorm",
               AdvSpec(("dst", "mean", "variance"), ("src", "gamma", "beta"), _layernorm, layernorm_tmp,
                       layernorm_tmp, scalars=("epsilon",), counted=False, extent=_extent,
                       distinct=_DISTINCT),
               _emit, frozenset({"float16", "float32"}), DECLARED, TOL_STEPS, header="normalization/layernorm.h",
               cpp_model=CppModel(header="LayerNorm (toolchain/include/asc_trace_adv.h)")),
)
