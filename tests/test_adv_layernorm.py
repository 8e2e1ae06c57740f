"""asc.adv.layernorm: within the stated tolerance of float64 NumPy (hypothesis), sim == eager, bit-exact with the
vendor's implementation run by cpu_debug, the host helpers' values, the emitted call, and the errors (temporary
buffer, tiling, alignment, dtype) at the user's line before any write."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lane import examples

import asc_trace as asc
from adv_kernels import layernorm_kernel
from asc_trace.graph.ops import REGISTRY
from asc_trace.lower.api_symbols import unlisted
from helpers import needs_headers


def _run(b, s, h, dt, tmp_bytes=8192, backend="sim", seed=0, **kw):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(b * s * h) * 2 + 1).astype(dt)
    g, be = rng.standard_normal(h).astype(dt), rng.standard_normal(h).astype(dt)
    per = 32 // np.dtype(dt).itemsize
    rows = -(-b * s // per) * per
    z, m, v = np.zeros_like(x), np.zeros(rows, dt), np.zeros(rows, dt)
    layernorm_kernel(b, s, h, tmp_bytes, np.dtype(dt).itemsize, backend=backend, **kw)[1](x, g, be, z, m, v)
    return (x, g, be), (z, m[:b * s], v[:b * s])


@settings(max_examples=examples(10), deadline=None)
@given(b=st.integers(1, 3), s=st.integers(1, 4), hb=st.integers(1, 12), half=st.booleans(),
       tmp_kb=st.sampled_from([4, 8, 32]), seed=st.integers(0, 99))
def test_within_tolerance_of_float64(b, s, hb, half, tmp_kb, seed):
    dt = np.float16 if half else np.float32
    h = hb * (16 if half else 8)
    if tmp_kb * 1024 < asc.adv.get_layernorm_max_min_tmp_size([b, s, h, h], np.dtype(dt).itemsize)[1]:
        return
    (x, g, be), (z, m, v) = _run(b, s, h, dt, tmp_kb * 1024, seed=seed)
    xr = x.astype(np.float64).reshape(b * s, h)
    mu, var = xr.mean(1), xr.var(1)
    want = (xr - mu[:, None]) / np.sqrt(var[:, None] + 1e-5) * g.astype(np.float64) + be.astype(np.float64)
    rtol, atol = REGISTRY["adv_layernorm"].tolerance(np.dtype(dt).name)
    np.testing.assert_allclose(z.reshape(b * s, h), want, rtol=rtol, atol=atol * 4)
    np.testing.assert_allclose(m, mu, rtol=rtol, atol=atol)
    np.testing.assert_allclose(v, var, rtol=rtol, atol=atol * 4)


def test_sim_and_eager_agree_and_the_split_does_not_change_the_result():
    a = _run(2, 3, 80, np.float16)[1]
    b = _run(2, 3, 80, np.float16, backend="eager")[1]
    c = _run(2, 3, 80, np.float16, tmp_bytes=2 * 1024)[1]       # 2 KB: 2 rows a pass, 3 passes
    assert asc.adv.get_layernorm_nd_tiling_info([2, 3, 80, 80], 2048, 2).loop_round == 3
    assert all(p.tobytes() == q.tobytes() == r.tobytes() for p, q, r in zip(a, b, c))


@needs_headers
@pytest.mark.parametrize("dt,b,s,h,tmp", [(np.float16, 2, 3, 80, 8192), (np.float32, 1, 4, 256, 4096),
                                          (np.float32, 3, 1, 32, 2048)])
def test_bit_exact_with_the_vendor(dt, b, s, h, tmp):
    """h = 80: one block and a tail; 256: four blocks, the 4 KB buffer holding one row a pass; 32: under a repeat."""
    a, c = _run(b, s, h, dt, tmp)[1], _run(b, s, h, dt, tmp, backend="cpu_debug")[1]
    assert all(p.tobytes() == q.tobytes() for p, q in zip(a, c))


def test_host_helpers_give_the_vendors_values():
    # layernorm_tiling_impl.cpp: 3 x align32(bsh floats) + 2 x align32(bs floats); min with h for bsh
    assert asc.adv.get_layernorm_max_min_tmp_size([2, 3, 80, 80], 2) == (3 * 1920 + 2 * 32, 3 * 320 + 2 * 32)
    assert asc.adv.GetLayerNormMaxMinTmpSize([2, 3, 64, 64], 4, True) == (2 * 1536 + 64, 2 * 256 + 64)
    t = asc.adv.get_layernorm_nd_tiling_info([2, 3, 80, 80], 2048, 2)
    # 512 floats - 16 (half: mean and variance tmp, 8 each) = 496 / 3 = 165 -> 160 (2 rows)
    assert (t.tmp_buf_size, t.one_tmp_size, t.first_tmp_start_pos, t.third_tmp_start_pos) == (512, 160, 16, 336)
    assert (t.loop_round, t.input_tail_size, t.mean_var_round_size, t.mean_var_tail_pos) == (3, 0, 2, 6)
    t = asc.adv.GetLayerNormNDTilingInfo([1, 5, 64, 60], 4096, 4)      # float: no mean/variance tmp
    assert (t.first_tmp_start_pos, t.one_tmp_size, t.loop_round, t.input_tail_size) == (0, 320, 1, 0)
    assert t.last_dim_value_back == pytest.approx(1 / 60)
    with pytest.raises(asc.TraceError, match="holds no row"):
        asc.adv.get_layernorm_nd_tiling_info([1, 1, 1024, 1024], 1024, 4)


def test_emitted_as_the_vendors_call():
    x = np.zeros(6 * 80, np.float16)
    st8 = np.zeros(16, np.float16)
    ck = asc.compile(layernorm_kernel(2, 3, 80, 8192, 2), (x, x[:80].copy(), x[:80].copy(), x.copy(), st8,
                                                           st8.copy()))
    assert "AscendC::LayerNorm<half>(" in ck.source and "LayerNormTiling asct_tiling" in ck.source
    assert ".lastDimValueBack = " in ck.source
    assert unlisted(ck.source, "asc-devkit") == [] and unlisted(ck.source, "cann-8.1") == []


# -- errors ---------------------------------------------------------------------------------------

def _zeros(b, s, h, dt=np.float32):
    per = 32 // np.dtype(dt).itemsize
    rows = -(-b * s // per) * per
    return (np.zeros(b * s * h, dt), np.zeros(h, dt), np.zeros(h, dt), np.full(b * s * h, 3, dt),
            np.zeros(rows, dt), np.zeros(rows, dt))


def test_a_temporary_buffer_below_the_tiling_is_refused_before_any_write():
    t = asc.adv.get_layernorm_nd_tiling_info([2, 3, 64, 64], 4096, 4)
    args = _zeros(2, 3, 64)
    for backend in ("sim", "eager"):
        with pytest.raises(asc.UBOverflowError, match="holds 2048 bytes; the call needs at least 4096") as ei:
            layernorm_kernel(2, 3, 64, 2048, 4, tiling=t, backend=backend)[1](*args)
        assert "adv_kernels.py" in str(ei.value) and (args[3] == 3).all()


def test_a_tiling_that_does_not_fit_is_refused_at_the_call_on_every_backend():
    t = asc.adv.get_layernorm_nd_tiling_info([2, 3, 64, 64], 4096, 4)
    for wrong, what in ((dataclasses.replace(t, loop_round=t.loop_round + 1), "loop_round"),
                        (dataclasses.replace(t, h_length=72), "input_x_size is 384, not 432"),
                        (asc.adv.LayerNormTiling(), "describes no shape")):
        for backend in ("sim", "cpp", "cpu_debug"):
            with pytest.raises(asc.TraceError, match=what) as ei:
                layernorm_kernel(2, 3, 64, 4096, 4, tiling=wrong, backend=backend)[1](*_zeros(2, 3, 64))
            assert "adv_kernels.py" in str(ei.value)


def test_alignment_and_dtype():
    with pytest.raises(asc.AlignmentError, match="not a multiple of 32"):
        asc.adv.get_layernorm_nd_tiling_info([2, 3, 60, 60], 4096, 4)
    t = asc.adv.get_layernorm_nd_tiling_info([1, 2, 64, 64], 4096, 4)

    @asc.jit
    def mixed(x: asc.GlobalAddress):
        a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 512)
        h = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 4096, 64)
        asc.adv.layernorm(a, a[128:], a[136:], a[256:], h, a[384:], 1e-5, t)
    with pytest.raises(asc.DTypeError, match="gamma is float16") as ei:
        mixed[1](np.zeros(512, np.float32))
    assert "test_adv_layernorm.py" in str(ei.value)


def test_the_profile_shows_the_calls_instructions_as_slices():
    from asc_trace.graph.ops.adv_common import instruction_costs
    x = np.ones(6 * 64, np.float32)
    prof = asc.profile(layernorm_kernel(2, 3, 64, 4096, 4), x, x[:64].copy(), x[:64].copy(), x.copy(),
                       np.zeros(8, np.float32), np.zeros(8, np.float32), core_num=1)
    (node, start, end), = [(it, s, e) for _c, _b, _p, s, e, it in prof.placed_slices()
                           if getattr(it, "op", None) == "adv_layernorm"]
    costs = instruction_costs(node.op, node.attrs, 0)
    ev = [e for e in prof.chrome_trace()["traceEvents"] if e.get("args", {}).get("call") == "adv_layernorm"]
    assert [e["name"] for e in ev] == [f"adv_layernorm: {n}" for n, _c in costs]
    assert ev[0]["name"] == "adv_layernorm: muls" and len(ev) > 20       # 1/h, the sums, the broadcasts, ...
    assert sum(e["args"]["cycles"] for e in ev) == pytest.approx(end - start)


def test_one_tensor_as_two_operands_where_the_vendors_check_refuses_it():
    """layernorm_check_common.h: output may be inputX (in place: the same result), mean may not be inputX."""
    t = asc.adv.get_layernorm_nd_tiling_info([1, 2, 64, 64], 4096, 4)

    def kernel(in_place: bool):
        @asc.jit
        def ln(x: asc.GlobalAddress, z: asc.GlobalAddress):
            xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
            xg.set_global_buffer(x)
            zg.set_global_buffer(z)
            a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 128)
            gb = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 1024, 128)
            mv = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 2048, 16)
            o = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 4096, 128)
            tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, 8192, 4096)
            asc.data_copy(a, xg, 128)
            asc.duplicate(gb, 1.0, 64)
            asc.duplicate(gb[64:], 0.0, 64)
            out = a if in_place else o
            asc.adv.layernorm(out, mv, mv[8:], a, gb, gb[64:], 1e-5, t, tmp)
            asc.data_copy(zg, out, 128)
        return ln
    x = np.random.default_rng(1).standard_normal(128).astype(np.float32)
    z1, z2 = np.zeros_like(x), np.zeros_like(x)
    kernel(False)[1](x, z1)
    kernel(True)[1](x, z2)
    assert z1.tobytes() == z2.tobytes()

    @asc.jit
    def mean_on_x(x: asc.GlobalAddress):
        a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 256)
        o = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 1024, 256)
        gb = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 2048, 128)
        tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, 8192, 4096)
        asc.adv.layernorm(o, a, o[128:], a, gb, gb[64:], 1e-5, t, tmp)
    with pytest.raises(asc.OutOfBoundsError, match="are one tensor") as ei:
        mean_on_x[1](np.zeros(256, np.float32))
    assert "test_adv_layernorm.py" in str(ei.value)
