"""asc.adv.fmod (Ascend C Fmod): the vendor's float steps src0 - trunc(src0 / src1) x src1 within tolerance of
float64 NumPy fmod (hypothesis) where the float quotient does not round onto an integer, and off by exactly
one src1 where it does; sim == eager == the stack form; bit-exact with the vendor on cpu_debug; the helper's
sizes; misuse refused at the call's line before any write."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lane import examples

import asc_trace as asc
from adv_kernels import N
from adv_kernels_fmod import fmod_kernel
from asc_trace.graph.ops import REGISTRY
from helpers import needs_headers


def _run(x, y, n=N, **kw):
    z = np.zeros_like(x)
    fmod_kernel(**kw)[1](x, y, z, n)
    return z


def _float_quotient(x, y, dtype):
    """The quotient the vendor's Div makes (in float, also for half), as float64."""
    with np.errstate(all="ignore"):
        return (x.astype(np.float32) / y.astype(np.float32)).astype(np.float64)


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@settings(max_examples=examples(8), deadline=None)
@given(data=st.data())
def test_within_tolerance_of_float64(dtype, data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**31)))
    scale = data.draw(st.sampled_from([1.0, 10.0, 100.0]))
    n = data.draw(st.sampled_from([16, 320, N]))
    x = rng.uniform(-scale, scale, N).astype(dtype)
    y = (rng.uniform(0.25, 4.0, N) * rng.choice([-1, 1], N)).astype(dtype)
    z = _run(x, y, n)[:n].astype(np.float64)
    xd, yd = x[:n].astype(np.float64), y[:n].astype(np.float64)
    ref = np.fmod(xd, yd)
    rtol, atol = REGISTRY["adv_fmod"].tolerance(np.dtype(dtype).name)
    q = _float_quotient(x[:n], y[:n], dtype)
    exact_q = xd / yd
    # where the float quotient's trunc is the exact quotient's trunc, the result is fmod up to rounding
    same = np.trunc(q) == np.trunc(exact_q)
    tol = atol + rtol * np.abs(xd) + np.abs(yd) * np.finfo(np.float32).eps * 4
    assert (np.abs(z - ref) <= tol)[same].all(), (z[same], ref[same])
    # elsewhere the quotient rounded onto the next integer: one src1 off, as the vendor's steps give
    k = np.trunc(exact_q) - np.trunc(q)
    assert (np.abs(z - (ref + k * yd)) <= tol)[~same].all()
    assert not _run(x, y, n)[n:].any(), "nothing past count is written"


def test_steps_are_the_vendors_in_float():
    x = np.array([7.5, -7.5, 1.0, 5.0, 0.0, 3.0] + [1.0] * (N - 6), np.float32)
    y = np.array([2.0, 2.0, 0.0, np.inf, 1.0, -2.0] + [1.0] * (N - 6), np.float32)
    z = _run(x, y)
    assert z[0] == 1.5 and z[1] == -1.5 and z[5] == 1.0
    assert np.isnan(z[2]), "x / 0 = inf, inf x 0 = NaN"
    assert np.isnan(z[3]), "x / inf = 0, 0 x inf = NaN (C's fmod would give 5)"
    assert z[4] == 0.0


def test_quotient_rounding_onto_an_integer_is_off_by_one_divisor():
    # 16777217 is not a float; x / y in float rounds to 2**24 exactly
    x = np.full(N, 50331650.0, np.float32)     # 3 x 16777216 + 2 (exactly representable)
    y = np.full(N, 3.0, np.float32)
    z = _run(x, y)
    q = np.float32(np.float32(x[0]) / np.float32(3.0))
    expect = np.float32(x[0] - np.float32(np.trunc(q) * np.float32(3.0)))
    assert z[0] == expect


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_sim_eager_and_the_stack_form_agree(dtype):
    rng = np.random.default_rng(3)
    x = rng.uniform(-50, 50, N).astype(dtype)
    y = rng.uniform(0.5, 3, N).astype(dtype)
    z = _run(x, y)
    assert z.tobytes() == _run(x, y, backend="eager").tobytes()
    assert z.tobytes() == _run(x, y, with_tmp=False).tobytes()
    assert z.tobytes() == _run(x, y, tmp_bytes=2048).tobytes(), "the half split does not change a value"


