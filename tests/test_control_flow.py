"""asc.cond and asc.while_loop (issue 8, item 2): kernels with runtime branches and data-dependent
loops on every backend against NumPy (tail cores, tail tiles, count-until, halving, cond inside for
and while loops, zero trips, predicates that never hold, one core and many), the path taken is the
only one checked (races, events, bounds), the errors a wrong use gets, the dump and the C code.

Each kernel runs twice: with its own flags (auto_sync=False) and with none (auto_sync=True), where
the scheduler must synchronise every path through the branches and loops."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import pytest

import asc_trace as asc
from asc_trace.toolchain.real_api import headers_if_configured
from helpers import assert_points_at, line_of

HAVE_HEADERS = headers_if_configured() is not None
BACKENDS = ["sim", "eager", "cpp", pytest.param("cpu_debug", marks=pytest.mark.skipif(
    not HAVE_HEADERS, reason="no Ascend C headers configured (ASC_TRACE_ASCENDC_HOME)"))]
ALL_BACKENDS = ("sim", "eager", "cpp") + (("cpu_debug",) if HAVE_HEADERS else ())
EV = asc.HardEvent
TILE = 64
F32 = asc.float32


def _sync(event: Any, flags: int = 1) -> None:
    """The kernel's own event (flags=1, launched with auto_sync=False), or nothing (flags=0: the
    scheduler adds what is needed, auto_sync=True)."""
    if flags:
        asc.set_flag(event, 0)
        asc.wait_flag(event, 0)


# -- kernels ----------------------------------------------------------------------------------------

@asc.jit(auto_sync=False)
def tail_core(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int, flags: asc.ConstExpr[int] = 1):
    """Every core scales a tile of TILE elements by 3; the last core only what is left of n."""
    blk = asc.get_block_idx()
    count = asc.cond(blk == asc.get_block_num() - 1, lambda: n - blk * TILE, lambda: TILE)
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x + blk * TILE, count)
    zg.set_global_buffer(z + blk * TILE, count)
    t = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, TILE)
    asc.data_copy(t, xg, count)
    _sync(EV.MTE2_V, flags)
    asc.muls(t, t, 3.0, count)
    _sync(EV.V_MTE3, flags)
    asc.data_copy(zg, t, count)


@asc.jit(auto_sync=False)
def tail_tile(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int, flags: asc.ConstExpr[int] = 1):
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
            _sync(EV.MTE2_V, flags)

        def partial():
            asc.data_copy_pad(t, xg[i * TILE:], asc.DataCopyExtParams(1, count * 4, 0, 0, 0))
            _sync(EV.MTE2_V, flags)
        asc.cond(count == TILE, whole, partial)
        asc.adds(t, t, 1.0, count)
        _sync(EV.V_MTE3, flags)
        asc.cond(count == TILE, lambda: asc.data_copy(zg[i * TILE:], t, TILE),
                 lambda: asc.data_copy_pad(zg[i * TILE:], t, asc.DataCopyExtParams(1, count * 4, 0, 0, 0)))
        _sync(EV.MTE3_MTE2, flags)


def _store_int(out: Any, value: Any, flags: int = 1) -> None:
    """Write `value` as 8 int32 at this core's block of `out`."""
    og = asc.GlobalTensor()
    og.set_global_buffer(out + asc.get_block_idx() * 8, 8)
    t = asc.LocalTensor(asc.int32, asc.TPosition.VECOUT, 0, 8)
    asc.duplicate(t, value, 8)
    _sync(EV.V_MTE3, flags)
    asc.data_copy(og, t, 8)


@asc.jit(auto_sync=False)
def isqrt(out: asc.GlobalAddress, n: int, flags: asc.ConstExpr[int] = 1):
    """Count until: the integer square root of n + block_idx (no iteration for 0)."""
    v = n + asc.get_block_idx()
    k = asc.while_loop(lambda k: (k + 1) * (k + 1) <= v, lambda k: k + 1, 0)
    _store_int(out, k, flags)


