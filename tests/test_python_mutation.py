"""A runtime region (for / asc.cond / asc.while_loop) that mutates a Python object made before it is
refused at the region's line on every backend (issue 18): traced once, the change would happen once,
while eager runs the Python every iteration."""
from __future__ import annotations

import types

import numpy as np
import pytest

import asc_trace as asc
from helpers import assert_points_at, every_backend

BACKENDS = every_backend()
TABLE = [1.0, 2.0]            # a module global a kernel mutates
COUNTS = {"n": 0}


def _tensors(x, z):
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    return xg, zg, asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)


def _launch(k, backend):
    x = np.ones(64, np.float32)
    with pytest.raises(asc.TraceError) as ei:
        asc.jit(k, backend=backend)[1](x, np.zeros_like(x), 3)
    return ei.value


@pytest.mark.parametrize("backend", BACKENDS)
def test_list_element_scaled_in_a_runtime_loop(backend):
    @asc.jit
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
        xg, zg, t = _tensors(x, z)
        scale = [1.0]
        for i in range(n):  # MARK-list
            scale[0] = scale[0] * 2.0
        asc.data_copy(t, xg, 64)
        asc.muls(t, t, scale[0], 64)
        asc.data_copy(zg, t, 64)

    err = _launch(k, backend)
    assert_points_at(err, "MARK-list")
    assert "`scale[0]`" in str(err) and "runtime loop" in str(err) and "eager" in str(err)


@pytest.mark.parametrize("backend", BACKENDS)
def test_dict_update_in_a_runtime_loop(backend):
    @asc.jit
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
        xg, zg, t = _tensors(x, z)
        d = {"s": 1.0}
        for i in range(n):  # MARK-dict
            d.update(s=d["s"] + 1.0)
        asc.data_copy(t, xg, 64)
        asc.adds(t, t, d["s"], 64)
        asc.data_copy(zg, t, 64)

    err = _launch(k, backend)
    assert_points_at(err, "MARK-dict")
    assert "`d['s']`" in str(err)


@pytest.mark.parametrize("backend", ["sim", "eager"])
def test_append_next_and_attribute_in_a_runtime_loop(backend):
    @asc.jit
    def appends(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
        xg, zg, t = _tensors(x, z)
        seen = []
        for i in range(n):  # MARK-append
            seen.append(1)
        asc.data_copy(t, xg, 64)
        asc.adds(t, t, float(len(seen)), 64)
        asc.data_copy(zg, t, 64)

    @asc.jit
    def iterates(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
        xg, zg, t = _tensors(x, z)
        it = iter([1.0, 2.0, 3.0, 4.0])
        asc.data_copy(t, xg, 64)
        for i in range(n):  # MARK-next
            asc.adds(t, t, next(it), 64)
        asc.data_copy(zg, t, 64)

    cfg = types.SimpleNamespace(bias=0.0)

    @asc.jit
    def sets_attr(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
        xg, zg, t = _tensors(x, z)
        asc.data_copy(t, xg, 64)
        for i in range(n):  # MARK-attr
            cfg.bias = cfg.bias + 1.0
            asc.adds(t, t, cfg.bias, 64)
        asc.data_copy(zg, t, 64)

    err = _launch(appends, backend)
    assert_points_at(err, "MARK-append")
    assert "changes `seen` of the enclosing function (its length" in str(err)
    err = _launch(iterates, backend)
    assert_points_at(err, "MARK-next")
    assert "`it`" in str(err) and "an iterator the region advances" in str(err)
    err = _launch(sets_attr, backend)
    assert_points_at(err, "MARK-attr")
    assert "`cfg.bias`" in str(err)
    assert cfg.bias == 1.0       # traced once (eager is refused by its trace before running anything)


@pytest.mark.parametrize("backend", ["sim", "eager"])
def test_a_global_mutated_through_a_helper(backend):
    def bump():
        TABLE[1] = TABLE[1] + 1.0

    def peek():
        return TABLE[1]

    @asc.jit
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
        xg, zg, t = _tensors(x, z)
        asc.data_copy(t, xg, 64)
        for i in range(n):  # MARK-global
            bump()
            asc.adds(t, t, peek(), 64)
        asc.data_copy(zg, t, 64)

    old = list(TABLE)
    try:
        err = _launch(k, backend)
    finally:
        TABLE[:] = old
    assert_points_at(err, "MARK-global")
    assert "`TABLE[1]`" in str(err) and "reached through `test_a_global_mutated_through_a_helper.<locals>.bump`" in str(err)


@pytest.mark.parametrize("backend", ["sim", "eager"])
def test_cond_and_while_loop_mutating_a_container(backend):
    @asc.jit
    def in_cond(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
        xg, zg, t = _tensors(x, z)
        COUNTS["n"] = 0

        def bump():
            COUNTS["n"] += 1
        asc.cond(n > 2, bump, lambda: None)  # MARK-cond
        asc.data_copy(t, xg, 64)
        asc.data_copy(zg, t, 64)

    @asc.jit
    def in_while(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
        xg, zg, t = _tensors(x, z)
        acc = np.zeros(1, np.float32)

        def body(i):
            acc[0] += 1.0
            return i + 1
        asc.while_loop(lambda i: i < n, body, 0)  # MARK-while
        asc.data_copy(t, xg, 64)
        asc.data_copy(zg, t, 64)

    err = _launch(in_cond, backend)
    assert_points_at(err, "MARK-cond")
    assert "asc.cond" in str(err) and "COUNTS['n']" in str(err)
    err = _launch(in_while, backend)
    assert_points_at(err, "MARK-while")
    assert "asc.while_loop" in str(err) and "`acc`" in str(err)


@pytest.mark.parametrize("backend", ["sim", "eager"])
def test_reading_containers_and_rebinding_tensors_in_a_loop_is_fine(backend):
    """Reads of outer containers, containers made inside the body, and an attribute rebound from one
    tensor to another (pyasc's class style) are not Python state changes."""
    class Stage:
        def __init__(self, t):
            self.t = t

    @asc.jit
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
        xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x)
        zg.set_global_buffer(z)
        bias = [0.5, 1.5]
        st = Stage(asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64))
        for i in range(n):
            st.t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
            local = [bias[1]]
            local.append(1.0)
            asc.data_copy(st.t, xg[i * 64:], 64)
            asc.adds(st.t, st.t, local[0], 64)
            asc.data_copy(zg[i * 64:], st.t, 64)

    x = np.arange(3 * 64, dtype=np.float32)
    z = np.zeros_like(x)
    asc.jit(k, backend=backend)[1](x, z, 3)
    np.testing.assert_array_equal(z, x + 1.5)
