"""Activations of the high-level API (Ascend C `include/adv_api/activation`), each the vendor's A2 steps
(`impl/adv_api/detail/activation/<name>/`), in the element type unless said otherwise:

- Gelu (gelu_impl.h GeluCalcSimplifiedAvoid, highPrecision = highPerformance = false):
  y = 1.5957691216057308 * (x + 0.044715 * x^3); x / (exp(-|y|) + 1) * exp(min(y, 0)).
- FasterGelu (FastGeluCalcSimplified): x / (exp(-1.702 x) + 1).
- Silu (silu_common_impl.h): x / (exp(-x) + 1). Sigmoid (sigmoid_impl.h): 1 / (exp(-x) + 1).
- SwiGLU (swiglu_common_impl.h): src0 * swish(src1), swish(x) = x / (exp(-beta x) + 1), in float (half
  widened first and narrowed at the end).
"""
from __future__ import annotations

import numpy as np

from ...dtypes import float16, float32
from .adv_common import ONE_REPEAT, AdvSpec, Steps, adv_record, register_adv
from .adv_math import TOL_STEPS
from .opdef import CppModel

FLOATS = frozenset({"float16", "float32"})


def _c(x: np.ndarray, v: float):
    """A coefficient as the vendor's `const T`."""
    return np.asarray(v, dtype=x.dtype)


def _gelu(st: Steps, ins, sc, node) -> dict:
    x = ins["src"]
    a = st.binary("mul", x, x)
    b = st.binary("mul", x, a)
    a = st.scalar("muls", b, _c(x, 0.044715))
    b = st.binary("add", x, a)
    y = st.scalar("muls", b, _c(x, 1.5957691216057308))
    e = st.unary("exp", st.scalar("mins", y, _c(x, 0.0)))
    a = st.unary("abs", y)
    a = st.unary("exp", st.scalar("muls", a, _c(x, -1.0)))
    a = st.binary("div", x, st.scalar("adds", a, _c(x, 1.0)))
    return {"dst": st.binary("mul", a, e)}


def _faster_gelu(st: Steps, ins, sc, node) -> dict:
    x = ins["src"]
    s = st.scalar("adds", st.unary("exp", st.scalar("muls", x, _c(x, -1.702))), _c(x, 1.0))
    return {"dst": st.binary("div", x, s)}


def _silu(st: Steps, ins, sc, node) -> dict:
    x = ins["src"]
    s = st.scalar("adds", st.unary("exp", st.scalar("muls", x, _c(x, -1.0))), _c(x, 1.0))
    return {"dst": st.binary("div", x, s)}


def _sigmoid(st: Steps, ins, sc, node) -> dict:
    x = ins["src"]
    s = st.scalar("adds", st.unary("exp", st.scalar("muls", x, _c(x, -1.0))), _c(x, 1.0))
    one = np.ones_like(s)
    st._note("duplicate", s)
    return {"dst": st.binary("div", one, s)}


def _swiglu(st: Steps, ins, sc, node) -> dict:
    a, b = ins["src0"], ins["src1"]
    half = a.dtype == np.float16
    b32 = st.cast(b, float32) if half else b
    beta = np.float32(-1.0) * np.asarray(sc["scalar_value"]).astype(np.float32)
    s = st.scalar("adds", st.unary("exp", st.scalar("muls", b32, beta)), np.float32(1.0))
    sw = st.binary("div", b32, s)
    a32 = st.cast(a, float32) if half else a
    y = st.binary("mul", a32, sw)
    return {"dst": st.cast(y, float16, "none") if half else y}


def _gelu_tmp(node, n) -> tuple[int, int]:
    """GetGeluMaxMinTmpSize: 3 repeats at least, 3 float buffers of n at most."""
    lo = 3 * ONE_REPEAT
    return lo, max(lo, 3 * int(n or 0) * 4)


def _sigmoid_tmp(node, n) -> tuple[int, int]:
    return ONE_REPEAT, max(ONE_REPEAT, int(n or 0) * node.attr("dtype").itemsize)


def _swiglu_tmp(node, n) -> tuple[int, int]:
    """GetSwiGLUMaxMinTmpSize: proc 6 for half (three float buffers of n), 0 for float."""
    proc = 6 if node.attr("dtype").itemsize == 2 else 0
    return proc * ONE_REPEAT, proc * max(int(n or 0) * node.attr("dtype").itemsize, ONE_REPEAT)


def _unary(name: str, c_name: str, algo, tmp, lines: dict, tol=TOL_STEPS):
    # the Gelu family checks only that the temporary buffer is not dst or src: it may run in place
    return adv_record(f"adv_{name}", c_name,
                      AdvSpec(("dst",), ("src",), algo, lambda nd, n: tmp(nd, n)[0], lambda nd, n: tmp(nd, n)[1],
                              distinct=() if "gelu" in name else None),
                      f"AscendC::{c_name}({{dst}}, {{src}}, {{tmp_arg}}{{count}});", FLOATS, lines, tol,
                      header=f"activation/{'gelu' if 'gelu' in name else name}.h",
                      # element-wise: the cpp backend's model is the same steps per element
                      cpp_model=CppModel(header=f"{c_name} (toolchain/include/asc_trace_adv.h)"))


def _gelu_decl(c: str, with_tmp: tuple[int, int], without: tuple[int, int]) -> dict:
    return {f"{c}/4": ("include/adv_api/activation/gelu.h:%d" % with_tmp[0], "lib/activation/gelu.h:%d" % with_tmp[1]),
            f"{c}/3": ("include/adv_api/activation/gelu.h:%d" % without[0], "lib/activation/gelu.h:%d" % without[1])}


register_adv(
    _unary("gelu", "Gelu", _gelu, _gelu_tmp, _gelu_decl("Gelu", (47, 31), (66, 49))),
    _unary("faster_gelu", "FasterGelu", _faster_gelu, _gelu_tmp, _gelu_decl("FasterGelu", (84, 67), (110, 86))),
    _unary("silu", "Silu", _silu, lambda nd, n: (0, 0),
           {"Silu/3": ("include/adv_api/activation/silu.h:48", "lib/activation/silu.h:34")}),
    _unary("sigmoid", "Sigmoid", _sigmoid, _sigmoid_tmp,
           {"Sigmoid/4": ("include/adv_api/activation/sigmoid.h:53", "lib/activation/sigmoid.h:40"),
            "Sigmoid/3": ("include/adv_api/activation/sigmoid.h:75", "lib/activation/sigmoid.h:57")}),
    adv_record("adv_swiglu", "SwiGLU",
               AdvSpec(("dst",), ("src0", "src1"), _swiglu, lambda nd, n: _swiglu_tmp(nd, n)[0],
                       lambda nd, n: _swiglu_tmp(nd, n)[1], scalars=("scalar_value",),
                       same_size=(("src0", "src1"),)),
               "AscendC::SwiGLU({dst}, {src0}, {src1}, {scalar_value}, {tmp_arg}{count});", FLOATS,
               {"SwiGLU/6": ("include/adv_api/activation/swiglu.h:109", "lib/activation/swiglu.h:95"),
                "SwiGLU/5": ("include/adv_api/activation/swiglu.h:86", "lib/activation/swiglu.h:73")},
               TOL_STEPS, header="activation/swiglu.h",
               cpp_model=CppModel(header="SwiGLU (toolchain/include/asc_trace_adv.h)")),
)
