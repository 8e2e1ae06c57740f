"""asc.adv.softmax / rmsnorm / quant: within the stated tolerance of float64 NumPy (hypothesis), sim ==
eager, bit-exact with the vendor's implementation run by cpu_debug, the host helpers' values, and the
errors (temporary buffer, tiling, alignment, dtype) at the user's line before any write."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lane import examples

import asc_trace as asc
from adv_kernels import quant_kernel, rmsnorm_kernel, softmax_kernel
from asc_trace.graph.ops import REGISTRY
from asc_trace.lower.api_symbols import unlisted
from helpers import needs_headers


def _softmax(m, k, dt, backend="sim", seed=0, host_tiling=True, float_stats=False, tmp_bytes=64 * 1024):
    x = (np.random.default_rng(seed).standard_normal((m, k)) * 3).astype(dt)
    sdt = np.float32 if float_stats else dt
    per = 32 // np.dtype(dt).itemsize        # reduceK: from the source's type (16 floats with half src)
    z, mx, sm = np.zeros_like(x), np.zeros(m * per, sdt), np.zeros(m * per, sdt)
    softmax_kernel(m, k, float_stats, type_size=np.dtype(dt).itemsize, host_tiling=host_tiling,
                   tmp_bytes=tmp_bytes, backend=backend)[1](x, z, mx, sm)
    return x, z, mx.reshape(m, per), sm.reshape(m, per)


@settings(max_examples=examples(10), deadline=None)
@given(m=st.integers(1, 12), kb=st.integers(1, 12), half=st.booleans(), float_stats=st.booleans(),
       host=st.booleans(), seed=st.integers(0, 99))
def test_softmax_within_tolerance(m, kb, half, float_stats, host, seed):
    dt = np.float16 if half else np.float32
    k = kb * (16 if half else 8)
    x, z, mx, sm = _softmax(m, k, dt, seed=seed, host_tiling=host, float_stats=float_stats and half)
    x64 = x.astype(np.float64)
    e = np.exp(x64 - x64.max(1, keepdims=True))
    rtol, atol = REGISTRY["adv_softmax"].tolerance(np.dtype(dt).name)
    np.testing.assert_allclose(z, e / e.sum(1, keepdims=True), rtol=rtol, atol=atol)
    # a zero tiling's kernel-side tiling sizes each row's statistics from their own type, as the vendor's does:
    # 8 floats a row, rows 8 apart, with half src and float stats (16 with a host tiling; test_adv_softmax_stats.py)
    if half and float_stats and not host:
        mx, sm = mx.ravel()[:m * 8].reshape(m, 8), sm.ravel()[:m * 8].reshape(m, 8)
    assert (mx == x.max(1, keepdims=True).astype(mx.dtype)).all()
    np.testing.assert_allclose(sm, np.broadcast_to(e.sum(1, keepdims=True), sm.shape), rtol=rtol * 4)


@settings(max_examples=examples(10), deadline=None)
@given(bs=st.integers(1, 12), hb=st.integers(1, 8), cut=st.integers(0, 7), half=st.booleans(), seed=st.integers(0, 99))
def test_rmsnorm_within_tolerance(bs, hb, cut, half, seed):
    dt = np.float16 if half else np.float32
    h = hb * (16 if half else 8)
    oh = max(1, h - cut)
    rng = np.random.default_rng(seed)
    x, g = rng.standard_normal(bs * h).astype(dt), rng.standard_normal(h).astype(dt)
    z = np.zeros_like(x)
    rmsnorm_kernel(bs, 1, h, oh, 16 * 1024, np.dtype(dt).itemsize)[1](x, g, z)
    xr = x.astype(np.float64).reshape(bs, h)
    want = xr / np.sqrt((xr[:, :oh] ** 2).mean(1, keepdims=True) + 1e-5) * g.astype(np.float64)
    rtol, atol = REGISTRY["adv_rmsnorm"].tolerance(np.dtype(dt).name)
    np.testing.assert_allclose(z.reshape(bs, h), want, rtol=rtol, atol=atol * 4)


@pytest.mark.parametrize("dt", [np.float16, np.float32])
def test_quant_is_pyascs_sample(dt):
    """pyasc's test_quant: 32 values in [-4, 4] give exactly round(x * 2 + 0.9); over more, the half
    arithmetic (x * half(2) + half(0.9), then rint) is at most 1 off the float64 value, at ties."""
    x = (np.random.default_rng(2025).random(32) * 8.0 - 4.0).astype(dt)
    z = np.zeros(32, np.int8)
    quant_kernel(32)[1](x, z)
    assert (z == np.round(x.astype(np.float64) * 2.0 + 0.9).astype(np.int8)).all()
    x = (np.random.default_rng(1).random(256) * 8.0 - 4.0).astype(dt)
    z = np.zeros(256, np.int8)
    quant_kernel(256)[1](x, z)
    assert np.abs(z - np.round(x.astype(np.float64) * 2.0 + 0.9)).max() <= 1


def test_sim_and_eager_agree():
    a, b = _softmax(8, 128, np.float16), _softmax(8, 128, np.float16, "eager")
    assert all(p.tobytes() == q.tobytes() for p, q in zip(a, b))


# -- the vendor's own implementation, run by cpu_debug over asc_trace's instruction layer -------------



@needs_headers
@pytest.mark.parametrize("dt,m,k", [(np.float16, 8, 256), (np.float32, 4, 96), (np.float32, 2, 64), (np.float16, 5, 160)])
def test_softmax_bit_exact_with_the_vendor(dt, m, k):
    a, b = _softmax(m, k, dt), _softmax(m, k, dt, "cpu_debug")
    assert all(p.tobytes() == q.tobytes() for p, q in zip(a, b))


@needs_headers
@pytest.mark.parametrize("float_stats", [False, True])
def test_half_softmax_narrows_as_the_vendor_on_a2_ties_away_from_zero(float_stats):
    """A2's SoftMax narrows float to half with CAST_ROUND (FLOAT2HALF_ROUND_MODE), not to even: over many
    rows some quotients fall on a half tie, and sim must round those as the vendor does."""
    for seed in range(3):
        a = _softmax(16, 160, np.float16, seed=seed, float_stats=float_stats)
        b = _softmax(16, 160, np.float16, "cpu_debug", seed=seed, float_stats=float_stats)
        assert all(p.tobytes() == q.tobytes() for p, q in zip(a, b)), seed


@needs_headers
@pytest.mark.parametrize("dt", [np.float16, np.float32])
def test_rmsnorm_and_quant_bit_exact_with_the_vendor(dt):
    rng = np.random.default_rng(7)
    x, g = rng.standard_normal(2 * 3 * 64).astype(dt), rng.standard_normal(64).astype(dt)
    outs = []
    for backend in ("sim", "cpu_debug"):
        z = np.zeros_like(x)
        rmsnorm_kernel(2, 3, 64, 60, 4096, np.dtype(dt).itemsize, backend=backend)[1](x, g, z)
        q = np.zeros(256, np.int8)
        quant_kernel(256, backend=backend)[1](x[:256] * 3, q)
        outs.append((z.tobytes(), q.tobytes()))
    assert outs[0] == outs[1]


# -- host helpers ---------------------------------------------------------------------------------

def test_host_helpers_give_the_vendors_values():
    # softmax_tiling.cpp, A2: min = (32/size + k + 64) floats, max = m x that
    assert asc.adv.get_softmax_min_tmp_size([8, 256], 2) == (16 + 256 + 64) * 4
    assert asc.adv.GetSoftMaxMaxTmpSize([8, 256], 4, False) == 8 * (8 + 256 + 64) * 4
    t = asc.adv.softmax_tiling_func([20, 64], 4, 20 * 1024)      # 5120 floats / 136 per row = 37 rows -> 20
    assert (t.src_m, t.split_m, t.range_m, t.tail_m, t.reduce_k) == (20, 20, 1, 0, 8)
    t = asc.adv.softmax_tiling_func([20, 64], 4, 4096)           # 1024 / 136 = 7 rows a pass
    assert (t.split_m, t.range_m, t.tail_m, t.tail_split_size) == (7, 2, 6, 6 * 64)
    # rmsnorm_tiling_impl.cpp
    assert asc.adv.get_rms_norm_max_min_tmp_size([2, 3, 64], 2) == ((2 * 3 * 64 * 2 + 16) * 4, (64 * 2 + 8) * 4)
    r = asc.adv.get_rms_norm_tiling_info([2, 3, 64], [2, 3, 60], 1024, 4)   # 256 floats: bs = 3 (3*64 + 8 <= 256)
    assert (r.main_bs_length, r.main_bsh_length, r.loop_round, r.tail_bs_length, r.main_bs_length_align) == \
        (3, 192, 2, 0, 8)
    assert r.reciprocal_of_h_length == pytest.approx(1 / 60)
    assert asc.adv.get_ascend_quant_max_min_tmp_size([1000], 2) == (2016, 512)
    assert asc.adv.get_tanh_max_min_tmp_size([1024], 2) == (4 * 1024 * 2, 4 * 256)
    assert asc.adv.get_tanh_max_min_tmp_size([16], 4) == (256, 256)


# -- errors ---------------------------------------------------------------------------------------

def test_softmax_temporary_buffer_below_the_tiling_is_refused_before_any_write():
    x = np.ones((8, 256), np.float16)
    z = np.full_like(x, 3)
    per = np.zeros(8 * 16, np.float16)
    k = softmax_kernel(8, 256, tmp_bytes=1024, host_tiling=False)        # one row needs (16+256+64)*4 = 1344
    for backend in ("sim", "eager"):
        with pytest.raises(asc.UBOverflowError, match="holds 1024 bytes; the call needs at least 1344") as ei:
            asc.jit(k, backend=backend)[1](x, z, per, per.copy())
        assert "adv_kernels.py" in str(ei.value) and (z == 3).all()


def test_a_tiling_that_does_not_fit_the_shape_is_refused_at_the_call():
    @asc.jit
    def bad(x: asc.GlobalAddress):
        a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 512)
        asc.adv.softmax(a, a[256:], a[384:], a, asc.adv.SoftmaxTiling(src_m=4, src_k=64))   # split fields 0
    with pytest.raises(asc.TraceError, match="does not describe its shape: split_m 0") as ei:
        bad[1](np.zeros(512, np.float32))
    assert "test_adv_norm.py" in str(ei.value)

    t = asc.adv.get_rms_norm_tiling_info([2, 3, 64], [2, 3, 64], 4096, 4)
    import dataclasses
    wrong = dataclasses.replace(t, loop_round=t.loop_round + 1)
    with pytest.raises(asc.TraceError, match="does not describe its shape"):
        rmsnorm_kernel(2, 3, 64, 64, 4096, 4, tiling=wrong)[1](*(np.zeros(n, np.float32) for n in (384, 64, 384)))


def test_rmsnorm_temporary_buffer_below_what_its_tiling_uses():
    t = asc.adv.get_rms_norm_tiling_info([2, 3, 64], [2, 3, 64], 4096, 4)       # uses (8 + 384) floats
    k = rmsnorm_kernel(2, 3, 64, 64, 1024, 4, tiling=t)
    with pytest.raises(asc.UBOverflowError, match="holds 1024 bytes; the call needs at least 1568"):
        k[1](*(np.zeros(n, np.float32) for n in (384, 64, 384)))


def test_alignment_and_dtype():
    with pytest.raises(asc.AlignmentError, match="not a multiple of 32"):
        asc.adv.softmax_tiling_func([4, 60], 2, 8192)

    @asc.jit
    def odd(x: asc.GlobalAddress):
        a = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 512)
        asc.adv.softmax(a, a[256:], a[384:], a, asc.adv.SoftmaxTiling(), shape=(4, 40))
    with pytest.raises(asc.AlignmentError, match="40 x 2 bytes"):
        odd[1](np.zeros(512, np.float16))

    @asc.jit
    def q(x: asc.GlobalAddress):
        a = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 512)
        asc.adv.quant(a, a, 1.0, 0.0, 256)
    with pytest.raises(asc.DTypeError, match="int8 dst"):
        q[1](np.zeros(512, np.float16))


# -- emission and scheduling ----------------------------------------------------------------------

def test_emitted_as_the_vendors_calls():
    x = np.zeros((8, 64), np.float16)
    ck = asc.compile(softmax_kernel(8, 64), (x, x.copy(), np.zeros(128, np.float16), np.zeros(128, np.float16)))
    assert "AscendC::SoftMax<half>(" in ck.source and "SoftMaxTiling asct_tiling" in ck.source
    assert unlisted(ck.source, "asc-devkit") == [] and unlisted(ck.source, "cann-8.1") == []
    xf = np.zeros(384, np.float32)
    ck = asc.compile(rmsnorm_kernel(2, 3, 64, 60, 4096, 4), (xf, xf[:64].copy(), xf.copy()))
    assert "AscendC::RmsNorm<float>(" in ck.source and ".reciprocalOfHLength = " in ck.source


def test_rmsnorm_takes_a_v_s_event_id_the_schedule_leaves_free():
    """RmsNorm sets and waits V_S itself (FetchEventID): the call's steps are the scheduler's to know."""
    from asc_trace.graph.hb import api_steps
    xf = np.zeros(384, np.float32)
    ck = asc.compile(rmsnorm_kernel(2, 3, 64, 60, 1024, 4), (xf, xf[:64].copy(), xf.copy()))
    node = next(n for n in ck.graph if n.op == "adv_rmsnorm")
    steps = api_steps(node, lambda e: None)
    rounds = 2                               # 1024 B: bs = 3 rows a pass over 6 rows
    assert len(steps) == 2 * rounds and {s[2] for s in steps} == {asc.HardEvent.V_S}


def test_quant_config_fixes_the_count_and_the_split():
    """pyasc's generalization test_quant with use_config: QuantConfig(32, 0, 0, 512) quantises 32 elements."""
    x = (np.random.default_rng(2025).random(64) * 8.0 - 4.0).astype(np.float16)
    z = np.full(64, 9, np.int8)
    quant_kernel(64, config=asc.adv.QuantConfig(32, 0, 0, 512))[1](x, z)
    assert (z[:32] == np.round(x[:32].astype(np.float64) * 2.0 + 0.9).astype(np.int8)).all()
    ck = asc.compile(quant_kernel(64, config=asc.adv.QuantConfig(32, 0, 0, 512)), (x, z))
    assert "static constexpr AscendC::AscendQuantConfig asct_qcfg" in ck.source
    assert unlisted(ck.source, "asc-devkit") == [] and unlisted(ck.source, "cann-8.1") == []
    with pytest.raises(asc.UBOverflowError, match="needs at least 2048"):
        quant_kernel(64, tmp_bytes=1024, config=asc.adv.QuantConfig(32, 0, 0, 2048))[1](x, z)
