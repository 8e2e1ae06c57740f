"""Outsider probes (x35) of this session's merges: Python `if` on runtime values (v21) and the
outside-container rule (s18), with kernels written as a pyasc / Triton user would. Each test states
the behaviour it requires on every backend; known gaps are strict xfails."""
from __future__ import annotations

import numpy as np
import pytest

import asc_trace as asc
from asc_trace.errors import TraceError
from asc_trace.toolchain.real_api import headers_if_configured

BACKENDS = ["sim", "eager", "cpp"]
WITH_CPU_DEBUG = BACKENDS + [pytest.param("cpu_debug", marks=pytest.mark.skipif(
    headers_if_configured() is None, reason="no Ascend C headers configured (ASC_TRACE_ASCENDC_HOME)"))]
TILE = 64
F32 = asc.float32


def _vec(n: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(n).astype(np.float32)


@asc.jit
def loops_in_sides(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int, tiles: int):
    """Each side of a runtime `if` holds its own runtime `for` loop (both bind `i`)."""
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x, 4 * TILE)
    zg.set_global_buffer(z, 4 * TILE)
    t = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, TILE)
    if n > 0:
        for i in range(tiles):
            asc.data_copy(t, xg[i * TILE:], TILE)
            asc.muls(t, t, 2.0, TILE)
            asc.data_copy(zg[i * TILE:], t, TILE)
    else:
        for i in range(tiles):
            asc.data_copy(t, xg[i * TILE:], TILE)
            asc.adds(t, t, 1.0, TILE)
            asc.data_copy(zg[i * TILE:], t, TILE)


@pytest.mark.parametrize("backend", WITH_CPU_DEBUG)
@pytest.mark.parametrize("n", [0, 5])
def test_a_runtime_loop_inside_a_side_of_a_runtime_if(backend, n):
    """Was: TraceError 'the loop index i0 is used outside its loop' at the `if` on every backend
    (the side's loop index was merged as a scalar after the `if`)."""
    x = _vec(4 * TILE)
    z = np.zeros_like(x)
    asc.jit(loops_in_sides, backend=backend)[1](x, z, n, 3)
    want = np.zeros_like(x)
    want[:3 * TILE] = x[:3 * TILE] * np.float32(2.0) if n > 0 else x[:3 * TILE] + np.float32(1.0)
    np.testing.assert_array_equal(z, want)


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_inner_loop_index_used_after_the_if_is_refused_at_its_use(backend):
    @asc.jit
    def k(z: asc.GlobalAddress, n: int):
        zg = asc.GlobalTensor()
        zg.set_global_buffer(z, TILE)
        t = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, TILE)
        asc.duplicate(t, 0.0, TILE)
        if n > 0:
            for i in range(n):
                asc.adds(t, t, 1.0, TILE)
        asc.adds(t, t, float(i), TILE)  # noqa: F821 - the use refused
        asc.data_copy(zg, t, TILE)

    with pytest.raises(TraceError, match="`i` has no value after the runtime `if`"):
        asc.jit(k, backend=backend)[1](np.zeros(TILE, np.float32), 3)


class _Scaler:
    """A kernel written as a method (a user's class holding its configuration)."""

    scale = 2.0

    def kern(self, x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
        xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x, TILE)
        zg.set_global_buffer(z, TILE)
        t = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, TILE)
        asc.data_copy(t, xg, TILE)
        if n > 1:
            asc.muls(t, t, self.scale, TILE)
        asc.data_copy(zg, t, TILE)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("n", [0, 2])
def test_a_runtime_if_in_a_kernel_that_is_a_bound_method(backend, n):
    """Was: the `if` of a bound method was not rewritten (TraceError 'Python needs a True/False')."""
    x = _vec(TILE, 1)
    z = np.zeros_like(x)
    asc.jit(_Scaler().kern, backend=backend)[1](x, z, n)
    np.testing.assert_array_equal(z, x * np.float32(2.0) if n > 1 else x)


# -- the outside-container rule (s18): state the kernel's Python changes at every run -------------------

