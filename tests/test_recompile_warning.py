"""A kernel whose launches keep tracing again for the same argument dtypes says so (recompile_watch.py): once,
at the RECOMPILE_LIMIT-th recompilation, an AscTraceWarning at the user's launch line naming what changed (a
global, a value the fingerprint cannot compare, an asc.ConstExpr). Launches that reuse their kernel, a few
configurations, new dtypes and always_compile=True stay quiet."""
from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest

import asc_trace as asc
from asc_trace import recompile_watch
from helpers import rand

F32 = asc.float32
VECIN = asc.TPosition.VECIN
LIMIT = recompile_watch.RECOMPILE_LIMIT
COEF = 1.0
RNG = np.random.default_rng(7)


def _scaled(get):
    @asc.jit
    def scaled(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
        xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x)
        zg.set_global_buffer(z)
        t = asc.LocalTensor(asc.float32, asc.TPosition.VECIN, 0, 64)
        for i in range(n):
            asc.data_copy(t, xg[i * 64:], 64)
            asc.muls(t, t, get(), 64)
            asc.data_copy(zg[i * 64:], t, 64)
    return scaled


def _coef() -> float:
    return COEF


def _peek() -> float:
    # reads the Generator's state without drawing (a draw in the kernel is refused: proxies/kernel_state.py)
    return float(RNG.bit_generator.state["state"]["state"] % 3 + 1)


@asc.jit
def tiled(x: asc.GlobalAddress, z: asc.GlobalAddress, tile: asc.ConstExpr[int]):
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    t = asc.LocalTensor(F32, VECIN, 0, 64 * 16)
    asc.data_copy(t, xg, tile * 8)
    asc.adds(t, t, 1.0, tile * 8)
    asc.data_copy(zg, t, tile * 8)


DTYPES = (np.float16, np.float32, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)


@asc.jit
def copied(x: asc.GlobalAddress, z: asc.GlobalAddress):
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    t = asc.LocalTensor(x.dtype, VECIN, 0, 64)
    asc.data_copy(t, xg, 64)
    asc.data_copy(zg, t, 64)


def _ours(caught) -> list:
    return [w for w in caught if issubclass(w.category, asc.AscTraceWarning) and "traced and scheduled again"
            in str(w.message)]


@pytest.mark.parametrize("backend", ["sim", "eager"])
def test_a_global_changed_at_every_launch_warns_once_at_the_launch_line(backend):
    global COEF
    k = asc.jit(_scaled(_coef), backend=backend)
    x = rand(128, np.float32, 1)
    line = None
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for i in range(LIMIT + 4):
                COEF = 1.0 + i
                z = np.zeros_like(x)
                line = inspect.currentframe().f_lineno + 1
                k[1](x, z, 2)
                np.testing.assert_array_equal(z, x * np.float32(1.0 + i))     # correct all along
                if i == LIMIT - 1:
                    assert not _ours(caught), "warned before the limit"
    finally:
        COEF = 1.0
    (w,) = _ours(caught)
    assert w.filename == __file__ and w.lineno == line
    msg = str(w.message)
    assert f"again {LIMIT} times" in msg and "global COEF (read through closure variable get) changed" in msg, msg


def test_a_value_that_cannot_be_compared_names_the_global():
    k = asc.jit(_scaled(_peek), backend="sim")
    x = rand(64, np.float32, 2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(LIMIT + 1):
            k[1](x, np.zeros_like(x), 1)
    (w,) = _ours(caught)
    assert "cannot be compared" in str(w.message) and "Generator" in str(w.message), str(w.message)


def test_a_constexpr_changed_at_every_launch_is_named(monkeypatch):
    monkeypatch.setattr(recompile_watch, "CONSTEXPR_LIMIT", 12)      # a sweep of 8 stays quiet, 12 warns
    k = asc.jit(tiled, backend="sim")
    x = rand(64 * 16, np.float32, 3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for tile in range(1, 14):
            z = np.zeros_like(x)
            k[1](x, z, tile)
            np.testing.assert_array_equal(z[:tile * 8], x[:tile * 8] + np.float32(1.0))
            if tile == 12:
                assert not _ours(caught), "a ConstExpr sweep warned at the limit of global changes"
    (w,) = _ours(caught)
    assert "again 12 times" in str(w.message)
    assert "asc.ConstExpr tile changed" in str(w.message), str(w.message)


def test_reused_kernels_few_configs_new_dtypes_and_always_compile_stay_quiet():
    assert len(DTYPES) > LIMIT
    k = asc.jit(tiled, backend="sim")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        x = rand(64 * 16, np.float32, 4)
        for _ in range(3):                                  # a sweep over a few values, launched again and again
            for tile in range(1, LIMIT):
                k[1](x, np.zeros_like(x), tile)
        kd = asc.jit(copied, backend="sim")
        for _ in range(2):          # more dtypes than the limit: each its own key, compiled once
            for dt in DTYPES:
                src = np.arange(64).astype(dt)
                dst = np.zeros_like(src)
                kd[1](src, dst)
                np.testing.assert_array_equal(dst, src)
        ka = asc.jit(_scaled(_coef), backend="sim", always_compile=True)
        for _ in range(LIMIT + 2):
            ka[1](rand(64, np.float32, 5), np.zeros(64, np.float32), 1)
    assert not _ours(caught)


def test_the_warning_is_an_error_under_a_filter():
    k = asc.jit(_scaled(_peek), backend="sim")
    x = rand(64, np.float32, 6)
    with warnings.catch_warnings():
        warnings.simplefilter("error", asc.AscTraceWarning)
        for _ in range(LIMIT):
            k[1](x, np.zeros_like(x), 1)
        with pytest.raises(asc.AscTraceWarning, match="traced and scheduled again"):
            k[1](x, np.zeros_like(x), 1)
