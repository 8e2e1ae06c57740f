"""LogSoftMax (Ascend C `include/adv_api/activation/logsoftmax.h`, ND), the vendor's A2 steps
(`impl/adv_api/detail/activation/softmax/membase/common/logsoftmax_common_impl.h` LogSoftMaxGenericNDImpl):
SoftMax's steps (half widened to float; row max; x - max; Exp; the row sum in NewReduceSumLastNDImpl's order;
x / sum), then GenericLogNDImpl: Ln, and a Muls by 0.4342944819 (log10 e). So the vendor's LogSoftMax is
log10 of the softmax, not its natural log; asc_trace computes what the vendor computes.

The kernel recomputes its split from the temporary buffer (SoftMaxTilingFunc on the buffer's size), so the
LogSoftMaxTiling passed in does not change the result; the buffer must hold one row (GetLogSoftMaxMinTmpSize).
"""
from __future__ import annotations

import itertools

import numpy as np

from ...dtypes import float16
from .adv_common import AdvSpec, Steps, adv_record, operands, register_adv
from .adv_norm import SOFTMAX_FIELDS, SOFTMAX_TOL, _softmax, _softmax_extent, _struct
from .opdef import CppModel

LOG10_E = 0.4342944819      # SCALAR_NATURE_LOG_10, as the vendor writes it


def _log_softmax(st: Steps, ins, sc, node) -> dict:
    m, k = node.attr("shape")
    src = ins["src"]
    half = src.dtype == np.float16
    out = _softmax(st, ins, sc, node, narrow=False)
    y = st.scalar("muls", st.unary("ln", out["dst"]), np.float32(LOG10_E))
    # FLOAT2HALF_ROUND_MODE on A2 is CAST_ROUND: ties away from zero
    out["dst"] = (st.cast(y, float16, "round") if half else y).reshape(src.shape[0], m * k)
    return out


def log_softmax_min_tmp(node, _n=None) -> int:
    """GetLogSoftMaxMinTmpSize: one row, (32 / sizeof(T) + k + 64) floats."""
    _m, k = node.attr("shape")
    return (32 // node.attr("dtype").itemsize + k + 64) * 4


def log_softmax_max_tmp(node, _n=None) -> int:
    m, k = node.attr("shape")
    return m * (32 // node.attr("dtype").itemsize + k + 64) * 4


def _emit(ctx, node) -> str:
    tens, tmp, _s, _c = operands(node)
    m, k = node.attr("shape")
    tiling = _struct(ctx, node, "LogSoftMaxTiling", SOFTMAX_FIELDS)
    shape = f"asct_shape{node.id}"
    ctx.pre.append(f"AscendC::SoftMaxShapeInfo {shape} = {{{m}U, {k}U, {m}U, {k}U}};")
    t = node.attr("dtype").c_name
    # CANN 8.1 declares dst a non-const reference: a slice (a temporary) must be named first
    dst = f"asct_dst{node.id}"
    ctx.pre.append(f"AscendC::LocalTensor<{t}> {dst} = {ctx.ref(tens['dst'])};")
    args = ", ".join([dst] + [ctx.ref(tens[n]) for n in ("sum", "max", "src")])
    return f"AscendC::LogSoftMax<{t}>({args}, {ctx.ref(tmp)}, {tiling}, {shape});"


DECLARED = {"LogSoftMax<>/7": ("include/adv_api/activation/logsoftmax.h:55", "lib/activation/logsoftmax.h:41")}

register_adv(
    adv_record("adv_log_softmax", "LogSoftMax",
               AdvSpec(("dst", "sum", "max"), ("src",), _log_softmax, log_softmax_min_tmp, log_softmax_max_tmp,
                       counted=False, extent=_softmax_extent,
                       # log_softmax_check_common.h: no two of dst, src, sum, max are one tensor (unlike SoftMax,
                       # dst may not be src)
                       distinct=tuple(itertools.combinations(("dst", "src", "sum", "max"), 2))),
               _emit, frozenset({"float16", "float32"}), DECLARED, SOFTMAX_TOL, header="activation/logsoftmax.h",
               cpp_model=CppModel(header="LogSoftMax (toolchain/include/asc_trace_adv.h)")),
)