def test_half_is_computed_in_float_and_rounded_once():
    x = np.full(N, 1000.0, np.float16)
    y = np.full(N, 0.3, np.float16)
    z = _run(x, y)
    xf, yf = np.float32(x[0]), np.float32(y[0])
    assert z[0] == np.float16(xf - np.float32(np.trunc(np.float32(xf / yf)) * yf))


def test_host_helper_is_the_vendors_formula():
    assert asc.adv.get_fmod_max_min_tmp_size([1024], 2) == (16384, 2048)
    assert asc.adv.GetFmodMaxMinTmpSize([1024], 4) == (4096, 256)
    assert asc.adv.get_fmod_max_min_tmp_size([16], 4) == (256, 256)


@pytest.mark.parametrize("backend", ["sim", "eager"])
@pytest.mark.parametrize("dtype,tmp", [(np.float16, 1024), (np.float32, 128)])
def test_small_temporary_buffer_refused_before_any_write(backend, dtype, tmp):
    x = np.ones(N, dtype)
    z = np.full(N, 7, dtype)
    with pytest.raises(asc.errors.UBOverflowError) as e:
        fmod_kernel(tmp_bytes=tmp, backend=backend)[1](x, x.copy(), z, N)
    assert "adv_kernels_fmod.py" in str(e.value)
    assert (z == 7).all()


@pytest.mark.parametrize("backend", ["sim", "eager"])
def test_sources_of_different_sizes_are_refused(backend):
    x = np.ones(N, np.float32)
    z = np.full(N, 7, np.float32)
    with pytest.raises(asc.errors.AscTraceError) as e:
        fmod_kernel(y_len=N // 2, backend=backend)[1](x, x.copy(), z, N // 2)
    assert "adv_kernels_fmod.py" in str(e.value)
    assert (z == 7).all()


def test_dst_equal_to_a_source_is_refused_as_the_vendor_does():
    x = np.ones(N, np.float32)
    with pytest.raises(asc.errors.OutOfBoundsError, match="one tensor"):
        fmod_kernel(alias=True)[1](x, x.copy(), np.zeros(N, np.float32), N)


def test_int_is_a_dtype_error():
    x = np.ones(N, np.int32)
    with pytest.raises(asc.errors.DTypeError) as e:
        fmod_kernel()[1](x, x.copy(), np.zeros(N, np.int32), N)
    assert "adv_kernels_fmod.py" in str(e.value)


def test_emitted_call_is_the_vendors():
    args = (np.ones(N, np.float16), np.ones(N, np.float16), np.zeros(N, np.float16), N)
    src = asc.compile(fmod_kernel(), args).source
    assert "AscendC::Fmod(" in src and "fmod.h" in src
    assert "AscendC::Fmod(" in asc.compile(fmod_kernel(with_tmp=False), args).source


def test_cpp_refuses_by_name():
    x = np.ones(N, np.float32)
    with pytest.raises(asc.errors.ToolchainError, match="Fmod|fmod"):
        fmod_kernel(backend="cpp")[1](x, x.copy(), np.zeros(N, np.float32), N)


@pytest.mark.slow
@needs_headers
@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("with_tmp", [True, False])
def test_bit_exact_with_the_vendor_implementation(dtype, with_tmp):
    rng = np.random.default_rng(4)
    x = rng.uniform(-60, 60, N).astype(dtype)
    y = (rng.uniform(0.25, 5, N) * rng.choice([-1, 1], N)).astype(dtype)
    y[:4] = [0, 1, -1, 7]
    assert _run(x, y, 992, with_tmp=with_tmp).tobytes() == \
        _run(x, y, 992, with_tmp=with_tmp, backend="cpu_debug").tobytes()
