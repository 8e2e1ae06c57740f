"""Python state a runtime region changes through a function it calls, or through containers the first
rounds did not list (issue 18, fifth bullet): each was silently different before (sim and cpp used one
traced pass's value, eager n passes'), and is now a TraceError at the loop's line on every backend with
the output untouched."""
from __future__ import annotations

import collections

import numpy as np
import pytest

import asc_trace as asc
from helpers import assert_points_at, every_backend

BACKENDS = every_backend()
GAIN = 1.0                  # a module number a helper rebinds with `global`


def _double_gain() -> None:
    global GAIN
    GAIN = GAIN * 2.0


def _tensors(x, z):
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    return xg, zg, asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)


def _refused(k, backend: str, marker: str, name: str) -> None:
    x, z = np.ones(64, np.float32), np.zeros(64, np.float32)
    with pytest.raises(asc.TraceError) as ei:
        asc.jit(k, backend=backend)[1](x, z, 3)
    assert_points_at(ei.value, marker)
    assert f"`{name}" in str(ei.value), str(ei.value)
    assert not z.any(), "a refused launch wrote its output"


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_nonlocal_rebound_by_a_helper_the_loop_calls(backend):
    @asc.jit
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
        xg, zg, t = _tensors(x, z)
        total = 0.0

        def bump():
            nonlocal total
            total = total + 1.0
        for i in range(n):  # MARK-cell
            bump()
        asc.data_copy(t, xg, 64)
        asc.adds(t, t, total, 64)
        asc.data_copy(zg, t, 64)

    _refused(k, backend, "MARK-cell", "total")


def _free_variable_kernel():
    count = 0.0

    def bump():
        nonlocal count
        count = count + 1.0

    @asc.jit
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
        xg, zg, t = _tensors(x, z)
        for i in range(n):  # MARK-free
            bump()
        asc.data_copy(t, xg, 64)
        asc.adds(t, t, count, 64)
        asc.data_copy(zg, t, 64)
    return k


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_variable_of_the_function_around_the_kernel_rebound_in_the_loop(backend):
    _refused(_free_variable_kernel(), backend, "MARK-free", "count")


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_module_global_rebound_by_a_helper_the_loop_calls(backend):
    global GAIN

    @asc.jit
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
        xg, zg, t = _tensors(x, z)
        asc.data_copy(t, xg, 64)
        for i in range(n):  # MARK-global
            _double_gain()
            asc.muls(t, t, GAIN, 64)
        asc.data_copy(zg, t, 64)

    GAIN = 1.0
    _refused(k, backend, "MARK-global", "GAIN")


@pytest.mark.parametrize("backend", ["sim", "eager"])
def test_containers_of_other_kinds_changed_in_a_runtime_loop(backend):
    """An ndarray updated in place, a list reversed (same length), a deque rotated, a set grown, a
    bytearray element bumped."""
    @asc.jit
    def arr(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
        xg, zg, t = _tensors(x, z)
        acc = np.zeros(1, np.float32)
        for i in range(n):  # MARK-ndarray
            acc += 1.0
        asc.data_copy(t, xg, 64)
        asc.adds(t, t, float(acc[0]), 64)
        asc.data_copy(zg, t, 64)

    @asc.jit
    def rev(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
        xg, zg, t = _tensors(x, z)
        order = [1.0, 5.0]
        for i in range(n):  # MARK-reverse
            order.reverse()
        asc.data_copy(t, xg, 64)
        asc.adds(t, t, order[0], 64)
        asc.data_copy(zg, t, 64)

    @asc.jit
    def rot(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
        xg, zg, t = _tensors(x, z)
        q = collections.deque([1.0, 2.0, 3.0])
        asc.data_copy(t, xg, 64)
        for i in range(n):  # MARK-deque
            q.rotate(1)
            asc.adds(t, t, q[0], 64)
        asc.data_copy(zg, t, 64)

    @asc.jit
    def grow(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
        xg, zg, t = _tensors(x, z)
        seen = {0}
        for i in range(n):  # MARK-set
            seen.add(len(seen))
        asc.data_copy(t, xg, 64)
        asc.adds(t, t, float(len(seen)), 64)
        asc.data_copy(zg, t, 64)

    @asc.jit
    def byte(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
        xg, zg, t = _tensors(x, z)
        b = bytearray(b"\x01")
        for i in range(n):  # MARK-bytes
            b[0] = b[0] + 1
        asc.data_copy(t, xg, 64)
        asc.adds(t, t, float(b[0]), 64)
        asc.data_copy(zg, t, 64)

    for k, marker, name in ((arr, "MARK-ndarray", "acc"), (rev, "MARK-reverse", "order"), (rot, "MARK-deque", "q"),
                            (grow, "MARK-set", "seen"), (byte, "MARK-bytes", "b")):
        _refused(k, backend, marker, name)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_helper_that_only_reads_outer_state_is_fine(backend):
    """Calling a closure that reads (not rebinds) a variable of the function and a module number."""
    global GAIN

    @asc.jit
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
        xg, zg, t = _tensors(x, z)
        step = 0.5

        def scale():
            asc.muls(t, t, step * GAIN, 64)
        asc.data_copy(t, xg, 64)
        for i in range(n):
            scale()
        asc.data_copy(zg, t, 64)

    GAIN = 2.0
    x, z = np.full(64, 3.0, np.float32), np.zeros(64, np.float32)
    asc.jit(k, backend=backend)[1](x, z, 3)
    np.testing.assert_array_equal(z, np.full(64, 3.0, np.float32))