@asc.jit(auto_sync=False)
def collatz(out: asc.GlobalAddress, n: int, flags: asc.ConstExpr[int] = 1):
    """asc.cond inside asc.while_loop: the Collatz steps of n + block_idx."""
    def step(x, s):
        return asc.cond(x % 2 == 0, lambda: x // 2, lambda: 3 * x + 1), s + 1
    _, steps = asc.while_loop(lambda x, s: x != 1, step, (n + asc.get_block_idx(), 0))
    _store_int(out, steps, flags)


@asc.jit(auto_sync=False)
def scalars(x: asc.GlobalAddress, z: asc.GlobalAddress, tiles: int, flags: asc.ConstExpr[int] = 1):
    """Branches return a tuple of a float and an int; even tiles become x * 2 + t, odd ones x * 0.5 - t."""
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    t = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, TILE)
    for i in range(tiles):
        scale, shift = asc.cond(i % 2 == 0, lambda: (2.0, i), lambda: (0.5, -i))
        asc.data_copy(t, xg[i * TILE:], TILE)
        _sync(EV.MTE2_V, flags)
        asc.muls(t, t, scale, TILE)
        asc.adds(t, t, shift * 1.0, TILE)
        _sync(EV.V_MTE3, flags)
        asc.data_copy(zg[i * TILE:], t, TILE)
        _sync(EV.MTE3_MTE2, flags)


@asc.jit(auto_sync=False)
def triangle(x: asc.GlobalAddress, z: asc.GlobalAddress, reps: int, flags: asc.ConstExpr[int] = 1):
    """A runtime for loop inside asc.while_loop, its bound carried: adds 1 reps * (reps + 1) / 2 times."""
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    t = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, TILE)
    asc.data_copy(t, xg, TILE)
    _sync(EV.MTE2_V, flags)

    def body(i):
        for _ in range(i + 1):
            asc.adds(t, t, 1.0, TILE)
        return i + 1
    asc.while_loop(lambda i: i < reps, body, 0)
    _sync(EV.V_MTE3, flags)
    asc.data_copy(zg, t, TILE)


@asc.jit(auto_sync=False)
def nested(x: asc.GlobalAddress, z: asc.GlobalAddress, a: int, b: int, flags: asc.ConstExpr[int] = 1):
    """Nested asc.cond with ops in every branch: z = x * (a > 0 ? (b > 0 ? 2 : 3) : 5)."""
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    t = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, TILE)
    asc.data_copy(t, xg, TILE)
    _sync(EV.MTE2_V, flags)

    def positive():
        asc.cond(b > 0, lambda: asc.muls(t, t, 2.0, TILE), lambda: asc.muls(t, t, 3.0, TILE))
    asc.cond(a > 0, positive, lambda: asc.muls(t, t, 5.0, TILE))
    _sync(EV.V_MTE3, flags)
    asc.data_copy(zg, t, TILE)


@asc.jit(auto_sync=False)
def tque_tiles(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int, flags: asc.ConstExpr[int] = 1):
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


