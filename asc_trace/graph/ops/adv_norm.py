"""SoftMax, RmsNorm and AscendQuant (Ascend C `include/adv_api/activation/softmax.h`,
`normalization/rmsnorm.h`, `quantization/ascend_quant.h`), each the vendor's A2 (dav-c220) steps:

- SoftMax, ND, not basic-block (`membase/common/softmax_impl/softmax_generic_nd_impl.h`
  SoftMaxGenericNDImpl): half widened to float; row max; x - max; Exp; row sum (NewReduceSumLastNDImpl's
  order: the 64-float blocks of a row added in turn, the tail added onto the first lanes, then BlockReduceSum
  64 -> 8 -> 1); x / sum (GenericDivNDImpl on 2201); narrowed. max and sum are written broadcast over one
  32-byte block per row (16 halves or 8 floats); a half output is the float value narrowed.
- RmsNorm (`normalization/rmsnorm/rmsnorm_common_impl.h` RmsNormCompute): x in float; x*x; per row the sum of
  the first originalHLength squares (RepeatReduceSum levels); * reciprocalOfHLength; + epsilon;
  exp(-0.5 * ln(.)); x * that (Muls per row, the scalar read by the scalar unit after a V_S flag); * gamma
  (half: gamma widened first); narrowed.
- AscendQuant per tensor (`quantization/quant/ascend_quant_pre_impl.h` AscendQuantIntrinsicsImpl): in half:
  (float src narrowed to half), * half(scale), + half(offset), Cast to int8 with CAST_NONE.
"""
from __future__ import annotations

import numpy as np

from ...dtypes import float16, float32, int8
from ...enums import HardEvent
from ..expr import Const
from ..node import Pipe
from .adv_common import ONE_REPEAT, AdvSpec, Steps, adv_fields, adv_record, operands, register_adv
from .adv_math import TOL_STEPS
from .opdef import CppModel

FLOAT_BLOCK = 8             # floats in one 32-byte block
FLOAT_REPEAT = 64           # floats in one 256-byte repeat


def _wide(st: Steps, x: np.ndarray) -> np.ndarray:
    return st.cast(x, float32) if x.dtype == np.float16 else x


