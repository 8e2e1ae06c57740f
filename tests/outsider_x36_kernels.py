"""Flag-free kernels written by an outsider (x36) to try the scheduler (#18): long runtime branch chains
over one reused UB tile, zero-trip streaks, never-taken branches, reversed and strided runtime loops,
while loops inside for loops, TQue stages in branches, user flags mixed with auto_sync, GM dependences
through memory the kernel itself writes, and aliasing arguments.

Each case is `Case(kernel, make(seed) -> (args, cores), want(args) -> {arg index: expected array})`:
the runner launches the kernel on fresh copies of the arguments and compares every written argument
with the NumPy reference, byte for byte."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

import asc_trace as asc

T = 64                      # floats per tile: 256 bytes, whole 32-byte blocks
VECIN, VECOUT, VECCALC = asc.TPosition.VECIN, asc.TPosition.VECOUT, asc.TPosition.VECCALC


@dataclass
class Case:
    kernel: object
    make: Callable
    want: Callable


def _x(n: int, seed: int) -> np.ndarray:
    """Small integers as floats: every sum the kernels make is exact, so bytes can be compared."""
    return np.random.default_rng(seed).integers(-8, 8, n).astype(np.float32)


def _gm(addr, n):
    g = asc.GlobalTensor()
    g.set_global_buffer(addr, n)
    return g


# ---- 1. eleven optional steps, each a runtime bit, one UB tile reused by all of them --------------
@asc.jit
def branch_chain_cond(x: asc.GlobalAddress, z: asc.GlobalAddress, bits: int):
    xg, zg = _gm(x, 11 * T), _gm(z, 11 * T)
    t = asc.LocalTensor(asc.float32, VECCALC, 0, T)
    for k in asc.static_range(11):
        def step(k=k):
            asc.data_copy(t, xg[k * T:], T)
            asc.adds(t, t, float(k + 1), T)
            asc.data_copy(zg[k * T:], t, T)
        asc.cond(((bits >> k) & 1) == 1, step, lambda: None)


def _make_chain(bits):
    def make(seed):
        return (_x(11 * T, seed), np.zeros(11 * T, np.float32), bits), 1
    return make


def _want_chain(args):
    x, _, bits = args
    z = np.zeros(11 * T, np.float32)
    for k in range(11):
        if (bits >> k) & 1:
            z[k * T:(k + 1) * T] = x[k * T:(k + 1) * T] + np.float32(k + 1)
    return {1: z}


# ---- 2. the same chain written as Python `if`s on a runtime value, the tile also read in between ----
@asc.jit
def branch_chain_if(x: asc.GlobalAddress, z: asc.GlobalAddress, bits: int):
    xg, zg = _gm(x, 12 * T), _gm(z, 12 * T)
    t = asc.LocalTensor(asc.float32, VECCALC, 0, T)
    acc = asc.LocalTensor(asc.float32, VECCALC, 4 * T, T)
    asc.duplicate(acc, 0.0, T)
    for k in asc.static_range(11):
        if (bits >> k) & 1:
            asc.data_copy(t, xg[k * T:], T)
            asc.add(acc, acc, t, T)
            asc.muls(t, t, 2.0, T)
            asc.data_copy(zg[k * T:], t, T)
    asc.data_copy(zg[11 * T:], acc, T)


def _want_chain_if(args):
    x, _, bits = args
    z = np.zeros(12 * T, np.float32)
    acc = np.zeros(T, np.float32)
    for k in range(11):
        if (bits >> k) & 1:
            s = x[k * T:(k + 1) * T]
            acc = acc + s
            z[k * T:(k + 1) * T] = s * np.float32(2)
    z[11 * T:] = acc
    return {1: z}


def _make_chain_if(bits):
    def make(seed):
        return (_x(12 * T, seed), np.zeros(12 * T, np.float32), bits), 1
    return make


# ---- 3. zero-trip streaks: the inner runtime loop runs 0 times for five outer iterations in a row ----
@asc.jit
def zero_trip_streaks(x: asc.GlobalAddress, z: asc.GlobalAddress, rows: int, m: int, period: int):
    xg, zg = _gm(x, rows * m * T), _gm(z, rows * T)
    t = asc.LocalTensor(asc.float32, VECIN, 0, T)
    acc = asc.LocalTensor(asc.float32, VECOUT, 4 * T, T)
    for i in range(rows):
        asc.duplicate(acc, 0.0, T)
        for j in range(((i // period) % 2) * m):
            asc.data_copy(t, xg[(i * m + j) * T:], T)
            asc.add(acc, acc, t, T)
        asc.data_copy(zg[i * T:], acc, T)


def _make_streaks(rows, m, period):
    def make(seed):
        return (_x(rows * m * T, seed), np.full(rows * T, 7, np.float32), rows, m, period), 1
    return make


def _want_streaks(args):
    x, _, rows, m, period = args
    z = np.zeros(rows * T, np.float32)
    for i in range(rows):
        acc = np.zeros(T, np.float32)
        for j in range(((i // period) % 2) * m):
            acc = acc + x[(i * m + j) * T:(i * m + j + 1) * T]
        z[i * T:(i + 1) * T] = acc
    return {1: z}


# ---- 4. a data-dependent while loop inside a runtime for over rows, zero trips four rows running ----
@asc.jit
def while_in_for(x: asc.GlobalAddress, z: asc.GlobalAddress, rows: int, limit: float):
    xg, zg = _gm(x, rows * T), _gm(z, rows * T)
    row = asc.LocalTensor(asc.float32, VECIN, 0, T)
    mag = asc.LocalTensor(asc.float32, VECCALC, 4 * T, T)
    work = asc.LocalTensor(asc.float32, VECCALC, 8 * T, T)
    peak = asc.LocalTensor(asc.float32, VECCALC, 12 * T, 8)

    def largest():
        asc.abs(mag, row, T)
        asc.reduce_max(peak, mag, work, T)
        return peak.get_value(0)

    def halve(m):
        asc.muls(row, row, 0.5, T)
        return largest()

    for r in range(rows):
        asc.data_copy(row, xg[r * T:], T)
        asc.while_loop(lambda m: m > limit, halve, largest())
        asc.data_copy(zg[r * T:], row, T)


def _make_while_in_for(seed):
    rows = 10
    x = _x(rows * T, seed)
    x[: 5 * T] *= np.float32(0.0625)          # rows 0..4 are already small: the while loop runs 0 times
    x[7 * T: 9 * T] *= np.float32(0.0625)
    return (x, np.zeros(rows * T, np.float32), rows, 0.75), 1


def _want_while_in_for(args):
    x, _, rows, limit = args
    z = x.copy().reshape(rows, T)
    for r in range(rows):
        while np.abs(z[r]).max() > np.float32(limit):
            z[r] *= np.float32(0.5)
    return {1: z.ravel()}


# ---- 5. runtime inner loop of vector ops, then a branch that is never taken, many outer trips ----
@asc.jit
def never_taken(x: asc.GlobalAddress, z: asc.GlobalAddress, rows: int, m: int, never: int):
    xg, zg = _gm(x, rows * T), _gm(z, rows * T)
    t = asc.LocalTensor(asc.float32, VECIN, 0, T)
    u = asc.LocalTensor(asc.float32, VECCALC, 4 * T, 8)
    for i in range(rows):
        asc.data_copy(t, xg[i * T:], T)
        for j in range(m):
            asc.adds(t, t, 1.0, T)
        if never == 1:
            u.set_value(0, 3.0)
            asc.muls(t, t, u.get_value(0), T)
        asc.data_copy(zg[i * T:], t, T)


def _make_never(seed):
    rows = 7
    return (_x(rows * T, seed), np.zeros(rows * T, np.float32), rows, 3, 0), 1


def _want_never(args):
    x, _, rows, m, never = args
    z = x + np.float32(m)
    if never == 1:
        z = z * np.float32(3)
    return {1: z}


# ---- 6. an outer loop running backwards from a runtime start, runtime inner loop ----
@asc.jit
def reversed_outer(x: asc.GlobalAddress, z: asc.GlobalAddress, rows: int, m: int):
    xg, zg = _gm(x, rows * m * T), _gm(z, rows * T)
    t = asc.LocalTensor(asc.float32, VECIN, 0, T)
    acc = asc.LocalTensor(asc.float32, VECOUT, 4 * T, T)
    for r in range(rows - 1, -1, -1):
        asc.duplicate(acc, float(0), T)
        for j in range(m):
            asc.data_copy(t, xg[(r * m + j) * T:], T)
            asc.add(acc, acc, t, T)
        asc.data_copy(zg[r * T:], acc, T)


def _make_reversed(seed):
    rows, m = 5, 3
    return (_x(rows * m * T, seed), np.zeros(rows * T, np.float32), rows, m), 1


def _want_reversed(args):
    x, _, rows, m = args
    return {1: x.reshape(rows, m, T).sum(axis=1, dtype=np.float32).ravel()}


# ---- 7. runtime step (negative, then > 1), a start beyond the stop: zero trips ----
@asc.jit
def runtime_step(x: asc.GlobalAddress, z: asc.GlobalAddress, start: int, stop: int, step: int):
    xg, zg = _gm(x, 16 * T), _gm(z, 16 * T)
    t = asc.LocalTensor(asc.float32, VECIN, 0, T)
    for i in range(start, stop, step):
        asc.data_copy(t, xg[i * T:], T)
        asc.muls(t, t, 3.0, T)
        asc.data_copy(zg[i * T:], t, T)


def _make_step(start, stop, step):
    def make(seed):
        return (_x(16 * T, seed), np.zeros(16 * T, np.float32), start, stop, step), 1
    return make


def _want_step(args):
    x, _, start, stop, step = args
    z = np.zeros(16 * T, np.float32)
    for i in range(start, stop, step):
        z[i * T:(i + 1) * T] = x[i * T:(i + 1) * T] * np.float32(3)
    return {1: z}


# ---- 8. a hand-synchronised prologue using MTE2_V ids 0..7, then a flag-free main loop ----
@asc.jit
def prologue_all_ids(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    xg, zg = _gm(x, (8 + n) * T), _gm(z, (8 + n) * T)
    bufs = [asc.LocalTensor(asc.float32, VECCALC, k * 4 * T, T) for k in range(8)]
    for k in asc.static_range(8):
        asc.data_copy(bufs[k], xg[k * T:], T)
        asc.set_flag(asc.HardEvent.MTE2_V, k)
    for k in asc.static_range(8):
        asc.wait_flag(asc.HardEvent.MTE2_V, k)
        asc.adds(bufs[k], bufs[k], 1.0, T)
        asc.set_flag(asc.HardEvent.V_MTE3, k)
        asc.wait_flag(asc.HardEvent.V_MTE3, k)
        asc.data_copy(zg[k * T:], bufs[k], T)
    t = asc.LocalTensor(asc.float32, VECIN, 32 * T, T)
    for i in range(n):
        asc.data_copy(t, xg[(8 + i) * T:], T)
        asc.adds(t, t, 2.0, T)
        asc.data_copy(zg[(8 + i) * T:], t, T)


def _make_prologue(seed):
    n = 5
    return (_x((8 + n) * T, seed), np.zeros((8 + n) * T, np.float32), n), 1


def _want_prologue(args):
    x, _, n = args
    z = x.copy()
    z[: 8 * T] += 1
    z[8 * T:] += 2
    return {1: z}


# ---- 9. TQue stages whose enque / deque sit in branches (both sides enque, so the count matches) ----
@asc.jit
def tque_in_branches(x: asc.GlobalAddress, z: asc.GlobalAddress, tiles: int, sel: int):
    xg, zg = _gm(x, tiles * T), _gm(z, tiles * T)
    pipe = asc.TPipe()
    qi, qo = asc.TQue(VECIN, 2), asc.TQue(VECOUT, 2)
    pipe.init_buffer(qi, 2, T * 4)
    pipe.init_buffer(qo, 2, T * 4)
    for i in range(tiles):
        xl = qi.alloc_tensor(asc.float32)
        asc.data_copy(xl, xg[i * T:], T)
        qi.enque(xl)
        xl = qi.deque(asc.float32)
        zl = qo.alloc_tensor(asc.float32)
        if ((sel >> (i % 8)) & 1) == 1:
            asc.muls(zl, xl, 2.0, T)
            qo.enque(zl)
        else:
            asc.adds(zl, xl, -1.0, T)
            qo.enque(zl)
        qi.free_tensor(xl)
        zl = qo.deque(asc.float32)
        asc.data_copy(zg[i * T:], zl, T)
        qo.free_tensor(zl)


def _make_tque(seed):
    tiles = 12
    return (_x(tiles * T, seed), np.zeros(tiles * T, np.float32), tiles, 0b10110001), 1


def _want_tque(args):
    x, _, tiles, sel = args
    z = np.empty_like(x)
    for i in range(tiles):
        s = x[i * T:(i + 1) * T]
        z[i * T:(i + 1) * T] = s * np.float32(2) if (sel >> (i % 8)) & 1 else s - np.float32(1)
    return {1: z}


# ---- 10. user flags for the copy-in, auto_sync for the rest ----
@asc.jit
def mixed_user_flags(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    xg, zg = _gm(x, n * T), _gm(z, n * T)
    t = asc.LocalTensor(asc.float32, VECIN, 0, T)
    o = asc.LocalTensor(asc.float32, VECOUT, 4 * T, T)
    for i in range(n):
        asc.data_copy(t, xg[i * T:], T)
        asc.set_flag(asc.HardEvent.MTE2_V, 0)
        asc.wait_flag(asc.HardEvent.MTE2_V, 0)
        asc.muls(o, t, -1.0, T)
        asc.data_copy(zg[i * T:], o, T)


def _make_mixed(seed):
    return (_x(6 * T, seed), np.zeros(6 * T, np.float32), 6), 1


def _want_mixed(args):
    return {1: -args[0]}


# ---- 11. a prefix over tiles through GM: each tile reads what the previous iteration wrote ----
@asc.jit
def gm_prefix(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    xg, zg = _gm(x, n * T), _gm(z, n * T)
    a = asc.LocalTensor(asc.float32, VECIN, 0, T)
    b = asc.LocalTensor(asc.float32, VECIN, 4 * T, T)
    asc.data_copy(a, xg, T)
    asc.data_copy(zg, a, T)
    for i in range(1, n):
        asc.data_copy(a, zg[(i - 1) * T:], T)      # written by the copy-out of the iteration before
        asc.data_copy(b, xg[i * T:], T)
        asc.add(a, a, b, T)
        asc.data_copy(zg[i * T:], a, T)


def _make_prefix(seed):
    n = 7
    return (_x(n * T, seed), np.zeros(n * T, np.float32), n), 1


def _want_prefix(args):
    x, _, n = args
    return {1: np.cumsum(x.reshape(n, T), axis=0, dtype=np.float32).ravel()}


# ---- 12. the same prefix in place: one array passed as both arguments ----
def _make_prefix_alias(seed):
    n = 7
    x = _x(n * T, seed)
    return (x, x, n), 1


def _want_prefix_alias(args):
    x, _, n = args
    return {0: np.cumsum(x.reshape(n, T), axis=0, dtype=np.float32).ravel()}


# ---- 13. a stencil in place through GM: x[i] = x[i] + x[i+1], forward order (a WAR through GM) ----
@asc.jit
def gm_stencil_inplace(x: asc.GlobalAddress, y: asc.GlobalAddress, n: int):
    xg, yg = _gm(x, (n + 1) * T), _gm(y, (n + 1) * T)
    a = asc.LocalTensor(asc.float32, VECIN, 0, T)
    b = asc.LocalTensor(asc.float32, VECIN, 4 * T, T)
    for i in range(n):
        asc.data_copy(a, xg[i * T:], T)
        asc.data_copy(b, xg[(i + 1) * T:], T)
        asc.add(a, a, b, T)
        asc.data_copy(yg[i * T:], a, T)


def _make_stencil_alias(seed):
    n = 6
    x = _x((n + 1) * T, seed)
    return (x, x, n), 1


def _want_stencil_alias(args):
    x, _, n = args
    v = x.reshape(n + 1, T).copy()
    for i in range(n):
        v[i] = v[i] + v[i + 1]
    return {0: v.ravel()}


# ---- 14. scalar writes into the UB in a branch, read by the vector unit and copied out ----
@asc.jit
def scalar_in_branch(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int, k: int):
    xg, zg = _gm(x, n * T), _gm(z, n * T)
    t = asc.LocalTensor(asc.float32, VECIN, 0, T)
    for i in range(n):
        asc.data_copy(t, xg[i * T:], T)
        if i == k:
            t.set_value(3, 100.0)
            t.set_value(T - 1, t.get_value(0) + 1.0)
        asc.adds(t, t, 0.5, T)
        asc.data_copy(zg[i * T:], t, T)


def _make_scalar_branch(seed):
    n = 5
    return (_x(n * T, seed), np.zeros(n * T, np.float32), n, 2), 1


def _want_scalar_branch(args):
    x, _, n, k = args
    v = x.reshape(n, T).copy()
    v[k, 3] = 100
    v[k, T - 1] = v[k, 0] + 1
    return {1: (v + np.float32(0.5)).ravel()}


# ---- 15. cores with different trip counts (core 0 and the last: none) ----
@asc.jit
def per_core_trips(x: asc.GlobalAddress, z: asc.GlobalAddress, per: int):
    blk = asc.get_block_idx()
    xg, zg = _gm(x + blk * per * T, per * T), _gm(z + blk * per * T, per * T)
    t = asc.LocalTensor(asc.float32, VECIN, 0, T)
    trips = (blk % (asc.get_block_num() - 1)) * (per // 4)
    for i in range(trips):
        asc.data_copy(t, xg[i * T:], T)
        asc.adds(t, t, 5.0, T)
        asc.data_copy(zg[i * T:], t, T)


def _make_per_core(seed):
    per, cores = 8, 4
    return (_x(cores * per * T, seed), np.zeros(cores * per * T, np.float32), per), cores


def _want_per_core(args):
    x, _, per = args
    cores = x.size // (per * T)
    z = np.zeros_like(x)
    for b in range(cores):
        trips = (b % (cores - 1)) * (per // 4)
        lo = b * per * T
        z[lo:lo + trips * T] = x[lo:lo + trips * T] + np.float32(5)
    return {1: z}


# ---- 16. three runtime loop levels with a runtime branch at each, one accumulator tile ----
@asc.jit
def deep_nest(x: asc.GlobalAddress, z: asc.GlobalAddress, a: int, b: int, c: int, sel: int):
    xg, zg = _gm(x, a * b * c * T), _gm(z, a * T)
    t = asc.LocalTensor(asc.float32, VECIN, 0, T)
    acc = asc.LocalTensor(asc.float32, VECCALC, 4 * T, T)
    for i in range(a):
        asc.duplicate(acc, 0.0, T)
        for j in range(b):
            if ((sel >> j) & 1) == 1:
                for k in range(c):
                    asc.data_copy(t, xg[((i * b + j) * c + k) * T:], T)
                    if k == i:
                        asc.muls(t, t, 2.0, T)
                    asc.add(acc, acc, t, T)
        if i == a - 1:
            asc.adds(acc, acc, 1.0, T)
        asc.data_copy(zg[i * T:], acc, T)


def _make_deep(seed):
    a, b, c = 3, 4, 3
    return (_x(a * b * c * T, seed), np.zeros(a * T, np.float32), a, b, c, 0b1010), 1


def _want_deep(args):
    x, _, a, b, c, sel = args
    v = x.reshape(a, b, c, T)
    z = np.zeros((a, T), np.float32)
    for i in range(a):
        acc = np.zeros(T, np.float32)
        for j in range(b):
            if (sel >> j) & 1:
                for k in range(c):
                    t = v[i, j, k] * np.float32(2) if k == i else v[i, j, k]
                    acc = acc + t
        if i == a - 1:
            acc = acc + np.float32(1)
        z[i] = acc
    return {1: z.ravel()}


# ---- 17. a loop bound read from the UB by the scalar unit (a data-dependent trip count) ----
@asc.jit
def data_bound(x: asc.GlobalAddress, cnt: asc.GlobalAddress, z: asc.GlobalAddress, rows: int):
    xg, cg, zg = _gm(x, rows * 4 * T), _gm(cnt, 8 * rows), _gm(z, rows * T)
    c = asc.LocalTensor(asc.int32, VECIN, 0, 8 * rows)
    t = asc.LocalTensor(asc.float32, VECIN, 4 * T, T)
    acc = asc.LocalTensor(asc.float32, VECOUT, 8 * T, T)
    asc.data_copy(c, cg, 8 * rows)
    for r in range(rows):
        asc.duplicate(acc, 0.0, T)
        for j in range(c.get_value(8 * r)):
            asc.data_copy(t, xg[(r * 4 + j) * T:], T)
            asc.add(acc, acc, t, T)
        asc.data_copy(zg[r * T:], acc, T)


def _make_data_bound(seed):
    rows = 6
    cnt = np.zeros(8 * rows, np.int32)
    cnt[::8] = [0, 0, 0, 0, 4, 1]
    return (_x(rows * 4 * T, seed), cnt, np.full(rows * T, 9, np.float32), rows), 1


def _want_data_bound(args):
    x, cnt, _, rows = args
    v = x.reshape(rows, 4, T)
    return {2: np.stack([v[r, :cnt[8 * r]].sum(axis=0, dtype=np.float32) for r in range(rows)]).ravel()}


# ---- 18. a while loop carrying a GM tile index, copy-in / compute / copy-out per iteration ----
@asc.jit
def while_tiles(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    xg, zg = _gm(x, 8 * T), _gm(z, 8 * T)
    t = asc.LocalTensor(asc.float32, VECIN, 0, T)

    def body(i):
        asc.data_copy(t, xg[i * T:], T)
        asc.muls(t, t, 4.0, T)
        asc.data_copy(zg[i * T:], t, T)
        return i + 1

    asc.while_loop(lambda i: i < n, body, 0)


def _make_while_tiles(n):
    def make(seed):
        return (_x(8 * T, seed), np.zeros(8 * T, np.float32), n), 1
    return make


def _want_while_tiles(args):
    x, _, n = args
    z = np.zeros_like(x)
    z[: n * T] = x[: n * T] * np.float32(4)
    return {1: z}


# ---- 19. branches writing one tile on different pipes (MTE2 on one side, V on the other) ----
@asc.jit
def pipes_per_side(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int, sel: int):
    xg, zg = _gm(x, n * T), _gm(z, n * T)
    t = asc.LocalTensor(asc.float32, VECCALC, 0, T)
    for i in range(n):
        if ((sel >> i) & 1) == 1:
            asc.data_copy(t, xg[i * T:], T)
        else:
            asc.duplicate(t, float(-3), T)
        asc.data_copy(zg[i * T:], t, T)


def _make_pipes_side(seed):
    n = 9
    return (_x(n * T, seed), np.zeros(n * T, np.float32), n, 0b100110101), 1


def _want_pipes_side(args):
    x, _, n, sel = args
    z = np.full(n * T, -3, np.float32)
    for i in range(n):
        if (sel >> i) & 1:
            z[i * T:(i + 1) * T] = x[i * T:(i + 1) * T]
    return {1: z}


# ---- 20. sibling runtime loops, the second reading back the tile the first one leaves ----
@asc.jit
def sibling_loops(x: asc.GlobalAddress, z: asc.GlobalAddress, n1: int, n2: int):
    xg, zg = _gm(x, 8 * T), _gm(z, 8 * T)
    t = asc.LocalTensor(asc.float32, VECCALC, 0, T)
    asc.duplicate(t, 1.0, T)
    for i in range(n1):
        asc.data_copy(t, xg[i * T:], T)
    for j in range(n2):
        asc.adds(t, t, 1.0, T)
        asc.data_copy(zg[j * T:], t, T)


def _make_siblings(n1, n2):
    def make(seed):
        return (_x(8 * T, seed), np.zeros(8 * T, np.float32), n1, n2), 1
    return make


def _want_siblings(args):
    x, _, n1, n2 = args
    t = np.ones(T, np.float32) if n1 == 0 else x[(n1 - 1) * T:n1 * T].copy()
    z = np.zeros_like(x)
    for j in range(n2):
        t = t + np.float32(1)
        z[j * T:(j + 1) * T] = t
    return {1: z}


# ---- 21. a LocalTensor at a runtime address equal, at launch, to another's: V writes one, MTE3 reads the other ----
@asc.jit
def runtime_addr_alias(x: asc.GlobalAddress, z: asc.GlobalAddress, base: int):
    xg, zg = _gm(x, T), _gm(z, T)
    t1 = asc.LocalTensor(asc.float32, VECIN, 0, T)
    t2 = asc.LocalTensor(asc.float32, VECCALC, base, T)
    asc.data_copy(t1, xg, T)
    asc.adds(t2, t2, 1.0, T)
    asc.data_copy(zg, t1, T)


def _make_addr_alias(base):
    def make(seed):
        return (_x(T, seed), np.zeros(T, np.float32), base), 1
    return make


def _want_addr_alias(args):
    x, _, base = args
    return {1: x + np.float32(1) if base == 0 else x.copy()}


# ---- 22. the scalar unit writes GM that MTE2 reads back; MTE3 writes GM that the scalar reads ----
@asc.jit
def gm_scalar_roundtrip(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    xg, zg = _gm(x, n * T), _gm(z, n * T)
    t = asc.LocalTensor(asc.float32, VECIN, 0, T)
    for i in range(n):
        xg.set_value(i * T, 100.0 + i)
        asc.data_copy(t, xg[i * T:], T)
        asc.adds(t, t, 1.0, T)
        asc.data_copy(zg[i * T:], t, T)
        zg.set_value(i * T + 2, zg.get_value(i * T + 1))


def _make_gm_scalar(seed):
    n = 3
    return (_x(n * T, seed), np.zeros(n * T, np.float32), n), 1


def _want_gm_scalar(args):
    x, _, n = args
    w, z = x.copy().reshape(n, T), np.zeros((n, T), np.float32)
    for i in range(n):
        w[i, 0] = 100 + i
        z[i] = w[i] + np.float32(1)
        z[i, 2] = z[i, 1]
    return {0: w.ravel(), 1: z.ravel()}


# ---- 23. windows of one UB tensor at runtime offsets that overlap from one iteration to the next ----
@asc.jit
def sliding_windows(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int, step: int):
    xg, zg = _gm(x, T), _gm(z, n * T)
    t = asc.LocalTensor(asc.float32, VECCALC, 0, 4 * T)
    src = asc.LocalTensor(asc.float32, VECIN, 16 * T, T)
    asc.data_copy(src, xg, T)
    for i in range(n):
        asc.adds(t[i * step:], src, 1.0, T)
        asc.adds(t[i * step:], t[i * step:], 1.0, T)
        asc.data_copy(zg[i * T:], t[i * step:], T)


def _make_windows(seed):
    n = 5
    return (_x(T, seed), np.zeros(n * T, np.float32), n, 24), 1


def _want_windows(args):
    x, _, n, _step = args
    return {1: np.tile(x + np.float32(2), n)}


# ---- 24. an @asc.jit sub-kernel with a runtime `if`, called from a runtime loop ----
@asc.jit
def _tile_step(t: asc.LocalTensor, xg: asc.GlobalTensor, zg: asc.GlobalTensor, i: int, k: int):
    asc.data_copy(t, xg[i * T:], T)
    if k > 0:
        asc.muls(t, t, 2.0, T)
    asc.data_copy(zg[i * T:], t, T)


@asc.jit
def sub_kernel_loop(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    xg, zg = _gm(x, n * T), _gm(z, n * T)
    t = asc.LocalTensor(asc.float32, VECCALC, 0, T)
    for i in range(n):
        _tile_step(t, xg, zg, i, i % 2)


def _make_sub(seed):
    n = 5
    return (_x(n * T, seed), np.zeros(n * T, np.float32), n), 1


def _want_sub(args):
    x, _, n = args
    w = x.reshape(n, T).copy()
    w[1::2] *= np.float32(2)
    return {1: w.ravel()}


CASES: dict[str, Case] = {
    "chain_cond_far_bits": Case(branch_chain_cond, _make_chain(0b10000000001), _want_chain),
    "chain_cond_all": Case(branch_chain_cond, _make_chain(0b11111111111), _want_chain),
    "chain_cond_alternate": Case(branch_chain_cond, _make_chain(0b10101010101), _want_chain),
    "chain_cond_none": Case(branch_chain_cond, _make_chain(0), _want_chain),
    "chain_if_far_bits": Case(branch_chain_if, _make_chain_if(0b10000000010), _want_chain_if),
    "chain_if_pairs": Case(branch_chain_if, _make_chain_if(0b01100110011), _want_chain_if),
    "streaks_5": Case(zero_trip_streaks, _make_streaks(16, 2, 5), _want_streaks),
    "streaks_1": Case(zero_trip_streaks, _make_streaks(9, 1, 1), _want_streaks),
    "streaks_4": Case(zero_trip_streaks, _make_streaks(12, 3, 4), _want_streaks),
    "while_in_for": Case(while_in_for, _make_while_in_for, _want_while_in_for),
    "never_taken": Case(never_taken, _make_never, _want_never),
    "reversed_outer": Case(reversed_outer, _make_reversed, _want_reversed),
    "step_negative": Case(runtime_step, _make_step(15, -1, -2), _want_step),
    "step_three": Case(runtime_step, _make_step(1, 16, 3), _want_step),
    "step_zero_trips": Case(runtime_step, _make_step(9, 3, 1), _want_step),
    "step_neg_zero_trips": Case(runtime_step, _make_step(3, 9, -1), _want_step),
    "prologue_all_ids": Case(prologue_all_ids, _make_prologue, _want_prologue),
    "tque_in_branches": Case(tque_in_branches, _make_tque, _want_tque),
    "mixed_user_flags": Case(mixed_user_flags, _make_mixed, _want_mixed),
    "gm_prefix": Case(gm_prefix, _make_prefix, _want_prefix),
    "gm_prefix_alias": Case(gm_prefix, _make_prefix_alias, _want_prefix_alias),
    "gm_stencil_alias": Case(gm_stencil_inplace, _make_stencil_alias, _want_stencil_alias),
    "scalar_in_branch": Case(scalar_in_branch, _make_scalar_branch, _want_scalar_branch),
    "per_core_trips": Case(per_core_trips, _make_per_core, _want_per_core),
    "deep_nest": Case(deep_nest, _make_deep, _want_deep),
    "data_bound": Case(data_bound, _make_data_bound, _want_data_bound),
    "while_tiles_5": Case(while_tiles, _make_while_tiles(5), _want_while_tiles),
    "while_tiles_0": Case(while_tiles, _make_while_tiles(0), _want_while_tiles),
    "pipes_per_side": Case(pipes_per_side, _make_pipes_side, _want_pipes_side),
    "siblings_0_5": Case(sibling_loops, _make_siblings(0, 5), _want_siblings),
    "siblings_3_0": Case(sibling_loops, _make_siblings(3, 0), _want_siblings),
    "siblings_4_4": Case(sibling_loops, _make_siblings(4, 4), _want_siblings),
    "runtime_addr_alias_same": Case(runtime_addr_alias, _make_addr_alias(0), _want_addr_alias),
    "runtime_addr_alias_apart": Case(runtime_addr_alias, _make_addr_alias(1024), _want_addr_alias),
    "gm_scalar_roundtrip": Case(gm_scalar_roundtrip, _make_gm_scalar, _want_gm_scalar),
    "sliding_windows": Case(sliding_windows, _make_windows, _want_windows),
    "sub_kernel_loop": Case(sub_kernel_loop, _make_sub, _want_sub),
}


def run_case(name: str, backend: str, seed: int = 0) -> dict[int, np.ndarray]:
    """Launch case `name` on `backend`; the written arguments (by index), to compare with `want`."""
    case = CASES[name]
    args, cores = case.make(seed)
    want = case.want(tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args))
    asc.jit(case.kernel, backend=backend)[cores](*args)
    return {i: (args[i], w) for i, w in want.items()}


@asc.jit
def vector_with_co1_tensor(x: asc.GlobalAddress, z: asc.GlobalAddress):
    """A vector kernel that also declares a LocalTensor in L0C (CO1), never used (#25: cpu_debug laid it out as
    UB bytes and reported a UBOverflowError at a negative address; sim, eager and cpp run it). A cube memory
    makes it a mixed kernel on sim, eager and cpp: two vector cores per launched AI core, so each takes its
    own tile by its block index."""
    blk = asc.get_block_idx()
    xg, zg = _gm(x + blk * T, T), _gm(z + blk * T, T)
    t = asc.LocalTensor(asc.float32, VECIN, 0, T)
    asc.LocalTensor(asc.float32, asc.TPosition.CO1, 512, T)
    asc.data_copy(t, xg, T)
    asc.adds(t, t, 1.0, T)
    asc.data_copy(zg, t, T)


@asc.jit
def raw_over_tque(x: asc.GlobalAddress, z: asc.GlobalAddress, base: int):
    """A raw LocalTensor at a runtime address that is, at launch, the bytes of a TQue buffer in use (#18: an
    alias of the queue's buffer; refused only when the address is a constant)."""
    xg, zg = _gm(x, T), _gm(z, T)
    pipe = asc.TPipe()
    q = asc.TQue(VECIN, 1)
    pipe.init_buffer(q, 1, T * 4)
    a = q.alloc_tensor(asc.float32)
    asc.data_copy(a, xg, T)
    q.enque(a)
    a = q.deque(asc.float32)
    raw = asc.LocalTensor(asc.float32, VECCALC, base, T)
    asc.duplicate(raw, 5.0, T)
    asc.adds(a, a, 1.0, T)
    asc.data_copy(zg, a, T)
    q.free_tensor(a)
