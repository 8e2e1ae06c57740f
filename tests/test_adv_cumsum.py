"""asc.adv.cumsum (Ascend C CumSum): within tolerance of float64 NumPy (hypothesis), exact against the float32
sequential sum the vendor's steps make, last_row, sim == eager == the stack form, bit-exact with the vendor on
cpu_debug, the host helper's sizes, misuse refused at the call's line before any write."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lane import examples

import asc_trace as asc
from adv_kernels_cumsum import cumsum_kernel
from helpers import needs_headers


def _run(x, o, i, last=True, **kw):
    z, r = np.zeros_like(x), np.zeros(i, x.dtype)
    cumsum_kernel(o, i, last, **kw)[1](x, z, r)
    return z.reshape(o, i), r


def _steps(x, o, i, last):
    """The vendor's steps read in NumPy: float32 sequential sums, rounded once to T, Adds(0) where it copies."""
    acc = np.add.accumulate(x.reshape(o, i).astype(np.float32), axis=1 if last else 0, dtype=np.float32)
    y = acc.astype(x.dtype)
    if last:
        y = y + x.dtype.type(0)
    elif x.dtype == np.float32:
        y[0] = y[0] + np.float32(0)
    return y


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@settings(max_examples=examples(8), deadline=None)
@given(data=st.data())
def test_within_tolerance_of_float64(dtype, data):
    per = 32 // np.dtype(dtype).itemsize
    o = data.draw(st.integers(1, 40))
    i = per * data.draw(st.integers(1, 6))
    last = data.draw(st.booleans())
    x = np.random.default_rng(data.draw(st.integers(0, 2**31))).uniform(-1, 1, o * i).astype(dtype)
    z, r = _run(x, o, i, last)
    ref = np.cumsum(x.reshape(o, i).astype(np.float64), axis=1 if last else 0)
    steps = i if last else o
    # one rounding to T at the end plus the float32 sum's error, which grows with the number of terms
    tol = np.finfo(dtype).eps * np.abs(ref) + steps * np.finfo(np.float32).eps * 2 + 1e-30
    assert (np.abs(z - ref) <= tol).all()
    assert z.tobytes() == _steps(x, o, i, last).tobytes(), "exact against the float32 reading of the steps"
    assert r.tobytes() == (z[-1] + dtype(0)).tobytes()


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("last", [True, False])
def test_sim_eager_stack_and_split_agree(dtype, last):
    o, i = 40, 32
    x = np.random.default_rng(1).uniform(-4, 4, o * i).astype(dtype)
    z, r = _run(x, o, i, last)
    ze, re_ = _run(x, o, i, last, backend="eager")
    assert z.tobytes() == ze.tobytes() and r.tobytes() == re_.tobytes()
    assert z.tobytes() == _run(x, o, i, last, with_tmp=False)[0].tobytes()
    lo = asc.adv.get_cumsum_max_min_tmp_size([o, i], np.dtype(dtype).itemsize, last)[1]
    if lo:
        assert z.tobytes() == _run(x, o, i, last, tmp_bytes=lo)[0].tobytes(), "the pass split changes no value"


def test_negative_zero_follows_the_steps():
    x = np.full(16 * 8, -0.0, np.float32)
    z, r = _run(x, 16, 8, True)
    assert not np.signbit(z).any(), "last axis: the final Adds(x, 0) makes -0 +0"
    z, _ = _run(x, 16, 8, False)
    assert not np.signbit(z[0]).any() and np.signbit(z[1:]).all(), "first axis, float: only row 0 goes by Adds"


def test_last_row_is_not_written_without_output_last_row():
    x = np.ones(16 * 16, np.float16)
    z, r = np.zeros_like(x), np.full(16, 7, np.float16)
    cumsum_kernel(16, 16, True, last_row=False)[1](x, z, r)
    # the kernel copies last_row out anyway: UB nothing wrote reads as the simulator's NaN fill
    assert np.isnan(r).all()
    cumsum_kernel(16, 16, True, last_row=True)[1](x, z, r)
    assert (r == z[-16:]).all() and r[-1] == 16