@asc.jit
def while_tque(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    """Flag-free: a while loop over n tiles with a TQue pipeline, odd tiles doubled by an asc.cond."""
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    pipe = asc.TPipe()
    qi, qo = asc.TQue(asc.TPosition.VECIN, 2), asc.TQue(asc.TPosition.VECOUT, 2)
    pipe.init_buffer(qi, 2, TILE * 4)
    pipe.init_buffer(qo, 2, TILE * 4)

    def body(i):
        a = qi.alloc_tensor(F32)
        asc.data_copy(a, xg[i * TILE:], TILE)
        qi.enque(a)
        a = qi.deque(F32)
        b = qo.alloc_tensor(F32)
        asc.cond(i % 2 == 1, lambda: asc.muls(b, a, 2.0, TILE), lambda: asc.adds(b, a, 0.0, TILE))
        qo.enque(b)
        qi.free_tensor(a)
        b = qo.deque(F32)
        asc.data_copy(zg[i * TILE:], b, TILE)
        qo.free_tensor(b)
        return i + 1
    asc.while_loop(lambda i: i < n, body, 0)


@asc.jit
def rows_of_branches(x: asc.GlobalAddress, z: asc.GlobalAddress, rows: int, m: int):
    """Flag-free: per row, an asc.cond whose branches copy in and out themselves, one with a while
    loop (m + r additions), the other with a runtime for loop (r doublings); one UB tile for all."""
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    t = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, TILE)
    for r in range(rows):
        def even():
            asc.data_copy(t, xg[r * TILE:], TILE)

            def body(k):
                asc.adds(t, t, 1.0, TILE)
                return k + 1
            asc.while_loop(lambda k: k < m + r, body, 0)
            asc.data_copy(zg[r * TILE:], t, TILE)

        def odd():
            asc.data_copy(t, xg[r * TILE:], TILE)
            for _ in range(r):
                asc.muls(t, t, 2.0, TILE)
            asc.data_copy(zg[r * TILE:], t, TILE)
        asc.cond(r % 2 == 0, even, odd)


@asc.jit
def steered(x: asc.GlobalAddress, z: asc.GlobalAddress):
    """Flag-free, per core: a branch steered by data (get_value) and a trip count by the block index."""
    blk = asc.get_block_idx()
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x + blk * TILE, TILE)
    zg.set_global_buffer(z + blk * TILE, TILE)
    t = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, TILE)
    asc.data_copy(t, xg, TILE)
    asc.cond(t.get_value(0) > 0, lambda: asc.muls(t, t, -1.0, TILE), lambda: None)
    k = asc.while_loop(lambda k: k < blk % 5, lambda k: k + 1, 0)
    asc.adds(t, t, k * 1.0, TILE)
    asc.data_copy(zg, t, TILE)


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


def _while_tque_want(a):
    x, n = a[0], a[2]
    z = np.zeros_like(x)
    for i in range(n):
        seg = x[i * TILE:(i + 1) * TILE]
        z[i * TILE:(i + 1) * TILE] = seg * np.float32(2) if i % 2 else seg + np.float32(0)
    return z


def _rows_want(a):
    x, rows, m = a[0], a[2], a[3]
    z = np.zeros_like(x)
    for r in range(rows):
        seg = x[r * TILE:(r + 1) * TILE]
        z[r * TILE:(r + 1) * TILE] = _add_ones(seg, m + r) if r % 2 == 0 else seg * np.float32(2 ** r)
    return z


def _steered_want(a):
    z = a[0].reshape(-1, TILE).copy()
    for c in range(z.shape[0]):
        if z[c, 0] > 0:
            z[c] = -z[c]
        z[c] = z[c] + np.float32(c % 5)
    return z.ravel()


# flag-free kernels (auto_sync=True only)
AUTO_CASES = [
    *[Case(f"while_tque-n{n}", while_tque, 1, lambda n=n: (_vec(8 * TILE), np.zeros(8 * TILE, np.float32), n),
           lambda a: a[1], _while_tque_want) for n in (0, 1, 7)],
    *[Case(f"rows_of_branches-{r}-{m}", rows_of_branches, 1,
           lambda r=r, m=m: (_vec(6 * TILE), np.zeros(6 * TILE, np.float32), r, m), lambda a: a[1], _rows_want)
      for r, m in ((0, 2), (5, 0), (6, 3))],
    *[Case(f"steered-{c}cores", steered, c, lambda c=c: (_vec(c * TILE, c), np.zeros(c * TILE, np.float32)),
           lambda a: a[1], _steered_want) for c in (1, 9, 70)],
]


MODES = {"flags": (False, 1), "auto": (True, 0)}    # mode -> (auto_sync, the kernel's `flags`)


def _launch(case: Case, backend: str, mode: str, args: tuple) -> None:
    auto_sync, flags = MODES[mode]
    asc.jit(case.kernel, backend=backend, auto_sync=auto_sync)[case.cores](*args, flags)


