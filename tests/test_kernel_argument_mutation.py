"""A ConstExpr argument is the caller's own object, passed to the kernel's Python as it is: the same object
at every trace and at every eager run. A kernel that mutates it at kernel level (`cfg.scale[0] *= 2`,
`cfg.seen.append(n)`, `cfg.n += 1`, `table.update(...)` on a hashable dict) would leave sim / cpp computing
with one change and eager with one per core and launch, so it is refused like a global container
(proxies/kernel_state.py): the same TraceError on every backend, at the line that mutates it. A list or dict
itself cannot be a ConstExpr (not hashable: a LaunchError); reading a ConstExpr object, and a helper that
fills the object's cache on its first call, stay legal."""
from __future__ import annotations


import numpy as np
import pytest

import asc_trace as asc
from asc_trace.toolchain.real_api import headers_if_configured
from helpers import rand
from test_kernel_container_mutation import _io, _line_of

F32 = asc.float32
VECCALC = asc.TPosition.VECCALC
BACKENDS = ["sim", "eager", "cpp", pytest.param("cpu_debug", marks=pytest.mark.skipif(
    headers_if_configured() is None, reason="no Ascend C headers configured: set ASC_TRACE_ASCENDC_HOME"))]


class Cfg:
    """Hashable by identity, holding mutable state."""

    def __init__(self) -> None:
        self.scale = [1.0]
        self.seen: list = []
        self.n = 1
        self.cache: dict = {}


class HashableDict(dict):
    __hash__ = object.__hash__      # type: ignore[assignment]


@asc.jit
def doubles_its_argument(x: asc.GlobalAddress, z: asc.GlobalAddress, cfg: asc.ConstExpr):
    xg, zg = _io(x, z)
    t = asc.LocalTensor(F32, VECCALC, 0, 64)
    asc.data_copy(t, xg, 64)
    cfg.scale[0] = cfg.scale[0] * 2.0
    asc.muls(t, t, cfg.scale[0], 64)
    asc.data_copy(zg, t, 64)


@asc.jit
def appends_to_its_argument(x: asc.GlobalAddress, z: asc.GlobalAddress, cfg: asc.ConstExpr):
    xg, zg = _io(x, z)
    t = asc.LocalTensor(F32, VECCALC, 0, 64)
    asc.data_copy(t, xg, 64)
    cfg.seen.append(1)
    asc.adds(t, t, float(len(cfg.seen)), 64)
    asc.data_copy(zg, t, 64)


@asc.jit
def counts_in_its_argument(x: asc.GlobalAddress, z: asc.GlobalAddress, cfg: asc.ConstExpr):
    xg, zg = _io(x, z)
    t = asc.LocalTensor(F32, VECCALC, 0, 64)
    asc.data_copy(t, xg, 64)
    cfg.n += 1
    asc.muls(t, t, float(cfg.n), 64)
    asc.data_copy(zg, t, 64)


@asc.jit
def updates_its_dict(x: asc.GlobalAddress, z: asc.GlobalAddress, table: asc.ConstExpr):
    xg, zg = _io(x, z)
    t = asc.LocalTensor(F32, VECCALC, 0, 64)
    asc.data_copy(t, xg, 64)
    table.update(gain=table["gain"] + 1.0)
    asc.muls(t, t, table["gain"], 64)
    asc.data_copy(zg, t, 64)


REFUSED = {
    "store_subscr": (doubles_its_argument, Cfg, "cfg.scale[0] = cfg.scale[0] * 2.0", r"changes `cfg.scale\[0\]`"),
    "append": (appends_to_its_argument, Cfg, "cfg.seen.append(1)", r"changes `cfg.seen` in place \(its length"),
    "attribute": (counts_in_its_argument, Cfg, "cfg.n += 1", r"changes `cfg.n` in place"),
    "dict_update": (updates_its_dict, lambda: HashableDict(gain=1.0), "table.update(",
                    r"changes `table\['gain'\]` in place"),
}


def _launch(k, backend, arg):
    x, z = rand(64, np.float32, 3), np.zeros(64, np.float32)
    asc.jit(k, backend=backend)[1](x, z, arg)
    return x, z


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", sorted(REFUSED))
def test_kernel_level_mutation_of_a_constexpr_argument_is_refused_at_its_line(case, backend):
    k, make, text, words = REFUSED[case]
    with pytest.raises(asc.TraceError, match=words) as e:
        _launch(k, backend, make())
    assert e.value.loc.file == __file__
    assert e.value.loc.line == _line_of(k.fn, text)
    assert "ConstExpr argument" in str(e.value) and "eager" in str(e.value)


def test_a_list_or_dict_cannot_be_a_constexpr_argument():
    for bad in ([1.0], {"gain": 1.0}):
        with pytest.raises(asc.LaunchError, match="must be hashable"):
            _launch(doubles_its_argument, "sim", bad)


def _gain(cfg: Cfg) -> float:
    # a cache filled on the first call: every later run, eager's included, reads the same value
    return cfg.cache.setdefault("gain", cfg.scale[0] * 3.0)


@asc.jit
def reads_its_argument(x: asc.GlobalAddress, z: asc.GlobalAddress, cfg: asc.ConstExpr):
    xg, zg = _io(x, z)
    t = asc.LocalTensor(F32, VECCALC, 0, 64)
    asc.data_copy(t, xg, 64)
    asc.muls(t, t, _gain(cfg), 64)
    asc.adds(t, t, float(cfg.n), 64)
    asc.data_copy(zg, t, 64)


@pytest.mark.parametrize("backend", BACKENDS)
def test_reading_a_constexpr_object_and_filling_its_cache_once_is_legal(backend):
    cfg = Cfg()
    cfg.scale[0], cfg.n = 0.5, 2
    x, z = _launch(reads_its_argument, backend, cfg)
    assert z.tobytes() == (x * np.float32(1.5) + np.float32(2.0)).tobytes()
    assert cfg.cache == {"gain": 1.5} and cfg.scale == [0.5] and cfg.n == 2
