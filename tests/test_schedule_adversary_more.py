"""Round-3 adversarial flag-free kernels (tests/adversarial_kernels_more.py): each scheduled, accepted by
the proof (graph/sync_proof.py), and correct on sim and eager (every input), cpp (two) and cpu_debug
(one), bytes equal to NumPy's."""
from __future__ import annotations

import numpy as np
import pytest

import asc_trace as asc
from adversarial_kernels_more import CASES, Case
from asc_trace.graph.sync_proof import prove
from asc_trace.toolchain.real_api import headers_if_configured

RUNS = [(c, kn) for c in CASES for kn in c.knobs]
IDS = [f"{c.name}-{'-'.join(map(str, kn))}" for c, kn in RUNS]


def _check(case: Case, knobs: tuple, backend: str) -> None:
    args = case.make(*knobs)
    asc.jit(case.kernel, backend=backend)[1](*args)
    np.testing.assert_array_equal(args[1], case.reference(args[0], *knobs))


@pytest.mark.parametrize("case,knobs", RUNS, ids=IDS)
@pytest.mark.parametrize("backend", ["sim", "eager"])
def test_round3_kernel_runs_correct(case, knobs, backend):
    _check(case, knobs, backend)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_round3_kernel_emitted_cpp_is_correct(case):
    for knobs in case.knobs[:2]:
        _check(case, knobs, "cpp")


@pytest.mark.skipif(headers_if_configured() is None, reason="no Ascend C headers configured: set "
                    "ASC_TRACE_ASCENDC_HOME (tests use ../shared/vendor/asc-devkit when it exists)")
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_round3_kernel_on_cpu_debug(case):
    _check(case, case.knobs[0], "cpu_debug")


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_round3_schedule_is_proved(case):
    g = asc.compile(case.kernel, case.make(*case.knobs[0])).graph
    assert prove(g) == []