@pytest.fixture(scope="module")
def prebuilt():
    """The cpu_debug executables of every case in both modes, built with one compiler run."""
    if HAVE_HEADERS:
        from asc_trace.runtime.cpu_debug import prebuild
        prebuild([asc.compile(asc.jit(c.kernel, auto_sync=a), (*c.make(), f), core_num=c.cores).graph
                  for c in CASES for a, f in MODES.values()] +
                 [asc.compile(c.kernel, c.make(), core_num=c.cores).graph for c in AUTO_CASES])


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_kernel_matches_numpy(case, backend, mode, request):
    """With the kernel's own flags (auto_sync=False) and without any (auto_sync=True: the scheduler
    synchronises every path through the branches and loops)."""
    if backend == "cpu_debug":
        request.getfixturevalue("prebuilt")     # only cpu_debug runs use the batch build
    args = case.make()
    _launch(case, backend, mode, args)
    np.testing.assert_array_equal(case.out(args), case.want(case.make()), err_msg=f"{case.id} on {backend}, {mode}")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", AUTO_CASES, ids=[c.id for c in AUTO_CASES])
def test_flag_free_kernel_matches_numpy(case, backend, request):
    if backend == "cpu_debug":
        request.getfixturevalue("prebuilt")
    args = case.make()
    asc.jit(case.kernel, backend=backend)[case.cores](*args)
    np.testing.assert_array_equal(case.out(args), case.want(case.make()), err_msg=f"{case.id} on {backend}")


def test_the_backends_agree_to_the_byte():
    for case in CASES[:6]:
        got = set()
        for backend in ("sim", "eager", "cpp"):
            for mode in MODES:
                args = case.make()
                _launch(case, backend, mode, args)
                got.add(case.out(args).tobytes())
        assert len(got) == 1, case.id


# -- only the path taken is checked ---------------------------------------------------------------

def _load(x: Any) -> Any:
    xg = asc.GlobalTensor()
    xg.set_global_buffer(x)
    t = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, TILE)
    asc.data_copy(t, xg, TILE)
    _sync(EV.MTE2_V)
    return t


@asc.jit(auto_sync=False)
def racy_branch(x: asc.GlobalAddress, z: asc.GlobalAddress, take: int):
    t = _load(x)
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z)

    def racy():
        asc.muls(t, t, 2.0, TILE)
        asc.data_copy(zg, t, TILE)  # MARK-cf-race-read

    def synced():
        asc.muls(t, t, 2.0, TILE)
        _sync(EV.V_MTE3)
        asc.data_copy(zg, t, TILE)
    asc.cond(take > 0, racy, synced)


@asc.jit(auto_sync=False)
def flag_left_set(x: asc.GlobalAddress, take: int):
    _load(x)
    asc.cond(take > 0, lambda: asc.set_flag(EV.V_MTE3, 1), lambda: None)  # MARK-cf-left-set


@asc.jit(auto_sync=False)
def bad_copy_branch(x: asc.GlobalAddress, z: asc.GlobalAddress, take: int):
    t = _load(x)
    zg = asc.GlobalTensor()
    zg.set_global_buffer(z, TILE)
    _sync(EV.V_MTE3)
    asc.cond(take > 0, lambda: asc.data_copy(zg[TILE:], t, TILE),  # MARK-cf-oob
             lambda: asc.data_copy(zg, t, TILE))


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_a_race_on_the_path_not_taken_is_not_reported(backend):
    x = _vec(TILE)
    z = np.zeros(TILE, np.float32)
    asc.jit(racy_branch, backend=backend)[1](x, z, 0)
    np.testing.assert_array_equal(z, x * np.float32(2))


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_a_race_on_the_path_taken_is_reported(backend):
    z = np.zeros(TILE, np.float32)
    with pytest.raises(asc.RaceError) as ei:
        asc.jit(racy_branch, backend=backend)[1](_vec(TILE), z, 1)
    assert_points_at(ei.value, "MARK-cf-race-read")       # the copy out, unordered with what wrote t
    assert np.all(z == 0)


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_a_flag_left_set_on_one_path(backend):
    asc.jit(flag_left_set, backend=backend)[1](_vec(TILE), 0)
    with pytest.raises(asc.SyncError) as ei:
        asc.jit(flag_left_set, backend=backend)[1](_vec(TILE), 1)
    assert f":{line_of('MARK-cf-left-set')}" in str(ei.value)


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_bounds_are_checked_on_the_path_taken_only(backend):
    x, z = _vec(2 * TILE), np.zeros(2 * TILE, np.float32)
    asc.jit(bad_copy_branch, backend=backend)[1](x, z, 0)
    np.testing.assert_array_equal(z[:TILE], x[:TILE])
    with pytest.raises(asc.OutOfBoundsError) as ei:
        asc.jit(bad_copy_branch, backend=backend)[1](x, np.zeros(2 * TILE, np.float32), 1)
    assert_points_at(ei.value, "MARK-cf-oob")


