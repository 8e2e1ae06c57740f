"""A kernel's Python that mutates, outside any runtime region, a list / dict / iterator / object made outside
the kernel (`seen.append(n)`, `scale[0] = scale[0] * 2.0`, `d.update(...)`, `next(it)`) is refused with the same
TraceError on every backend, at the line that mutates it: sim and cpp run that Python once per compilation,
eager once more per core and launch, so the backends would compute with different values
(proxies/kernel_state.py). Reading outside containers and mutating the kernel's own objects stay legal and
equal NumPy on every backend."""
from __future__ import annotations

import inspect
import itertools

import numpy as np
import pytest

import asc_trace as asc
from asc_trace.toolchain.real_api import headers_if_configured
from helpers import rand

F32 = asc.float32
VECCALC = asc.TPosition.VECCALC
BACKENDS = ["sim", "eager", "cpp", pytest.param("cpu_debug", marks=pytest.mark.skipif(
    headers_if_configured() is None, reason="no Ascend C headers configured: set ASC_TRACE_ASCENDC_HOME"))]

SCALE = [1.0]
SEEN: list = []
OPTS: dict = {"gain": 1.0}
STEPS = itertools.count(1)
TABLE = (2.0, 3.0)
GAINS = {"a": 0.5, "b": 4.0}


def _io(x, z):
    xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
    xg.set_global_buffer(x)
    zg.set_global_buffer(z)
    return xg, zg


def _line_of(fn, text: str) -> int:
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, s in enumerate(lines) if text in s)


@asc.jit
def doubles_a_global_list(x: asc.GlobalAddress, z: asc.GlobalAddress):
    xg, zg = _io(x, z)
    t = asc.LocalTensor(F32, VECCALC, 0, 64)
    asc.data_copy(t, xg, 64)
    SCALE[0] = SCALE[0] * 2.0
    asc.muls(t, t, SCALE[0], 64)
    asc.data_copy(zg, t, 64)


@asc.jit
def records_what_it_traced(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
    xg, zg = _io(x, z)
    t = asc.LocalTensor(F32, VECCALC, 0, 64)
    asc.data_copy(t, xg, 64)
    SEEN.append(n)
    asc.adds(t, t, 1.0, 64)
    asc.data_copy(zg, t, 64)


@asc.jit
def updates_a_dict(x: asc.GlobalAddress, z: asc.GlobalAddress):
    xg, zg = _io(x, z)
    t = asc.LocalTensor(F32, VECCALC, 0, 64)
    asc.data_copy(t, xg, 64)
    OPTS.update(gain=OPTS["gain"] + 1.0)
    asc.muls(t, t, OPTS["gain"], 64)
    asc.data_copy(zg, t, 64)


@asc.jit
def advances_an_iterator(x: asc.GlobalAddress, z: asc.GlobalAddress):
    xg, zg = _io(x, z)
    t = asc.LocalTensor(F32, VECCALC, 0, 64)
    asc.data_copy(t, xg, 64)
    step = float(next(STEPS))
    asc.muls(t, t, step, 64)
    asc.data_copy(zg, t, 64)


def _closure_kernel():
    seen: list = []

    @asc.jit
    def pops_a_closure_list(x: asc.GlobalAddress, z: asc.GlobalAddress):
        xg, zg = _io(x, z)
        t = asc.LocalTensor(F32, VECCALC, 0, 64)
        asc.data_copy(t, xg, 64)
        seen.insert(0, 1.0)
        asc.muls(t, t, float(len(seen)), 64)
        asc.data_copy(zg, t, 64)
    return pops_a_closure_list


REFUSED = {
    "store_subscr": (doubles_a_global_list, "SCALE[0] = SCALE[0] * 2.0", r"changes `SCALE\[0\]` in place"),
    "append": (records_what_it_traced, "SEEN.append(n)", r"changes `SEEN` in place \(its length"),
    "update": (updates_a_dict, "OPTS.update(", r"changes `OPTS\['gain'\]` in place"),
    "next": (advances_an_iterator, "next(STEPS)", r"changes `STEPS` in place"),
}


def _launch(k, backend, with_n: bool):
    x, z = rand(64, np.float32, 3), np.zeros(64, np.float32)
    args = (x, z, 64) if with_n else (x, z)
    asc.jit(k, backend=backend)[1](*args)
    return x, z


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", sorted(REFUSED))
def test_kernel_level_mutation_of_outside_state_is_refused_at_its_line(case, backend):
    k, text, words = REFUSED[case]
    SCALE[:] = [1.0]
    SEEN.clear()
    OPTS["gain"] = 1.0
    with pytest.raises(asc.TraceError, match=words) as e:
        _launch(k, backend, k is records_what_it_traced)
    assert e.value.loc.file == __file__
    assert e.value.loc.line == _line_of(k.fn, text)
    assert "eager" in str(e.value) and "made outside the kernel" in str(e.value)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_closure_list_the_kernel_grows_is_refused(backend):
    with pytest.raises(asc.TraceError, match=r"changes `seen` in place \(its length; `seen` is a Python object"):
        _launch(_closure_kernel(), backend, False)


@asc.jit
def legal_forms(x: asc.GlobalAddress, z: asc.GlobalAddress):
    # reads outside containers; builds and mutates its own list of tensors and its own dict
    xg, zg = _io(x, z)
    tiles = []
    for j in asc.static_range(2):
        tiles.append(asc.LocalTensor(F32, VECCALC, j * 256, 64))
    own = {"g": GAINS["a"]}
    own.update(g=own["g"] * TABLE[1])         # 1.5
    asc.data_copy(tiles[0], xg, 64)
    asc.muls(tiles[1], tiles[0], own["g"], 64)
    asc.adds(tiles[1], tiles[1], TABLE[0], 64)
    tiles.pop(0)
    asc.data_copy(zg, tiles[0], 64)


@pytest.mark.parametrize("backend", BACKENDS)
def test_reading_outside_state_and_mutating_own_objects_is_legal(backend):
    before = (list(TABLE), dict(GAINS))
    x, z = _launch(legal_forms, backend, False)
    want = x * np.float32(1.5) + np.float32(2.0)
    assert z.tobytes() == want.tobytes()
    assert (list(TABLE), dict(GAINS)) == before
