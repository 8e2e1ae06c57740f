"""A tensor variable rebound in a runtime loop's body and read there before the rebinding: the body is
traced once, so every iteration would address the first pass's tensor (sim gave [1, 2, 3] where Python's
semantics, and eager, give [1, 3, 6]; found by a helper). Refused at the loop on every backend; the same
computation addressed from the loop index runs."""
from __future__ import annotations

import numpy as np
import pytest

import asc_trace as asc
from helpers import every_backend

T = 64


@asc.jit
def running_sum_rebound(z: asc.GlobalAddress, n: int):
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z, 3 * T)
    first = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, T)
    acc = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 4096, T)
    asc.duplicate(first, 1.0, T)
    asc.duplicate(acc, 0.0, T)
    prev = first
    for i in range(n):  # MARK-loop
        nxt = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 8192 + (i % 2) * 1024, T)
        asc.add(acc, acc, prev, T)
        asc.adds(nxt, prev, 1.0, T)
        asc.data_copy(zg[i * T:], acc, T)
        prev = nxt


@asc.jit
def running_sum_indexed(z: asc.GlobalAddress, n: int):
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z, 3 * T)
    acc = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 4096, T)
    asc.duplicate(asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 8192, T), 1.0, T)
    asc.duplicate(acc, 0.0, T)
    for i in range(n):
        prev = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 8192 + (i % 2) * 1024, T)
        nxt = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 8192 + ((i + 1) % 2) * 1024, T)
        asc.add(acc, acc, prev, T)
        asc.adds(nxt, prev, 1.0, T)
        asc.data_copy(zg[i * T:], acc, T)


@pytest.mark.parametrize("backend", every_backend())
def test_a_tensor_rebound_across_iterations_is_refused_at_the_loop(backend):
    from helpers import assert_points_at
    z = np.zeros(3 * T, np.float32)
    with pytest.raises(asc.TraceError, match="`prev` names one tensor") as e:
        asc.jit(running_sum_rebound, backend=backend)[1](z, 3)
    assert_points_at(e.value, "MARK-loop")
    assert not z.any()


@pytest.mark.parametrize("backend", every_backend())
def test_the_indexed_form_runs(backend):
    z = np.zeros(3 * T, np.float32)
    asc.jit(running_sum_indexed, backend=backend)[1](z, 3)
    np.testing.assert_array_equal(z[::T], [1, 3, 6])