@asc.jit(auto_sync=False)
def divides(out: asc.GlobalAddress, n: int, d: int):
    k = asc.while_loop(lambda k: k < n // d, lambda k: k + 1, 0)  # MARK-cf-div
    _store_int(out, k)


@pytest.mark.parametrize("backend", ALL_BACKENDS)
def test_a_fault_in_the_condition_is_a_scalar_error(backend):
    out = np.zeros(8, np.int32)
    asc.jit(divides, backend=backend)[1](out, 7, 2)
    assert out[0] == 3
    with pytest.raises(asc.ScalarError, match="division by zero"):
        asc.jit(divides, backend=backend)[1](out, 7, 0)


@asc.jit(auto_sync=False)
def talks(x: asc.GlobalAddress, n: int):
    asc.cond(asc.get_block_idx() < n, lambda: asc.printf("core %d: then\n", asc.get_block_idx()),
             lambda: asc.printf("core %d: else\n", asc.get_block_idx()))
    k = asc.while_loop(lambda k: k < asc.get_block_idx(), lambda k: k + 1, 0)
    asc.printf("core %d: %d iterations\n", asc.get_block_idx(), k)


def test_only_the_taken_branch_prints(capfd):
    outs = {}
    for backend in ALL_BACKENDS:
        asc.jit(talks, backend=backend)[3](np.zeros(8, np.float32), 1)
        outs[backend] = capfd.readouterr().out
    assert len(set(outs.values())) == 1, outs
    text = outs["sim"]
    assert "core 0: then" in text and "core 1: else" in text and "core 2: else" in text
    assert "core 0: then" in text and "core 1: then" not in text
    assert "core 2: 2 iterations" in text


# -- what the scheduler and the simulator are told ------------------------------------------------

def test_cores_run_one_by_one_when_a_local_depends_on_the_block_index():
    from asc_trace.runtime.interpreter import per_core_reason

    @asc.jit(auto_sync=False)
    def k(x: asc.GlobalAddress, n: int):
        t = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, 2 * TILE)
        off = asc.cond(n > 0, lambda: asc.get_block_idx() % 2 * TILE, lambda: 0)   # uniform predicate
        asc.duplicate(t[off:], 1.0, TILE)
    g = asc.compile(k, (np.zeros(8, np.float32), 1)).graph
    assert per_core_reason(g).op == "duplicate"
    g = asc.compile(isqrt, (np.zeros(8, np.int32), 1)).graph
    assert per_core_reason(g).op == "while"        # the trip count differs between cores
    g = asc.compile(triangle, (np.zeros(8, np.float32), np.zeros(8, np.float32), 1)).graph
    assert per_core_reason(g) is None              # everything is the same on every core


def test_timing_only_profiles_refuse_a_loop_steered_by_data():
    import halving
    x = np.ones((2, 256), np.float32)
    with pytest.raises(asc.LaunchError, match="depends on tensor data"):
        asc.profile(halving.halving_kernel, x, x, np.zeros(16, np.int32), 256, 1.0, core_num=2, timing_only=True)
    prof = asc.profile(halving.halving_kernel, x * 4, x, np.zeros(16, np.int32), 256, 1.0, core_num=2)
    assert prof.cycles > 0


