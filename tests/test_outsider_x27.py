"""Flag-free kernels an outsider wrote (helper x27), each compared with NumPy byte for byte on every backend:
zero-trip streaks of an inner runtime loop, a reversed outer runtime loop, a multi-buffered tile read after its
loop, a UB offset chosen at run time, all-runtime range(hi, lo, step), and one array passed twice whose cores
read each other's blocks (a race on every backend)."""
from __future__ import annotations

import numpy as np
import pytest

import asc_trace as asc
from helpers import every_backend

pytestmark = pytest.mark.slow
T = 256
f32 = np.float32
BACKENDS = every_backend()


def gm(a, n):
    g = asc.GlobalTensor()
    g.set_global_buffer(a, n)
    return g


def zero_streaks(x: asc.GlobalAddress, z: asc.GlobalAddress, w: asc.GlobalAddress, rows: int, m: int):
    xg, zg, wg = gm(x, rows * m * T), gm(z, rows * m * T), gm(w, rows * T)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, T)
    b = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 4096, T)
    acc = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 8192, T)
    asc.duplicate(acc, 0.0, T)
    for r in range(rows):
        for j in range((r // 5) % 2 * m):          # zero trips for five rows in a row
            off = (r * m + j) * T
            asc.data_copy(a, xg[off:], T)
            asc.muls(b, a, 3.0, T)
            asc.add(acc, acc, a, T)
            asc.data_copy(zg[off:], b, T)
        asc.adds(acc, acc, 1.0, T)
        asc.data_copy(wg[r * T:], acc, T)


@pytest.mark.parametrize("backend", BACKENDS)
def test_zero_trip_streaks(backend):
    rows, m = 17, 2
    x = np.random.default_rng(1).standard_normal(rows * m * T).astype(f32)
    z, w = np.zeros_like(x), np.zeros(rows * T, f32)
    asc.jit(zero_streaks, backend=backend)[1](x, z, w, rows, m)
    wz, ww, acc = np.zeros_like(x), np.zeros_like(w), np.zeros(T, f32)
    for r in range(rows):
        for j in range((r // 5) % 2 * m):
            off = (r * m + j) * T
            wz[off:off + T] = x[off:off + T] * f32(3)
            acc = acc + x[off:off + T]
        acc = acc + f32(1)
        ww[r * T:(r + 1) * T] = acc
    assert z.tobytes() == wz.tobytes() and w.tobytes() == ww.tobytes()


def reversed_rows(x: asc.GlobalAddress, z: asc.GlobalAddress, rows: int, tiles: int):
    xg, zg = gm(x, rows * tiles * T), gm(z, rows * tiles * T)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, T)
    acc = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 2048, T)
    asc.duplicate(acc, 0.0, T)
    for r in range(rows - 1, -1, -1):
        for t in range(tiles):
            off = (r * tiles + t) * T
            asc.data_copy(a, xg[off:], T)
            asc.add(acc, acc, a, T)
            asc.data_copy(zg[off:], acc, T)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("rows, tiles", [(5, 3), (1, 4), (6, 1)])
def test_reversed_outer_runtime_loop(backend, rows, tiles):
    x = np.random.default_rng(2).standard_normal(rows * tiles * T).astype(f32)
    z = np.zeros_like(x)
    asc.jit(reversed_rows, backend=backend)[1](x, z, rows, tiles)
    want, acc = np.zeros_like(x), np.zeros(T, f32)
    for r in range(rows - 1, -1, -1):
        for t in range(tiles):
            off = (r * tiles + t) * T
            acc = acc + x[off:off + T]
            want[off:off + T] = acc
    assert z.tobytes() == want.tobytes()


def post_loop(x: asc.GlobalAddress, z: asc.GlobalAddress, w: asc.GlobalAddress, tiles: int):
    xg, zg, wg = gm(x, 7 * T), gm(z, 7 * T), gm(w, T)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, T)
    asc.duplicate(t, 5.0, T)
    for i in range(tiles):                          # t is multi-buffered over this loop
        asc.data_copy(t, xg[i * T:], T)
        asc.muls(t, t, 3.0, T)
        asc.data_copy(zg[i * T:], t, T)
    asc.adds(t, t, 1.0, T)                          # the last iteration's copy, or the prefill
    asc.data_copy(wg, t, T)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("tiles", [0, 1, 2, 3, 6])
def test_a_multi_buffered_tile_read_after_its_loop(backend, tiles):
    x = np.random.default_rng(3).standard_normal(7 * T).astype(f32)
    z, w = np.zeros_like(x), np.zeros(T, f32)
    asc.jit(post_loop, backend=backend)[1](x, z, w, tiles)
    want_z, last = np.zeros_like(x), np.full(T, 5, f32)
    for i in range(tiles):
        last = x[i * T:(i + 1) * T] * f32(3)
        want_z[i * T:(i + 1) * T] = last
    assert z.tobytes() == want_z.tobytes() and w.tobytes() == (last + f32(1)).tobytes()


def runtime_offset(x: asc.GlobalAddress, sel: asc.GlobalAddress, z: asc.GlobalAddress, tiles: int):
    xg, sg, zg = gm(x, tiles * T), gm(sel, 8 * tiles), gm(z, tiles * T)
    buf = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 2 * T)
    s = asc.LocalTensor(asc.int32, asc.TPosition.VECIN, 4096, 8 * tiles)
    asc.data_copy(s, sg, 8 * tiles)
    for i in range(tiles):
        off = asc.cond(s.get_value(i * 8) == 1, lambda: T, lambda: 0)
        asc.data_copy(buf[off:], xg[i * T:], T)
        asc.adds(buf[off:], buf[off:], 10.0, T)
        asc.data_copy(zg[i * T:], buf[off:], T)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_ub_offset_chosen_at_run_time(backend):
    x = np.random.default_rng(4).standard_normal(6 * T).astype(f32)
    sel = np.repeat(np.array([1, 1, 0, 1, 0, 0], np.int32), 8)
    z = np.zeros_like(x)
    asc.jit(runtime_offset, backend=backend)[1](x, sel, z, 6)
    assert z.tobytes() == (x + f32(10)).tobytes()


