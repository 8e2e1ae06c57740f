"""GM arguments that share memory at launch (issue 18): one array passed twice, or two overlapping views
of one array, are one memory for the scheduler, the proof and the race checker (the kernel is compiled
per sharing pattern: graph/signature.py `Param.alias`), so a write through one argument and an access
through the other are ordered, and every backend gives program order's bytes (cpu_debug too, which
runs on a copy of the arguments: it copies shared memory once)."""
from __future__ import annotations

import numpy as np
import pytest

import asc_trace as asc
from asc_trace.graph.sync_proof import prove
from asc_trace.runtime.args import bind_args
from helpers import every_backend

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


def _inc_in_program_order(x: np.ndarray, y: np.ndarray, tiles: int) -> None:
    for i in range(tiles):
        y[i * T:(i + 1) * T] = x[i * T:(i + 1) * T] + 1


@pytest.mark.parametrize("backend", BACKENDS)
def test_written_argument_sharing_memory_is_one_memory(backend):
    """y is x shifted by one tile: each tile reads what the previous iteration wrote through y."""
    base = np.arange(5 * T, dtype=np.float32)
    a, want = base.copy(), base.copy()
    _inc_in_program_order(want[:4 * T], want[T:], 4)
    asc.jit(inc, backend=backend)[1](a[:4 * T], a[T:], 4)
    np.testing.assert_array_equal(a, want)
    np.testing.assert_array_equal(a[4 * T:], base[:T] + 4)      # the chain went through every tile


def _launch_graph(k, *args):
    """The graph a launch with these arguments runs (asc.compile takes example inputs as shapes only)."""
    return k.compiled(bind_args(k.name, k.specs, args, {}, None).signature).graph


def test_the_schedule_orders_accesses_through_the_two_names():
    a = np.zeros(5 * T, np.float32)
    shared = _launch_graph(inc, a[:4 * T], a[T:], 4)
    apart = _launch_graph(inc, a[:4 * T], np.zeros(4 * T, np.float32), 4)
    assert "shares the memory" not in str(asc.compile(inc, (a, a, 4)).graph)     # examples: shapes only
    assert "shares the memory of parameter 0, +256 bytes" in str(shared)
    # the copy-out through y must finish before the next copy-in through x reads the same bytes: a RAW
    # through GM (apart, the copy-in only waits for the UB tile's copy-out: a WAR)
    def gm_raw(g) -> bool:
        return any(n.op == "set_flag" and n.args[0] == asc.HardEvent.MTE3_MTE2
                   and n.attr("why", "").startswith("auto: RAW") for n in g)
    assert gm_raw(shared) and not gm_raw(apart)
    assert prove(shared) == [] and prove(apart) == []


@asc.jit(auto_sync=False)
def inc_hand_synced(x: asc.GlobalAddress, y: asc.GlobalAddress, tiles: int):
    """Flags for one tile's chain only: right for separate arrays, a race when y overlaps x."""
    xg, yg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x)
    yg.set_global_buffer(y)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, T)
    u = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 4 * T, T)
    for i in range(tiles):
        asc.data_copy(t, xg[i * T:], T)
        asc.set_flag(asc.HardEvent.MTE2_V, 0)
        asc.wait_flag(asc.HardEvent.MTE2_V, 0)
        asc.adds(u, t, 1.0, T)
        asc.set_flag(asc.HardEvent.V_MTE2, 0)       # t may be loaded again
        asc.wait_flag(asc.HardEvent.V_MTE2, 0)
        asc.set_flag(asc.HardEvent.V_MTE3, 0)
        asc.wait_flag(asc.HardEvent.V_MTE3, 0)
        asc.data_copy(yg[i * T:], u, T)
        asc.set_flag(asc.HardEvent.MTE3_V, 0)       # u is free again (not: y's bytes are written)
        asc.wait_flag(asc.HardEvent.MTE3_V, 0)


def test_the_race_checker_sees_the_shared_memory():
    x = np.arange(4 * T, dtype=np.float32)
    y = np.zeros(4 * T, np.float32)
    inc_hand_synced[1](x, y, 4)                      # separate arrays: no race
    np.testing.assert_array_equal(y, x + 1)
    a = np.arange(5 * T, dtype=np.float32)
    with pytest.raises(asc.RaceError):
        inc_hand_synced[1](a[:4 * T], a[T:], 4)      # y's copy-out vs the next copy-in through x


def test_one_kernel_is_compiled_per_sharing_pattern():
    a = np.arange(5 * T, dtype=np.float32)
    asc.jit(inc, backend="sim")[1](a[:4 * T], a[T:], 4)
    x = np.arange(4 * T, dtype=np.float32)
    y = np.zeros(4 * T, np.float32)
    asc.jit(inc, backend="sim")[1](x, y, 4)          # the same kernel, arguments apart again
    np.testing.assert_array_equal(y, x + 1)
    # a kernel compiled from example inputs, launched on arguments that share memory: their schedule
    ck = asc.compile(inc, (x, y, 4), core_num=1)
    b, want = np.arange(5 * T, dtype=np.float32), np.arange(5 * T, dtype=np.float32)
    _inc_in_program_order(want[:4 * T], want[T:], 4)
    ck(b[:4 * T], b[T:], 4)
    np.testing.assert_array_equal(b, want)


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


@asc.jit
def rows_in_place(x: asc.GlobalAddress, z: asc.GlobalAddress, rows: int, reps: int, bits: int):
    """Each row's result goes to the next row through z: with z = x (or x shifted) every row reads what
    the row before wrote, through the other name, across a branch and two loop levels."""
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, T)
    for i in range(reps):
        for r in range(rows):
            asc.data_copy(t, xg[r * T:], T)

            def inc():
                asc.adds(t, t, 1.0, T)

            def dbl():
                asc.muls(t, t, 2.0, T)
            asc.cond((bits // (1 << r)) % 2 == 1, inc, dbl)
            asc.data_copy(zg[((r + 1) % 8) * T:], t, T)


def _rows_ref(buf: np.ndarray, xoff: int, zoff: int, rows: int, reps: int, bits: int) -> np.ndarray:
    buf = buf.copy()
    for _ in range(reps):
        for r in range(rows):
            t = buf[xoff + r * T:xoff + (r + 1) * T].copy()
            t = t + np.float32(1) if bits >> r & 1 else t * np.float32(2)
            o = zoff + ((r + 1) % 8) * T
            buf[o:o + T] = t
    return buf


@pytest.mark.parametrize("backend", ["sim", "eager", "cpp"])
@pytest.mark.parametrize("shift", [0, 1])
@pytest.mark.parametrize("rows,reps,bits", [(8, 2, 0b10110010), (3, 3, 0xff)])
def test_sharing_through_a_nest_with_branches(backend, shift, rows, reps, bits):
    buf = (np.arange(9 * T, dtype=np.float32) % 5) - 2
    want = _rows_ref(buf, 0, shift * T, rows, reps, bits)
    asc.jit(rows_in_place, backend=backend)[1](buf[:8 * T], buf[shift * T:(8 + shift) * T], rows, reps, bits)
    np.testing.assert_array_equal(buf, want)