def test_the_dump_shows_the_regions():
    g = asc.compile(collatz, (np.zeros(8, np.int32), 5), core_num=1).graph
    text = g.dump(locs=False)
    assert "= while l0 != 1 carrying l0: int = n + block_idx, l1: int = 0:" in text
    assert "  = if l0 % 2 == 0 -> l2: int:" in text.replace("%", "", 1) or "= if l0 % 2 == 0 -> l2: int:" in text
    assert "= yield l2 = l0 // 2" in text and "= yield l2 = 3 * l0 + 1" in text
    assert "= yield l0 = l2, l1 = l1 + 1" in text
    lines = text.splitlines()
    depth = {ln.split("=")[1].split()[0]: len(ln) - len(ln.lstrip()) for ln in lines if " = " in ln}
    assert depth["while"] < depth["if"] and depth["end_if"] == depth["if"] and depth["end_while"] == depth["while"]


def test_the_c_code_has_if_else_and_while():
    src = asc.compile(collatz, (np.zeros(8, np.int32), 5), core_num=1).source
    assert "int64_t asct_l0 = n + asct_block_idx;" in src
    assert "while (asct_l0 != 1) {" in src
    assert "int64_t asct_l2 = 0;" in src and "} else {" in src
    assert "asct_l0 = asct_l2;" in src and "asct_l1 = asct_l1 + 1;" in src


def test_carried_values_swap_through_temporaries():
    @asc.jit(auto_sync=False)
    def fib(out: asc.GlobalAddress, n: int):
        _, b, _ = asc.while_loop(lambda a, b, i: i < n, lambda a, b, i: (b, a + b, i + 1), (0, 1, 0))
        _store_int(out, b)
    src = asc.compile(fib, (np.zeros(8, np.int32), 5)).source
    assert "asct_next0" in src
    for backend in ALL_BACKENDS:
        out = np.zeros(8, np.int32)
        asc.jit(fib, backend=backend)[1](out, 10)
        assert out[0] == 89, backend


def test_a_constant_predicate_traces_one_branch():
    @asc.jit(auto_sync=False)
    def k(x: asc.GlobalAddress, n: int):
        t = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, TILE)
        asc.cond(True, lambda: asc.duplicate(t, 1.0, TILE), lambda: 1 / 0)
        v = asc.cond(0, lambda: n, lambda: 7)
        asc.duplicate(t, v * 1.0, TILE)
    g = asc.compile(k, (np.zeros(8, np.float32), 1)).graph
    assert not any(n.op in ("if", "else", "yield") for n in g)
    assert any(n.op == "duplicate" and str(n.args[1]) == "7.0" for n in g)


def test_verify_rejects_broken_regions():
    from asc_trace.graph.node import Node
    from asc_trace.graph.verify import GraphError, verify
    g = asc.compile(isqrt, (np.zeros(8, np.int32), 1)).traced
    verify(g)
    y = next(n for n in g if n.op == "yield")
    bad = g.copy()
    bad.replace(Node(y.id, "yield", (), y.loc, y.regions))
    with pytest.raises(GraphError, match="yields 0 values for 1"):
        verify(bad)
    bad = g.copy()
    bad.set_order([i for i in g.order if i != y.id])
    with pytest.raises(GraphError, match="does not end with a yield"):
        verify(bad)
    bad = g.copy()
    end = next(n for n in g if n.op == "end_while")
    bad.set_order([i for i in g.order if i != end.id])
    with pytest.raises(GraphError, match="follows the yield"):
        verify(bad)
    bad.set_order([i for i in g.order if i != end.id and g.order.index(i) < g.order.index(end.id)])
    with pytest.raises(GraphError, match="never closed"):
        verify(bad)


# -- errors while tracing ----------------------------------------------------------------------------

def _trace(kernel: Any, *args: Any) -> None:
    asc.compile(kernel, args or (np.zeros(8, np.float32), 3))