def neg_step(x: asc.GlobalAddress, z: asc.GlobalAddress, hi: int, lo: int, step: int):
    xg, zg = gm(x, 8 * T), gm(z, 8 * T)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, T)
    acc = asc.LocalTensor(asc.float32, asc.TPosition.VECOUT, 1024, T)
    asc.duplicate(acc, 0.0, T)
    for t in range(hi, lo, step):
        asc.data_copy(a, xg[t * T:], T)
        asc.muls(acc, acc, 0.5, T)
        asc.add(acc, acc, a, T)
        asc.data_copy(zg[t * T:], acc, T)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("hi, lo, step", [(7, -1, -1), (7, 0, -3), (2, 5, -1), (0, 8, 3)])
def test_an_all_runtime_range(backend, hi, lo, step):
    x = np.random.default_rng(5).standard_normal(8 * T).astype(f32)
    z = np.zeros_like(x)
    asc.jit(neg_step, backend=backend)[1](x, z, hi, lo, step)
    want, acc = np.zeros_like(x), np.zeros(T, f32)
    for t in range(hi, lo, step):
        acc = acc * f32(0.5) + x[t * T:(t + 1) * T]
        want[t * T:(t + 1) * T] = acc
    assert z.tobytes() == want.tobytes()


def shift_cores(x: asc.GlobalAddress, z: asc.GlobalAddress):
    b = asc.get_block_idx()
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x + (b + 1) * T, T)
    zg.set_global_buffer(z + b * T, T)
    a = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, T)
    asc.data_copy(a, xg, T)
    asc.adds(a, a, 1.0, T)
    asc.data_copy(zg, a, T)


@pytest.mark.parametrize("backend", BACKENDS)
def test_one_array_passed_twice_whose_cores_read_each_others_blocks_is_a_race(backend):
    buf = np.arange(4 * T, dtype=f32)
    with pytest.raises(asc.RaceError, match="core 0 reads elements"):
        asc.jit(shift_cores, backend=backend)[3](buf, buf)
    assert buf.tobytes() == np.arange(4 * T, dtype=f32).tobytes()     # refused before anything was written
