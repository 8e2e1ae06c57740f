"""asc.cond and asc.while_loop (issue 8, item 2): kernels with runtime branches and data-dependent
loops on every backend against NumPy (tail cores, tail tiles, count-until, halving, cond inside for
and while loops, zero trips, predicates that never hold, one core and many), the path taken is the
only one checked (races, events, bounds), the errors a wrong use gets, the dump and the C code.

The kernels set their flags themselves (auto_sync=False): the scheduler's support for regions is
tested with the scheduler."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import pytest

import asc_trace as asc
from asc_trace.lower.real_api import headers_if_configured
from helpers import assert_points_at, line_of

HAVE_HEADERS = headers_if_configured() is not None
BACKENDS = ["sim", "eager", "cpp", pytest.param("cpu_debug", marks=pytest.mark.skipif(
    not HAVE_HEADERS, reason="no Ascend C headers configured (ASC_TRACE_ASCENDC_HOME)"))]
ALL_BACKENDS = ("sim", "eager", "cpp") + (("cpu_debug",) if HAVE_HEADERS else ())
EV = asc.HardEvent
TILE = 64
F32 = asc.float32


def _sync(event: Any) -> None:
    asc.set_flag(event, 0)
    asc.wait_flag(event, 0)


# -- kernels ----------------------------------------------------------------------------------------

@asc.jit(auto_sync=False)
def tail_core(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    """Every core scales a tile of TILE elements by 3; the last core only what is left of n."""
    blk = asc.get_block_idx()
    count = asc.cond(blk == asc.get_block_num() - 1, lambda: n - blk * TILE, lambda: TILE)
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x + blk * TILE, count)
    zg.set_global_buffer(z + blk * TILE, count)
    t = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, TILE)
    asc.data_copy(t, xg, count)
    _sync(EV.MTE2_V)
    asc.muls(t, t, 3.0, count)
    _sync(EV.V_MTE3)
    asc.data_copy(zg, t, count)


@asc.jit(auto_sync=False)
def tail_tile(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    """One core adds 1 to n elements tile by tile; the last tile is partial and copied with
    data_copy_pad, chosen with asc.cond (the branches hold different copies and their own flags)."""
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x, n)
    zg.set_global_buffer(z, n)
    t = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, TILE)
    tiles = (n + TILE - 1) // TILE
    for i in range(tiles):
        count = asc.cond(i == tiles - 1, lambda: n - i * TILE, lambda: TILE)

        def whole():
            asc.data_copy(t, xg[i * TILE:], TILE)
            _sync(EV.MTE2_V)

        def partial():
            asc.data_copy_pad(t, xg[i * TILE:], asc.DataCopyExtParams(1, count * 4, 0, 0, 0))
            _sync(EV.MTE2_V)
        asc.cond(count == TILE, whole, partial)
        asc.adds(t, t, 1.0, count)
        _sync(EV.V_MTE3)
        asc.cond(count == TILE, lambda: asc.data_copy(zg[i * TILE:], t, TILE),
                 lambda: asc.data_copy_pad(zg[i * TILE:], t, asc.DataCopyExtParams(1, count * 4, 0, 0, 0)))
        _sync(EV.MTE3_MTE2)


def _store_int(out: Any, value: Any) -> None:
    """Write `value` as 8 int32 at this core's block of `out`."""
    og = asc.GlobalTensor()
    og.set_global_buffer(out + asc.get_block_idx() * 8, 8)
    t = asc.LocalTensor(asc.int32, asc.TPosition.VECOUT, 0, 8)
    asc.duplicate(t, value, 8)
    _sync(EV.V_MTE3)
    asc.data_copy(og, t, 8)


@asc.jit(auto_sync=False)
def isqrt(out: asc.GlobalAddress, n: int):
    """Count until: the integer square root of n + block_idx (no iteration for 0)."""
    v = n + asc.get_block_idx()
    k = asc.while_loop(lambda k: (k + 1) * (k + 1) <= v, lambda k: k + 1, 0)
    _store_int(out, k)


