"""Which globals a kernel's fingerprint holds: the names its code loads as globals (LOAD_GLOBAL / LOAD_NAME,
in nested functions, classes and comprehensions too), never names used only as attributes. A module global
`add` that cannot be compared must not make a kernel calling `asc.add` trace again at every launch (it once
did, silently: tests/test_sim_shortcuts.py's warm-replay tests were vacuous because of it)."""
from __future__ import annotations

import numpy as np
import pytest

import asc_trace as asc
import asc_trace.jit_function as jit_mod
from asc_trace.fingerprint import fingerprint, launch_fingerprint, loaded_globals
from asc_trace.runtime import get_runtime
from helpers import rand

F32 = asc.float32
VECIN = asc.TPosition.VECIN


def _closing_over(ufunc):
    """A function whose closure holds a ufunc: the fingerprint cannot compare it (Unstable)."""
    def f(a, b):
        return ufunc(a, b)
    return f


# Module globals named like asc attributes, bound to values that never compare equal in a fingerprint.
add = _closing_over(np.add)
exp = _closing_over(np.exp)
SCALE = 2.0


@asc.jit
def add_exp(x: asc.GlobalAddress, y: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    """Calls asc.add and asc.exp (attributes), never the module's `add` / `exp`."""
    xg, yg, zg = asc.GlobalTensor(), asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x)
    yg.set_global_buffer(y)
    zg.set_global_buffer(z)
    a = asc.LocalTensor(F32, VECIN, 0, 64)
    b = asc.LocalTensor(F32, VECIN, 256, 64)
    for i in range(n):
        asc.data_copy(a, xg[i * 64:], 64)
        asc.data_copy(b, yg[i * 64:], 64)
        asc.add(a, a, b, 64)
        asc.muls(a, a, SCALE, 64)          # a real global read: it must stay in the key
        asc.data_copy(zg[i * 64:], a, 64)


def _count_traces(monkeypatch) -> list:
    traced: list = []
    real = jit_mod.trace
    monkeypatch.setattr(jit_mod, "trace", lambda *a, **kw: traced.append(1) or real(*a, **kw))
    return traced


def _args(n=3, seed=0):
    x, y = rand(64 * n, np.float32, seed), rand(64 * n, np.float32, seed + 1)
    return x, y, np.zeros_like(x), n


def test_attribute_names_are_not_globals():
    names = loaded_globals(add_exp.fn.__code__)
    assert "SCALE" in names and "asc" in names and "range" in names
    assert "add" not in names and "exp" not in names and "muls" not in names
    labels = [part[0] for part in fingerprint(add_exp.fn)[1:]]
    assert "add" not in labels and "SCALE" in labels


@pytest.mark.parametrize("backend", ["sim", "eager", "cpp"])
def test_a_global_named_like_an_asc_op_does_not_retrace(monkeypatch, backend):
    traced = _count_traces(monkeypatch)
    k = asc.jit(add_exp, backend=backend)
    for seed in range(3):
        x, y, z, n = _args(seed=seed)
        k[1](x, y, z, n)
        np.testing.assert_array_equal(z, (x + y) * np.float32(2.0))
    assert len(traced) == 1


def test_the_warm_launch_replays_on_sim(monkeypatch):
    traced = _count_traces(monkeypatch)
    k = asc.jit(add_exp, backend="sim")
    x, y, z, n = _args()
    for _ in range(3):
        k[1](x, y, z, n)
    ck = k.compiled(k._bind((x, y, z, n), {}, None).signature)
    assert len(traced) == 1
    assert any(r is not None for r in ck.artifact(get_runtime("sim")).replays.values())
    assert add_exp.fn in __import__("asc_trace.fingerprint", fromlist=["_SNAPSHOTS"])._SNAPSHOTS


@pytest.mark.parametrize("backend", ["sim", "eager", "cpp"])
def test_a_global_the_kernel_reads_still_retraces(monkeypatch, backend):
    global SCALE
    traced = _count_traces(monkeypatch)
    k = asc.jit(add_exp, backend=backend)
    x, y, z, n = _args()
    try:
        for v in (2.0, 3.0, -0.0):
            SCALE = v
            k[1](x, y, z, n)
            assert z.tobytes() == ((x + y) * np.float32(v)).tobytes()
    finally:
        SCALE = 2.0
    assert len(traced) == 3


HELPER_SCALE = 4.0
TABLE = {"scale": 5.0}


def _helper_scale() -> float:
    return HELPER_SCALE


@asc.jit
def nested_reads(x: asc.GlobalAddress, z: asc.GlobalAddress):
    """Globals read only inside a nested function, a class body and a comprehension."""
    def inner() -> float:
        return _helper_scale()

    class Local:
        s = TABLE["scale"]

    total = sum([v for v in (HELPER_SCALE,)])
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    t = asc.LocalTensor(F32, VECIN, 0, 64)
    asc.data_copy(t, xg, 64)
    asc.muls(t, t, inner() + Local.s + total, 64)
    asc.data_copy(zg, t, 64)


def test_globals_read_in_nested_code_stay_in_the_key():
    global HELPER_SCALE
    names = loaded_globals(nested_reads.fn.__code__)
    assert {"_helper_scale", "TABLE", "HELPER_SCALE"} <= set(names)
    x = rand(64, np.float32, 5)
    try:
        for hs, ts in ((4.0, 5.0), (1.0, 5.0), (1.0, -3.0)):
            HELPER_SCALE, TABLE["scale"] = hs, ts
            z = np.zeros(64, np.float32)
            nested_reads[1](x, z)
            assert z.tobytes() == (x * np.float32(2 * hs + ts)).tobytes()
    finally:
        HELPER_SCALE, TABLE["scale"] = 4.0, 5.0


def test_launch_fingerprint_snapshot_ignores_attribute_only_names():
    # the snapshot (a launch's cheap check) holds the loaded globals only: `add` here is unstable, yet the
    # second call is the snapshot's answer
    first = launch_fingerprint(add_exp.fn)
    assert launch_fingerprint(add_exp.fn) is first
