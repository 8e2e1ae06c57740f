"""asc.adv.log_softmax: the vendor's LogSoftMax is log10 of the softmax (Ln, then Muls by log10 e); within the
stated tolerance of that in float64 (hypothesis), sim == eager, bit-exact with the vendor's implementation run
by cpu_debug (k under and over the 192-column switch of GenericLogNDImpl), its emission and errors."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lane import examples

import asc_trace as asc
from adv_kernels import log_softmax_kernel
from asc_trace.graph.ops import REGISTRY
from asc_trace.lower.api_symbols import unlisted
from helpers import needs_headers


def _run(m, k, dt, backend="sim", seed=0, tmp_bytes=16 * 1024):
    x = (np.random.default_rng(seed).standard_normal((m, k)) * 3).astype(dt)
    per = 32 // np.dtype(dt).itemsize
    z, mx, sm = np.zeros_like(x), np.zeros(m * per, dt), np.zeros(m * per, dt)
    log_softmax_kernel(m, k, tmp_bytes, np.dtype(dt).itemsize, backend=backend)[1](x, z, mx, sm)
    return x, (z, mx.reshape(m, per), sm.reshape(m, per))


@settings(max_examples=examples(10), deadline=None)
@given(m=st.integers(1, 8), kb=st.integers(1, 16), half=st.booleans(), seed=st.integers(0, 99))
def test_within_tolerance_of_log10_softmax(m, kb, half, seed):
    dt = np.float16 if half else np.float32
    k = kb * (16 if half else 8)
    x, (z, mx, sm) = _run(m, k, dt, seed=seed)
    x64 = x.astype(np.float64)
    e = np.exp(x64 - x64.max(1, keepdims=True))
    rtol, atol = REGISTRY["adv_log_softmax"].tolerance(np.dtype(dt).name)
    # log10 p has the absolute error of p's relative one (times log10 e): compared with atol scaled to |log10 p|
    want = np.log10(e / e.sum(1, keepdims=True))
    np.testing.assert_allclose(z, want, rtol=rtol * 4, atol=atol * 4 + rtol * 4)
    assert (mx == x.max(1, keepdims=True)).all()
    np.testing.assert_allclose(sm, np.broadcast_to(e.sum(1, keepdims=True), sm.shape), rtol=rtol * 4)


def test_sim_and_eager_agree():
    a, b = _run(4, 256, np.float16)[1], _run(4, 256, np.float16, "eager")[1]
    assert all(p.tobytes() == q.tobytes() for p, q in zip(a, b))


@needs_headers
@pytest.mark.parametrize("dt,m,k", [(np.float32, 4, 64), (np.float32, 3, 256), (np.float16, 4, 256),
                                    (np.float16, 5, 32)])
def test_bit_exact_with_the_vendor(dt, m, k):
    a, b = _run(m, k, dt)[1], _run(m, k, dt, "cpu_debug")[1]
    assert all(p.tobytes() == q.tobytes() for p, q in zip(a, b))


def test_emitted_and_host_helpers():
    x = np.zeros((4, 64), np.float32)
    ck = asc.compile(log_softmax_kernel(4, 64, type_size=4), (x, x.copy(), np.zeros(32, np.float32),
                                                               np.zeros(32, np.float32)))
    assert "AscendC::LogSoftMax<float>(asct_dst" in ck.source and "LogSoftMaxTiling asct_tiling" in ck.source
    assert unlisted(ck.source, "asc-devkit") == [] and unlisted(ck.source, "cann-8.1") == []
    assert asc.adv.GetLogSoftMaxMinTmpSize([8, 256], 2) == (16 + 256 + 64) * 4
    assert asc.adv.get_log_softmax_max_tmp_size([8, 256], 4) == 8 * (8 + 256 + 64) * 4
    t = asc.adv.LogSoftMaxTilingFunc([20, 64], 4, 4096)
    assert isinstance(t, asc.adv.LogSoftMaxTiling) and (t.split_m, t.range_m, t.tail_m) == (7, 2, 6)


def test_errors_at_the_users_line():
    x = np.zeros((4, 256), np.float16)
    per = np.zeros(4 * 16, np.float16)
    with pytest.raises(asc.UBOverflowError, match="holds 1024 bytes; the call needs at least 1344"):
        log_softmax_kernel(4, 256, tmp_bytes=1024, tiling_bytes=8192)[1](x, x.copy(), per, per.copy())

    @asc.jit
    def bad(x: asc.GlobalAddress):
        a = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 1024)
        s = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 4096, 64)
        tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, 8192, 4096)
        asc.adv.log_softmax(a, s, s[32:], a[512:], asc.adv.LogSoftMaxTiling(), tmp, shape=(2, 256))
    with pytest.raises(asc.DTypeError, match="sum is float32") as ei:
        bad[1](np.zeros(1024, np.float16))
    assert "test_adv_log_softmax.py" in str(ei.value)

    @asc.jit
    def no_tmp(x: asc.GlobalAddress):
        a = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 1024)
        asc.adv.log_softmax(a, a[512:], a[768:], a[256:], asc.adv.LogSoftMaxTiling(), None, shape=(1, 256))
    with pytest.raises(asc.TraceError, match="needs temp_buffer="):
        no_tmp[1](np.zeros(1024, np.float16))
    with pytest.raises(asc.TraceError, match="takes an asc.adv.LogSoftMaxTiling"):
        @asc.jit
        def wrong(x: asc.GlobalAddress):
            a = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 1024)
            asc.adv.log_softmax(a, a[512:], a[768:], a[256:], asc.adv.SoftmaxTiling(), a, shape=(1, 256))
        wrong[1](np.zeros(1024, np.float16))


def test_dst_may_not_be_src():
    """log_softmax_check_common.h checks dst, src, sum and max pairwise (SoftMax lets dst be src)."""
    @asc.jit
    def in_place(x: asc.GlobalAddress):
        a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 256)
        s = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 1024, 64)
        tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, 4096, 4096)
        asc.adv.log_softmax(a, s, s[32:], a, asc.adv.LogSoftMaxTiling(), tmp, shape=(4, 64))
    with pytest.raises(asc.OutOfBoundsError, match="dst and src of asc.adv.log_softmax are one tensor"):
        in_place[1](np.zeros(256, np.float32))