@asc.jit(auto_sync=False)
def collatz(out: asc.GlobalAddress, n: int):
    """asc.cond inside asc.while_loop: the Collatz steps of n + block_idx."""
    def step(x, s):
        return asc.cond(x % 2 == 0, lambda: x // 2, lambda: 3 * x + 1), s + 1
    _, steps = asc.while_loop(lambda x, s: x != 1, step, (n + asc.get_block_idx(), 0))
    _store_int(out, steps)


@asc.jit(auto_sync=False)
def scalars(x: asc.GlobalAddress, z: asc.GlobalAddress, tiles: int):
    """Branches return a tuple of a float and an int; even tiles become x * 2 + t, odd ones x * 0.5 - t."""
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    t = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, TILE)
    for i in range(tiles):
        scale, shift = asc.cond(i % 2 == 0, lambda: (2.0, i), lambda: (0.5, -i))
        asc.data_copy(t, xg[i * TILE:], TILE)
        _sync(EV.MTE2_V)
        asc.muls(t, t, scale, TILE)
        asc.adds(t, t, shift * 1.0, TILE)
        _sync(EV.V_MTE3)
        asc.data_copy(zg[i * TILE:], t, TILE)
        _sync(EV.MTE3_MTE2)


@asc.jit(auto_sync=False)
def triangle(x: asc.GlobalAddress, z: asc.GlobalAddress, reps: int):
    """A runtime for loop inside asc.while_loop, its bound carried: adds 1 reps * (reps + 1) / 2 times."""
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    t = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, TILE)
    asc.data_copy(t, xg, TILE)
    _sync(EV.MTE2_V)

    def body(i):
        for _ in range(i + 1):
            asc.adds(t, t, 1.0, TILE)
        return i + 1
    asc.while_loop(lambda i: i < reps, body, 0)
    _sync(EV.V_MTE3)
    asc.data_copy(zg, t, TILE)


@asc.jit(auto_sync=False)
def nested(x: asc.GlobalAddress, z: asc.GlobalAddress, a: int, b: int):
    """Nested asc.cond with ops in every branch: z = x * (a > 0 ? (b > 0 ? 2 : 3) : 5)."""
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    t = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, TILE)
    asc.data_copy(t, xg, TILE)
    _sync(EV.MTE2_V)

    def positive():
        asc.cond(b > 0, lambda: asc.muls(t, t, 2.0, TILE), lambda: asc.muls(t, t, 3.0, TILE))
    asc.cond(a > 0, positive, lambda: asc.muls(t, t, 5.0, TILE))
    _sync(EV.V_MTE3)
    asc.data_copy(zg, t, TILE)


