"""asc.adv.batchnorm: within the stated tolerance of float64 NumPy (hypothesis), sim == eager, the pass split not
changing the result, bit-exact with the vendor's implementation run by cpu_debug, the host helpers' values (the
vendor's batchnorm_tiling_impl.cpp), the emitted call, and the errors at the user's line before any write."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lane import examples

import asc_trace as asc
from adv_variant_kernels import batchnorm_kernel
from asc_trace.graph.ops import REGISTRY
from asc_trace.lower.api_symbols import unlisted
from helpers import needs_headers


def _run(b, s, h, dt, tmp_bytes=8192, backend="sim", seed=0, eps=1e-5, **kw):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(b * s * h) * 2 + 1).astype(dt)
    per = 32 // np.dtype(dt).itemsize
    bp = -(-b // per) * per
    g, be = rng.standard_normal(bp).astype(dt), rng.standard_normal(bp).astype(dt)
    z, m, v = np.zeros_like(x), np.zeros(s * h, dt), np.zeros(s * h, dt)
    batchnorm_kernel(b, s, h, tmp_bytes, np.dtype(dt).itemsize, backend=backend, eps=eps, **kw)[1](x, g, be, z, m, v)
    return (x, g[:b], be[:b]), (z, m, v)


@settings(max_examples=examples(12), deadline=None)
@given(b=st.integers(1, 9), s=st.integers(1, 3), hb=st.integers(1, 6), half=st.booleans(),
       tmp_kb=st.sampled_from([2, 8, 32]), seed=st.integers(0, 99))
def test_within_tolerance_of_float64(b, s, hb, half, tmp_kb, seed):
    dt = np.float16 if half else np.float32
    h = hb * (16 if half else 8)
    if tmp_kb * 1024 < asc.adv.get_batchnorm_max_min_tmp_size([b, s, h], [b, s, h], np.dtype(dt).itemsize)[1]:
        return
    (x, g, be), (z, m, v) = _run(b, s, h, dt, tmp_kb * 1024, seed=seed)
    xr = x.astype(np.float64).reshape(b, s * h)
    mu, var = xr.mean(0), xr.var(0)
    want = (xr - mu) / np.sqrt(var + 1e-5) * g.astype(np.float64)[:, None] + be.astype(np.float64)[:, None]
    rtol, atol = REGISTRY["adv_batchnorm"].tolerance(np.dtype(dt).name)
    # x - mean cancels: x and the mean are each rounded to dt (half an ulp of |x|), and that error, divided by the
    # standard deviation, is in the result whatever the algorithm (two close rows: |x| / |x - mean| ~ 500 seen)
    cond = np.finfo(dt).eps * (np.abs(xr) + np.abs(mu)) / np.sqrt(var + 1e-5) * np.abs(g.astype(np.float64))[:, None]
    err = np.abs(z.reshape(b, s * h).astype(np.float64) - want)
    assert (err <= rtol * np.abs(want) + atol * 4 + cond).all(), (err.max(), np.argmax(err))
    np.testing.assert_allclose(m, mu, rtol=rtol, atol=atol)
    np.testing.assert_allclose(v, var, rtol=rtol, atol=atol * 4)


def test_sim_and_eager_agree_and_the_split_does_not_change_the_result():
    a = _run(3, 2, 64, np.float16)[1]
    b = _run(3, 2, 64, np.float16, backend="eager")[1]
    c = _run(3, 2, 64, np.float16, tmp_bytes=2752)[1]        # 48 columns a pass: 2 passes and a tail of 32
    t = asc.adv.get_batchnorm_nd_tiling_info([3, 2, 64], [3, 2, 64], 2752, 2)
    assert (t.loop_round, t.sh_cur_length, t.mean_var_tail_size) == (2, 48, 32)
    d = _run(3, 2, 64, np.float16, with_tmp=False)[1]          # the stack-buffer form
    assert all(p.tobytes() == q.tobytes() == r.tobytes() == w.tobytes() for p, q, r, w in zip(a, b, c, d))


def test_one_row_gives_beta_and_a_zero_variance():
    """b = 1: mean = x, variance = 0, so dst = beta (r = exp(-0.5 ln eps) times 0)."""
    (x, _g, be), (z, m, v) = _run(1, 1, 64, np.float32)
    assert (m == x).all() and (v == 0).all() and (z == be[0]).all()


@needs_headers
@pytest.mark.slow
@pytest.mark.parametrize("b,s,h,dt,tmp", [(3, 2, 32, np.float32, 8192), (3, 2, 32, np.float16, 8192),
                                          (5, 4, 40, np.float32, 2048), (2, 3, 32, np.float16, 1536),
                                          (7, 1, 48, np.float16, 2048), (4, 2, 24, np.float32, 1024),
                                          (3, 2, 64, np.float16, 2752), (4, 2, 24, np.float32, 1536)])
def test_bit_exact_with_the_vendor(b, s, h, dt, tmp):
    """One pass, several passes, passes and a tail (the last two), b not a multiple of 8."""
    a, c = _run(b, s, h, dt, tmp)[1], _run(b, s, h, dt, tmp, backend="cpu_debug")[1]
    assert all(p.tobytes() == q.tobytes() for p, q in zip(a, c))


def test_host_helpers_give_the_vendors_values():
    # batchnorm_tiling_impl.cpp: max 3 x align32(b*s*h floats) + 2 x align32(s*h floats); min 3 x b x 32 bytes
    # (64 for half) + the same 2 x align32(s*h floats)
    assert asc.adv.get_batchnorm_max_min_tmp_size([3, 2, 64], [3, 2, 64], 2) == (3 * 1536 + 2 * 512,
                                                                               3 * 3 * 64 + 2 * 512)
    assert asc.adv.GetBatchNormMaxMinTmpSize([4, 1, 24], [4, 1, 24], 4) == (3 * 384 + 2 * 96, 3 * 4 * 32 + 2 * 96)
    t = asc.adv.get_batchnorm_nd_tiling_info([3, 2, 64], [3, 2, 64], 2752, 2)
    # 688 floats - 2 x 128 (half: mean and variance tmp) = 432 / 3 = 144, a multiple of b x 16 = 48
    assert (t.tmp_buf_size, t.mean_tmp_tensor_pos, t.variance_tmp_tensor_pos) == (688, 0, 128)
    assert (t.one_tmp_size, t.first_tmp_start_pos, t.second_tmp_start_pos, t.third_tmp_start_pos) == (144, 256,
                                                                                                      400, 544)
    assert (t.loop_round, t.input_tail_size, t.input_tail_pos, t.mean_var_tail_size, t.mean_var_tail_pos) == (
        2, 96, 96, 32, 96)
    t = asc.adv.GetBatchNormNDTilingInfo([4, 2, 24], [4, 2, 24], 1024, 4)     # float: no mean / variance tmp
    assert (t.first_tmp_start_pos, t.one_tmp_size, t.sh_cur_length, t.loop_round, t.input_tail_size) == (
        0, 64, 16, 3, 0)
    assert (t.cast_half_rep_stride, t.sh_cur_length_block_num, t.cast_half_out_rep_stride) == (4, 2, 3)
    assert t.first_dim_value_back == pytest.approx(1 / 4)
    with pytest.raises(asc.TraceError, match="below the minimum"):
        asc.adv.get_batchnorm_nd_tiling_info([8, 1, 64], [8, 1, 64], 1024, 4)
    with pytest.raises(asc.AlignmentError, match="not a multiple of 32"):
        asc.adv.get_batchnorm_nd_tiling_info([2, 1, 12], [2, 1, 12], 4096, 4)
    with pytest.raises(asc.TraceError, match="basic-block"):
        asc.adv.get_batchnorm_max_min_tmp_size([8, 1, 64], [8, 1, 64], 4, False, True)


def test_emitted_as_the_vendors_call():
    x = np.zeros(3 * 64, np.float16)
    g = np.zeros(16, np.float16)
    ck = asc.compile(batchnorm_kernel(3, 2, 32, 8192, 2), (x, g, g.copy(), x.copy(), x[:64].copy(), x[:64].copy()))
    assert "AscendC::BatchNorm<half>(" in ck.source and "BatchNormTiling asct_tiling" in ck.source
    assert ".firstDimValueBack = " in ck.source
    assert unlisted(ck.source, "asc-devkit") == [] and unlisted(ck.source, "cann-8.1") == []


# -- errors ---------------------------------------------------------------------------------------

def _zeros(b, s, h, dt=np.float32):
    per = 32 // np.dtype(dt).itemsize
    bp = -(-b // per) * per
    return (np.zeros(b * s * h, dt), np.zeros(bp, dt), np.zeros(bp, dt), np.full(b * s * h, 3, dt),
            np.zeros(s * h, dt), np.zeros(s * h, dt))


def test_a_temporary_buffer_below_the_tiling_is_refused_before_any_write():
    t = asc.adv.get_batchnorm_nd_tiling_info([2, 3, 64], [2, 3, 64], 4096, 4)
    args = _zeros(2, 3, 64)
    for backend in ("sim", "eager"):
        with pytest.raises(asc.UBOverflowError, match="holds 2048 bytes; the call needs at least 4096") as ei:
            batchnorm_kernel(2, 3, 64, 2048, 4, tiling=t, backend=backend)[1](*args)
        assert "adv_variant_kernels.py" in str(ei.value) and (args[3] == 3).all()


def test_a_tiling_that_does_not_fit_is_refused_at_the_call_on_every_backend():
    t = asc.adv.get_batchnorm_nd_tiling_info([2, 3, 64], [2, 3, 64], 4096, 4)
    for wrong, what in ((dataclasses.replace(t, loop_round=t.loop_round + 1), "loop_round"),
                        (dataclasses.replace(t, mean_var_size=200), "not a multiple of 32|does not describe"),
                        (asc.adv.BatchNormTiling(), "describes no shape")):
        for backend in ("sim", "cpp", "cpu_debug"):
            with pytest.raises(asc.TraceError, match=what) as ei:
                batchnorm_kernel(2, 3, 64, 4096, 4, tiling=wrong, backend=backend)[1](*_zeros(2, 3, 64))
            assert "adv_variant_kernels.py" in str(ei.value)


def test_dtype_reuse_and_the_options_not_modelled():
    t = asc.adv.get_batchnorm_nd_tiling_info([2, 1, 64], [2, 1, 64], 4096, 4)

    @asc.jit
    def mixed(x: asc.GlobalAddress):
        a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 512)
        h = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 4096, 64)
        asc.adv.batchnorm(a, a[128:], a[192:], a[256:], h, a[384:], 1e-5, t)
    with pytest.raises(asc.DTypeError, match="gamma is float16") as ei:
        mixed[1](np.zeros(512, np.float32))
    assert "test_adv_batchnorm.py" in str(ei.value)

    @asc.jit
    def mean_is_variance(x: asc.GlobalAddress):
        a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 512)
        o = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 4096, 512)
        tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, 8192, 4096)
        asc.adv.batchnorm(o, o[128:], o[128:], a, a[256:], a[264:], 1e-5, t, tmp)
    with pytest.raises(asc.OutOfBoundsError, match="are one tensor") as ei:
        mean_is_variance[1](np.zeros(512, np.float32))
    assert "test_adv_batchnorm.py" in str(ei.value)

    @asc.jit
    def reuse(x: asc.GlobalAddress):
        a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 512)
        asc.adv.batchnorm(a, a[128:], a[192:], a[256:], a, a, 1e-5, t, is_reuse_source=True)
    with pytest.raises(asc.TraceError, match="isReuseSource") as ei:
        reuse[1](np.zeros(512, np.float32))
    assert "test_adv_batchnorm.py" in str(ei.value)
