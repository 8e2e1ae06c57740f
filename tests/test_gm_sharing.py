"""GM arguments that share memory at launch (issue 18): when the kernel writes one of two arguments that
partly overlap, the launch is refused on every backend before anything runs (the schedule treats each
argument as its own memory); arguments that only read shared memory, disjoint views of one array and
one array passed whole twice (in place) run and give NumPy's bytes in program order."""
from __future__ import annotations

import numpy as np
import pytest

import asc_trace as asc
from helpers import assert_points_at, every_backend

BACKENDS = every_backend()
T = 64


@asc.jit
def inc(x: asc.GlobalAddress, y: asc.GlobalAddress, tiles: int):
    xg, yg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x)
    yg.set_global_buffer(y)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, T)
    for i in range(tiles):
        asc.data_copy(t, xg[i * T:], T)
        asc.adds(t, t, 1.0, T)
        asc.data_copy(yg[i * T:], t, T)


@asc.jit
def add2(a: asc.GlobalAddress, b: asc.GlobalAddress, z: asc.GlobalAddress):
    ag, bg, zg = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    ag.set_global_buffer(a)
    bg.set_global_buffer(b)
    zg.set_global_buffer(z)
    s = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, T)
    u = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 4 * T, T)
    asc.data_copy(s, ag, T)
    asc.data_copy(u, bg, T)
    asc.add(s, s, u, T)
    asc.data_copy(zg, s, T)


@pytest.mark.parametrize("backend", BACKENDS)
def test_written_argument_sharing_memory_is_refused(backend):
    base = np.arange(5 * T, dtype=np.float32)
    a = base.copy()
    with pytest.raises(asc.LaunchError) as ei:
        asc.jit(inc, backend=backend)[1](a[:4 * T], a[T:], 4)  # MARK-shifted
    assert_points_at(ei.value, "MARK-shifted")
    assert "'x' and 'y' partly overlap in memory and the kernel writes 'y'" in str(ei.value)
    np.testing.assert_array_equal(a, base)          # refused before anything ran


@pytest.mark.parametrize("backend", BACKENDS)
def test_shared_reads_and_disjoint_views_run(backend):
    x = np.arange(T, dtype=np.float32)
    z = np.zeros(T, np.float32)
    asc.jit(add2, backend=backend)[1](x, x, z)      # one array read through two arguments
    np.testing.assert_array_equal(z, 2 * x)
    buf = np.arange(8 * T, dtype=np.float32)
    want = buf.copy()
    want[4 * T:] = buf[:4 * T] + 1
    asc.jit(inc, backend=backend)[1](buf[:4 * T], buf[4 * T:], 4)   # disjoint views of one base
    np.testing.assert_array_equal(buf, want)
    same = np.arange(4 * T, dtype=np.float32)
    asc.jit(inc, backend=backend)[1](same, same, 4)                  # in place: y is x
    np.testing.assert_array_equal(same, np.arange(4 * T, dtype=np.float32) + 1)