def test_branches_returning_different_structures():
    def two(n):  # MARK-cf-two
        return n, n

    def one(n):  # MARK-cf-one
        return n

    @asc.jit(auto_sync=False)
    def k(x: asc.GlobalAddress, n: int):
        asc.cond(n > 0, two, one, n)  # MARK-cf-mismatch
    with pytest.raises(asc.TraceError, match="true_fn returns a tuple of 2 \\(int, int\\), false_fn returns one int") as ei:
        _trace(k)
    assert_points_at(ei.value, "MARK-cf-mismatch")
    text = str(ei.value)
    assert f":{line_of('MARK-cf-two')}" in text and f":{line_of('MARK-cf-one')}" in text


def test_branches_returning_different_kinds():
    @asc.jit(auto_sync=False)
    def k(x: asc.GlobalAddress, n: int):
        asc.cond(n > 0, lambda: n, lambda: 1.5)  # MARK-cf-kinds
    with pytest.raises(asc.TraceError, match="true_fn returns one int, false_fn returns one float") as ei:
        _trace(k)
    assert_points_at(ei.value, "MARK-cf-kinds")
    assert "0.0" in str(ei.value)       # the hint: write float constants as floats


def test_a_branch_returning_a_tensor():
    @asc.jit(auto_sync=False)
    def k(x: asc.GlobalAddress, n: int):
        t = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, TILE)
        asc.cond(n > 0, lambda: t, lambda: t)  # MARK-cf-tensor
    with pytest.raises(asc.TraceError, match="only scalars .* cross the boundary") as ei:
        _trace(k)
    assert_points_at(ei.value, "MARK-cf-tensor")


def test_python_if_on_a_runtime_value_is_a_runtime_branch():
    """Since issue 21 (tests/test_runtime_if.py): the `if` is an `if` region, `count` merged after it."""
    @asc.jit(auto_sync=False)
    def k(x: asc.GlobalAddress, n: int):
        t = asc.get_block_idx()
        if t < n:
            count = 8
        else:
            count = n
        asc.printf("%d", count)
    ops = [n.op for n in asc.compile(k, (np.zeros(8, np.float32), 3)).graph]
    assert ops.count("if") == 1 and ops.count("else") == 1


def test_python_if_it_cannot_trace_shows_the_cond_form():
    """A side that returns keeps Python's `if`: the refusal's hint is the asc.cond form and says why."""
    @asc.jit(auto_sync=False)
    def k(x: asc.GlobalAddress, n: int):
        t = asc.get_block_idx()
        if t < n:  # MARK-cf-py-if
            count = 8
            return
        else:
            count = n
        asc.printf("%d", count)
    with pytest.raises(asc.TraceError) as ei:
        _trace(k)
    assert_points_at(ei.value, "MARK-cf-py-if")
    assert "count = asc.cond(t < n, lambda: ..., lambda: ...)" in str(ei.value)
    assert "`return`" in str(ei.value)


def test_python_while_and_boolean_operators_show_the_while_loop_form():
    @asc.jit(auto_sync=False)
    def k(x: asc.GlobalAddress, n: int):
        i = asc.get_block_idx()
        while i < n and not i == 5:  # MARK-cf-py-while
            i = i + 2
    with pytest.raises(asc.TraceError) as ei:
        _trace(k)
    assert_points_at(ei.value, "MARK-cf-py-while")
    assert "i = asc.while_loop(lambda i: (i < n) & ((i == 5) == 0), body, i)" in str(ei.value)
    assert "def body(i): ...; return i" in str(ei.value)


@pytest.mark.parametrize("bad,what", [("tuple", "tuple"), ("tensor", "LocalTensor"), ("none", "NoneType")])
def test_cond_fn_must_return_one_scalar(bad, what):
    @asc.jit(auto_sync=False)
    def k(x: asc.GlobalAddress, n: int):
        t = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, TILE)
        c = {"tuple": lambda i: (i < n, i), "tensor": lambda i: t, "none": lambda i: None}[bad]  # MARK-cf-cond-fn
        asc.while_loop(c, lambda i: i + 1, 0)
    with pytest.raises(asc.TraceError, match=f"must return one scalar predicate, got {what}") as ei:
        _trace(k)
    assert_points_at(ei.value, "MARK-cf-cond-fn")


