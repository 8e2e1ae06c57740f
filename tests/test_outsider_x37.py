"""An outsider's (x37) checks of #18 (random flag-free programs from tests/outsider_x37_gen.py, bytes equal
to a NumPy walk of the same tree) and #25 (misuse with enums of the wrong class)."""
from __future__ import annotations

import numpy as np
import pytest

import asc_trace as asc
from helpers import every_backend
from outsider_x37_gen import gen_program, run_program


@pytest.mark.parametrize("seed", range(0, 60))
@pytest.mark.parametrize("backend", ["sim", "eager"])
def test_random_flag_free_program_matches_numpy(seed: int, backend: str) -> None:
    got, want = run_program(gen_program(seed), backend)
    for g, w in zip(got, want):
        assert np.array_equal(g.view(np.uint32), w.view(np.uint32)), f"seed {seed} on {backend}"


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1000, 1003, 7, 12])
@pytest.mark.parametrize("backend", every_backend())
def test_random_program_on_every_backend(seed: int, backend: str) -> None:
    got, want = run_program(gen_program(seed), backend)
    for g, w in zip(got, want):
        assert np.array_equal(g.view(np.uint32), w.view(np.uint32)), f"seed {seed} on {backend}"


def _launch(body) -> None:
    @asc.jit
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress):
        body()
    asc.jit(k, backend="sim")[1](np.zeros(64, np.float32), np.zeros(64, np.float32))


def _tile(addr: int, dt=asc.float32):
    return asc.LocalTensor(dt, asc.TPosition.VECCALC, addr, 64)


WRONG_ENUMS = {
    "pipe_barrier(HardEvent)": lambda: asc.pipe_barrier(asc.HardEvent.MTE2_V),      # runs as PIPE_MTE2
    "set_flag(PipeID)": lambda: (asc.set_flag(asc.PipeID.PIPE_V, 0), asc.wait_flag(asc.PipeID.PIPE_V, 0)),
    "cast(round mode = HardEvent)": lambda: asc.cast(_tile(512, asc.float16), _tile(0), asc.HardEvent.MTE2_V, 64),
    "compare(mode = RoundMode)": lambda: asc.compare(_tile(512, asc.uint8), _tile(0), _tile(256),
                                                     asc.RoundMode.CAST_NONE, 64),
}


@pytest.mark.parametrize("name", sorted(WRONG_ENUMS))
def test_enum_of_the_wrong_class_is_a_trace_error(name: str) -> None:
    """x37 finding (#25): an enum of the wrong class was taken by its number (pipe_barrier(HardEvent.MTE2_V) ran
    as PIPE_MTE2); every asc enum argument now goes through enums.member."""
    with pytest.raises(asc.TraceError):
        _launch(WRONG_ENUMS[name])


def test_int_event_same_class_on_every_backend() -> None:
    """x37 finding (#25): set_flag(3, 0) (3 = M_MTE1, a cube event) ran on sim / eager / cpp and was a
    NotProvidedError on cpu_debug; a kernel whose only cube nodes are flags is now a TraceError everywhere."""
    from helpers import cpu_debug_ready
    if not cpu_debug_ready():
        pytest.skip("no Ascend C headers")

    @asc.jit
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress):
        asc.set_flag(3, 0)
        asc.wait_flag(3, 0)
    outcome = {}
    for be in ("sim", "eager", "cpp", "cpu_debug"):
        try:
            asc.jit(k, backend=be)[1](np.zeros(64, np.float32), np.zeros(64, np.float32))
            outcome[be] = "ran"
        except asc.AscTraceError as err:
            outcome[be] = type(err).__name__
    assert set(outcome.values()) == {"TraceError"}, outcome
