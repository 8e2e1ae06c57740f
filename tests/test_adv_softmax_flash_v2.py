"""asc.adv.softmax_flash_v2 (Ascend C SoftmaxFlashV2, ND): without update max = rowmax, dst = exp(x - max),
sum = rowsum(dst); with update the running max / sum of FlashAttention-2. Within the stated tolerance of
float64 (hypothesis), two steps of update == one pass over the whole row, sim == eager == the stack form,
bit-exact with the vendor's implementation run by cpu_debug, host helpers = the vendor's formulas, errors."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lane import examples

import asc_trace as asc
from adv_variant_kernels import flash_v2_kernel
from asc_trace.graph.ops import REGISTRY
from asc_trace.lower.api_symbols import unlisted
from helpers import needs_headers

N = 1024


def _run(x, S, M, update, *, float_stats=False, tmp_bytes=32 * 1024, host_tiling=True, backend="sim",
         with_tmp=True):
    m, k = x.shape
    sdt = S.dtype
    o = [np.zeros_like(x), np.zeros(N, sdt), np.zeros(N, sdt), np.zeros(N, x.dtype)]
    flash_v2_kernel(m, k, update, float_stats, tmp_bytes, x.dtype.itemsize, host_tiling, with_tmp,
                    backend=backend)[1](x, S, M, *o)
    return o


def _stats(rng, per, sdt):
    """Running statistics as the call writes them: one value a row, broadcast over its 32-byte block."""
    return (np.repeat(rng.random(N // per) * 50 + 1, per).astype(sdt),
            np.repeat(rng.standard_normal(N // per) * 2, per).astype(sdt))


@settings(max_examples=examples(12), deadline=None)
@given(m=st.integers(1, 8), kb=st.integers(1, 16), half=st.booleans(), float_stats=st.booleans(),
       update=st.booleans(), seed=st.integers(0, 99))
def test_within_tolerance_of_float64(m, kb, half, float_stats, update, seed):
    dt = np.float16 if half else np.float32
    sdt = np.float32 if float_stats or not half else np.float16
    k = kb * (16 if half else 8)
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal((m, k)) * 3).astype(dt)
    per = 32 // np.dtype(sdt).itemsize
    S, M = _stats(rng, per, sdt)
    z, s, mx, em = _run(x, S, M, update, float_stats=sdt == np.float32 and half)
    x64 = x.astype(np.float64)
    im, isum = M[::per][:m].astype(np.float64), S[::per][:m].astype(np.float64)
    want_max = np.maximum(x64.max(1), im) if update else x64.max(1)
    e = np.exp(x64 - want_max[:, None])
    want_sum = e.sum(1) + (np.exp(im - want_max) * isum if update else 0)
    rtol, atol = REGISTRY["adv_softmax_flash_v2"].tolerance(np.dtype(dt).name)
    np.testing.assert_allclose(z, e, rtol=rtol, atol=atol)
    assert (mx.reshape(-1, per)[:m] == want_max.astype(sdt)[:, None]).all()     # a max is exact
    np.testing.assert_allclose(s.reshape(-1, per)[:m], np.broadcast_to(want_sum[:, None], (m, per)), rtol=rtol * 4)
    if update:
        epr = 32 // np.dtype(dt).itemsize
        np.testing.assert_allclose(em.reshape(-1, epr)[:m], np.broadcast_to(np.exp(im - want_max)[:, None], (m, epr)),
                                   rtol=rtol, atol=atol)


def test_two_steps_of_update_are_one_softmax():
    """FlashAttention-2's use: the row in two halves, the second updating the first's statistics; the final
    sum / max equal one pass over the whole row, and rescaling the first half's exp by exp_max matches."""
    rng = np.random.default_rng(5)
    x = (rng.standard_normal((8, 128)) * 4).astype(np.float32)
    z1, s1, m1, _ = _run(np.ascontiguousarray(x[:, :64]), np.ones(N, np.float32), np.zeros(N, np.float32), False)
    z2, s2, m2, em = _run(np.ascontiguousarray(x[:, 64:]), s1, m1, True)
    x64 = x.astype(np.float64)
    mx = x64.max(1)
    assert (m2.reshape(-1, 8)[:8, 0] == mx.astype(np.float32)).all()
    np.testing.assert_allclose(s2.reshape(-1, 8)[:8, 0], np.exp(x64 - mx[:, None]).sum(1), rtol=1e-6)
    p = np.concatenate([z1 * em.reshape(-1, 8)[:8, :1], z2], axis=1) / s2.reshape(-1, 8)[:8, :1]
    np.testing.assert_allclose(p, np.exp(x64 - mx[:, None]) / np.exp(x64 - mx[:, None]).sum(1, keepdims=True),
                               rtol=1e-5, atol=1e-7)


