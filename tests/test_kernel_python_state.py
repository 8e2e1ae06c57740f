"""A kernel's Python runs once per compilation on sim and cpp but on every core of every launch on eager.
A kernel whose Python changes state that outlives it at every run (a helper doubling a module global, a list
or a nonlocal of the function that made it) would leave different state and compute different values per
backend: it is refused, the same TraceError on every backend, at the line that rebinds. A change the next run does not repeat (a cache a
helper fills on its first call) is allowed and gives the same bytes everywhere (proxies/kernel_state.py)."""
from __future__ import annotations

import types

import numpy as np
import pytest

import asc_trace as asc
from asc_trace.toolchain.real_api import headers_if_configured
from helpers import rand

F32 = asc.float32
VECIN = asc.TPosition.VECIN
BACKENDS = ["sim", "eager", "cpp", pytest.param("cpu_debug", marks=pytest.mark.skipif(
    headers_if_configured() is None, reason="no Ascend C headers configured: set ASC_TRACE_ASCENDC_HOME"))]

G = 1.5
LOG: list = []
COUNTER = types.SimpleNamespace(n=0)
_TABLE = None
MEMO: dict = {}


def _bump() -> float:
    global G
    G = G * 2           # the line a refusal points at
    return G


def _table() -> float:
    global _TABLE
    if _TABLE is None:          # lazy initialisation: the second run changes nothing
        _TABLE = 3.0
    return _TABLE


def _memo(k: int) -> float:
    return MEMO.setdefault(k, 0.5 * k)


def _scaled(get):
    @asc.jit
    def scaled(x: asc.GlobalAddress, z: asc.GlobalAddress):
        s = get()
        xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x)
        zg.set_global_buffer(z)
        t = asc.LocalTensor(F32, VECIN, 0, 64)
        asc.data_copy(t, xg, 64)
        asc.muls(t, t, float(s), 64)
        asc.data_copy(zg, t, 64)
    return scaled


def _run(k, backend):
    x, z = rand(64, np.float32, 1), np.zeros(64, np.float32)
    asc.jit(k, backend=backend)[1](x, z)
    return x, z


def _append() -> float:
    LOG.append(1)
    return 2.0


def _count() -> float:
    COUNTER.n += 1
    return 2.0


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_helper_doubling_a_global_is_refused_at_its_line(backend):
    global G
    G = 1.5
    with pytest.raises(asc.TraceError, match=r"rebinds `G` \(a global of module test_kernel_python_state\)") as e:
        _run(_scaled(_bump), backend)
    assert e.value.loc.file == __file__ and e.value.loc.line == _bump.__code__.co_firstlineno + 2
    assert "eager" in str(e.value)
    G = 1.5


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_counter_on_an_outside_object_is_refused_at_its_line(backend):
    COUNTER.n = 0
    with pytest.raises(asc.TraceError, match=r"changes `COUNTER.n` in place \(its value; `COUNTER` is a Python "
                                             r"object made outside the kernel, reached through `_count`\)") as e:
        _run(_scaled(_count), backend)
    assert e.value.loc.file == __file__ and e.value.loc.line == _count.__code__.co_firstlineno + 1
    assert "eager" in str(e.value)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_list_appended_to_by_a_helper_is_refused(backend):
    LOG.clear()
    with pytest.raises(asc.TraceError, match=r"changes `LOG` in place \(its length") as e:
        _run(_scaled(_append), backend)
    assert e.value.loc.line == _append.__code__.co_firstlineno + 1


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_nonlocal_rebound_by_the_kernel_is_refused(backend):
    def make():
        calls = 0

        @asc.jit
        def counted(x: asc.GlobalAddress, z: asc.GlobalAddress):
            nonlocal calls
            calls += 1
            xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
            xg.set_global_buffer(x)
            zg.set_global_buffer(z)
            t = asc.LocalTensor(F32, VECIN, 0, 64)
            asc.data_copy(t, xg, 64)
            asc.muls(t, t, float(calls), 64)
            asc.data_copy(zg, t, 64)
        return counted
    with pytest.raises(asc.TraceError, match=r"rebinds `calls` \(a variable of the function that made"):
        _run(make(), backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_cache_filled_on_the_first_call_is_allowed_and_agrees(backend):
    global _TABLE
    _TABLE = None
    MEMO.clear()
    k = _scaled(lambda: _table() + _memo(3))
    for _ in range(2):
        x, z = _run(k, backend)
        assert z.tobytes() == (x * np.float32(4.5)).tobytes()
    assert _TABLE == 3.0 and MEMO == {3: 1.5}


@pytest.mark.parametrize("backend", BACKENDS)
def test_state_local_to_the_kernel_is_free(backend):
    @asc.jit
    def local_state(x: asc.GlobalAddress, z: asc.GlobalAddress):
        acc = []
        for _ in asc.static_range(3):
            acc.append(1.0)
        box = types.SimpleNamespace(v=0.0)
        box.v += sum(acc)
        xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x)
        zg.set_global_buffer(z)
        t = asc.LocalTensor(F32, VECIN, 0, 64)
        asc.data_copy(t, xg, 64)
        asc.muls(t, t, box.v, 64)
        asc.data_copy(zg, t, 64)
    x, z = _run(local_state, backend)
    assert z.tobytes() == (x * np.float32(3.0)).tobytes()
