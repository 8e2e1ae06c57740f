"""asc.adv.groupnorm: within the stated tolerance of float64 NumPy (hypothesis), sim == eager, the round split not
changing the result, bit-exact with the vendor's implementation run by cpu_debug (small-shape and general paths),
the host helpers' values (the vendor's groupnorm_tiling_impl.cpp), the emitted call, and the errors (the vendor's
limits asc_trace holds) at the user's line before any write."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lane import examples

import asc_trace as asc
from adv_variant_kernels import groupnorm_kernel
from asc_trace.graph.ops import REGISTRY
from asc_trace.lower.api_symbols import unlisted
from helpers import needs_headers


def _run(n, c, hw, g, dt, tmp_bytes=8192, backend="sim", seed=0, **kw):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(n * c * hw) * 2 + 1).astype(dt)
    per = 32 // np.dtype(dt).itemsize
    cp, gp = -(-c // per) * per, -(-(n * g) // per) * per
    ga, be = rng.standard_normal(cp).astype(dt), rng.standard_normal(cp).astype(dt)
    z, m, v = np.zeros_like(x), np.zeros(gp, dt), np.zeros(gp, dt)
    groupnorm_kernel(n, c, hw, g, tmp_bytes, np.dtype(dt).itemsize, backend=backend, **kw)[1](x, ga, be, z, m, v)
    return (x, ga[:c], be[:c]), (z, m[:n * g], v[:n * g])


def _want(x, ga, be, n, c, hw, g):
    xr = x.astype(np.float64).reshape(n, g, -1)
    mu, var = xr.mean(2), xr.var(2)
    y = ((xr - mu[..., None]) / np.sqrt(var[..., None] + 1e-5)).reshape(n, c, hw)
    y = y * ga.astype(np.float64)[None, :, None] + be.astype(np.float64)[None, :, None]
    return y.reshape(-1), mu.reshape(-1), var.reshape(-1)


@settings(max_examples=examples(12), deadline=None)
@given(n=st.integers(1, 3), d=st.integers(1, 3), g=st.integers(1, 4), hwb=st.integers(1, 10), half=st.booleans(),
       tmp_kb=st.sampled_from([4, 16, 64]), seed=st.integers(0, 99))
def test_within_tolerance_of_float64(n, d, g, hwb, half, tmp_kb, seed):
    dt = np.float16 if half else np.float32
    hw, c = hwb * (16 if half else 8), d * g
    if n * c * hw * np.dtype(dt).itemsize > 32768 or \
            tmp_kb * 1024 < asc.adv.get_groupnorm_max_min_tmp_size([n, c, 1, hw], np.dtype(dt).itemsize, False, g)[1]:
        return
    try:
        (x, ga, be), (z, m, v) = _run(n, c, hw, g, dt, tmp_kb * 1024, seed=seed)
    except asc.TraceError as e:       # the vendor's limits asc_trace holds (tested below)
        assert "tail" in str(e) or "64 groups" in str(e) or "room for" in str(e)
        return
    y, mu, var = _want(x, ga, be, n, c, hw, g)
    rtol, atol = REGISTRY["adv_groupnorm"].tolerance(np.dtype(dt).name)
    np.testing.assert_allclose(z, y, rtol=rtol, atol=atol * 4)
    np.testing.assert_allclose(m, mu, rtol=rtol, atol=atol)
    np.testing.assert_allclose(v, var, rtol=rtol, atol=atol * 4)


def test_sim_and_eager_agree_and_the_split_does_not_change_the_result():
    a = _run(2, 4, 64, 4, np.float16, 16384)[1]
    b = _run(2, 4, 64, 4, np.float16, 16384, backend="eager")[1]
    c = _run(2, 4, 64, 4, np.float16, 2048)[1]          # 2 groups a round, 4 rounds
    d = _run(2, 4, 64, 4, np.float16, 16384, with_tmp=False)[1]
    assert all(p.tobytes() == q.tobytes() == r.tobytes() == w.tobytes() for p, q, r, w in zip(a, b, c, d))


@needs_headers
@pytest.mark.slow
@pytest.mark.parametrize("n,c,hw,g,dt,tmp", [
    (2, 4, 16, 2, np.float32, 8192), (2, 4, 16, 2, np.float16, 8192), (2, 8, 64, 2, np.float32, 16384),
    (1, 4, 128, 2, np.float16, 16384), (2, 6, 32, 3, np.float32, 1024), (3, 4, 96, 2, np.float32, 4096),
    (4, 8, 8, 4, np.float32, 2048), (1, 6, 32, 2, np.float32, 8192), (2, 4, 64, 4, np.float16, 2048),
    (3, 4, 96, 2, np.float32, 9216)])
def test_bit_exact_with_the_vendor(n, c, hw, g, dt, tmp):
    """Small shape (one group of 64 lanes, 96 lanes = 2 x 48), the general path (h w 96, 128), rounds, tails."""
    a, b = _run(n, c, hw, g, dt, tmp)[1], _run(n, c, hw, g, dt, tmp, backend="cpu_debug")[1]
    assert all(p.tobytes() == q.tobytes() for p, q in zip(a, b))


def test_host_helpers_give_the_vendors_values():
    # groupnorm_tiling_impl.cpp: 3 x (all channels' / one group's h*w, 32-byte aligned in T, as floats)
    # + 2 x align32(n*g floats)
    assert asc.adv.get_groupnorm_max_min_tmp_size([2, 4, 1, 64], 2, False, 4) == (3 * 8 * 256 + 2 * 32,
                                                                                3 * 1 * 256 + 2 * 32)
    assert asc.adv.GetGroupNormMaxMinTmpSize([2, 4, 3, 5], 4, True, 2) == (2 * 8 * 64 + 2 * 32, 2 * 2 * 64 + 2 * 32)
    t = asc.adv.get_groupnorm_nd_tiling_info([2, 4, 1, 64], 3072, 2, False, 4)
    # 768 floats - 16 (half: mean and variance tmp) = 752 / 3 = 250 -> 3 groups of 64 (small shape)
    assert (t.tmp_buf_size, t.one_tmp_size, t.first_tmp_start_pos, t.bs_cur_length) == (768, 192, 16, 3)
    assert (t.loop_round, t.input_tail_size, t.mean_var_tail_size, t.mean_var_tail_pos) == (2, 128, 2, 6)
    assert t.small_shape == 1 and t.factor == pytest.approx(1 / 64)
    t = asc.adv.GetGroupNormNDTilingInfo([3, 4, 1, 96], 9216, 4, False, 2)
    assert (t.small_shape, t.d, t.dhw_align_size, t.bs_cur_length, t.loop_round, t.input_tail_size) == (
        0, 2, 192, 4, 1, 384)
    with pytest.raises(asc.TraceError, match="not a multiple of group_num"):
        asc.adv.get_groupnorm_nd_tiling_info([1, 6, 1, 32], 8192, 4, False, 4)
    with pytest.raises(asc.AlignmentError, match="h \\* w"):
        asc.adv.get_groupnorm_nd_tiling_info([1, 4, 3, 5], 8192, 4, False, 2)


def test_emitted_as_the_vendors_call():
    x, c = np.zeros(2 * 4 * 16, np.float16), np.zeros(16, np.float16)
    ck = asc.compile(groupnorm_kernel(2, 4, 16, 2, 8192, 2), (x, c, c.copy(), x.copy(), c.copy(), c.copy()))
    assert "AscendC::GroupNorm<half>(" in ck.source and "GroupNormTiling asct_tiling" in ck.source
    assert ".smallShape = 1U" in ck.source
    assert unlisted(ck.source, "asc-devkit") == [] and unlisted(ck.source, "cann-8.1") == []


# -- errors ---------------------------------------------------------------------------------------

def _zeros(n, c, hw, g, dt=np.float32):
    return (np.full(n * c * hw, 3, dt), np.zeros(16, dt), np.zeros(16, dt), np.full(n * c * hw, 3, dt),
            np.zeros(16, dt), np.zeros(16, dt))


def test_a_temporary_buffer_below_the_tiling_is_refused_before_any_write():
    t = asc.adv.get_groupnorm_nd_tiling_info([2, 4, 1, 16], 8192, 4, False, 2)
    args = _zeros(2, 4, 16, 2)
    for backend in ("sim", "eager"):
        with pytest.raises(asc.UBOverflowError, match="holds 4096 bytes; the call needs at least 8192") as ei:
            groupnorm_kernel(2, 4, 16, 2, 4096, 4, tiling=t, backend=backend)[1](*args)
        assert "adv_variant_kernels.py" in str(ei.value) and (args[3] == 3).all()


def test_a_tiling_that_does_not_fit_and_the_vendors_limits_are_refused_at_the_call_on_every_backend():
    t = asc.adv.get_groupnorm_nd_tiling_info([2, 4, 1, 16], 8192, 4, False, 2)
    general = asc.adv.get_groupnorm_nd_tiling_info([33, 4, 1, 128], 1 << 20, 4, False, 2)   # 66 groups
    half_tail = asc.adv.get_groupnorm_nd_tiling_info([2, 4, 1, 64], 3072, 2, False, 4)
    for wrong, what, shape in ((dataclasses.replace(t, loop_round=2), "loop_round", (2, 4, 16, 2, 4)),
                               (asc.adv.GroupNormTiling(), "describes no shape", (2, 4, 16, 2, 4)),
                               (general, "holds 64 groups", (33, 4, 128, 2, 4)),
                               (half_tail, "tail", (2, 4, 64, 4, 2))):
        n, c, hw, g, size = shape
        for backend in ("sim", "cpp", "cpu_debug"):
            with pytest.raises(asc.TraceError, match=what) as ei:
                groupnorm_kernel(n, c, hw, g, 8192, size, tiling=wrong, backend=backend)[1](
                    *_zeros(n, c, hw, g, np.float16 if size == 2 else np.float32))
            assert "adv_variant_kernels.py" in str(ei.value)


def test_dtype_and_one_tensor_as_two_outputs():
    t = asc.adv.get_groupnorm_nd_tiling_info([1, 4, 1, 16], 4096, 4, False, 2)

    @asc.jit
    def mixed(x: asc.GlobalAddress):
        a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 512)
        h = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 4096, 64)
        asc.adv.groupnorm(a, a[128:], a[136:], a[256:], h, a[384:], 1e-5, t)
    with pytest.raises(asc.DTypeError, match="gamma is float16") as ei:
        mixed[1](np.zeros(512, np.float32))
    assert "test_adv_groupnorm.py" in str(ei.value)

    @asc.jit
    def mean_is_variance(x: asc.GlobalAddress):
        a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 512)
        o = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 4096, 512)
        tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, 8192, 4096)
        asc.adv.groupnorm(o, o[128:], o[128:], a, a[256:], a[264:], 1e-5, t, tmp)
    with pytest.raises(asc.OutOfBoundsError, match="are one tensor") as ei:
        mean_is_variance[1](np.zeros(512, np.float32))
    assert "test_adv_groupnorm.py" in str(ei.value)
