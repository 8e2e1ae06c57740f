"""asc.adv activations (Gelu, FasterGelu, Silu, Sigmoid, SwiGLU): within the stated tolerance of float64
(hypothesis), sim == eager, bit-exact with the vendor's implementation on cpu_debug, emitted as its calls."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lane import examples

import asc_trace as asc
from adv_kernels import ACTIVATIONS, N, activation_kernel
from asc_trace.graph.ops import REGISTRY
from asc_trace.lower.api_symbols import unlisted
from helpers import needs_headers

REF = {"gelu": lambda x, y: 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3))),
       "faster_gelu": lambda x, y: x / (1 + np.exp(-1.702 * x)), "silu": lambda x, y: x / (1 + np.exp(-x)),
       "sigmoid": lambda x, y: 1 / (1 + np.exp(-x)), "swiglu": lambda x, y: x * y / (1 + np.exp(-y))}
_K: dict = {}


def _run(name, x, y, n=N, backend="sim", with_tmp=True):
    key = (name, backend, with_tmp and name != "silu")
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
    rng = np.random.default_rng(3)
    x, y = rng.uniform(-6, 6, N).astype(np.float16), rng.uniform(-6, 6, N).astype(np.float16)
    for name in sorted(REF):
        a = _run(name, x, y)
        assert a.tobytes() == _run(name, x, y, backend="eager").tobytes() == _run(name, x, y, with_tmp=False).tobytes()


@needs_headers
@pytest.mark.parametrize("name", sorted(REF))
def test_bit_exact_with_the_vendor_implementation(name):
    rng = np.random.default_rng(4)
    for dt in (np.float16, np.float32):
        x, y = rng.uniform(-6, 6, N).astype(dt), rng.uniform(-6, 6, N).astype(dt)
        assert _run(name, x, y).tobytes() == _run(name, x, y, backend="cpu_debug").tobytes(), np.dtype(dt).name


def test_emitted_as_the_vendors_calls():
    x = np.zeros(N, np.float16)
    for name, call in (("gelu", "AscendC::Gelu("), ("swiglu", "AscendC::SwiGLU("), ("silu", "AscendC::Silu(")):
        ck = asc.compile(activation_kernel(name, name != "silu"), (x, x, x, N))
        assert call in ck.source
        assert unlisted(ck.source, "asc-devkit") == [] and unlisted(ck.source, "cann-8.1") == []


def test_variants_not_modelled_are_refused():
    @asc.jit
    def k(x: asc.GlobalAddress):
        a = asc.LocalTensor(asc.float16, asc.TPosition.VECIN, 0, 256)
        asc.adv.gelu(a, a, 256, high_precision=True)
    with pytest.raises(asc.TraceError, match="default variant only"):
        k[1](np.zeros(256, np.float16))


def test_every_activation_is_tested_here():
    assert {f"adv_{n}" for n in REF} == {n for n, op in REGISTRY.items() if op.family == "adv"
                                         and n[4:] in set(ACTIVATIONS) | {"swiglu"}}
