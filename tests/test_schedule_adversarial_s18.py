"""Round-4 adversarial flag-free kernels (tests/adversarial_kernels_s18.py, issue 18): each scheduled,
proved (graph/sync_proof.py) and correct with the simulator's race and flag checks on, equal to NumPy
and to eager on every input listed, and on cpp / cpu_debug for the first inputs."""
from __future__ import annotations

import numpy as np
import pytest

import asc_trace as asc
from adversarial_kernels_s18 import CASES, CORES
from asc_trace.graph.sync_proof import prove
from helpers import every_backend

RUNS = [(c, kn) for c in CASES for kn in c.knobs]
IDS = [f"{c.name}-{'-'.join(map(str, kn))}" for c, kn in RUNS]
_KERNELS: dict = {}


def _cores(case) -> int:
    return CORES if case.name == "cores_streak" else 1


def _run(case, knobs: tuple, backend: str) -> np.ndarray:
    key = (case.name, backend)
    if key not in _KERNELS:                     # one schedule per case and backend: the knobs are runtime
        _KERNELS[key] = asc.jit(case.kernel, backend=backend)
    args = case.make(*knobs)
    _KERNELS[key][_cores(case)](*args)
    return args[1]


@pytest.mark.parametrize("case,knobs", RUNS, ids=IDS)
def test_sim_and_eager_equal_numpy(case, knobs):
    want = case.reference(case.make(*knobs)[0], *knobs)
    np.testing.assert_array_equal(_run(case, knobs, "sim"), want)
    np.testing.assert_array_equal(_run(case, knobs, "eager"), want)


@pytest.mark.parametrize("backend", [b for b in every_backend() if b not in ("sim", "eager")])
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_emitted_source_runs_correct(case, backend):
    for knobs in case.knobs[:2]:
        np.testing.assert_array_equal(_run(case, knobs, backend), case.reference(case.make(*knobs)[0], *knobs))


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_the_schedule_is_proved(case):
    g = asc.compile(case.kernel, case.make(*case.knobs[0]), core_num=_cores(case)).graph
    assert prove(g) == []
    assert any(n.attr("auto") for n in g), "auto_sync placed no synchronization at all"
