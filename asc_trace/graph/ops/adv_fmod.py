"""Fmod (include/adv_api/math/fmod.h), the A2 steps of impl/adv_api/detail/math/fmod/fmod_common_impl.h:

- float: Div(src0, src1), Trunc (one Cast<float, float> CAST_TRUNC on A2), Mul by src1, Sub from src0;
  every step rounds to float, so the result is src0 - trunc(src0 / src1) * src1 in float, not C's exact fmod:
  where the float quotient rounds onto an integer the result is off by one src1, and src1 = +-inf gives NaN.
- half: Cast both sources to float (exact), the float steps, Cast back to half (CAST_NONE, to nearest even),
  in splits of stackSize = tmp bytes / 2 / 8 rounded down to 32 elements (element-wise, so the split does not
  change a value).

GetFmodMaxMinTmpSize (impl/adv_api/tiling/math/fmod_tiling_impl.cpp): Trunc's factor (half 2, float 1) plus
3 x 2 for half (the float copies of dst, src0, src1): max (f) x max(n x sizeof(T), 256), min (f) x 256.
"""
from __future__ import annotations

import numpy as np

from ...dtypes import float16, float32
from .adv_common import ONE_REPEAT, AdvSpec, Steps, adv_record, register_adv

FLOATS = frozenset({"float16", "float32"})
DECLARED = {"Fmod/5": ("include/adv_api/math/fmod.h:60", "lib/math/fmod.h:41"),
            "Fmod/4": ("include/adv_api/math/fmod.h:78", "lib/math/fmod.h:58")}
# Every step is a basic op's own record: bit-exact. The tolerance vs float64 fmod is in tests/test_adv_fmod.py,
# where the quotient does not round onto an integer (docs/adv.md says why).
TOL = {"float16": (1e-3, 1e-3), "float32": (1e-6, 1e-6)}


def _trunc(st: Steps, x: np.ndarray) -> np.ndarray:
    st._note("cast", x)          # Cast<float, float>(..., CAST_TRUNC): exact, keeps inf and NaN
    return np.trunc(x).astype(x.dtype)


def _fmod(st: Steps, ins, sc, node) -> dict:
    a, b = ins["src0"], ins["src1"]
    half = a.dtype == np.float16
    if half:
        a, b = st.cast(a, float32), st.cast(b, float32)
    with np.errstate(all="ignore"):
        q = _trunc(st, st.binary("div", a, b))
        r = st.binary("sub", a, st.binary("mul", q, b))
    return {"dst": st.cast(r, float16, "none") if half else r}


def fmod_factor(itemsize: int) -> int:
    """Trunc's factor (GetTruncMaxMinTmpSize: half 2, float 1) plus Fmod's own 3 x 2 float copies for half."""
    return 2 + 6 if itemsize == 2 else 1


def _fmod_tmp(node, n) -> tuple[int, int]:
    size = node.attr("dtype").itemsize
    f = fmod_factor(size)
    return f * ONE_REPEAT, f * max(int(n or 0) * size, ONE_REPEAT)


register_adv(adv_record(
    "adv_fmod", "Fmod",
    AdvSpec(("dst",), ("src0", "src1"), _fmod, lambda nd, n: _fmod_tmp(nd, n)[0], lambda nd, n: _fmod_tmp(nd, n)[1],
            same_size=(("src0", "src1"),)),
    "AscendC::Fmod({dst}, {src0}, {src1}, {tmp_arg}{count});", FLOATS, DECLARED, TOL, header="math/fmod.h"))
__all__ = ["fmod_factor"]
