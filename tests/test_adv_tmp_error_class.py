"""A high-level call's scratch below the vendor's minimum is one error class on every backend: sim and eager
check the temporary buffer (runtime/executors_adv.py check_tmp: UBOverflowError), and cpu_debug must classify
the vendor's own refusal the same way. Before, SoftMax's "softmax need min tmpbuffer is not enough." was a plain
AscTraceError and Gelu's "params.stackSize must > 0!" an OutOfBoundsError on cpu_debug."""
from __future__ import annotations

import numpy as np
import pytest

import asc_trace as asc
from asc_trace.runtime.cpu_debug import _api_error_class
from helpers import assert_points_at, every_backend

R, C = 8, 64
GN = 1024


@pytest.mark.parametrize("text", ["softmax need min tmpbuffer is not enough.",
                                  "softmaxflash need min tmpbuffer is not enough.",
                                  "params.stackSize must > 0!"])
def test_the_vendors_scratch_refusals_are_ub_overflows(text):
    assert _api_error_class(text, "softmax_tiling_func.h:63 SoftMaxTilingFunc") is asc.UBOverflowError


def softmax_small_tmp(x: asc.GlobalAddress, y: asc.GlobalAddress, tmp_bytes: asc.ConstExpr[int]):
    xg, yg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x, R * C)
    yg.set_global_buffer(y, R * C)
    src = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, R * C)
    sm = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 4096, R * 8)
    mx = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 8192, R * 8)
    tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, 16384, tmp_bytes)
    asc.data_copy(src, xg, R * C)
    asc.adv.softmax(src, sm, mx, src, asc.adv.SoftmaxTiling(), tmp, shape=(R, C))  # MARK-softmax-small
    asc.data_copy(yg, src, R * C)


def gelu_small_tmp(x: asc.GlobalAddress, y: asc.GlobalAddress, tmp_bytes: asc.ConstExpr[int]):
    xg, yg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x, GN)
    yg.set_global_buffer(y, GN)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, GN)
    b = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 4 * GN, GN)
    tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, 8 * GN, tmp_bytes)
    asc.data_copy(a, xg, GN)
    asc.adv.gelu(b, a, GN, tmp)                                                    # MARK-gelu-small
    asc.data_copy(yg, b, GN)


BACKENDS = [b for b in every_backend() if getattr(b, "values", (b,))[0] != "cpp"]   # cpp: no adv SoftMax model


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kernel, n, mark", [(softmax_small_tmp, R * C, "MARK-softmax-small"),
                                             (gelu_small_tmp, GN, "MARK-gelu-small")])
def test_a_too_small_temp_buffer_is_a_ub_overflow_everywhere(backend, kernel, n, mark):
    x = np.random.default_rng(0).standard_normal(n).astype(np.float32)
    y = np.zeros_like(x)
    with pytest.raises(asc.UBOverflowError) as ei:
        asc.jit(kernel, backend=backend)[1](x, y, 32)
    assert_points_at(ei.value, mark, __file__)
    assert not y.any()                      # refused before anything was written


# -- the same gap without a TPipe: pyasc's insert_sync softmax test (LocalTensorAuto, no temp buffer) ----------

def auto_softmax(x: asc.GlobalAddress, y: asc.GlobalAddress):
    xg, yg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x, R * C)
    yg.set_global_buffer(y, R * C)
    src = asc.LocalTensorAuto(asc.float32, R * C)
    sm = asc.LocalTensorAuto(asc.float32, R * 8)
    mx = asc.LocalTensorAuto(asc.float32, R * 8)
    asc.data_copy(src, xg, R * C)
    asc.adv.softmax(src, sm, mx, src, asc.adv.SoftmaxTiling(), shape=(R, C))
    asc.data_copy(yg, src, R * C)


def test_softmax_without_temp_buffer_and_no_tpipe_is_refused_on_sim_as_on_the_vendors_api():
    # the vendor's SoftMax without a temp buffer pops its scratch from the TPipe's free UB; with no TPipe its API
    # refuses the call, and so does the trace (adv/_record.py), at the call, before anything runs
    x = np.random.default_rng(0).standard_normal(R * C).astype(np.float32)
    y = np.zeros_like(x)
    for backend in ("sim", "eager"):
        with pytest.raises(asc.TraceError, match="TPipe"):
            asc.jit(auto_softmax, backend=backend)[1](x, y)
    assert not y.any()