import functools  # noqa: E402
import random  # noqa: E402
import types  # noqa: E402

_USER_MOD = types.ModuleType("x35_user_config")     # a user's own config module (`import cfg`)
_USER_MOD.scale = 1.0
_USER_MOD.table = None


def _scaled(x, z, s):
    blk = asc.get_block_idx()
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x + blk * TILE, TILE)
    zg.set_global_buffer(z + blk * TILE, TILE)
    t = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, TILE)
    asc.data_copy(t, xg, TILE)
    asc.muls(t, t, s, TILE)
    asc.data_copy(zg, t, TILE)


def _launch(kern, backend):
    x = _vec(2 * TILE, 2)
    z = np.zeros_like(x)
    asc.jit(kern, backend=backend)[2](x, z, 3)
    return x, z


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_user_module_attribute_rebound_at_every_run_is_refused(backend):
    """Was: `cfg.scale = cfg.scale + 1.0` in the kernel passed unnoticed (modules were never watched):
    eager (once per core) and sim / cpp (once per trace) scaled by different factors."""
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
        _USER_MOD.scale = _USER_MOD.scale + 1.0
        _scaled(x, z, _USER_MOD.scale)

    with pytest.raises(TraceError, match=r"_USER_MOD.scale"):
        _launch(k, backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_user_module_attribute_read_or_set_once_is_free(backend):
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
        if _USER_MOD.table is None:             # a cache filled on the first trace only
            _USER_MOD.table = [2.0, 3.0]
        _scaled(x, z, _USER_MOD.table[0] * _USER_MOD.scale)

    _USER_MOD.table = None
    before = _USER_MOD.scale
    x, z = _launch(k, backend)
    np.testing.assert_array_equal(z, x * np.float32(2.0 * before))


_RNG = random.Random(0)


@pytest.mark.parametrize("backend", BACKENDS)
def test_drawing_from_an_outside_random_generator_is_refused(backend):
    # (a random.Random keeps its state in C: the snapshots compare its getstate())
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
        _scaled(x, z, float(_RNG.randint(1, 9)))

    with pytest.raises(TraceError, match=r"changes `_RNG` in place \(a random generator's state"):
        _launch(k, backend)


@functools.lru_cache(None)
def _cached_list():
    return [1.0]


@pytest.mark.parametrize("backend", BACKENDS)
def test_mutating_a_list_an_lru_cached_helper_returned_is_refused(backend):
    # (an unbounded lru_cache's results are compared, found through the wrapper's cache dict)
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
        tb = _cached_list()
        tb.append(1.0)
        _scaled(x, z, float(len(tb)))

    with pytest.raises(TraceError, match=r"changes `_cached_list\(\.\.\.\)` in place \(its length"):
        _launch(k, backend)


@asc.jit
def _clamp_index(v, hi):
    if v > hi:
        v = hi
    return v


@asc.jit
def outer_index_in_sides(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    """Sides bind values made from the index of the runtime loop around the `if` (open, so usable
    after it), directly and through an @asc.jit helper with its own `if`."""
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x, 4 * TILE)
    zg.set_global_buffer(z, 4 * TILE)
    t = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, TILE)
    for i in range(4):
        src = i
        if i == 3:
            src = 0
        if n > 0:
            j = _clamp_index(src, n)
        else:
            j = 0
        asc.data_copy(t, xg[j * TILE:], TILE)
        asc.data_copy(zg[i * TILE:], t, TILE)


@pytest.mark.parametrize("backend", WITH_CPU_DEBUG)
@pytest.mark.parametrize("n", [0, 1, 3])
def test_the_open_loop_index_merges_after_an_if(backend, n):
    x = _vec(4 * TILE, 3)
    z = np.zeros_like(x)
    asc.jit(outer_index_in_sides, backend=backend)[1](x, z, n)
    want = np.zeros_like(x)
    for i in range(4):
        src = 0 if i == 3 else i
        j = min(src, n) if n > 0 else 0
        want[i * TILE:(i + 1) * TILE] = x[j * TILE:(j + 1) * TILE]
    np.testing.assert_array_equal(z, want)