@asc.jit(auto_sync=False)
def tque_tiles(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    """TQue inside both branches: even tiles negated, odd tiles squared (the queues carry the events)."""
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    pipe = asc.TPipe()
    qi, qo = asc.TQue(asc.TPosition.VECIN, 2), asc.TQue(asc.TPosition.VECOUT, 2)
    pipe.init_buffer(qi, 2, TILE * 4)
    pipe.init_buffer(qo, 2, TILE * 4)
    for i in range(n // TILE):
        a = qi.alloc_tensor(F32)
        asc.data_copy(a, xg[i * TILE:], TILE)
        qi.enque(a)
        a = qi.deque(F32)
        b = qo.alloc_tensor(F32)
        asc.cond(i % 2 == 0, lambda: asc.muls(b, a, -1.0, TILE), lambda: asc.mul(b, a, a, TILE))
        qo.enque(b)
        qi.free_tensor(a)
        b = qo.deque(F32)
        asc.data_copy(zg[i * TILE:], b, TILE)
        qo.free_tensor(b)


@dataclass(frozen=True)
class Case:
    id: str
    kernel: Any
    cores: int
    make: Callable[[], tuple]                 # launch arguments (fresh arrays)
    out: Callable[[tuple], np.ndarray]        # the result, from the arguments after the launch
    want: Callable[[tuple], np.ndarray]       # NumPy's result, from fresh arguments


def _vec(n: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(n).astype(np.float32)


def _tail_core(cores: int, n: int) -> Case:
    def want(a):
        z = np.zeros(cores * TILE, np.float32)
        z[:n] = a[0][:n] * np.float32(3)
        return z
    return Case(f"tail_core-{cores}cores-n{n}", tail_core, cores,
                lambda: (_vec(cores * TILE), np.zeros(cores * TILE, np.float32), n), lambda a: a[1], want)


def _tail_tile(n: int) -> Case:
    return Case(f"tail_tile-n{n}", tail_tile, 1, lambda: (_vec(max(n, 1)), np.zeros(max(n, 1), np.float32), n),
                lambda a: a[1], lambda a: np.where(np.arange(a[0].size) < n, a[0] + np.float32(1), 0))


def _ints(kernel: Any, cores: int, n: int, fn: Callable[[int], int]) -> Case:
    return Case(f"{kernel.name}-{cores}cores-n{n}", kernel, cores, lambda: (np.full(cores * 8, -1, np.int32), n),
                lambda a: a[0], lambda a: np.repeat([fn(n + c) for c in range(cores)], 8).astype(np.int32))


def _isqrt(v: int) -> int:
    return int(np.floor(np.sqrt(v)))


def _collatz(v: int) -> int:
    s = 0
    while v != 1:
        v, s = (v // 2 if v % 2 == 0 else 3 * v + 1), s + 1
    return s


def _scalars_want(a):
    x, tiles = a[0], a[2]
    z = np.zeros_like(x)
    for i in range(tiles):
        s, sh = (2.0, i) if i % 2 == 0 else (0.5, -i)
        z[i * TILE:(i + 1) * TILE] = x[i * TILE:(i + 1) * TILE] * np.float32(s) + np.float32(sh)
    return z


def _add_ones(x: np.ndarray, k: int) -> np.ndarray:
    for _ in range(k):           # one rounding per addition, as the kernel does
        x = x + np.float32(1)
    return x


def _tque_want(a):
    x, n = a[0], a[2]
    z = np.zeros_like(x)
    for i in range(n // TILE):
        seg = x[i * TILE:(i + 1) * TILE]
        z[i * TILE:(i + 1) * TILE] = -seg if i % 2 == 0 else seg * seg
    return z


CASES = [
    _tail_core(1, 40), _tail_core(4, 3 * TILE + 24), _tail_core(4, 4 * TILE), _tail_core(48, 47 * TILE + 8),
    _tail_tile(5 * TILE + 13), _tail_tile(2 * TILE), _tail_tile(9), _tail_tile(0),
    _ints(isqrt, 5, 0, _isqrt), _ints(isqrt, 3, 99, _isqrt),
    _ints(collatz, 6, 1, _collatz), _ints(collatz, 2, 27, _collatz),
    Case("scalars", scalars, 1, lambda: (_vec(5 * TILE), np.zeros(5 * TILE, np.float32), 5), lambda a: a[1],
         _scalars_want),
    *[Case(f"triangle-reps{r}", triangle, 1, lambda r=r: (_vec(TILE), np.zeros(TILE, np.float32), r), lambda a: a[1],
           lambda a: _add_ones(a[0], a[2] * (a[2] + 1) // 2)) for r in (0, 1, 4)],
    *[Case(f"nested-{a}-{b}", nested, 1, lambda a=a, b=b: (_vec(TILE), np.zeros(TILE, np.float32), a, b),
           lambda args: args[1],
           lambda args: args[0] * np.float32(5 if args[2] <= 0 else 2 if args[3] > 0 else 3))
      for a, b in ((1, 1), (1, 0), (0, 1))],
    Case("tque_tiles", tque_tiles, 1, lambda: (_vec(6 * TILE), np.zeros(6 * TILE, np.float32), 6 * TILE),
         lambda a: a[1], _tque_want),
]


@pytest.fixture(scope="module")
def prebuilt():
    """The cpu_debug executables of every case, built with one compiler run."""
    if HAVE_HEADERS:
        from asc_trace.runtime.cpu_debug import prebuild
        prebuild([asc.compile(c.kernel, c.make(), core_num=c.cores).graph for c in CASES])


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_kernel_matches_numpy(case, backend, prebuilt):
    args = case.make()
    asc.jit(case.kernel, backend=backend)[case.cores](*args)
    np.testing.assert_array_equal(case.out(args), case.want(case.make()), err_msg=f"{case.id} on {backend}")


def test_the_backends_agree_to_the_byte():
    for case in CASES[:6]:
        got = set()
        for backend in ("sim", "eager", "cpp"):
            args = case.make()
            asc.jit(case.kernel, backend=backend)[case.cores](*args)
            got.add(case.out(args).tobytes())
        assert len(got) == 1, case.id
