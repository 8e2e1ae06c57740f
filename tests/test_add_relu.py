"""asc.add_relu (Ascend C AddRelu), the op added to show that a new vector op is one record
(graph/ops/vec_binary.py) plus its tests: hypothesis-drawn inputs against NumPy on the three CPU
backends (cpp compiles the emitted Ascend C against the API model, whose AddRelu comes from the record),
the mask form on the simulator, and the emitted call with its declarations listed for both CANN
generations."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lane import examples

import asc_trace as asc
import op_cases as C
from asc_trace.lower.api_symbols import emitted_symbols, unlisted

SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


def _numpy(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        return np.maximum(a + b, a.dtype.type(0))      # int16 wraps, as Add does


@pytest.mark.parametrize("backend", ["sim", "eager", "cpp"])
@pytest.mark.parametrize("dt", ["int16", "float16", "float32"])
@settings(max_examples=examples(8), **SETTINGS)
@given(n=st.integers(1, 300), seed=st.integers(0, 2**16))
def test_add_relu_is_relu_of_the_sum(backend, dt, n, seed):
    rng = np.random.default_rng(seed)
    cap = C.padded(n, dt)
    a, b, z0 = C.values(cap, dt, rng), C.values(cap, dt, rng), C.values(cap, dt, rng)
    z = C.as_arg(z0.copy(), dt)
    asc.jit(C.elementwise, backend=backend)[1](C.as_arg(a, dt), C.as_arg(b, dt), z, n, cap, "add_relu",
                                               "vec_binary", 0.0)
    got = C.bits_of(z, dt)
    np.testing.assert_array_equal(got[:n], _numpy(a[:n], b[:n]))
    assert not (got[:n] < 0).any()
    np.testing.assert_array_equal(got[n:], z0[n:])      # nothing past `count` is touched


def test_add_relu_extremes():
    """Negative sums give +0, NaN stays NaN, int16 overflow wraps before the relu."""
    a = np.array([-1.0, -0.0, np.nan, 2.0] * 16, np.float32)
    b = np.array([0.5, -0.0, 1.0, -3.0] * 16, np.float32)
    z = np.full(64, 7.0, np.float32)
    asc.jit(C.elementwise, backend="sim")[1](a, b, z, 64, 64, "add_relu", "vec_binary", 0.0)
    assert np.signbit(z[:2]).tolist() == [False, False] and z[0] == 0 and z[1] == 0
    assert np.isnan(z[2]) and z[3] == 0
    i = np.full(16, 32767, np.int16)
    zi = np.zeros(16, np.int16)
    asc.jit(C.elementwise, backend="sim")[1](i, np.ones(16, np.int16), zi, 16, 16, "add_relu", "vec_binary", 0.0)
    assert (zi == 0).all()          # 32767 + 1 wraps to -32768, and relu makes it 0


def test_add_relu_mask_form_on_sim():
    rng = np.random.default_rng(5)
    dt = "float32"
    a, b, c = (C.values(512, dt, rng) for _ in range(3))
    z = c.copy()
    C.masked[1](a, b, z, 512, "add_relu", "vec_binary", 0.0, (40,), 2, (1, 1, 1, 8, 8, 8))
    want = C.masked_reference(_numpy, a, b, c, dt, (40,), 2, (1, 1, 1, 8, 8, 8), "vec_binary", 0.0)
    np.testing.assert_array_equal(z, want)


def test_add_relu_emits_the_api_call_both_generations_declare():
    x = np.zeros(64, np.float32)
    src = asc.compile(C.elementwise, (x, x, x.copy(), 64, 64, "add_relu", "vec_binary", 0.0)).source
    assert "AscendC::AddRelu(" in src
    assert "AddRelu/4" in emitted_symbols(src)
    assert unlisted(src, "asc-devkit") == [] and unlisted(src, "cann-8.1") == []
