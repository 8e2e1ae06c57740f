"""More high-level math (Ascend C `include/adv_api/math`) that runs on A2, each the vendor's steps
(`impl/adv_api/detail/math/<fn>/<fn>_common_impl.h`):

- Log2: float: Ln, Muls by float(1 / ln 2); half: Cast to float, Ln, Muls, Cast back (CAST_NONE), in
  splits of the temporary buffer (GetLog2MaxMinTmpSize: half max(n x 4, 256) .. 256; float none).
- Log10: Ln and Muls by T(1 / ln 10), in T (half stays half); no temporary buffer.
- ClampMax / ClampMin: one Mins / Maxs with the scalar, in T (GetClampMaxMinTmpSize asks n bytes at most,
  64 (float) / 128 (half) at least, which the A2 steps do not use).
"""
from __future__ import annotations

import numpy as np

from ...dtypes import float16, float32
from .adv_common import ONE_REPEAT, AdvSpec, Steps, adv_record, register_adv
from .adv_math import TOL_STEPS

FLOATS = frozenset({"float16", "float32"})
LN2_RECIPROCAL = 1.4426950408889634
LN10_RECIPROCAL = 0.43429448190325176


def _log2(st: Steps, ins, sc, node) -> dict:
    x = ins["src"]
    if x.dtype == np.float32:
        return {"dst": st.scalar("muls", st.unary("ln", x), np.float32(LN2_RECIPROCAL))}
    w = st.cast(x, float32)
    y = st.scalar("muls", st.unary("ln", w), np.float32(LN2_RECIPROCAL))
    return {"dst": st.cast(y, float16, "none")}


def _log10(st: Steps, ins, sc, node) -> dict:
    x = ins["src"]
    return {"dst": st.scalar("muls", st.unary("ln", x), np.asarray(LN10_RECIPROCAL, dtype=x.dtype))}


def _clamp(op: str):
    def algo(st: Steps, ins, sc, node) -> dict:
        x = ins["src"]
        return {"dst": st.scalar(op, x, np.asarray(sc["scalar"], dtype=x.dtype))}
    return algo


def _log2_tmp(node, n) -> tuple[int, int]:
    if node.attr("dtype").itemsize == 4:
        return 0, 0
    return ONE_REPEAT, max(int(n or 0) * 4, ONE_REPEAT)


def _clamp_tmp(node, n) -> tuple[int, int]:
    lo = 64 if node.attr("dtype").itemsize == 4 else 128
    return lo, max(int(n or 0), lo)


def _emit(c: str, scalar: bool = False) -> str:
    tail = "{scalar}, {count}" if scalar else "{count}"
    return f"AscendC::{c}({{dst}}, {{src}}, {{tmp_arg}}{tail});"


DECLARED = {
    "Log2": {"Log2/4": ("include/adv_api/math/log.h:76", "lib/math/log.h:66"),
             "Log2/3": ("include/adv_api/math/log.h:100", "lib/math/log.h:86")},
    "Log10": {"Log10/3": ("include/adv_api/math/log.h:146", "lib/math/log.h:134")},
    "ClampMax": {"ClampMax/5": ("include/adv_api/math/clamp.h:55", "lib/math/clamp.h:41"),
                 "ClampMax/4": ("include/adv_api/math/clamp.h:70", "lib/math/clamp.h:52")},
    "ClampMin": {"ClampMin/5": ("include/adv_api/math/clamp.h:104", "lib/math/clamp.h:83"),
                 "ClampMin/4": ("include/adv_api/math/clamp.h:119", "lib/math/clamp.h:94")},
}
TOL_EXACT = {"float16": (0.0, 0.0), "float32": (0.0, 0.0)}

register_adv(
    adv_record("adv_log2", "Log2", AdvSpec(("dst",), ("src",), _log2, lambda nd, n: _log2_tmp(nd, n)[0],
                                           lambda nd, n: _log2_tmp(nd, n)[1]),
               _emit("Log2"), FLOATS, DECLARED["Log2"], TOL_STEPS, header="math/log.h"),
    adv_record("adv_log10", "Log10", AdvSpec(("dst",), ("src",), _log10, lambda nd, n: 0, lambda nd, n: 0),
               _emit("Log10"), FLOATS, DECLARED["Log10"], TOL_STEPS, header="math/log.h"),
    adv_record("adv_clamp_max", "ClampMax",
               AdvSpec(("dst",), ("src",), _clamp("mins"), lambda nd, n: _clamp_tmp(nd, n)[0],
                       lambda nd, n: _clamp_tmp(nd, n)[1], scalars=("scalar",)),
               _emit("ClampMax", True), FLOATS, DECLARED["ClampMax"], TOL_EXACT, header="math/clamp.h"),
    adv_record("adv_clamp_min", "ClampMin",
               AdvSpec(("dst",), ("src",), _clamp("maxs"), lambda nd, n: _clamp_tmp(nd, n)[0],
                       lambda nd, n: _clamp_tmp(nd, n)[1], scalars=("scalar",)),
               _emit("ClampMin", True), FLOATS, DECLARED["ClampMin"], TOL_EXACT, header="math/clamp.h"),
)
TMP = {"log2": _log2_tmp, "clamp": _clamp_tmp}
__all__ = ["TMP", "LN2_RECIPROCAL", "LN10_RECIPROCAL"]
