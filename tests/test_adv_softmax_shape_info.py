"""asc.adv.softmax as pyasc's kernels call it: no temporary buffer (the vendor takes the UB after the TPipe's
buffers), an empty SoftmaxTiling, and the [m, k] shape carried by the source tensor (`set_shape_info`), in place
(dst is src, which the vendor's check allows)."""
from __future__ import annotations

import numpy as np
import pytest

import asc_trace as asc
from helpers import cpu_debug_ready

M, K = 8, 64


@asc.jit
def softmax_rows(x: asc.GlobalAddress, y: asc.GlobalAddress):
    xg, yg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x)
    yg.set_global_buffer(y)
    pipe = asc.TPipe()
    buf = asc.TBuf(asc.TPosition.VECCALC)
    pipe.init_buffer(buf, M * K * 4 + 2 * M * 32)
    a = buf.get(asc.float32)
    s, mx = a[M * K:], a[M * K + M * 8:]
    asc.data_copy(a, xg, M * K)
    a.set_shape_info(asc.ShapeInfo(asc.array(asc.int32, (M, K))))
    asc.adv.softmax(a, s, mx, a, asc.adv.SoftmaxTiling())
    asc.data_copy(yg, a, M * K)


def _expected(x: np.ndarray) -> np.ndarray:
    r = x.reshape(M, K).astype(np.float64)
    e = np.exp(r - r.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)).ravel()


BACKENDS = ["sim", "eager"] + (["cpu_debug"] if cpu_debug_ready() else [])


@pytest.mark.parametrize("backend", BACKENDS)
def test_softmax_takes_its_shape_from_the_tensor_and_needs_no_temporary_buffer(backend):
    x = (np.random.default_rng(5).standard_normal(M * K) * 3).astype(np.float32)
    y = np.zeros_like(x)
    asc.jit(softmax_rows, backend=backend)[1](x, y)
    np.testing.assert_allclose(y, _expected(x), rtol=2e-5, atol=1e-7)


def test_without_a_shape_the_error_names_the_three_ways_to_give_one():
    @asc.jit
    def no_shape(x: asc.GlobalAddress):
        a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, M * K)
        s = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, M * K * 4, M * 16)
        asc.adv.softmax(a, s, s[M * 8:], a, asc.adv.SoftmaxTiling())
    with pytest.raises(asc.TraceError, match=r"needs the shape \[m, k\].*set_shape_info"):
        no_shape[1](np.zeros(M * K, np.float32))
