"""asc.adv.deepnorm: within the stated tolerance of float64 NumPy (hypothesis), sim == eager, the round split not
changing the result, bit-exact with the vendor's implementation run by cpu_debug, the host helpers' values (the
vendor's deepnorm_tiling_impl.cpp), the emitted call, and the errors at the user's line before any write."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lane import examples

import asc_trace as asc
from adv_variant_kernels import deepnorm_kernel
from asc_trace.graph.ops import REGISTRY
from asc_trace.lower.api_symbols import unlisted
from helpers import needs_headers


def _run(b, s, h, dt, tmp_bytes=8192, backend="sim", seed=0, oh=None, alpha=0.8, **kw):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(b * s * h) * 2 + 1).astype(dt)
    gx = rng.standard_normal(b * s * h).astype(dt)
    g, be = rng.standard_normal(h).astype(dt), rng.standard_normal(h).astype(dt)
    per = 32 // np.dtype(dt).itemsize
    rp = -(-b * s // per) * per
    z, m, v = np.zeros_like(x), np.zeros(rp, dt), np.zeros(rp, dt)
    deepnorm_kernel(b, s, h, tmp_bytes, np.dtype(dt).itemsize, backend=backend, oh=oh, alpha=alpha,
                    **kw)[1](x, gx, be, g, z, m, v)
    return (x, gx, g, be), (z, m[:b * s], v[:b * s])


@settings(max_examples=examples(12), deadline=None)
@given(b=st.integers(1, 3), s=st.integers(1, 4), hb=st.integers(1, 12), half=st.booleans(),
       tmp_kb=st.sampled_from([2, 8, 32]), alpha=st.sampled_from([0.5, 0.8, 1.5]), seed=st.integers(0, 99))
def test_within_tolerance_of_float64(b, s, hb, half, tmp_kb, alpha, seed):
    dt = np.float16 if half else np.float32
    h = hb * (16 if half else 8)
    if tmp_kb * 1024 < asc.adv.get_deepnorm_max_min_tmp_size([b, s, h], np.dtype(dt).itemsize)[1]:
        return
    (x, gx, g, be), (z, m, v) = _run(b, s, h, dt, tmp_kb * 1024, seed=seed, alpha=alpha)
    a = float(np.asarray(alpha, dt))                     # alpha is a T parameter
    x1 = (a * x.astype(np.float64) + gx.astype(np.float64)).reshape(b * s, h)
    mu, var = x1.mean(1), x1.var(1)
    want = (x1 - mu[:, None]) / np.sqrt(var[:, None] + 1e-5) * g.astype(np.float64) + be.astype(np.float64)
    rtol, atol = REGISTRY["adv_deepnorm"].tolerance(np.dtype(dt).name)
    np.testing.assert_allclose(z.reshape(b * s, h), want, rtol=rtol, atol=atol * 4)
    np.testing.assert_allclose(m, mu, rtol=rtol, atol=atol)
    np.testing.assert_allclose(v, var, rtol=rtol, atol=atol * 4)


def test_sim_and_eager_agree_and_the_split_does_not_change_the_result():
    a = _run(1, 5, 80, np.float16)[1]
    b = _run(1, 5, 80, np.float16, backend="eager")[1]
    c = _run(1, 5, 80, np.float16, tmp_bytes=2048)[1]        # 2 rows a round: 2 rounds and a tail row
    d = _run(1, 5, 80, np.float16, with_tmp=False)[1]        # the stack-buffer form
    assert all(p.tobytes() == q.tobytes() == r.tobytes() == w.tobytes() for p, q, r, w in zip(a, b, c, d))


def test_original_h_limits_the_statistics_and_the_rstd_operand_is_the_variance():
    (x, gx, _g, _be), (_z, m, v) = _run(1, 3, 32, np.float32, oh=30)
    x1 = (np.float64(np.float32(0.8)) * x + gx).reshape(3, 32)[:, :30]
    np.testing.assert_allclose(m, x1.mean(1), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(v, x1.var(1), rtol=1e-5, atol=1e-6)      # not 1 / sqrt(var + eps)


@needs_headers
@pytest.mark.slow
@pytest.mark.parametrize("b,s,h,dt,tmp,oh", [(2, 3, 64, np.float32, 8192, None), (2, 3, 64, np.float16, 8192, None),
                                             (1, 5, 80, np.float16, 2048, None), (3, 1, 32, np.float32, 2048, 30),
                                             (2, 2, 256, np.float32, 4096, None), (1, 3, 200, np.float32, 4096, 190),
                                             (5, 1, 48, np.float16, 1024, 40)])
def test_bit_exact_with_the_vendor(b, s, h, dt, tmp, oh):
    """One round, rounds with a tail row, original_h below h, a row of more than one repeat (200 floats)."""
    a, c = _run(b, s, h, dt, tmp, oh=oh)[1], _run(b, s, h, dt, tmp, oh=oh, backend="cpu_debug")[1]
    assert all(p.tobytes() == q.tobytes() for p, q in zip(a, c))


def test_host_helpers_give_the_vendors_values():
    # deepnorm_tiling_impl.cpp: max 3 x align32(b*s*h floats) + 2 x align32(b*s floats); min 3 x align32(h floats)
    # + the same 2 x align32(b*s floats)
    assert asc.adv.get_deepnorm_max_min_tmp_size([1, 5, 80], 2) == (3 * 1600 + 2 * 32, 3 * 320 + 2 * 32)
    assert asc.adv.GetDeepNormMaxMinTmpSize([2, 3, 64], 4, True) == (2 * 1536 + 2 * 32, 2 * 256 + 2 * 32)
    t = asc.adv.get_deepnorm_tiling_info([1, 5, 80], [1, 5, 80], 2048, 2)
    # 512 floats - 16 (half: mean and variance tmp) = 496 / 3 = 165 -> 160 (2 rows of 80)
    assert (t.tmp_buf_size, t.one_tmp_size, t.first_tmp_start_pos, t.third_tmp_start_pos) == (512, 160, 16, 336)
    assert (t.loop_round, t.input_tail_size, t.input_tail_pos, t.mean_var_tail_size, t.mean_var_tail_pos) == (
        2, 80, 320, 1, 4)
    t = asc.adv.GetDeepNormTilingInfo([1, 3, 200], [1, 3, 190], 4096, 4)
    assert (t.first_tmp_start_pos, t.one_tmp_size, t.loop_round) == (0, 200, 3)
    assert t.last_dim_value_back == pytest.approx(1 / 190)
    with pytest.raises(asc.TraceError, match="below the minimum"):
        asc.adv.get_deepnorm_tiling_info([1, 1, 1024], [1, 1, 1024], 8192, 4)
    with pytest.raises(asc.TraceError, match="at most 2040"):
        asc.adv.get_deepnorm_max_min_tmp_size([1, 1, 2048], 4)
    with pytest.raises(asc.AlignmentError, match="not a multiple of 32"):
        asc.adv.get_deepnorm_tiling_info([1, 2, 60], [1, 2, 60], 4096, 4)
    with pytest.raises(asc.TraceError, match="original_h"):
        asc.adv.get_deepnorm_tiling_info([1, 2, 64], [1, 2, 72], 4096, 4)


def test_emitted_as_the_vendors_call():
    x, h, s = np.zeros(3 * 64, np.float16), np.zeros(64, np.float16), np.zeros(16, np.float16)
    ck = asc.compile(deepnorm_kernel(1, 3, 64, 8192, 2), (x, x.copy(), h, h.copy(), x.copy(), s, s.copy()))
    assert "AscendC::DeepNorm<half>(" in ck.source and "DeepNormTiling asct_tiling" in ck.source
    assert unlisted(ck.source, "asc-devkit") == [] and unlisted(ck.source, "cann-8.1") == []


# -- errors ---------------------------------------------------------------------------------------

def _zeros(b, s, h, dt=np.float32):
    rp = -(-b * s // 8) * 8
    return (np.full(b * s * h, 3, dt), np.zeros(b * s * h, dt), np.zeros(h, dt), np.zeros(h, dt),
            np.full(b * s * h, 3, dt), np.zeros(rp, dt), np.zeros(rp, dt))


def test_a_temporary_buffer_below_the_tiling_is_refused_before_any_write():
    t = asc.adv.get_deepnorm_tiling_info([2, 3, 64], [2, 3, 64], 4096, 4)
    args = _zeros(2, 3, 64)
    for backend in ("sim", "eager"):
        with pytest.raises(asc.UBOverflowError, match="holds 2048 bytes; the call needs at least 4096") as ei:
            deepnorm_kernel(2, 3, 64, 2048, 4, tiling=t, backend=backend)[1](*args)
        assert "adv_variant_kernels.py" in str(ei.value) and (args[4] == 3).all()


def test_a_tiling_that_does_not_fit_is_refused_at_the_call_on_every_backend():
    t = asc.adv.get_deepnorm_tiling_info([2, 3, 64], [2, 3, 64], 4096, 4)
    for wrong, what in ((dataclasses.replace(t, loop_round=t.loop_round + 1), "loop_round"),
                        (dataclasses.replace(t, h_length=72), "input_x_size is 384, not 432"),
                        (asc.adv.DeepNormTiling(), "describes no shape")):
        for backend in ("sim", "cpp", "cpu_debug"):
            with pytest.raises(asc.TraceError, match=what) as ei:
                deepnorm_kernel(2, 3, 64, 4096, 4, tiling=wrong, backend=backend)[1](*_zeros(2, 3, 64))
            assert "adv_variant_kernels.py" in str(ei.value)


def test_dtype_and_the_options_not_modelled():
    t = asc.adv.get_deepnorm_tiling_info([1, 2, 64], [1, 2, 64], 4096, 4)

    @asc.jit
    def mixed(x: asc.GlobalAddress):
        a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 1024)
        h = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 8192, 64)
        asc.adv.deepnorm(a, a[128:], a[136:], a[256:], a[384:], a[512:], h, 0.5, 1e-5, t)
    with pytest.raises(asc.DTypeError, match="gamma is float16") as ei:
        mixed[1](np.zeros(512, np.float32))
    assert "test_adv_deepnorm.py" in str(ei.value)

    @asc.jit
    def basic(x: asc.GlobalAddress):
        a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 1024)
        asc.adv.deepnorm(a, a[128:], a[136:], a[256:], a[384:], a[512:], a[576:], 0.5, 1e-5, t, is_basic_block=True)
    with pytest.raises(asc.TraceError, match="isBasicBlock") as ei:
        basic[1](np.zeros(512, np.float32))
    assert "test_adv_deepnorm.py" in str(ei.value)
    lt = asc.adv.get_layernorm_nd_tiling_info([1, 2, 64, 64], 4096, 4)

    @asc.jit
    def layernorm_tiling(x: asc.GlobalAddress):
        a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 1024)
        asc.adv.deepnorm(a, a[128:], a[136:], a[256:], a[384:], a[512:], a[576:], 0.5, 1e-5, lt)
    with pytest.raises(asc.TraceError, match="takes an asc.adv.DeepNormTiling, got LayerNormTiling"):
        layernorm_tiling[1](np.zeros(512, np.float32))
