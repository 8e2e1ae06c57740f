"""asc.adv.simple_softmax (Ascend C SimpleSoftMax, ND): within the stated tolerance of exp(x - max) / sum in
float64 (hypothesis), sim == eager, bit-exact with the vendor's implementation run by cpu_debug (half, float,
half with float statistics, statistics that differ inside a block, one split and several), the vendor's
statistics offset between splits, its emission and its errors at the user's line."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lane import examples

import asc_trace as asc
from adv_variant_kernels import simple_softmax_kernel
from asc_trace.graph.ops import REGISTRY
from asc_trace.lower.api_symbols import unlisted
from helpers import needs_headers

N_STAT = 1024


def _stats(m, x, per, sdt):
    """The row max and sum of x in float64, broadcast over reduceK elements a row as SoftMax writes them."""
    x64 = x.astype(np.float64)
    mx = x64.max(1)
    s = np.exp(x64 - mx[:, None]).sum(1)
    pad = lambda v: np.concatenate([np.repeat(v, per), np.ones(N_STAT - m * per)]).astype(sdt)
    return pad(s), pad(mx)


def _run(x, S, M, *, float_stats=False, tmp_bytes=32 * 1024, host_tiling=True, backend="sim", with_tmp=True):
    m, k = x.shape
    z = np.zeros_like(x)
    simple_softmax_kernel(m, k, float_stats, tmp_bytes, x.dtype.itemsize, host_tiling, with_tmp,
                          backend=backend)[1](x, S, M, z, N_STAT)
    return z


@settings(max_examples=examples(12), deadline=None)
@given(m=st.integers(1, 8), kb=st.integers(1, 16), half=st.booleans(), float_stats=st.booleans(),
       host_tiling=st.booleans(), seed=st.integers(0, 99))
def test_within_tolerance_of_float64(m, kb, half, float_stats, host_tiling, seed):
    dt = np.float16 if half else np.float32
    float_stats = float_stats and half
    k = kb * (16 if half else 8)
    x = (np.random.default_rng(seed).standard_normal((m, k)) * 3).astype(dt)
    sdt = np.float32 if float_stats else dt
    # a zero tiling is filled in the kernel with reduceK = 32 / sizeof(sum): 8 floats a row with float stats
    per = 32 // (np.dtype(sdt).itemsize if not host_tiling else np.dtype(dt).itemsize)
    S, M = _stats(m, x, per, sdt)
    z = _run(x, S, M, float_stats=float_stats, host_tiling=host_tiling)
    # against the float64 softmax with the statistics the kernel was given (rounded to their type)
    want = np.exp(x.astype(np.float64) - M[::per][:m, None].astype(np.float64)) / S[::per][:m, None].astype(np.float64)
    rtol, atol = REGISTRY["adv_simple_softmax"].tolerance(np.dtype(dt).name)
    np.testing.assert_allclose(z, want, rtol=rtol, atol=atol)


def test_sim_eager_and_no_tmp_agree():
    rng = np.random.default_rng(3)
    x = (rng.standard_normal((6, 128)) * 3).astype(np.float16)
    S, M = (rng.random(N_STAT) * 40 + 1).astype(np.float32), rng.standard_normal(N_STAT).astype(np.float32)
    a = _run(x, S, M, float_stats=True, tmp_bytes=4096)
    assert a.tobytes() == _run(x, S, M, float_stats=True, tmp_bytes=4096, backend="eager").tobytes()
    assert a.tobytes() == _run(x, S, M, float_stats=True, tmp_bytes=4096, with_tmp=False).tobytes()


def test_lane_reads_its_block_element_and_the_split_offset():
    """Lane j of row r reads stat[base(r) + j % 8]; with half src, float stats and several splits the vendor
    advances between splits by reduceM x 8 floats while a row inside a split takes 16 (bit-exact on cpu_debug)."""
    m, k = 20, 64
    x = np.zeros((m, k), np.float16)
    S = np.ones(N_STAT, np.float32)
    M = -np.arange(N_STAT, dtype=np.float32) / 64          # exp(0 - M[i]) tells which element lane j read
    z = _run(x, S, M, float_stats=True, tmp_bytes=4096)     # 4096 bytes: 7 rows a split (rangeM 2, tailM 6)
    t = asc.adv.softmax_tiling_func([m, k], 2, 4096)
    assert (t.split_m, t.range_m, t.tail_m, t.reduce_k) == (7, 2, 6, 16)
    base = np.array([(r // 7) * 7 * 8 + (r % 7) * 16 for r in range(m)])
    idx = base[:, None] + np.arange(k)[None, :] % 8
    want = np.exp(idx.astype(np.float32) / 64).astype(np.float16)
    np.testing.assert_allclose(z.astype(np.float32), want.astype(np.float32), rtol=2e-3)
    assert not np.allclose(z[7].astype(np.float32), np.exp((7 * 16 + np.arange(k) % 8) / 64), rtol=1e-2)


@needs_headers
@pytest.mark.slow
@pytest.mark.parametrize("dt,fs,m,k,tmp,host", [(np.float32, False, 4, 64, 32768, True),
                                                (np.float16, False, 4, 256, 32768, True),
                                                (np.float16, True, 5, 160, 32768, True),
                                                (np.float16, True, 20, 64, 4096, True),
                                                (np.float16, False, 20, 64, 4096, True),
                                                (np.float16, True, 6, 64, 4096, False),
                                                (np.float32, False, 3, 256, 8192, False)])
def test_bit_exact_with_the_vendor(dt, fs, m, k, tmp, host):
    """Random statistics (different inside a block): each lane's element, each split's offset, as the vendor."""
    rng = np.random.default_rng(1)
    x = (rng.standard_normal((m, k)) * 3).astype(dt)
    sdt = np.float32 if fs else dt
    S, M = (rng.random(N_STAT) * 50 + 1).astype(sdt), (rng.standard_normal(N_STAT) * 2).astype(sdt)
    a = _run(x, S, M, float_stats=fs, tmp_bytes=tmp, host_tiling=host)
    b = _run(x, S, M, float_stats=fs, tmp_bytes=tmp, host_tiling=host, backend="cpu_debug")
    assert a.tobytes() == b.tobytes()


def test_emitted_against_the_headers_list():
    x = np.zeros((4, 64), np.float16)
    S = np.ones(N_STAT, np.float32)
    ck = asc.compile(simple_softmax_kernel(4, 64, True), (x, S, S.copy(), x.copy(), N_STAT))
    assert "AscendC::SimpleSoftMax<half>(" in ck.source and "SoftMaxTiling asct_tiling" in ck.source
    assert unlisted(ck.source, "asc-devkit") == [] and unlisted(ck.source, "cann-8.1") == []
    ck = asc.compile(simple_softmax_kernel(4, 64, True, with_tmp=False), (x, S, S.copy(), x.copy(), N_STAT))
    assert "asct_tiling" in ck.source and "uint8_t" not in ck.source.split("SimpleSoftMax<half>(")[1].split(";")[0]


@pytest.mark.parametrize("backend", ["sim", "eager"])
def test_errors_at_the_users_line(backend):
    x = np.zeros((4, 256), np.float16)
    S = np.ones(N_STAT, np.float16)
    # the host tiling for 32 KiB splits 4 rows at once: 4 x 256 + 4 x 16 floats; a 2 KiB buffer is short
    t = asc.adv.softmax_tiling_func([4, 256], 2, 32 * 1024)

    @asc.jit(backend=backend)
    def small_tmp(x: asc.GlobalAddress):
        a = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 1024)
        z = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 4096, 1024)
        s = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 8192, 64)
        tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, 16384, 2048)
        asc.adv.simple_softmax(z, s, s, a, t, tmp)
    with pytest.raises(asc.UBOverflowError, match="holds 2048 bytes; the call needs at least 4352") as ei:
        small_tmp[1](x)
    assert "test_adv_simple_softmax.py" in str(ei.value)

    @asc.jit(backend=backend)
    def sizes(x: asc.GlobalAddress):
        a = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 1024)
        z = asc.LocalTensor(asc.float16, asc.TPosition.VECOUT, 4096, 1040)
        s = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 8192, 64)
        tmp = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, 16384, 32768)
        asc.adv.simple_softmax(z, s, s, a, t, tmp)
    with pytest.raises(asc.OutOfBoundsError, match="dst holds 1040 elements and src 1024"):
        sizes[1](x)
    del S


def test_trace_errors():
    def kernel(body):
        @asc.jit
        def k(x: asc.GlobalAddress):
            a = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 1024)
            f = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 4096, 256)
            i = asc.LocalTensor(asc.int32, asc.TPosition.VECIN, 8192, 256)
            body(a, f, i)
        return k
    cases = [
        (lambda a, f, i: asc.adv.simple_softmax(a, a[512:], a[768:], a, asc.adv.SoftmaxTiling(), shape=(4, 40)),
         asc.AlignmentError, "80 bytes|40 x 2 bytes"),
        (lambda a, f, i: asc.adv.simple_softmax(a, f, a[768:], a, asc.adv.SoftmaxTiling(), shape=(4, 64)),
         asc.DTypeError, "one type"),
        (lambda a, f, i: asc.adv.simple_softmax(i, i, i, i, asc.adv.SoftmaxTiling(), shape=(2, 64)),
         asc.DTypeError, "does not support int32"),
        (lambda a, f, i: asc.adv.simple_softmax(a, a, a, a, asc.adv.SoftmaxTiling()),
         asc.TraceError, "needs the shape"),
        (lambda a, f, i: asc.adv.simple_softmax(a, a, a, a, asc.adv.softmax_tiling_func([4, 64], 2, 8192),
                                                shape=(2, 64)), asc.TraceError, "disagree"),
        (lambda a, f, i: asc.adv.simple_softmax(a, a, a, a, asc.adv.SoftmaxTiling(4, 64, 256, split_m=4)),
         asc.TraceError, "does not describe its shape"),
        (lambda a, f, i: asc.adv.simple_softmax(a, a, a, a, asc.adv.LayerNormTiling(), shape=(4, 64)),
         asc.TraceError, "takes an asc.adv.SoftmaxTiling"),
        (lambda a, f, i: asc.adv.simple_softmax(a, a, a, a, asc.adv.SoftmaxTiling(), shape=(4, 64), basic_block=True),
         asc.TraceError, "non-basic-block"),
    ]
    for body, cls, msg in cases:
        with pytest.raises(cls, match=msg) as ei:
            kernel(body)[1](np.zeros(1024, np.float16))
        assert "test_adv_simple_softmax.py" in str(ei.value), ei.value