def test_host_helper_is_the_vendors_formula():
    assert asc.adv.get_cumsum_max_min_tmp_size([20, 32], 2, False) == (2560, 2560)
    assert asc.adv.GetCumSumMaxMinTmpSize([20, 32], 4, False) == (0, 0)
    # last axis, half: alignOutter 32: 32 x 32 x 2 + 32 x 32 x 2 x 2; min 32 x 16 x 2 + 16 x 32 x 2 x 2
    assert asc.adv.get_cumsum_max_min_tmp_size([20, 32], 2, True) == (6144, 3072)
    assert asc.adv.get_cumsum_max_min_tmp_size([20, 8], 4, True) == (2048, 1024)
    with pytest.raises(asc.errors.TraceError):
        asc.adv.get_cumsum_max_min_tmp_size([20, 12], 2, True)


@pytest.mark.parametrize("backend", ["sim", "eager"])
def test_small_temporary_buffer_refused_before_any_write(backend):
    x = np.ones(20 * 32, np.float16)
    z, r = np.full_like(x, 7), np.full(32, 7, np.float16)
    with pytest.raises(asc.errors.UBOverflowError) as e:
        cumsum_kernel(20, 32, True, tmp_bytes=2048, backend=backend)[1](x, z, r)
    assert "adv_kernels_cumsum.py" in str(e.value)
    assert (z == 7).all() and (r == 7).all()


@pytest.mark.parametrize("backend", ["sim", "eager"])
@pytest.mark.parametrize("o,i,dtype,err", [(4, 12, np.float16, asc.errors.TraceError),
                                          (4, 16, np.int32, asc.errors.DTypeError),
                                          (0, 16, np.float16, asc.errors.TraceError)])
def test_bad_shape_or_dtype_refused_at_the_call(backend, o, i, dtype, err):
    x = np.ones(max(o, 1) * i, dtype)
    with pytest.raises(err) as e:
        cumsum_kernel(o, i, True, tmp_bytes=4096, backend=backend)[1](x, np.zeros_like(x), np.zeros(i, dtype))
    assert "adv_kernels_cumsum.py" in str(e.value)


def test_dst_equal_to_src_is_refused():
    with pytest.raises(asc.errors.OutOfBoundsError, match="one tensor"):
        _run(np.ones(16 * 16, np.float16), 16, 16, alias=True)


def test_emitted_call_is_the_vendors():
    args = (np.ones(20 * 32, np.float16), np.zeros(20 * 32, np.float16), np.zeros(32, np.float16))
    src = asc.compile(cumsum_kernel(20, 32, False, last_row=True), args).source
    assert "AscendC::CumSum<half, asct_cumsum_cfg" in src and "{false, false, true}" in src
    assert "AscendC::CumSumInfo{20U, 32U}" in src


def test_cpp_refuses_by_name():
    x = np.ones(16 * 16, np.float16)
    with pytest.raises(asc.errors.ToolchainError, match="CumSum|cumsum"):
        _run(x, 16, 16, backend="cpp")


@pytest.mark.slow
@needs_headers
@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("o,i", [(20, 32), (3, 64)])
def test_first_axis_bit_exact_with_the_vendor_implementation(dtype, o, i):
    x = np.random.default_rng(6).uniform(-8, 8, o * i).astype(dtype)
    x[:3] = -0.0
    z, r = _run(x, o, i, False)
    zc, rc = _run(x, o, i, False, backend="cpu_debug")
    assert z.tobytes() == zc.tobytes() and r.tobytes() == rc.tobytes()


@pytest.mark.slow
@needs_headers
def test_last_axis_on_cpu_debug_is_refused_at_the_call():
    """The vendor's last-axis path transposes with TransDataTo5HD, whose address registers (set_va_reg_sb) the
    CPU-debug layer does not model: the run stops with ToolchainError at the call, not with a wrong result."""
    x = np.ones(20 * 32, np.float16)
    with pytest.raises(asc.errors.ToolchainError, match="set_va_reg_sb") as e:
        _run(x, 20, 32, True, backend="cpu_debug")
    assert "adv_kernels_cumsum.py" in str(e.value)