def test_cond_fn_cannot_call_the_api():
    @asc.jit(auto_sync=False)
    def k(x: asc.GlobalAddress, n: int):
        t = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, TILE)
        asc.while_loop(lambda i: t.get_value(i) > 0, lambda i: i + 1, 0)  # MARK-cf-cond-api
    with pytest.raises(asc.TraceError, match="cond_fn of asc.while_loop calls a kernel API function \\(get_value\\)"):
        _trace(k)


def test_body_fn_must_return_the_carried_structure():
    @asc.jit(auto_sync=False)
    def k(x: asc.GlobalAddress, n: int):
        asc.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s * 0.5), (0, 1))  # MARK-cf-body
    with pytest.raises(asc.TraceError, match=r"returns a tuple of 2 \(int, float\), but the loop carries a tuple "
                                             r"of 2 \(int, int\)") as ei:
        _trace(k)
    assert_points_at(ei.value, "MARK-cf-body")


def test_a_condition_that_always_holds():
    @asc.jit(auto_sync=False)
    def k(x: asc.GlobalAddress, n: int):
        asc.while_loop(lambda i: True, lambda i: i + 1, n)  # MARK-cf-forever
    with pytest.raises(asc.TraceError, match="never ends"):
        _trace(k)


def test_a_condition_that_never_holds_runs_no_iteration():
    @asc.jit(auto_sync=False)
    def k(x: asc.GlobalAddress, n: int):
        i = asc.while_loop(lambda i: False, lambda i: i + 1, n)
        t = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, TILE)
        asc.duplicate(t, i * 1.0, TILE)
    g = asc.compile(k, (np.zeros(8, np.float32), 3)).graph
    assert not any(n.op == "while" for n in g)


def test_a_value_from_inside_a_branch_used_after_it():
    @asc.jit(auto_sync=False)
    def k(x: asc.GlobalAddress, n: int):
        made = []

        def then():
            made.append(asc.LocalTensor(F32, asc.TPosition.VECIN, 0, TILE).get_value(0))
        asc.cond(n > 0, then, lambda: None)  # MARK-cf-leak
        t = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, TILE)
        asc.duplicate(t, made[0], TILE)
    with pytest.raises(asc.TraceError, match="changes `made` of the enclosing function") as ei:
        _trace(k)
    assert_points_at(ei.value, "MARK-cf-leak")


def test_a_cond_output_used_after_its_loop():
    @asc.jit(auto_sync=False)
    def k(x: asc.GlobalAddress, n: int):
        for i in range(n):
            v = asc.cond(i > 0, lambda: 1, lambda: 2)
        t = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, TILE)
        asc.duplicate(t, v * 1.0, TILE)  # MARK-cf-after-loop
    with pytest.raises(asc.TraceError, match="after that loop has ended") as ei:
        _trace(k)
    assert_points_at(ei.value, "MARK-cf-after-loop")


def test_outside_a_kernel():
    with pytest.raises(asc.TraceError, match="only be used inside an @asc.jit kernel"):
        asc.cond(True, lambda: 1, lambda: 2)
    with pytest.raises(asc.TraceError, match="only be used inside an @asc.jit kernel"):
        asc.while_loop(lambda i: i < 3, lambda i: i + 1, 0)


def test_eager_traces_first_so_it_reports_the_same_errors():
    @asc.jit(auto_sync=False, backend="eager")
    def k(x: asc.GlobalAddress, n: int):
        asc.cond(n > 100, lambda: 1, lambda: 2.0)   # eager would only ever call the false branch
    with pytest.raises(asc.TraceError, match="different things"):
        k[1](np.zeros(8, np.float32), 3)
