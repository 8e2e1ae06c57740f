"""asc.adv.swish, geglu, reglu: within the stated tolerance of float64 NumPy (hypothesis), sim == eager and
the forms agree, bit-exact with the vendor's implementation on cpu_debug, emitted as its calls, misuse refused
at the user's line on every backend."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lane import examples

import asc_trace as asc
from adv_kernels import GLUS, N, activation_kernel
from asc_trace.graph.ops import REGISTRY
from asc_trace.lower.api_symbols import unlisted
from helpers import cpu_debug_ready, needs_headers


def _gelu(y):
    return 0.5 * y * (1 + np.tanh(np.sqrt(2 / np.pi) * (y + 0.044715 * y ** 3)))


REF = {"swish": lambda x, y: x / (1 + np.exp(-1.5 * x)), "geglu": lambda x, y: x * _gelu(y),
       "reglu": lambda x, y: x * np.maximum(y, 0)}
_K: dict = {}


def _run(name, x, y, n=N, backend="sim", with_tmp=True):
    key = (name, backend, with_tmp and name != "swish")
    if key not in _K:
        _K[key] = activation_kernel(name, key[2], backend=backend)
    z = np.zeros_like(x)
    _K[key][1](x, y, z, n)
    return z


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("name", sorted(REF))
@settings(max_examples=examples(6), deadline=None)
@given(seed=st.integers(0, 2**31), n=st.sampled_from([16, 256, 1000 // 16 * 16, N]))
def test_within_tolerance_of_float64(name, dtype, seed, n):
    rng = np.random.default_rng(seed)
    x, y = rng.uniform(-6, 6, N).astype(dtype), rng.uniform(-6, 6, N).astype(dtype)
    z = _run(name, x, y, n)
    rtol, atol = REGISTRY[f"adv_{name}"].tolerance(np.dtype(dtype).name)
    want = REF[name](x[:n].astype(np.float64), y[:n].astype(np.float64))
    np.testing.assert_allclose(z[:n].astype(np.float64), want, rtol=rtol, atol=atol)
    assert not z[n:].any()


def test_sim_eager_and_the_forms_agree():
    rng = np.random.default_rng(5)
    for dt in (np.float16, np.float32):
        x, y = rng.uniform(-6, 6, N).astype(dt), rng.uniform(-6, 6, N).astype(dt)
        for name in sorted(REF):
            a = _run(name, x, y)
            assert a.tobytes() == _run(name, x, y, backend="eager").tobytes() == \
                _run(name, x, y, with_tmp=False).tobytes(), name


def test_host_helpers_are_the_vendors():
    assert asc.adv.GetGeGLUMaxMinTmpSize([1024], 2) == (8192, 1024)
    assert asc.adv.get_geglu_max_min_tmp_size([1024], 4) == (0, 0)
    assert asc.adv.GetReGluMaxMinTmpSize([1024], 2) == (12288, 1536)
    assert asc.adv.GetReGluMaxMinTmpSize([8], 2) == (1536, 1536)
    assert asc.adv.get_reglu_max_min_tmp_size([1024], 4) == (256, 256)
    assert asc.adv.GetSwishTmpSize([1024], 2) == (0, 0)
    assert asc.adv.GetSwiGLUMaxMinTmpSize([1024], 2) == (6 * 2048, 6 * 256)


@needs_headers
@pytest.mark.parametrize("name", sorted(REF))
def test_bit_exact_with_the_vendor_implementation(name):
    rng = np.random.default_rng(6)
    for dt in (np.float16, np.float32):
        x, y = rng.uniform(-6, 6, N).astype(dt), rng.uniform(-6, 6, N).astype(dt)
        for n in (N, 976):
            assert _run(name, x, y, n).tobytes() == _run(name, x, y, n, backend="cpu_debug").tobytes(), \
                (np.dtype(dt).name, n)


def test_emitted_as_the_vendors_calls():
    x = np.zeros(N, np.float16)
    for name, call, tmp in (("swish", "AscendC::Swish(", False), ("geglu", "AscendC::GeGLU(", True),
                            ("reglu", "AscendC::ReGlu(", False)):
        ck = asc.compile(activation_kernel(name, tmp), (x, x, x, N))
        assert call in ck.source
        assert unlisted(ck.source, "asc-devkit") == [] and unlisted(ck.source, "cann-8.1") == []


def _small_tmp_kernel(name, tmp_bytes, dtype):
    @asc.jit
    def k(x: asc.GlobalAddress):
        a = asc.LocalTensor(dtype, asc.TPosition.VECIN, 0, 256)
        b = asc.LocalTensor(dtype, asc.TPosition.VECIN, 4096, 256)
        c = asc.LocalTensor(dtype, asc.TPosition.VECOUT, 8192, 256)
        t = asc.LocalTensor(asc.uint8, asc.TPosition.VECCALC, 16384, tmp_bytes)
        getattr(asc.adv, name)(c, a, b, 256, t)
    return k


@pytest.mark.parametrize("backend", ["sim", "eager"])
@pytest.mark.parametrize("name,need", [("geglu", 1024), ("reglu", 1536)])
def test_a_temporary_buffer_below_the_minimum_is_refused(name, need, backend):
    with pytest.raises(asc.UBOverflowError, match=f"at least {need}"):
        asc.jit(_small_tmp_kernel(name, need - 32, asc.float16), backend=backend)[1](np.zeros(256, np.float16))
    asc.jit(_small_tmp_kernel(name, need, asc.float16), backend=backend)[1](np.zeros(256, np.float16))


@pytest.mark.parametrize("backend", ["sim", "eager"])
@pytest.mark.parametrize("name", sorted(REF))
def test_dst_equal_to_a_source_is_refused(name, backend):
    @asc.jit
    def k(x: asc.GlobalAddress):
        asc.TPipe()             # the forms without a temp buffer take their scratch from it
        a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 256)
        b = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 4096, 256)
        if name == "swish":
            asc.adv.swish(a, a, 256, 1.0)
        else:
            getattr(asc.adv, name)(a, b, a, 256)
    with pytest.raises(asc.OutOfBoundsError, match="are one tensor") as ei:
        asc.jit(k, backend=backend)[1](np.zeros(256, np.float32))
    assert "test_adv_glu.py" in str(ei.value)


@pytest.mark.parametrize("name", sorted(REF))
def test_an_unsupported_dtype_is_refused_at_trace_time(name):
    @asc.jit
    def k(x: asc.GlobalAddress):
        a = asc.LocalTensor(asc.int32, asc.TPosition.VECIN, 0, 256)
        b = asc.LocalTensor(asc.int32, asc.TPosition.VECOUT, 4096, 256)
        if name == "swish":
            asc.adv.swish(b, a, 256, 1.0)
        else:
            getattr(asc.adv, name)(b, a, a, 256)
    with pytest.raises(asc.DTypeError, match="does not support int32"):
        k[1](np.zeros(256, np.int32))


def test_every_glu_is_tested_here():
    assert set(GLUS) | {"swish"} == set(REF)


def _unequal_sources_kernel(name):
    @asc.jit
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress):
        xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x)
        zg.set_global_buffer(z)
        pipe = asc.TPipe()
        qi, qo = asc.TQue(asc.TPosition.VECIN, 1), asc.TQue(asc.TPosition.VECOUT, 1)
        tb = asc.TBuf(asc.TPosition.VECCALC)
        pipe.init_buffer(qi, 1, 2 * 256 * 2)
        pipe.init_buffer(qo, 1, 2 * 256 * 2)
        pipe.init_buffer(tb, 8192)
        src = qi.alloc_tensor(asc.float16)
        asc.data_copy(src, xg, 512)
        qi.enque(src)
        src = qi.deque(asc.float16)
        dst = qo.alloc_tensor(asc.float16)
        if name == "swiglu":        # src0 holds 512 elements, src1 (the second half) 256
            asc.adv.swiglu(dst, src, src[256:], 1.0, 256, tb.get(asc.uint8))
        else:
            asc.adv.geglu(dst, src, src[256:], 256, tb.get(asc.uint8))
        qo.enque(dst)
        qi.free_tensor(src)
        dst = qo.deque(asc.float16)
        asc.data_copy(zg, dst, 512)
        qo.free_tensor(dst)
    return k


@pytest.mark.parametrize("backend", ["sim", "eager"] + (["cpu_debug"] if cpu_debug_ready() else []))
@pytest.mark.parametrize("name", ["swiglu", "geglu"])
def test_sources_of_two_sizes_are_refused_as_the_vendor_does(name, backend):
    """Found writing examples/adv_swiglu.py: the vendor asserts src0.GetSize() == src1.GetSize()."""
    z = np.zeros(512, np.float16)
    with pytest.raises(asc.OutOfBoundsError) as ei:
        asc.jit(_unequal_sources_kernel(name), backend=backend)[1](np.ones(512, np.float16), z)
    assert "test_adv_glu.py" in str(ei.value) and not z.any()
