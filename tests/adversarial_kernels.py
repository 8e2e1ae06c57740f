"""Flag-free kernels an adversary would write against the scheduler (issue 18), each with its NumPy
reference and the runtime arguments that drive the paths that once broke it. Shared by
tests/test_schedule_adversarial.py and tests/test_schedule_proof.py.

Every kernel is one core's work (launched on 1 core); `args(*knobs)` builds (x, z, *scalars) and
`reference(x, *knobs)` the expected z.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

import asc_trace as asc
from asc_trace import HardEvent as EV

L = 64            # float32 elements per tile (256 bytes)
STEPS = 11        # optional steps of the branch chain
ROWS = 8


@dataclass(frozen=True)
class Case:
    name: str
    kernel: Callable
    make: Callable[..., tuple]              # knobs -> (x, z, *scalars)
    reference: Callable[..., np.ndarray]    # (x, *knobs) -> expected z
    knobs: tuple[tuple, ...]                # the runtime inputs to try (each a tuple of knobs)


def _x(n: int, seed: int = 3) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return (rng.random(n) * 4 - 2).astype(np.float32)


# -- 1. eleven optional steps on runtime bits, one UB tile reused ---------------------------------------

@asc.jit
def branch_chain(x: asc.GlobalAddress, z: asc.GlobalAddress, bits: int):
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, L)
    u = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, L * 4, L)
    for k in asc.static_range(STEPS):
        def step(k=k):
            asc.duplicate(t, float(k), L)                 # V writes the tile the last copy-out read
            asc.data_copy(u, xg[k * L:], L)
            asc.add(t, t, u, L)
            asc.data_copy(zg[k * L:], t, L)               # MTE3 reads it
        asc.cond((bits // (1 << k)) % 2 == 1, step, lambda: None)


def _chain_ref(x: np.ndarray, bits: int) -> np.ndarray:
    z = np.full(STEPS * L, -7.0, np.float32)
    for k in range(STEPS):
        if bits >> k & 1:
            z[k * L:(k + 1) * L] = np.float32(k) + x[k * L:(k + 1) * L]
    return z


CHAIN = Case("branch_chain", branch_chain,
             lambda bits: (_x(STEPS * L), np.full(STEPS * L, -7.0, np.float32), bits), _chain_ref,
             ((0b10000000001,), (0b00000100001,), (0b11111111111,), (0,), (0b01010101010,), (0b10000000010,)))


# -- 2. a nest whose inner runtime loop runs zero times for many consecutive outer iterations ----------

@asc.jit
def zero_streak(x: asc.GlobalAddress, z: asc.GlobalAddress, rows: int, a: int):
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, L)
    u = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, L * 4, L)
    for r in asc.range(rows):
        asc.data_copy(t, xg[r * L:], L)
        for c in asc.range(a, r):                         # r - a trips: none while r <= a
            asc.adds(t, t, 1.0, L)
        asc.muls(u, t, 2.0, L)
        asc.data_copy(zg[r * L:], u, L)


def _streak_ref(x: np.ndarray, rows: int, a: int) -> np.ndarray:
    z = np.zeros(ROWS * L, np.float32)
    for r in range(rows):
        t = x[r * L:(r + 1) * L].copy()
        for _ in range(max(0, r - a)):
            t = t + np.float32(1.0)
        z[r * L:(r + 1) * L] = t * np.float32(2.0)
    return z


STREAK = Case("zero_streak", zero_streak, lambda rows, a: (_x(ROWS * L), np.zeros(ROWS * L, np.float32), rows, a),
              _streak_ref, ((8, 4), (8, 5), (8, 0), (8, 8), (3, 0)))


# -- 3. a data-dependent while loop (the halving pattern) inside a runtime for over rows -------------

@asc.jit
def halving_rows(x: asc.GlobalAddress, z: asc.GlobalAddress, rows: int, limit: float):
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    row = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, L)
    mag = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, L * 4, L)
    work = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 2 * L * 4, L)
    peak = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 3 * L * 4, 8)
    for r in asc.range(rows):
        asc.data_copy(row, xg[r * L:], L)

        def largest():
            asc.abs(mag, row, L)
            asc.reduce_max(peak, mag, work, L)
            return peak.get_value(0)

        def halve(k, m):
            asc.muls(row, row, 0.5, L)
            return k + 1, largest()

        asc.while_loop(lambda k, m: m > limit, halve, (0, largest()))
        asc.data_copy(zg[r * L:], row, L)


def _halving_x(small: tuple[int, ...]) -> np.ndarray:
    """Rows scaled up, those in `small` already under the limit (their while loop runs zero times)."""
    x = _x(ROWS * L).reshape(ROWS, L) * np.float32(50.0)
    for r in small:
        x[r] *= np.float32(0.001)
    return x.ravel().astype(np.float32)


def _halving_ref(x: np.ndarray, rows: int, limit: float) -> np.ndarray:
    z = np.zeros(ROWS * L, np.float32)
    for r in range(rows):
        t = x[r * L:(r + 1) * L].copy()
        while np.abs(t).max() > np.float32(limit):
            t = t * np.float32(0.5)
        z[r * L:(r + 1) * L] = t
    return z


def _halving_make(small: tuple[int, ...]):
    return lambda rows, limit: (_halving_x(small), np.zeros(ROWS * L, np.float32), rows, limit)


HALVING = Case("halving_rows", halving_rows, _halving_make((1, 2, 3, 4)), _halving_ref, ((8, 1.0), (5, 1.0)))
HALVING_ALL_SMALL = Case("halving_rows_small", halving_rows, _halving_make(tuple(range(ROWS))), _halving_ref,
                         ((8, 1.0),))


# -- 4. outer runtime loop, inner runtime loop of vector ops, a never-taken branch -------------------

@asc.jit
def never_taken(x: asc.GlobalAddress, z: asc.GlobalAddress, rows: int, n: int, flag: int):
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, L)
    for r in asc.range(rows):
        asc.data_copy(t, xg[r * L:], L)
        for c in asc.range(n):
            asc.adds(t, t, 1.0, L)
        asc.cond(flag > 0, lambda: t.set_value(0, t.get_value(1) * 2.0), lambda: None)
        asc.data_copy(zg[r * L:], t, L)


def _never_ref(x: np.ndarray, rows: int, n: int, flag: int) -> np.ndarray:
    z = np.zeros(ROWS * L, np.float32)
    for r in range(rows):
        t = x[r * L:(r + 1) * L] + np.float32(0.0)
        for _ in range(n):
            t = t + np.float32(1.0)
        if flag > 0:
            t[0] = t[1] * np.float32(2.0)
        z[r * L:(r + 1) * L] = t
    return z


NEVER = Case("never_taken", never_taken,
             lambda rows, n, flag: (_x(ROWS * L), np.zeros(ROWS * L, np.float32), rows, n, flag), _never_ref,
             ((8, 2, 0), (8, 0, 0), (8, 1, 1), (6, 3, 1)))


# -- 5. an outer loop running backwards from a runtime start, around a runtime inner loop ------------

@asc.jit
def reversed_rows(x: asc.GlobalAddress, z: asc.GlobalAddress, rows: int, n: int):
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, L)
    u = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, L * 4, L)
    for r in asc.range(rows - 1, -1, -1):
        asc.data_copy(t, xg[r * L:], L)
        for c in asc.range(n):
            asc.add(u, t, t, L)
            asc.muls(t, u, 0.5, L)
        asc.data_copy(zg[r * L:], t, L)


def _reversed_ref(x: np.ndarray, rows: int, n: int) -> np.ndarray:
    z = np.zeros(ROWS * L, np.float32)
    for r in range(rows - 1, -1, -1):
        t = x[r * L:(r + 1) * L].copy()
        for _ in range(n):
            t = (t + t) * np.float32(0.5)
        z[r * L:(r + 1) * L] = t
    return z


REVERSED = Case("reversed_rows", reversed_rows,
                lambda rows, n: (_x(ROWS * L), np.zeros(ROWS * L, np.float32), rows, n), _reversed_ref,
                ((8, 2), (8, 0), (1, 3), (0, 2)))


# -- 6. a hand-synchronised prologue using MTE2_V ids 0..7, then a flag-free main loop ---------------

@asc.jit(auto_sync=True)
def prologue_ids(x: asc.GlobalAddress, z: asc.GlobalAddress, rows: int):
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    t = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, L)
    acc = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, L * 4, L)
    tiles = [asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, (2 + i) * L * 4, L) for i in asc.static_range(8)]
    for i in asc.static_range(8):
        tile = tiles[i]
        asc.data_copy(tile, xg[i * L:], L)
        asc.set_flag(EV.MTE2_V, i)
    asc.duplicate(acc, 0.0, L)
    for i in asc.static_range(8):
        tile = tiles[i]
        asc.wait_flag(EV.MTE2_V, i)
        asc.add(acc, acc, tile, L)
    for r in asc.range(rows):                          # flag-free from here on
        asc.data_copy(t, xg[r * L:], L)
        asc.add(t, t, acc, L)
        asc.data_copy(zg[r * L:], t, L)


def _prologue_ref(x: np.ndarray, rows: int) -> np.ndarray:
    acc = np.zeros(L, np.float32)
    for i in range(8):
        acc = acc + x[i * L:(i + 1) * L]
    z = np.zeros(ROWS * L, np.float32)
    for r in range(rows):
        z[r * L:(r + 1) * L] = x[r * L:(r + 1) * L] + acc
    return z


PROLOGUE = Case("prologue_ids", prologue_ids, lambda rows: (_x(ROWS * L), np.zeros(ROWS * L, np.float32), rows),
                _prologue_ref, ((8,), (0,), (3,)))

CASES = (CHAIN, STREAK, HALVING, HALVING_ALL_SMALL, NEVER, REVERSED, PROLOGUE)
