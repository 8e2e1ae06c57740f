"""The simulator's fast path (runtime/sim.py, runtime/batch.py): a launch is checked once per launch key,
then runs in program order with its loops batched and without a journal. Nothing may change but the
time: the same bytes as iteration by iteration, the same errors, the same strictness."""
from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from lane import examples

import asc_trace as asc
from asc_trace.runtime import batch
from helpers import rand
from test_schedule_props import _data, make_kernel, programs

F32 = asc.float32
HE = asc.HardEvent
VECIN = asc.TPosition.VECIN


def _gm(addr, n=None):
    g = asc.GlobalTensor()
    g.set_global_buffer(addr, n)
    return g


def _plans(kernel) -> list:
    """The batch plans the kernel's artifact made (None: a loop that could not be batched)."""
    import gc
    arts = [o for o in gc.get_objects() if type(o).__name__ == "SimArtifact" and o.graph.name == kernel.name]
    return [p for a in arts if a._fast is not None for lb in a._fast.batches.values() if lb for p in lb.plans.values()]


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(prog=programs())
def test_batched_loops_give_the_bytes_of_iteration_by_iteration(prog):
    k = make_kernel(prog)
    x, z = _data(prog)
    z_ref = z.copy()
    k[1](x, z)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(batch.LoopBatch, "plan", lambda self, m, v, b: (_ for _ in ()).throw(batch.NotBatchable))
        asc.jit(k, always_compile=True)[1](x, z_ref)
    assert z.tobytes() == z_ref.tobytes()