def _block_sum(st: Steps, x: np.ndarray) -> np.ndarray:
    """BlockReduceSum: each 8-float block summed as a pairwise tree."""
    st._note_n("whole_reduce_sum", x, int(np.prod(x.shape[1:])))
    from ..numerics import tree_sum
    return tree_sum(x.reshape(x.shape[:-1] + (x.shape[-1] // FLOAT_BLOCK, FLOAT_BLOCK)), np.float32, FLOAT_BLOCK)


def softmax_row_sum(st: Steps, e: np.ndarray) -> np.ndarray:
    """NewReduceSumLastNDImpl (v220) on (cores, m, k) floats -> (cores, m)."""
    k = e.shape[-1]
    if k < FLOAT_REPEAT or k >= 512:     # ReduceSumLastNDSplitImpl / BigBlockReduceSum: one tree per row
        return st.row_sum(e)
    blocks = k // FLOAT_REPEAT
    acc = e[..., :FLOAT_REPEAT]
    for b in range(1, blocks):           # Add(tmp, src, src[64]) then NextBlockAddImpl
        acc = st.binary("add", acc, e[..., b * FLOAT_REPEAT:(b + 1) * FLOAT_REPEAT])
    tail = k - blocks * FLOAT_REPEAT
    if tail:                             # TailAddImpl: the tail onto the first lanes
        acc = acc.copy()
        acc[..., :tail] = st.binary("add", acc[..., :tail], e[..., blocks * FLOAT_REPEAT:])
    return _block_sum(st, _block_sum(st, acc))[..., 0]      # BasicBlockReduceSumImpl: 64 -> 8 -> 1


def _softmax(st: Steps, ins, sc, node, narrow: bool = True) -> dict:
    """SoftMax's steps; `narrow=False` leaves dst as the float (cores, m, k) quotient (LogSoftMax goes on)."""
    m, k = node.attr("shape")
    src = ins["src"]
    x = src.reshape(src.shape[0], m, k)
    w = _wide(st, x)
    mx = st.row_max(w)
    e = st.unary("exp", st.binary("sub", w, mx[..., None]))
    s = softmax_row_sum(st, e)
    y = st.binary("div", e, s[..., None])
    # A2 narrows float to half with FLOAT2HALF_ROUND_MODE = CAST_ROUND (membase/v220/softmax_common_impl.h):
    # ties away from zero, not to even
    dst = st.cast(y, float16, "round") if x.dtype == np.float16 and narrow else y
    red: np.dtype = np.dtype(node.attr("reduce_dtype").np)
    width = softmax_stat_width(node)

    def out(v: np.ndarray) -> np.ndarray:
        v = st.cast(v, float16, "round") if red == np.float16 else v
        return np.repeat(v[..., None], width, axis=-1).reshape(v.shape[0], m * width)
    return {"dst": dst.reshape(src.shape[0], m * k) if narrow else dst, "max": out(mx), "sum": out(s)}


def softmax_stat_width(node) -> int:
    """reduceK, the elements each row's sum / max fill. The host's SoftMaxTilingFunc takes it from the source's
    type (32 / sizeof(T): with half src and float sum / max, 16 floats, 64 bytes a row); a zero tiling is
    recomputed in the kernel by the kernel-side SoftMaxTilingFunc from sizeof(T2), the statistics' type
    (softmax_base_impl.h): 8 floats a row there. Both measured on cpu_debug (tests/test_adv_softmax_stats.py)."""
    t = dict(zip(SOFTMAX_FIELDS, node.attr("tiling")))
    if t["srcM"] and t["srcK"]:
        return 32 // node.attr("dtype").itemsize
    return 32 // (node.attr("reduce_dtype") or node.attr("dtype")).itemsize


def _softmax_extent(node, name):
    m, k = node.attr("shape")
    if name in ("sum", "max"):
        return Const(m * softmax_stat_width(node))
    return Const(m * k)


def softmax_min_tmp(node, _n=None) -> int:
    """What the call needs: with a filled tiling, the work buffers its split takes (SoftMaxGenericNDImpl: half
    splitSize + reduceSize + splitM x 64 floats, float splitM x 64); with none (srcM 0), GetSoftMaxMinTmpSize,
    one row: (elements per block + k + 64) floats, the kernel splitting by the buffer it is given."""
    _m, k = node.attr("shape")
    t = dict(zip(SOFTMAX_FIELDS, node.attr("tiling")))
    if t["srcM"] and t["srcK"]:
        if node.attr("dtype").itemsize == 2:
            return int(t["splitSize"] + t["reduceSize"] + t["splitM"] * FLOAT_REPEAT) * 4
        return int(t["splitM"] * FLOAT_REPEAT) * 4
    return (32 // node.attr("dtype").itemsize + k + FLOAT_REPEAT) * 4


def softmax_max_tmp(node, _n=None) -> int:
    m, k = node.attr("shape")
    return m * (32 // node.attr("dtype").itemsize + k + FLOAT_REPEAT) * 4


SOFTMAX_FIELDS = ("srcM", "srcK", "srcSize", "outMaxM", "outMaxK", "outMaxSize", "splitM", "splitK", "splitSize",
                  "reduceM", "reduceK", "reduceSize", "rangeM", "tailM", "tailSplitSize", "tailReduceSize")
RMSNORM_FIELDS = ("bLength", "sLength", "hLength", "originalHLength", "reciprocalOfHLength", "mainBshLength",
                  "mainBsLength", "mainBsLengthAlign", "loopRound", "inputTailPos", "tailBshLength", "tailBsLength")


def _struct(ctx, node, ctype: str, fields: tuple[str, ...]) -> str:
    """Declare the tiling struct the call takes, field by field (one text for both header generations:
    CANN 8.1 declares it globally, asc-devkit in AscendC::tiling with a global using)."""
    name = f"asct_tiling{node.id}"
    ctx.pre.append(f"{ctype} {name};")
    for f, v in zip(fields, node.attr("tiling")):
        ctx.pre.append(f"{name}.{f} = {repr(float(v)) + 'f' if isinstance(v, float) else str(int(v)) + 'U'};")
    return name


def _emit_softmax(ctx, node) -> str:
    tens, tmp, _s, _c = operands(node)
    m, k = node.attr("shape")
    tiling = _struct(ctx, node, "SoftMaxTiling", SOFTMAX_FIELDS)
    shape = f"asct_shape{node.id}"
    # the shape goes in explicitly: the emitted LocalTensors carry no ShapeInfo of their own
    ctx.pre.append(f"AscendC::SoftMaxShapeInfo {shape} = {{{m}U, {k}U, {m}U, {k}U}};")
    t = node.attr("dtype").c_name
    tmp_arg = f"{ctx.ref(tmp)}, " if tmp is not None else ""
    return (f"AscendC::SoftMax<{t}>({ctx.ref(tens['dst'])}, {ctx.ref(tens['sum'])}, {ctx.ref(tens['max'])}, "
            f"{ctx.ref(tens['src'])}, {tmp_arg}{tiling}, {shape});")


# -- RmsNorm --------------------------------------------------------------------------------------

def _rmsnorm(st: Steps, ins, sc, node) -> dict:
    b, s, h, oh = node.attr("shape")
    tiling = dict(zip(RMSNORM_FIELDS, node.attr("tiling")))
    src, gamma = ins["src"], ins["gamma"]
    cores = src.shape[0]
    x = _wide(st, src.reshape(cores, b * s, h))
    sq = st.binary("mul", x, x)
    ssum = st.row_sum(sq[..., :oh])
    mean = st.scalar("muls", ssum, np.float32(tiling["reciprocalOfHLength"]))
    eps = np.asarray(sc["epsilon"]).astype(np.float32)
    v = st.scalar("adds", mean, eps)
    r = st.unary("exp", st.scalar("muls", st.unary("ln", v), -0.5))
    y = st.binary("mul", x, r[..., None])             # Muls per row with the scalar unit's GetValue(i)
    g = _wide(st, gamma.reshape(gamma.shape[0], 1, h)[..., :h])
    y = st.binary("mul", y, g)
    out = st.cast(y, float16, "none") if src.dtype == np.float16 else y
    return {"dst": out.reshape(cores, b * s * h)}


def _rmsnorm_extent(node, name):
    b, s, h, _oh = node.attr("shape")
    return Const(h if name == "gamma" else b * s * h)


def rmsnorm_min_tmp(node, _n=None) -> int:
    """GetRmsNormMinTmpSize: (h x (2 for half, 1 for float) + 8) floats."""
    _b, _s, h, _oh = node.attr("shape")
    return (h * (2 if node.attr("dtype").itemsize == 2 else 1) + FLOAT_BLOCK) * 4


def rmsnorm_tiling_tmp(node, _n=None) -> int:
    """Bytes the kernel uses with this tiling (GetRmsNormInfo): mainBsLengthAlign + mainBshLength floats, and
    another mainBshLength for half's widened source."""
    t = dict(zip(RMSNORM_FIELDS, node.attr("tiling")))
    return int(t["mainBsLengthAlign"] + t["mainBshLength"] * (2 if node.attr("dtype").itemsize == 2 else 1)) * 4


def _rmsnorm_sync(node, value) -> tuple:
    """RmsNormGeneralFirstAxisBrcMul: each round sets and waits V_S (FetchEventID) before the scalar unit
    reads the row factors."""
    t = dict(zip(RMSNORM_FIELDS, node.attr("tiling")))
    rounds = int(t["loopRound"]) + (1 if t["tailBsLength"] else 0)
    return ((Pipe.V, "set", HardEvent.V_S), (Pipe.S, "wait", HardEvent.V_S)) * rounds


def _emit_rmsnorm(ctx, node) -> str:
    tens, tmp, sc, _c = operands(node)
    tiling = _struct(ctx, node, "RmsNormTiling", RMSNORM_FIELDS)
    dt = node.attr("dtype")
    tmp_arg = f"{ctx.ref(tmp)}, " if tmp is not None else ""
    return (f"AscendC::RmsNorm<{dt.c_name}>({ctx.ref(tens['dst'])}, {ctx.ref(tens['src'])}, "
            f"{ctx.ref(tens['gamma'])}, {tmp_arg}{ctx.scalar(sc['epsilon'], dt)}, {tiling});")


# -- AscendQuant ------------------------------------------------------------------------------------

def _quant(st: Steps, ins, sc, node) -> dict:
    x = ins["src"]
    h = st.cast(x, float16, "none") if x.dtype == np.float32 else x
    scale = np.asarray(sc["scale"]).astype(np.float32).astype(np.float16)
    offset = np.asarray(sc["offset"]).astype(np.float32).astype(np.float16)
    y = st.scalar("adds", st.scalar("muls", h, scale), offset)
    return {"dst": st.cast(y, int8, "none")}


def quant_min_tmp(node, n=None) -> int:
    """GetAscendQuantMaxMinTmpSize: 2 repeats of 256 bytes at least; with a fixed QuantConfig, its
    workLocalSize (the split the call uses)."""
    cfg = node.attr("config")
    return max(2 * ONE_REPEAT, cfg[3]) if cfg else 2 * ONE_REPEAT


def quant_max_tmp(node, n=None) -> int:
    cfg = node.attr("config")
    if cfg:
        return cfg[3]
    return -(-max(int(n or 0) * 2, 2 * ONE_REPEAT) // 32) * 32


def _emit_quant(ctx, node) -> str:
    f = adv_fields(ctx, node)
    cfg = node.attr("config")
    tmpl = f["T"]
    if cfg:         # a template argument: an object of static storage (C++17 allows a local one)
        name = f"asct_qcfg{node.id}"
        ctx.pre.append(f"static constexpr AscendC::AscendQuantConfig {name}({', '.join(f'{v}U' for v in cfg)});")
        tmpl = f"{tmpl}, false, {name}"
    return (f"AscendC::AscendQuant<{tmpl}>({f['dst']}, {f['src']}, {f['tmp_arg']}{f['scale']}, {f['offset']}, "
            f"{f['count']});")


DECLARED_SOFTMAX = {
    "SoftMax<>/7": ("include/adv_api/activation/softmax.h:192", "lib/activation/softmax.h:157"),
    "SoftMax<>/6": ("include/adv_api/activation/softmax.h:58", "lib/activation/softmax.h:44"),
    "SoftMaxShapeInfo": ("include/adv_api/activation/softmax_utils.h:73",
                         "lib/../impl/activation/softmax/softmax_common/softmax_common_utils.h:70"),
}
DECLARED_RMSNORM = {
    "RmsNorm<>/6": ("include/adv_api/normalization/rmsnorm.h:47", "lib/normalization/rmsnorm.h:36"),
    "RmsNorm<>/5": ("include/adv_api/normalization/rmsnorm.h:77", "lib/normalization/rmsnorm.h:62"),
}
DECLARED_QUANT = {
    "AscendQuant<>/6": ("include/adv_api/quantization/ascend_quant.h:64", "lib/quantization/ascend_quant.h:50"),
    "AscendQuant<>/5": ("include/adv_api/quantization/ascend_quant.h:88", "lib/quantization/ascend_quant.h:69"),
    "AscendQuantConfig/4": ("include/adv_api/quantization/ascend_quant_utils.h:32",
                            "lib/quantization/ascend_quant_utils.h:21"),
}

FLOATS = frozenset({"float16", "float32"})
# sum in the vendor's order, exp and div as the basic records: against float64, a few float ulps per step
SOFTMAX_TOL = {"float16": (2e-3, 2e-4), "float32": (2e-5, 1e-7)}

register_adv(
    adv_record("adv_softmax", "SoftMax",
               AdvSpec(("dst", "sum", "max"), ("src",), _softmax, softmax_min_tmp, softmax_max_tmp, counted=False,
                       extent=_softmax_extent, distinct=(("dst", "sum"), ("dst", "max"), ("sum", "max"))),
               _emit_softmax, FLOATS, DECLARED_SOFTMAX, SOFTMAX_TOL, header="activation/softmax.h",
               cpp_model=CppModel(header="SoftMax (toolchain/include/asc_trace_adv.h)")),
    adv_record("adv_rmsnorm", "RmsNorm",
               AdvSpec(("dst",), ("src", "gamma"), _rmsnorm,
                       lambda nd, n: max(rmsnorm_min_tmp(nd), rmsnorm_tiling_tmp(nd)), rmsnorm_tiling_tmp,
                       scalars=("epsilon",), counted=False, extent=_rmsnorm_extent, distinct=()),
               _emit_rmsnorm, FLOATS, DECLARED_RMSNORM, TOL_STEPS, header="normalization/rmsnorm.h",
               api_sync=_rmsnorm_sync, api_events=(HardEvent.V_S,),
               cpp_model=CppModel(header="RmsNorm (toolchain/include/asc_trace_adv.h)")),
    adv_record("adv_quant", "AscendQuant",
               AdvSpec(("dst",), ("src",), _quant, quant_min_tmp, quant_max_tmp, scalars=("scale", "offset"),
                       distinct=()),
               _emit_quant, FLOATS,
               DECLARED_QUANT, {"float16": (0.0, 1.0), "float32": (0.0, 1.0)},
               header="quantization/ascend_quant.h",
               cpp_model=CppModel(header="AscendQuant (toolchain/include/asc_trace_adv.h)")),
)
