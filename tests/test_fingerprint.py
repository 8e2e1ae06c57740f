"""No stale kernels: a trace-time value read from outside the kernel's arguments, through any path
(a global, a closure cell, an attribute of an object or a class, a SimpleNamespace field, a module
attribute, a container element, a NumPy scalar or array), retraces the kernel when it changes, on
every backend; a value that cannot be fingerprinted retraces at every launch."""
from __future__ import annotations

import types

import numpy as np
import pytest

import asc_trace as asc
import asc_trace.jit_function as jit_mod
import stale_config
from asc_trace.fingerprint import Unstable, fingerprint

F32 = asc.float32


class Config:
    SCALE = 2.0

    def __init__(self) -> None:
        self.scale = 2.0

    def get(self) -> float:
        return self.scale

    @property
    def doubled(self) -> float:
        return self.scale * 2


OBJ = Config()
NS = types.SimpleNamespace(scale=2.0)
LIST = [2.0]
NESTED = types.SimpleNamespace(inner={"vals": [2.0]})
NP_SCALAR = np.float32(2.0)
NP_ARRAY = np.array([2.0], np.float32)


def _set_np_scalar(v):
    global NP_SCALAR
    NP_SCALAR = np.float32(v)


CASES = {
    "object attribute": (lambda: OBJ.scale, lambda v: setattr(OBJ, "scale", v)),
    "class attribute": (lambda: Config.SCALE, lambda v: setattr(Config, "SCALE", v)),
    "method reading self": (lambda: OBJ.get(), lambda v: setattr(OBJ, "scale", v)),
    "property": (lambda: OBJ.doubled / 2, lambda v: setattr(OBJ, "scale", v)),
    "SimpleNamespace field": (lambda: NS.scale, lambda v: setattr(NS, "scale", v)),
    "module attribute": (lambda: stale_config.SCALE, lambda v: setattr(stale_config, "SCALE", v)),
    "container in a module": (lambda: stale_config.TABLE["scale"][0],
                              lambda v: stale_config.TABLE["scale"].__setitem__(0, v)),
    "list element": (lambda: LIST[0], lambda v: LIST.__setitem__(0, v)),
    "nested container": (lambda: NESTED.inner["vals"][0], lambda v: NESTED.inner["vals"].__setitem__(0, v)),
    "NumPy scalar": (lambda: NP_SCALAR, _set_np_scalar),
    "NumPy array element": (lambda: NP_ARRAY[0], lambda v: NP_ARRAY.__setitem__(0, v)),
}


def _kernel(get):
    @asc.jit
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress):
        xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x)
        zg.set_global_buffer(z)
        t = asc.LocalTensor(F32, asc.TPosition.VECIN, 0, 64)
        asc.data_copy(t, xg, 64)
        asc.muls(t, t, get(), 64)          # the scale is a trace-time value read from outside
        asc.data_copy(zg, t, 64)
    return k


@pytest.mark.parametrize("backend", ["sim", "eager", "cpp"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_a_changed_trace_time_value_traces_again(case, backend):
    get, put = CASES[case]
    k = asc.jit(_kernel(get), backend=backend)
    x = np.ones(64, np.float32)
    try:
        for v in (2.0, 3.0, -0.0, 2.0):
            put(v)
            z = np.zeros(64, np.float32)
            k[1](x, z)
            assert z.tobytes() == np.full(64, v, np.float32).tobytes(), f"stale kernel after {case} became {v}"
    finally:
        put(2.0)


def test_an_unchanged_value_reuses_the_kernel(monkeypatch):
    traced = []
    real = jit_mod.trace
    monkeypatch.setattr(jit_mod, "trace", lambda *a, **kw: traced.append(1) or real(*a, **kw))
    k = _kernel(lambda: OBJ.get() + NS.scale + LIST[0] + stale_config.SCALE)
    x, z = np.ones(64, np.float32), np.zeros(64, np.float32)
    for _ in range(3):
        k[1](x, z)
    assert len(traced) == 1


RNG = np.random.default_rng(0)


def test_a_value_that_cannot_be_fingerprinted_traces_at_every_launch(monkeypatch):
    traced = []
    real = jit_mod.trace
    monkeypatch.setattr(jit_mod, "trace", lambda *a, **kw: traced.append(1) or real(*a, **kw))
    # a Generator is not fingerprinted; the kernel reads its state (drawing from it in the kernel would be
    # refused: each trace and eager core would draw another number) and the caller draws between launches
    k = _kernel(lambda: float(RNG.bit_generator.state["state"]["state"] % 3 + 1))
    x = np.ones(64, np.float32)
    seen = set()
    for _ in range(6):
        RNG.integers(1, 4)
        z = np.zeros(64, np.float32)
        k[1](x, z)
        seen.add(float(z[0]))
    assert len(traced) == 6 and len(seen) > 1          # never reused, so never stale
    assert any(isinstance(part, Unstable) for part in _flatten(fingerprint(k.fn)))


def _flatten(t):
    if isinstance(t, tuple):
        for x in t:
            yield from _flatten(x)
    else:
        yield t


def test_the_examples_have_stable_fingerprints():
    import axpy
    import softmax
    import vadd
    import vadd_tque
    for kernel in (vadd.vadd_kernel, vadd_tque.vadd_kernel, axpy.axpy_kernel, softmax.softmax_kernel):
        assert fingerprint(kernel.fn) == fingerprint(kernel.fn), kernel.name
