"""Round-4 adversarial flag-free kernels (issue 18), of shapes the earlier rounds did not write: each with
its NumPy reference and the runtime inputs that drive its hard paths. Shared by
tests/test_schedule_adversarial_s18.py.

- ladder: ten asc.cond steps on runtime bits whose both branches use one UB tile, through three pipes
  and the scalar unit (then: GM -> tile -> scale -> GM; else: vector fill, a scalar store into the
  tile, copy-out), so consecutive steps chain MTE3 -> V, V -> S and S -> MTE3 hazards on every path;
- streak3: a 3-deep nest, zero-trip streaks at two levels (the middle loop runs r - a times, the inner
  one b times), with scalar reads and writes of the tile inside the innermost loop;
- while_rev: a backward runtime loop over rows (runtime start) around a data-dependent while loop that
  runs zero times for a streak of rows, then a scalar store and a copy-out;
- rev_step2: a loop running backwards by 2 between two runtime bounds around a runtime inner loop that
  ping-pongs two tiles addressed from its index and reads back from GM what the previous row wrote;
- prologue_all: a hand-synchronised prologue that sets and waits MTE2_V, V_MTE3 and MTE3_V ids 0..7,
  then a flag-free main loop with a branch and an inner runtime loop;
- que_branch: a TQue pipeline (VECIN and VECOUT, depth 2) whose vector stage is a branch between a
  zero-trip-capable inner loop and a while loop, over rows counted down;
- cores_streak: three cores, each with a trip count from its block index (core 0 runs no rows).
"""
from __future__ import annotations

import numpy as np

import asc_trace as asc
from asc_trace import HardEvent as EV
from adversarial_kernels import Case

L = 64              # float32 elements per tile (256 bytes)
ROWS = 10


def _x(n: int, seed: int = 18) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return (rng.random(n) * 4 - 2).astype(np.float32)


def _gm(x: asc.GlobalAddress, z: asc.GlobalAddress):
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    return xg, zg


def _tile(slot: int) -> asc.LocalTensor:
    return asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, slot * L * 4, L)


# -- ladder ----------------------------------------------------------------------------------------------

LADDER = 10


@asc.jit
def ladder(x: asc.GlobalAddress, z: asc.GlobalAddress, bits: int):
    xg, zg = _gm(x, z)
    t = _tile(0)
    for k in asc.static_range(LADDER):
        def scale(k=k):
            asc.data_copy(t, xg[k * L:], L)
            asc.muls(t, t, float(k + 1), L)
            asc.data_copy(zg[k * L:], t, L)

        def fill(k=k):
            asc.duplicate(t, -float(k), L)
            t.set_value(k, 100.0 + k)
            asc.data_copy(zg[k * L:], t, L)
        asc.cond((bits >> k) % 2 == 1, scale, fill)


def _ladder_ref(x: np.ndarray, bits: int) -> np.ndarray:
    z = np.zeros(LADDER * L, np.float32)
    for k in range(LADDER):
        row = z[k * L:(k + 1) * L]
        if bits >> k & 1:
            row[:] = x[k * L:(k + 1) * L] * np.float32(k + 1)
        else:
            row[:] = -k
            row[k] = 100 + k
    return z


# -- streak3 ---------------------------------------------------------------------------------------------

@asc.jit
def streak3(x: asc.GlobalAddress, z: asc.GlobalAddress, rows: int, a: int, b: int):
    xg, zg = _gm(x, z)
    t, u = _tile(0), _tile(1)
    for r in range(rows):
        asc.data_copy(t, xg[r * L:], L)
        for c in range(r - a):                     # none while r <= a: a streak of empty middles
            for d in range(b):                     # none at all when b == 0
                asc.adds(u, t, 1.0, L)
                u.set_value(d % L, u.get_value(c % L) * 2.0)
                asc.muls(t, u, 0.5, L)
        asc.data_copy(zg[r * L:], t, L)


def _streak3_ref(x: np.ndarray, rows: int, a: int, b: int) -> np.ndarray:
    z = np.zeros(ROWS * L, np.float32)
    for r in range(rows):
        t = x[r * L:(r + 1) * L].copy()
        for c in range(r - a):
            for d in range(b):
                u = t + np.float32(1.0)
                u[d % L] = u[c % L] * np.float32(2.0)
                t = u * np.float32(0.5)
        z[r * L:(r + 1) * L] = t
    return z


# -- while_rev -------------------------------------------------------------------------------------------

@asc.jit
def while_rev(x: asc.GlobalAddress, z: asc.GlobalAddress, rows: int, limit: float):
    xg, zg = _gm(x, z)
    row, mag, work, peak = _tile(0), _tile(1), _tile(2), _tile(3)
    for r in range(rows - 1, -1, -1):
        asc.data_copy(row, xg[r * L:], L)

        def top():
            asc.abs(mag, row, L)
            asc.reduce_max(peak, mag, work, L)
            return peak.get_value(0)

        def quarter(k, m):
            asc.muls(row, row, 0.25, L)
            return k + 1, top()

        k, _ = asc.while_loop(lambda k, m: m > limit, quarter, (0, top()))
        row.set_value(0, k * 1.0)                  # the trip count, written by the scalar unit
        asc.data_copy(zg[r * L:], row, L)


