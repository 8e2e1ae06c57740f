"""asc.adv.sum / asc.adv.mean (Ascend C Sum, Mean): within the stated tolerance of float64 NumPy
(hypothesis), sim == eager, bit-exact with the vendor's implementation on cpu_debug, the host helpers'
sizes, misuse refused at the user's line."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lane import examples

import asc_trace as asc
from adv_kernels_quant_reduce import reduce_kernel
from asc_trace.graph.ops import REGISTRY
from helpers import needs_headers


def _run(name, x2, n, dt, **kw):
    outter, inner = x2.shape
    per = 32 // np.dtype(dt).itemsize
    z = np.full(-(-outter // per) * per, 7, dt)
    reduce_kernel(name, outter, inner, n, dt, **kw)[1](x2.reshape(-1).astype(dt), z)
    return z


@pytest.mark.parametrize("dt", [np.float16, np.float32])
@pytest.mark.parametrize("name,acc", [("sum", None), ("mean", None), ("mean", asc.float32)])
@settings(max_examples=examples(6), deadline=None)
@given(data=st.data())
def test_within_tolerance_of_float64(name, acc, dt, data):
    if acc is not None and dt == np.float32:
        return
    per = 32 // np.dtype(dt).itemsize
    outter = data.draw(st.integers(1, 5))
    n = data.draw(st.sampled_from([1, 7, 64, 100, 128, 300, 1030]))
    inner = -(-n // per) * per
    rng = np.random.default_rng(data.draw(st.integers(0, 2**31)))
    x = rng.uniform(-1, 1, (outter, inner)).astype(dt)
    z = _run(name, x, n, dt, acc=acc)
    ref = x[:, :n].astype(np.float64).sum(axis=1)
    if name == "mean":
        ref = ref / n
    rtol, atol = REGISTRY[f"adv_{name}"].tolerance(np.dtype(dt).name)
    scale = 1.0 if name == "mean" else np.sqrt(n)    # a sum's error grows with its terms' count
    np.testing.assert_allclose(z[:outter].astype(np.float64), ref, rtol=rtol, atol=atol * scale)
    assert (z[outter:] == 7).all(), "nothing past the rows is written"


def test_sim_and_eager_agree_byte_for_byte():
    x = np.random.default_rng(3).uniform(-2, 2, (3, 320)).astype(np.float16)
    for name in ("sum", "mean"):
        assert _run(name, x, 300, np.float16).tobytes() == _run(name, x, 300, np.float16, backend="eager").tobytes()


def test_without_a_temporary_buffer_the_same():
    x = np.random.default_rng(4).uniform(-2, 2, (2, 512)).astype(np.float32)
    assert _run("mean", x, 500, np.float32).tobytes() == _run("mean", x, 500, np.float32, with_tmp=False).tobytes()


def test_host_helpers_are_the_vendors_formulas():
    assert asc.adv.get_sum_max_min_tmp_size(1000, 4) == (64, 64)        # 16 partials -> 2 blocks of 8 floats
    assert asc.adv.GetSumMaxMinTmpSize(100, 2) == (32, 32)
    assert asc.adv.get_mean_max_min_tmp_size(1000, 4, 4) == (32, 32)     # ceil(16 / 32) x 32 bytes
    assert asc.adv.get_mean_max_min_tmp_size(1000, 2, 4) == (32 + 1008 * 4, 32 + 1008 * 4)


@pytest.mark.parametrize("backend", ["sim", "eager"])
def test_small_temporary_buffer_refused_before_any_write(backend):
    x = np.ones((2, 1024), np.float32)
    z = np.full(8, 7, np.float32)
    k = reduce_kernel("sum", 2, 1024, 1024, np.float32, tmp_bytes=32, backend=backend)
    with pytest.raises(asc.errors.UBOverflowError) as e:
        k[1](x.reshape(-1), z)
    assert "adv_kernels_quant_reduce.py" in str(e.value)   # the call's line
    assert (z == 7).all()


@pytest.mark.parametrize("outter,inner,n,err", [(2, 12, 12, "32 bytes"), (2, 16, 17, "n 17"), (2, 16, 0, "n 0")])
def test_bad_params_are_trace_errors(outter, inner, n, err):
    k = reduce_kernel("sum", outter, inner, n, np.float32, tmp_bytes=256)
    with pytest.raises(asc.errors.TraceError, match=err):
        k[1](np.ones(outter * inner, np.float32), np.zeros(8, np.float32))


def test_emitted_calls_are_the_vendors():
    k = reduce_kernel("mean", 3, 320, 300, np.float16, acc=asc.float32)
    src = asc.compile(k, (np.ones(960, np.float16), np.zeros(16, np.float16))).source
    assert "AscendC::Mean<half, float>(" in src and "{3, 320, 300});" in src


@pytest.mark.slow
@needs_headers
@pytest.mark.parametrize("name,dt,acc,outter,n", [
    ("sum", np.float32, None, 3, 1000), ("sum", np.float16, None, 2, 300), ("mean", np.float32, None, 3, 50),
    ("mean", np.float16, None, 2, 2000), ("mean", np.float16, asc.float32, 3, 700),
])
def test_bit_exact_with_the_vendor_implementation(name, dt, acc, outter, n):
    per = 32 // np.dtype(dt).itemsize
    x = np.random.default_rng(8).uniform(-1, 1, (outter, -(-n // per) * per)).astype(dt)
    sim = _run(name, x, n, dt, acc=acc)
    cpu = _run(name, x, n, dt, acc=acc, backend="cpu_debug")
    assert sim.tobytes() == cpu.tobytes()