@asc.jit
def scaled(x: asc.GlobalAddress, w: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    """Per core: z = x * w tile by tile, w loaded once before the loop (a loop-invariant UB read)."""
    blk = asc.get_block_idx()
    xg, wg, zg = _gm(x + blk * n, n), _gm(w, 64), _gm(z + blk * n, n)
    wt = asc.LocalTensor(F32, VECIN, 0, 64)
    asc.data_copy(wt, wg, 64)
    for i in range(n // 64):
        t = asc.LocalTensor(F32, VECIN, 256, 64)
        asc.data_copy(t, xg[i * 64:], 64)
        asc.mul(t, t, wt, 64)
        asc.data_copy(zg[i * 64:], t, 64)


def test_a_loop_reading_data_loaded_before_it_is_batched():
    x, w = rand(8 * 512, np.float32, 1), rand(64, np.float32, 2)
    z = np.zeros_like(x)
    scaled[8](x, w, z, 512)
    np.testing.assert_array_equal(z, x * np.tile(w, 64))
    assert [p for p in _plans(scaled) if p is not None]


@asc.jit
def accumulate(x: asc.GlobalAddress, z: asc.GlobalAddress, tiles: int):
    """z = the sum of x's tiles: the loop carries `acc` from one iteration to the next."""
    xg, zg = _gm(x), _gm(z)
    acc = asc.LocalTensor(F32, VECIN, 0, 64)
    t = asc.LocalTensor(F32, VECIN, 256, 64)
    asc.duplicate(acc, 0.0, 64)
    for i in range(tiles):
        asc.data_copy(t, xg[i * 64:], 64)
        asc.add(acc, acc, t, 64)
    asc.data_copy(zg, acc, 64)


@asc.jit
def in_place(x: asc.GlobalAddress, n: int):
    """x = 2 x tile by tile, each tile read and written back by the same iteration."""
    blk = asc.get_block_idx()
    xg = _gm(x + blk * n, n)
    for i in range(n // 64):
        t = asc.LocalTensor(F32, VECIN, (i % 2) * 256, 64)
        asc.data_copy(t, xg[i * 64:], 64)
        asc.muls(t, t, 2.0, 64)
        asc.data_copy(xg[i * 64:], t, 64)


@asc.jit
def chain(z: asc.GlobalAddress, tiles: int):
    """Each iteration copies the tile the previous one wrote: iterations depend on each other in GM."""
    zg = _gm(z)
    t = asc.LocalTensor(F32, VECIN, 0, 64)
    for i in range(tiles):
        asc.data_copy(t, zg[i * 64:], 64)
        asc.data_copy(zg[(i + 1) * 64:], t, 64)


def test_loops_whose_iterations_depend_on_each_other_stay_exact():
    x = rand(64 * 6, np.float32, 3)
    z = np.zeros(64, np.float32)
    accumulate[1](x, z, 6)
    want = np.zeros(64, np.float32)
    for i in range(6):
        want = want + x[i * 64:(i + 1) * 64]
    np.testing.assert_array_equal(z, want)
    # the carried accumulator is batched, its add run iteration after iteration (the same sums)
    assert [p is not None and len(p.carried) == 1 for p in _plans(accumulate)] == [True]

    x = rand(4 * 256, np.float32, 4)
    y = x.copy()
    in_place[4](y, 256)
    np.testing.assert_array_equal(y, x * np.float32(2))
    assert [p for p in _plans(in_place) if p is not None]  # each iteration touches only its own tile

    z = rand(64 * 5, np.float32, 5)
    first = z[:64].copy()
    chain[1](z, 4)
    np.testing.assert_array_equal(z.reshape(5, 64), np.tile(first, (5, 1)))
    assert _plans(chain) == [None]


def test_aliased_arguments_run_in_program_order():
    import vadd
    x, y = rand(8 * 2048, np.float32, 6), rand(8 * 2048, np.float32, 7)
    want = x + y
    vadd.vadd_kernel[8](x, y, x, 2048)       # z is x: in place
    np.testing.assert_array_equal(x, want)


def test_a_checked_launch_does_not_vouch_for_other_arguments():
    @asc.jit(auto_sync=False)
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress, d: int):
        xg, zg = _gm(x), _gm(z)
        a = asc.LocalTensor(F32, VECIN, 0, 128)
        asc.data_copy(a, xg, 64)
        asc.data_copy(a[d:], xg[64:], 64)       # overlaps the first copy unless d >= 64
        asc.set_flag(HE.MTE2_MTE3, 0)
        asc.wait_flag(HE.MTE2_MTE3, 0)
        asc.data_copy(zg, a, 128)

    x, z = rand(128, np.float32, 8), np.zeros(128, np.float32)
    for _ in range(2):
        k[1](x, z, 64)
        np.testing.assert_array_equal(z, x)
    with pytest.raises(asc.RaceError, match="MTE2 pipe hazard"):
        k[1](x, z, 32)
    k[1](x, z, 64)


def test_a_launch_run_without_the_race_checker_is_checked_when_it_is_on(monkeypatch):
    from test_pipe_model import seed_no_handshake
    racy = asc.jit(seed_no_handshake, auto_sync=False)
    x, y, z = rand(8 * 2048, np.float32, 1), rand(8 * 2048, np.float32, 2), np.zeros(8 * 2048, np.float32)
    monkeypatch.setenv("ASC_TRACE_SANITIZE", "0")
    racy[8](x, y, z, 2048)
    racy[8](x, y, z, 2048)
    monkeypatch.setenv("ASC_TRACE_SANITIZE", "1")
    with pytest.raises(asc.RaceError):
        racy[8](x, y, z, 2048)


def test_the_unified_buffer_starts_poisoned_at_every_launch():
    @asc.jit
    def fill(z: asc.GlobalAddress):
        t = asc.LocalTensor(F32, VECIN, 0, 64)
        asc.duplicate(t, 1.0, 64)
        asc.data_copy(_gm(z), t, 64)

    @asc.jit(auto_sync=False)
    def unwritten(z: asc.GlobalAddress):
        t = asc.LocalTensor(F32, VECIN, 0, 64)
        asc.data_copy(_gm(z), t, 64)             # copies UB bytes nothing wrote

    for cores in (1, 4):
        z = np.zeros(64, np.float32)
        fill[1](z)
        assert np.all(z == 1)
        zz = np.zeros(64 * cores, np.float32)
        asc.jit(unwritten, auto_sync=False)[1](zz[:64])
        assert zz[:64].view(np.uint8).tolist() == [0xFF] * 256


def test_a_launch_needs_little_memory_beyond_its_outputs():
    """No journal once the checks passed, and batches in chunks: at most a quarter of the output extra."""
    import vadd_noflags
    k = vadd_noflags.vadd_noflags
    n = 8 * 262144
    x, y, z = rand(n, np.float32, 1), rand(n, np.float32, 2), np.zeros(n, np.float32)
    k[8](x, y, z, n // 8, 8192)
    z[:] = 0
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        k[8](x, y, z, n // 8, 8192)
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    np.testing.assert_array_equal(z, x + y)
    assert peak <= 0.25 * z.nbytes, f"{peak} bytes at peak for {z.nbytes} bytes of output"