def _while_rev_x(small: tuple[int, ...]) -> np.ndarray:
    x = _x(ROWS * L).reshape(ROWS, L) * np.float32(40.0)
    for r in small:
        x[r] *= np.float32(0.001)                  # already under the limit: zero trips
    return x.ravel().astype(np.float32)


def _while_rev_ref(x: np.ndarray, rows: int, limit: float) -> np.ndarray:
    z = np.zeros(ROWS * L, np.float32)
    for r in range(rows - 1, -1, -1):
        t = x[r * L:(r + 1) * L].copy()
        k = 0
        while np.abs(t).max() > np.float32(limit):
            t = t * np.float32(0.25)
            k += 1
        t[0] = k
        z[r * L:(r + 1) * L] = t
    return z


# -- rev_step2 -------------------------------------------------------------------------------------------

@asc.jit
def rev_step2(x: asc.GlobalAddress, z: asc.GlobalAddress, hi: int, lo: int, n: int):
    xg, zg = _gm(x, z)
    acc = _tile(0)
    for r in range(hi, lo, -2):
        asc.data_copy(acc, zg[(r + 1) * L:], L)           # what the previous row (r + 2) wrote, one row up
        for c in range(n):
            cur = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, (1 + c % 2) * L * 4, L)
            asc.data_copy(cur, xg[((r + c) % ROWS) * L:], L)
            asc.add(acc, acc, cur, L)
        asc.data_copy(zg[(r - 1) * L:], acc, L)


def _rev_step2_ref(x: np.ndarray, hi: int, lo: int, n: int) -> np.ndarray:
    z = np.zeros((ROWS + 2) * L, np.float32)
    for r in range(hi, lo, -2):
        acc = z[(r + 1) * L:(r + 2) * L].copy()
        for c in range(n):
            s = (r + c) % ROWS
            acc = acc + x[s * L:(s + 1) * L]
        z[(r - 1) * L:r * L] = acc
    return z


# -- prologue_all ----------------------------------------------------------------------------------------

@asc.jit
def prologue_all(x: asc.GlobalAddress, z: asc.GlobalAddress, rows: int, n: int, bits: int):
    xg, zg = _gm(x, z)
    acc, t, u = _tile(0), _tile(1), _tile(2)
    tiles = [_tile(3 + i) for i in asc.static_range(8)]
    for i in asc.static_range(8):                  # MTE2_V ids 0..7: eight tiles in flight
        asc.data_copy(tiles[i], xg[i * L:], L)
        asc.set_flag(EV.MTE2_V, i)
    asc.duplicate(acc, 0.0, L)
    for i in asc.static_range(8):
        asc.wait_flag(EV.MTE2_V, i)
        asc.add(acc, acc, tiles[i], L)
        asc.muls(tiles[i], tiles[i], 2.0, L)
        asc.set_flag(EV.V_MTE3, i)                 # V_MTE3 ids 0..7: eight copy-outs in flight
    for i in asc.static_range(8):
        asc.wait_flag(EV.V_MTE3, i)
        asc.data_copy(zg[(ROWS + i) * L:], tiles[i], L)
        asc.set_flag(EV.MTE3_V, i)
    for i in asc.static_range(8):                  # MTE3_V ids 0..7: the tiles free again
        asc.wait_flag(EV.MTE3_V, i)
    for r in range(rows):                          # flag-free from here on
        asc.data_copy(t, xg[r * L:], L)
        for c in range(n):
            asc.add(t, t, acc, L)

        def neg():
            asc.muls(u, t, -1.0, L)
            asc.data_copy(zg[r * L:], u, L)

        def keep():
            asc.data_copy(zg[r * L:], t, L)
        asc.cond((bits >> r) % 2 == 1, neg, keep)


def _prologue_all_ref(x: np.ndarray, rows: int, n: int, bits: int) -> np.ndarray:
    z = np.zeros((ROWS + 8) * L, np.float32)
    acc = np.zeros(L, np.float32)
    for i in range(8):
        acc = acc + x[i * L:(i + 1) * L]
        z[(ROWS + i) * L:(ROWS + i + 1) * L] = x[i * L:(i + 1) * L] * np.float32(2.0)
    for r in range(rows):
        t = x[r * L:(r + 1) * L].copy()
        for _ in range(n):
            t = t + acc
        z[r * L:(r + 1) * L] = -t if bits >> r & 1 else t
    return z


# -- que_branch ------------------------------------------------------------------------------------------

