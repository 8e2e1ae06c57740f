"""Swish and the gated linear units GeGLU and ReGlu (Ascend C `include/adv_api/activation`), each the vendor's
A2 steps (`impl/adv_api/detail/activation/<name>/`):

- Swish (swish_common_impl.h SwishCalcSimplified), in T: the scalar is `T(-1.0f * float(beta))`, then
  Muls, Exp, Adds 1, Div: y = x / (exp(-beta x) + 1). No temporary buffer.
- GeGLU (geglu_common_impl.h GeGLUCompute): y = x0 * x1 / (exp((x1^2 + C1) x1 C0) + 1), C0 = -0.0713548162726,
  C1 = 22.363860002236 (the tanh GELU written as a sigmoid); float in T, half widened to float (CAST_NONE) and
  narrowed at the end with CAST_NONE (round to nearest even).
- ReGlu (reglu_common_impl.h + reglu_v220_impl.h): y = x0 * max(x1, 0) in float; half is widened and narrowed.
"""
from __future__ import annotations

import numpy as np

from ...dtypes import float16, float32
from .adv_common import ONE_REPEAT, AdvSpec, Steps, adv_record, register_adv
from .adv_math import TOL_STEPS
from .opdef import CppModel

FLOATS = frozenset({"float16", "float32"})
GEGLU_C0 = -0.0713548162726
GEGLU_C1 = 2.2363860002236e1


def _swish(st: Steps, ins, sc, node) -> dict:
    x = ins["src"]
    # the vendor negates beta in float and converts back to T (exact for half and float)
    neg = np.asarray(np.float32(-1.0) * np.float32(np.asarray(sc["beta"]).astype(x.dtype))).astype(x.dtype)
    s = st.scalar("adds", st.unary("exp", st.scalar("muls", x, neg)), np.asarray(1.0, x.dtype))
    return {"dst": st.binary("div", x, s)}


def _geglu(st: Steps, ins, sc, node) -> dict:
    a, b = ins["src0"], ins["src1"]
    half = a.dtype == np.float16
    b = st.cast(b, float32) if half else b
    c0, c1, one = (np.asarray(v, dtype=b.dtype) for v in (GEGLU_C0, GEGLU_C1, 1.0))
    t = st.scalar("adds", st.binary("mul", b, b), c1)
    t = st.scalar("muls", st.binary("mul", t, b), c0)
    t = st.binary("div", b, st.scalar("adds", st.unary("exp", t), one))
    a = st.cast(a, float32) if half else a
    y = st.binary("mul", a, t)
    return {"dst": st.cast(y, float16, "none") if half else y}


def _reglu(st: Steps, ins, sc, node) -> dict:
    a, b = ins["src0"], ins["src1"]
    half = a.dtype == np.float16
    if half:                    # both casts come first (ReGluCompute), then Maxs and Mul in float
        a, b = st.cast(a, float32), st.cast(b, float32)
    y = st.binary("mul", a, st.scalar("maxs", b, np.asarray(0.0, b.dtype)))
    return {"dst": st.cast(y, float16, "none") if half else y}


def _geglu_tmp(node, n) -> tuple[int, int]:
    """GetGeGLUMaxMinTmpSize: 4 x max(n x sizeof(T), 256) for half, at least 4 x 256; nothing for float."""
    proc = 4 if node.attr("dtype").itemsize == 2 else 0
    return proc * ONE_REPEAT, proc * max(int(n or 0) * node.attr("dtype").itemsize, ONE_REPEAT)


def _reglu_tmp(node, n) -> tuple[int, int]:
    """GetReGluMaxMinTmpSize: float 256 and 256; half max(n x 6 x 2, 6 x 256), at least 6 x 256."""
    if node.attr("dtype").itemsize == 4:
        return ONE_REPEAT, ONE_REPEAT
    lo = 6 * ONE_REPEAT
    return lo, max(lo, int(n or 0) * 6 * 2)


def _glu(name: str, c_name: str, algo, tmp, decl: dict, same_size: tuple = (), modelled: bool = False) -> object:
    return adv_record(f"adv_{name}", c_name,
                      AdvSpec(("dst",), ("src0", "src1"), algo, lambda nd, n: tmp(nd, n)[0],
                              lambda nd, n: tmp(nd, n)[1], same_size=same_size),
                      f"AscendC::{c_name}({{dst}}, {{src0}}, {{src1}}, {{tmp_arg}}{{count}});", FLOATS, decl,
                      TOL_STEPS, header=f"activation/{name}.h",
                      cpp_model=CppModel(header=f"{c_name} (toolchain/include/asc_trace_adv.h)") if modelled else None)


register_adv(
    adv_record("adv_swish", "Swish",
               AdvSpec(("dst",), ("src",), _swish, lambda nd, n: 0, lambda nd, n: 0, scalars=("beta",)),
               "AscendC::Swish({dst}, {src}, {count}, {beta});", FLOATS,
               {"Swish/4": ("include/adv_api/activation/swish.h:48", "lib/activation/swish.h:34")},
               TOL_STEPS, header="activation/swish.h",
               cpp_model=CppModel(header="Swish (toolchain/include/asc_trace_adv.h)")),
    _glu("geglu", "GeGLU", _geglu, _geglu_tmp,
         {"GeGLU/5": ("include/adv_api/activation/geglu.h:48", "lib/activation/geglu.h:34"),
          "GeGLU/4": ("include/adv_api/activation/geglu.h:64", "lib/activation/geglu.h:49")},
         same_size=(("src0", "src1"),), modelled=True),      # GeGLUImpl: "Size of src0 ... is not equal to size of src1"
    _glu("reglu", "ReGlu", _reglu, _reglu_tmp,
         {"ReGlu/5": ("include/adv_api/activation/reglu.h:47", "lib/activation/reglu.h:33"),
          "ReGlu/4": ("include/adv_api/activation/reglu.h:67", "lib/activation/reglu.h:49")}, modelled=True),
)
