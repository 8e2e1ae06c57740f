"""asc.adv.log2 / log10 / clamp_max / clamp_min: within the stated tolerance of float64 NumPy
(hypothesis), sim == eager, the forms without a temporary buffer the same, bit-exact with the vendor's
implementation on cpu_debug, the helpers' sizes, misuse refused."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lane import examples

import asc_trace as asc
from adv_kernels_quant_reduce import N, SCALAR, math_kernel as kernel
from asc_trace.graph.ops import REGISTRY
from helpers import needs_headers

F64 = {"log2": np.log2, "log10": np.log10, "clamp_max": lambda v: np.minimum(v, 0.75),
       "clamp_min": lambda v: np.maximum(v, -0.5)}


def _run(name, x, n=N, **kw):
    z = np.zeros_like(x)
    kernel(name, **kw)[1](x, z, n)
    return z


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("name", sorted(F64))
@settings(max_examples=examples(6), deadline=None)
@given(data=st.data())
def test_within_tolerance_of_float64(name, dtype, data):
    lo, hi = (0.01, 100.0) if name.startswith("log") else (-2.0, 2.0)
    n = data.draw(st.sampled_from([16, 256, 992, N]))
    x = np.random.default_rng(data.draw(st.integers(0, 2**31))).uniform(lo, hi, N).astype(dtype)
    z = _run(name, x, n)
    rtol, atol = REGISTRY[f"adv_{name}"].tolerance(np.dtype(dtype).name)
    ref = F64[name](x[:n].astype(np.float64))
    if name in SCALAR:      # exact: the scalar rounded to T, one Mins / Maxs
        ref = np.minimum(x[:n], dtype(0.75)) if name == "clamp_max" else np.maximum(x[:n], dtype(-0.5))
    np.testing.assert_allclose(z[:n].astype(np.float64), ref, rtol=rtol, atol=atol + 1e-300)
    assert not z[n:].any(), "nothing past count is written"


@pytest.mark.parametrize("name", sorted(F64))
def test_sim_eager_and_the_stack_form_agree(name):
    x = np.random.default_rng(2).uniform(0.01, 50, N).astype(np.float16)
    z = _run(name, x)
    assert z.tobytes() == _run(name, x, backend="eager").tobytes()
    assert z.tobytes() == _run(name, x, with_tmp=False).tobytes()


def test_log2_half_is_computed_in_float():
    x = np.array([3.0] * N, np.float16)
    z2 = _run("log2", x)
    assert z2[0] == np.float16(np.float32(np.log(np.float32(3))) * np.float32(1.4426950408889634))


def test_host_helpers_are_the_vendors_formulas():
    assert asc.adv.get_log2_max_min_tmp_size([1024], 2) == (4096, 256)
    assert asc.adv.GetLog2MaxMinTmpSize([1024], 4) == (0, 0)
    assert asc.adv.get_log10_max_min_tmp_size([1024], 2) == (0, 0)
    assert asc.adv.get_clamp_max_min_tmp_size([1024], 2) == (1024, 128)
    assert asc.adv.GetClampMaxMinTmpSize([16], 4) == (64, 64)


@pytest.mark.parametrize("backend", ["sim", "eager"])
def test_small_temporary_buffer_refused_before_any_write(backend):
    x = np.ones(N, np.float16)
    z = np.full(N, 7, np.float16)
    with pytest.raises(asc.errors.UBOverflowError) as e:
        kernel("log2", tmp_bytes=128, backend=backend)[1](x, z, N)
    assert "adv_kernels_quant_reduce.py" in str(e.value)   # the call's line
    assert (z == 7).all()


@pytest.mark.parametrize("name", ["clamp_max", "log2"])
def test_dst_equal_to_src_is_refused_as_the_vendor_does(name):
    x = np.ones(N, np.float32)
    with pytest.raises(asc.errors.OutOfBoundsError, match="one tensor"):
        kernel(name, alias=True)[1](x, np.zeros(N, np.float32), N)


def test_int_is_a_dtype_error():
    with pytest.raises(asc.errors.DTypeError):
        kernel("clamp_min")[1](np.ones(N, np.int32), np.zeros(N, np.int32), N)


def test_emitted_calls_are_the_vendors():
    src = asc.compile(kernel("clamp_max"), (np.ones(N, np.float16), np.zeros(N, np.float16), N)).source
    assert "AscendC::ClampMax(" in src
    src = asc.compile(kernel("log10"), (np.ones(N, np.float16), np.zeros(N, np.float16), N)).source
    assert "AscendC::Log10(" in src


@pytest.mark.slow
@needs_headers
@pytest.mark.parametrize("name", sorted(F64))
@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_bit_exact_with_the_vendor_implementation(name, dtype):
    x = np.random.default_rng(4).uniform(0.01, 50, N).astype(dtype)
    x[:8] -= 20
    if name.startswith("log"):
        x = np.abs(x) + dtype(0.01)
    assert _run(name, x, 992).tobytes() == _run(name, x, 992, backend="cpu_debug").tobytes()
