"""Outside state the snapshots reach beyond attributes (proxies/python_containers.py): random generators,
whose state lives in C (random.Random, the `random` module's own, NumPy's Generator / RandomState), and
the results an unbounded functools.lru_cache / functools.cache helper keeps. A kernel that draws from an
outside generator or changes a cached result at every run is refused with the same TraceError on every
backend (two traces, two changes: proxies/kernel_state.py); one seeded inside the kernel, or a cached table
only read, stays legal and equals NumPy. A bounded lru_cache keeps its results in C links Python cannot
read: still unseen (strict xfail)."""
from __future__ import annotations

import functools
import random

import numpy as np
import pytest

import asc_trace as asc
from asc_trace.errors import TraceError

BACKENDS = ["sim", "eager", "cpp"]
F32 = asc.float32
TILE = 64

_NP_RNG = np.random.default_rng(0)
_LEGACY = np.random.RandomState(0)


def _scaled(x, z, factor: float) -> None:
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x, TILE)
    zg.set_global_buffer(z, TILE)
    t = asc.LocalTensor(F32, asc.TPosition.VECCALC, 0, TILE)
    asc.data_copy(t, xg, TILE)
    asc.muls(t, t, factor, TILE)
    asc.data_copy(zg, t, TILE)


def _launch(kern, backend):
    x = np.random.default_rng(2).standard_normal(TILE).astype(np.float32)
    z = np.zeros_like(x)
    asc.jit(kern, backend=backend)[1](x, z)
    return x, z


def _draws_module_random(x: asc.GlobalAddress, z: asc.GlobalAddress):
    _scaled(x, z, float(random.randint(1, 9)))


def _draws_numpy_generator(x: asc.GlobalAddress, z: asc.GlobalAddress):
    _scaled(x, z, float(_NP_RNG.integers(1, 9)))


def _draws_legacy_random_state(x: asc.GlobalAddress, z: asc.GlobalAddress):
    _scaled(x, z, float(_LEGACY.randint(1, 9)))


@functools.cache
def _table() -> list:
    return [2.0, 3.0]


def _grows_a_cached_table(x: asc.GlobalAddress, z: asc.GlobalAddress):
    tb = _table()
    tb.append(1.0)
    _scaled(x, z, float(len(tb)))


REFUSED = {
    "random_module": (_draws_module_random, r"changes `random` in place \(a random generator's state"),
    "numpy_generator": (_draws_numpy_generator, r"changes `_NP_RNG` in place \(a random generator's state"),
    "legacy_random_state": (_draws_legacy_random_state, r"changes `_LEGACY` in place \(a random generator's state"),
    "functools_cache": (_grows_a_cached_table, r"changes `_table\(\.\.\.\)` in place \(its length"),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", sorted(REFUSED))
def test_changing_an_outside_generator_or_cached_result_is_refused(case, backend):
    k, words = REFUSED[case]
    with pytest.raises(TraceError, match=words):
        _launch(k, backend)


def _seeds_its_own(x: asc.GlobalAddress, z: asc.GlobalAddress):
    # its own generator, made at every run: every backend draws the same number
    _scaled(x, z, float(random.Random(7).randint(1, 9)))


@functools.lru_cache(None)
def _gains(key: str) -> tuple:
    return (0.5, 4.0) if key == "a" else (1.0, 1.0)


def _reads_a_cached_table(x: asc.GlobalAddress, z: asc.GlobalAddress):
    # the first trace fills the cache (a change the next run does not repeat), every later one reads it
    _scaled(x, z, _gains("a")[1] * float(len(_table.__wrapped__())))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("k, factor", [(_seeds_its_own, float(random.Random(7).randint(1, 9))),
                                       (_reads_a_cached_table, 8.0)])
def test_an_own_generator_or_a_cached_table_only_read_is_legal(k, factor, backend):
    _gains.cache_clear()
    x, z = _launch(k, backend)
    assert z.tobytes() == (x * np.float32(factor)).tobytes()


@functools.lru_cache(maxsize=8)
def _bounded() -> list:
    return [1.0]


def _grows_a_bounded_cache_result(x: asc.GlobalAddress, z: asc.GlobalAddress):
    tb = _bounded()
    tb.append(1.0)
    _scaled(x, z, float(len(tb)))


@pytest.mark.xfail(strict=True, reason="a bounded lru_cache keeps its results in C links (_lru_list_elem) that "
                                       "Python cannot read: the snapshots do not see them")
def test_changing_a_bounded_lru_cache_result_is_refused():
    with pytest.raises(TraceError):
        _launch(_grows_a_bounded_cache_result, "sim")