@asc.jit
def que_branch(x: asc.GlobalAddress, z: asc.GlobalAddress, rows: int, reps: int, bits: int):
    xg, zg = _gm(x, z)
    pipe = asc.TPipe()
    qin = asc.TQue(asc.TPosition.VECIN, 2)
    qout = asc.TQue(asc.TPosition.VECOUT, 2)
    pipe.init_buffer(qin, 2, L * 4)
    pipe.init_buffer(qout, 2, L * 4)
    for r in range(rows - 1, -1, -1):
        a = qin.alloc_tensor(asc.float32)
        asc.data_copy(a, xg[r * L:], L)
        qin.enque(a)
        b = qin.deque(asc.float32)
        o = qout.alloc_tensor(asc.float32)
        asc.muls(o, b, 1.0, L)

        def grow():
            for c in range(reps):                  # zero trips when reps == 0
                asc.adds(o, o, 1.0, L)

        def shrink():
            def body(k):
                asc.muls(o, o, 0.5, L)
                return k + 1
            asc.while_loop(lambda k: k < reps, body, 0)
        asc.cond((bits >> r) % 2 == 1, grow, shrink)
        qin.free_tensor(b)
        qout.enque(o)
        w = qout.deque(asc.float32)
        asc.data_copy(zg[r * L:], w, L)
        qout.free_tensor(w)


def _que_branch_ref(x: np.ndarray, rows: int, reps: int, bits: int) -> np.ndarray:
    z = np.zeros(ROWS * L, np.float32)
    for r in range(rows - 1, -1, -1):
        t = x[r * L:(r + 1) * L].copy()
        for _ in range(reps):
            t = t + np.float32(1.0) if bits >> r & 1 else t * np.float32(0.5)
        z[r * L:(r + 1) * L] = t
    return z


# -- cores_streak ----------------------------------------------------------------------------------------

CORES = 3


@asc.jit
def cores_streak(x: asc.GlobalAddress, z: asc.GlobalAddress, rows: int, n: int):
    blk = asc.get_block_idx()
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x + blk * ROWS * L, ROWS * L)
    zg.set_global_buffer(z + blk * ROWS * L, ROWS * L)
    t, u = _tile(0), _tile(1)
    for r in range(rows * blk // 2):               # core 0: no rows; core 1: rows // 2; core 2: rows
        asc.data_copy(t, xg[r * L:], L)
        for c in range(n - r):                     # zero trips from row n on
            asc.muls(u, t, 1.5, L)
            asc.sub(t, u, t, L)
        asc.data_copy(zg[r * L:], t, L)


def _cores_ref(x: np.ndarray, rows: int, n: int) -> np.ndarray:
    z = np.zeros(CORES * ROWS * L, np.float32)
    for blk in range(CORES):
        base = blk * ROWS * L
        for r in range(rows * blk // 2):
            t = x[base + r * L:base + (r + 1) * L].copy()
            for _ in range(n - r):
                t = t * np.float32(1.5) - t
            z[base + r * L:base + (r + 1) * L] = t
    return z


CASES = (
    Case("ladder", ladder, lambda bits: (_x(LADDER * L), np.zeros(LADDER * L, np.float32), bits), _ladder_ref,
         ((0,), (0b1111111111,), (0b1000000001,), (0b0101010101,), (0b0000110000,), (0b1001001001,))),
    Case("streak3", streak3, lambda rows, a, b: (_x(ROWS * L), np.zeros(ROWS * L, np.float32), rows, a, b),
         _streak3_ref, ((10, 5, 2), (10, 0, 0), (10, 9, 3), (6, 2, 1), (0, 0, 2))),
    Case("while_rev", while_rev, lambda rows, limit: (_while_rev_x((2, 3, 4, 5, 6)), np.zeros(ROWS * L, np.float32),
                                                      rows, limit), _while_rev_ref, ((10, 1.0), (7, 1.0), (1, 1.0))),
    Case("rev_step2", rev_step2, lambda hi, lo, n: (_x(ROWS * L), np.zeros((ROWS + 2) * L, np.float32), hi, lo, n),
         _rev_step2_ref, ((9, 0, 2), (9, 8, 3), (8, 0, 0), (1, 0, 1), (0, 5, 2))),
    Case("prologue_all", prologue_all, lambda rows, n, bits: (_x(ROWS * L), np.zeros((ROWS + 8) * L, np.float32),
                                                             rows, n, bits),
         _prologue_all_ref, ((10, 2, 0b1011001110), (0, 1, 0), (4, 0, 0b1111), (10, 1, 0))),
    Case("que_branch", que_branch, lambda rows, reps, bits: (_x(ROWS * L), np.zeros(ROWS * L, np.float32), rows, reps,
                                                             bits),
         _que_branch_ref, ((10, 2, 0b0110100101), (10, 0, 0b1111100000), (1, 3, 1), (0, 1, 0))),
    Case("cores_streak", cores_streak, lambda rows, n: (_x(CORES * ROWS * L), np.zeros(CORES * ROWS * L, np.float32),
                                                       rows, n), _cores_ref, ((10, 3), (10, 0), (4, 10))),
)