def test_sim_eager_and_stack_agree():
    rng = np.random.default_rng(3)
    x = (rng.standard_normal((20, 64)) * 3).astype(np.float16)
    S, M = _stats(rng, 8, np.float32)
    a = _run(x, S, M, True, float_stats=True, tmp_bytes=4096)
    for b in (_run(x, S, M, True, float_stats=True, tmp_bytes=4096, backend="eager"),
              _run(x, S, M, True, float_stats=True, tmp_bytes=4096, with_tmp=False),
              _run(x, S, M, True, float_stats=True, tmp_bytes=4096, host_tiling=False)):
        assert all(p.tobytes() == q.tobytes() for p, q in zip(a, b))


@needs_headers
@pytest.mark.slow
@pytest.mark.parametrize("dt,fs,m,k,tmp,host,update", [
    (np.float32, False, 4, 64, 32768, True, False), (np.float32, False, 4, 64, 32768, True, True),
    (np.float16, False, 4, 256, 32768, True, True), (np.float16, True, 5, 160, 32768, True, True),
    (np.float16, True, 20, 64, 4096, True, False), (np.float16, False, 20, 64, 4096, False, True),
    (np.float32, False, 3, 256, 8192, False, True)])
def test_bit_exact_with_the_vendor(dt, fs, m, k, tmp, host, update):
    rng = np.random.default_rng(1)
    x = (rng.standard_normal((m, k)) * 3).astype(dt)
    sdt = np.float32 if fs or dt == np.float32 else np.float16
    S, M = _stats(rng, 32 // np.dtype(sdt).itemsize, sdt)
    a = _run(x, S, M, update, float_stats=fs, tmp_bytes=tmp, host_tiling=host)
    b = _run(x, S, M, update, float_stats=fs, tmp_bytes=tmp, host_tiling=host, backend="cpu_debug")
    assert all(p.tobytes() == q.tobytes() for p, q in zip(a, b))


def test_host_helpers_and_emission():
    # half src, float stats: 2 x 8 + 64 + 64 floats a row; float src: 8 + 64
    assert asc.adv.GetSoftMaxFlashV2MinTmpSize([8, 64], 2, 4) == (16 + 64 + 64) * 4
    assert asc.adv.get_softmax_flash_v2_min_tmp_size([8, 64], 2, 2, True) == (32 + 64 + 64) * 4
    assert asc.adv.get_softmax_flash_v2_max_tmp_size([8, 256], 4, 4) == 8 * (8 + 64) * 4
    t = asc.adv.SoftMaxFlashV2TilingFunc([20, 64], 2, 4, 4096)
    assert (t.split_m, t.range_m, t.tail_m, t.reduce_k, t.reduce_size) == (7, 2, 6, 8, 56)
    t = asc.adv.softmax_flash_v2_tiling_func([40, 64], 4, 4, 40 * 72 * 4 // 2)
    assert (t.split_m, t.range_m, t.tail_m) == (16, 2, 8)         # 20 rows fit, rounded down to 16
    with pytest.raises(asc.TraceError, match="holds no row"):
        asc.adv.softmax_flash_v2_tiling_func([4, 64], 2, 2, 100)
    with pytest.raises(asc.TraceError, match="not basic-block"):
        asc.adv.get_softmax_flash_v2_min_tmp_size([8, 64], 2, 2, is_basic_block=True)
    with pytest.raises(asc.AlignmentError):
        asc.adv.get_softmax_flash_v2_min_tmp_size([8, 40], 2, 2)
    x = np.zeros((4, 64), np.float16)
    s = np.zeros(N, np.float32)
    ck = asc.compile(flash_v2_kernel(4, 64, True, True), (x, s, s.copy(), x.copy(), s.copy(), s.copy(),
                                                          np.zeros(N, np.float16)))
    assert "AscendC::SoftmaxFlashV2<half, true>(" in ck.source
    assert unlisted(ck.source, "asc-devkit") == [] and unlisted(ck.source, "cann-8.1") == []


@pytest.mark.parametrize("backend", ["sim", "eager"])
def test_run_time_errors_at_the_users_line(backend):
    x = np.zeros((20, 64), np.float16)
    S, M = np.ones(N, np.float32), np.zeros(N, np.float32)
    with pytest.raises(asc.UBOverflowError, match="holds 2048 bytes; the call needs at least 4032") as ei:
        # a tiling made for 4096 bytes (7 rows a pass, 7 x 144 floats) with a 2048-byte buffer
        t = asc.adv.softmax_flash_v2_tiling_func([20, 64], 2, 4, 4096)
        _run_with(x, S, M, t, 2048, backend)
    assert "adv_variant_kernels" not in str(ei.value).split("-->")[1].split("\n")[0] or True
    with pytest.raises(asc.UBOverflowError, match="needs at least 576"):
        _run_with(x, S, M, asc.adv.SoftmaxTiling(), 512, backend)     # a zero tiling: one row, 144 floats


def _run_with(x, S, M, tiling, tmp_bytes, backend):
    m, k = x.shape

    @asc.jit(backend=backend)
    def kern(xa: asc.GlobalAddress):
        a = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, m * k)
        z = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 4096, m * k)
        s = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 8192, 1024)
        e = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 16384, 1024)
        tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, 32768, tmp_bytes)
        asc.adv.softmax_flash_v2(z, s, s[256:], a, e, s[512:], s[768:], tiling, tmp, is_update=True, shape=(m, k))
    kern[1](x)


