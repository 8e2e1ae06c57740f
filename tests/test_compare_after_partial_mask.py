"""Compare and CompareScalar with a dst compare every lane of a repeat whatever the mask register holds (the A2
implementation never sets it for vcmpv / vcmpvs): after an op that leaves a partial mask, sim, eager and cpu_debug
(the stub's vcmpv / vcmpvs) give the same bits, those of NumPy."""
from __future__ import annotations

import numpy as np
import pytest

import asc_trace as asc
from asc_trace.toolchain.real_api import headers_if_configured
from op_cases import gm


@asc.jit
def partial_then_compare(x: asc.GlobalAddress, y: asc.GlobalAddress, w: asc.GlobalAddress, m: asc.GlobalAddress,
                         form: asc.ConstExpr[int]):
    per = 256 // x.dtype.sizeof()
    xl = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, per * 2)
    yl = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 4096, per * 2)
    wl = asc.LocalTensor(x.dtype, asc.TPosition.VECCALC, 8192, per)
    ml = asc.LocalTensor(asc.uint8, asc.TPosition.VECOUT, 12288, 64)
    asc.data_copy(xl, gm(x), per * 2)
    asc.data_copy(yl, gm(y), per * 2)
    asc.data_copy(wl, gm(w), per)
    asc.data_copy(ml, gm(m), 64)
    # the mask form leaves 5 lanes in the mask register (Ascend C does not restore it)
    asc.add(wl, wl, wl, 5, 1, asc.BinaryRepeatParams(1, 1, 1, 8, 8, 8))
    if form == 0:
        asc.compare(ml, xl, yl, asc.CMPMODE.LT, per * 2)
    elif form == 1:
        asc.compare(ml, xl, yl, asc.CMPMODE.LT, per, 2, asc.BinaryRepeatParams(1, 1, 1, 8, 8, 8))
    elif form == 2:
        asc.compare_scalar(ml, xl, 0.5, asc.CMPMODE.GT, per * 2)
    else:
        asc.compare_scalar(ml, xl, 0.5, asc.CMPMODE.GT, per, 2, asc.UnaryRepeatParams(1, 1, 8, 8))
    asc.data_copy(gm(w), wl, per)
    asc.data_copy(gm(m), ml, 64)


def _case(dtype: str, seed: int):
    rng = np.random.default_rng(seed)
    per = 256 // np.dtype(dtype).itemsize
    x, y = rng.integers(-2, 3, per * 2).astype(dtype), rng.integers(-2, 3, per * 2).astype(dtype)
    w = rng.integers(-2, 3, per).astype(dtype)
    m0 = rng.integers(0, 256, 64).astype(np.uint8)
    return per, x, y, w, m0


def _want(form: int, x: np.ndarray, y: np.ndarray, m0: np.ndarray) -> np.ndarray:
    bits = x < y if form < 2 else x > np.array(0.5, x.dtype)
    want = m0.copy()
    packed = np.packbits(bits, bitorder="little")
    want[:len(packed)] = packed
    return want


@pytest.mark.parametrize("form", [0, 1, 2, 3])
@pytest.mark.parametrize("dtype", ["float16", "float32"])
@pytest.mark.parametrize("backend", ["sim", "eager"])
def test_compare_reads_every_lane_after_a_partial_mask(form, dtype, backend):
    per, x, y, w, m0 = _case(dtype, 3 + form)
    m = m0.copy()
    asc.jit(partial_then_compare, backend=backend)[1](x, y, w.copy(), m, form)
    assert m.tobytes() == _want(form, x, y, m0).tobytes()


@pytest.mark.slow
@pytest.mark.skipif(headers_if_configured() is None, reason="no Ascend C headers configured (ASC_TRACE_ASCENDC_HOME)")
@pytest.mark.parametrize("form,dtype", [(0, "float16"), (1, "float32"), (2, "float32"), (3, "float16")])
def test_cpu_debug_compares_every_lane_after_a_partial_mask(form, dtype):
    per, x, y, w, m0 = _case(dtype, 3 + form)
    out = {}
    for backend in ("sim", "cpu_debug"):
        m, ww = m0.copy(), w.copy()
        asc.jit(partial_then_compare, backend=backend)[1](x, y, ww, m, form)
        out[backend] = m.tobytes() + ww.tobytes()
    assert out["sim"] == out["cpu_debug"]
    assert out["sim"][:64] == _want(form, x, y, m0).tobytes()
