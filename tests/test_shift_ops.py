"""asc.shift_left / asc.shift_right (Ascend C ShiftLeft / ShiftRight): the shift's range and kind are
checked at the user's line; the values against Python's own shifts on sim, eager and cpp."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
import lane
from lane import examples

import asc_trace as asc
from asc_trace.errors import DTypeError, TraceError


@asc.jit
def shift(x: asc.GlobalAddress, z: asc.GlobalAddress, n: asc.ConstExpr[int], op: asc.ConstExpr[str],
          s: asc.ConstExpr[int]):
    gx, gz = asc.GlobalTensor(), asc.GlobalTensor()
    gx.set_global_buffer(x, n)
    gz.set_global_buffer(z, n)
    a = asc.LocalTensor(x.dtype, asc.TPosition.VECIN, 0, n)
    c = asc.LocalTensor(x.dtype, asc.TPosition.VECOUT, 8192, n)
    asc.data_copy(a, gx, n)
    getattr(asc, op)(c, a, s, count=n)
    asc.data_copy(gz, c, n)


def _want(x: np.ndarray, op: str, s: int) -> np.ndarray:
    bits = 8 * x.itemsize
    if op == "shift_left":
        u = x.view(f"u{x.itemsize}")
        return np.array([(int(v) << s) & ((1 << bits) - 1) for v in u], dtype=u.dtype).view(x.dtype)
    return np.array([int(v) >> s for v in x], dtype=x.dtype)


# the fast lane builds nothing with g++ (tests/conftest.py): there the search draws sim and eager only
DRAWN_BACKENDS = ["sim", "eager"] if lane.FAST else ["sim", "eager", "cpp"]


@settings(max_examples=examples(16), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dt=st.sampled_from(["int16", "uint16", "int32", "uint32"]), op=st.sampled_from(["shift_left", "shift_right"]),
       data=st.data(), backend=st.sampled_from(DRAWN_BACKENDS))
def test_shift_matches_python(dt, op, data, backend):
    bits = 8 * np.dtype(dt).itemsize
    s = data.draw(st.integers(0, bits - 1))
    n = 64
    info = np.iinfo(dt)
    x = np.array(data.draw(st.lists(st.integers(int(info.min), int(info.max)), min_size=n, max_size=n)), dtype=dt)
    z = np.zeros(n, dt)
    asc.jit(shift, backend=backend)[1](x, z, n, op, s)
    np.testing.assert_array_equal(z, _want(x, op, s))


def _kernel(dtype, amount):
    @asc.jit
    def k():
        a = asc.LocalTensor(dtype, asc.TPosition.VECIN, 0, 128)
        asc.shift_left(a, a, amount, count=128)
    return k


@pytest.mark.parametrize("dtype,amount,cls,words", [
    (asc.int16, 16, TraceError, "shifts by 0..15 bits, got 16"),
    (asc.int32, -1, TraceError, "shifts by 0..31 bits, got -1"),
    (asc.float16, 1, DTypeError, "does not support float16"),
])
def test_bad_shift_is_refused_at_the_users_line(dtype, amount, cls, words):
    with pytest.raises(cls) as e:
        _kernel(dtype, amount)[1]()
    message, _, where = str(e.value).partition("-->")
    assert words in message and "test_shift_ops.py" in where


def test_a_runtime_shift_out_of_range_is_refused_when_it_runs():
    """A runtime shift is accepted (the API takes it as a scalar) and checked when it runs: 0..15 on int16
    (tests/test_adv_findings.py runs it on every backend)."""
    @asc.jit
    def k(s: int):
        a = asc.LocalTensor(asc.int16, asc.TPosition.VECIN, 0, 128)
        asc.shift_right(a, a, s, count=128)

    k[1](3)
    with pytest.raises(asc.ScalarError) as e:
        k[1](16)
    message, _, where = str(e.value).partition("-->")
    assert "is 16, outside 0..15" in message and "test_shift_ops.py" in where