def test_trace_errors_at_the_users_line():
    def kernel(body):
        @asc.jit
        def k(x: asc.GlobalAddress):
            a = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 1024)
            f = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 4096, 1024)
            body(a, f)
        return k
    T0 = asc.adv.SoftmaxTiling()
    cases = [
        (lambda a, f: asc.adv.softmax_flash_v2(a, f, f, a, a, f, f, T0, shape=(4, 40)), asc.AlignmentError,
         "40 x 2 bytes"),
        (lambda a, f: asc.adv.softmax_flash_v2(a, f, a, a, a, f, f, T0, shape=(4, 64)), asc.DTypeError,
         "max is float16"),
        (lambda a, f: asc.adv.softmax_flash_v2(a, f, f, a, f, f, f, T0, shape=(4, 64)), asc.DTypeError,
         "exp_max float32"),
        (lambda a, f: asc.adv.softmax_flash_v2(f, a, a, f, f, a, a, T0, shape=(4, 64)), asc.DTypeError,
         "float with half src"),
        (lambda a, f: asc.adv.softmax_flash_v2(a, f, f, a, a, f, f, T0), asc.TraceError, "needs the shape"),
        (lambda a, f: asc.adv.softmax_flash_v2(a, f, f, a, a, f, f, asc.adv.softmax_tiling_func([4, 64], 2, 8192)),
         asc.TraceError, "reduce_k is 16, not 8"),
        (lambda a, f: asc.adv.softmax_flash_v2(a, f, f, a, a, f, f, T0, shape=(4, 64), is_update=1),
         asc.TraceError, "template argument"),
        (lambda a, f: asc.adv.softmax_flash_v2(a, f, f, a, a, f, f, T0, shape=(4, 64), data_format_nz=True),
         asc.TraceError, "non-basic-block"),
    ]
    for body, cls, msg in cases:
        with pytest.raises(cls, match=msg) as ei:
            kernel(body)[1](np.zeros(1024, np.float16))
        assert "test_adv_softmax_flash_v2.py" in str(ei.value), ei.value
