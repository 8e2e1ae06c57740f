"""Issue 18's adversarial flag-free kernels (tests/adversarial_kernels.py): each scheduled, accepted by
the proof (graph/sync_proof.py), and correct on sim, eager, cpp and cpu_debug with bytes equal to
NumPy, on the runtime inputs that drive the paths that once broke the scheduler (two far-apart
branches of an eleven-step chain, zero-trip streaks, a never-taken branch, a reversed outer loop, a
prologue holding all eight MTE2_V ids); and the third round's (tests/adversarial_kernels_more.py: a
branch per row between a while loop and a zero-trip loop, a 4-deep nest, a hand-synced prologue before a
TQue pipeline, six sibling loops chained through memory), checked the same way."""
from __future__ import annotations

import numpy as np
import pytest

import asc_trace as asc
from adversarial_kernels import CASES as ROUND2, CHAIN, PROLOGUE, Case
from adversarial_kernels_more import CASES as ROUND3
from asc_trace.graph.sync_proof import prove
from asc_trace.toolchain.real_api import headers_if_configured

CASES = ROUND2 + ROUND3
RUNS = [(c, kn) for c in CASES for kn in c.knobs]
IDS = [f"{c.name}-{'-'.join(map(str, kn))}" for c, kn in RUNS]


_KERNELS: dict[tuple[str, str], asc.JitFunction] = {}


def _kernel(case: Case, backend: str) -> asc.JitFunction:
    """One kernel per case and backend in a test process: the knobs are runtime ints, so every run of a
    case reuses the one schedule (scheduling the deep nests is what costs)."""
    key = (case.name, backend)
    if key not in _KERNELS:
        _KERNELS[key] = asc.jit(case.kernel, backend=backend)
    return _KERNELS[key]


def _check(case: Case, knobs: tuple, backend: str) -> None:
    args = case.make(*knobs)
    _kernel(case, backend)[1](*args)
    np.testing.assert_array_equal(args[1], case.reference(args[0], *knobs))


@pytest.mark.parametrize("case,knobs", RUNS, ids=IDS)
@pytest.mark.parametrize("backend", ["sim", "eager"])
def test_adversarial_kernel_runs_correct(case, knobs, backend):
    _check(case, knobs, backend)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_adversarial_kernel_emitted_cpp_is_correct(case):
    for knobs in case.knobs[:2]:
        _check(case, knobs, "cpp")


@pytest.mark.skipif(headers_if_configured() is None, reason="no Ascend C headers configured: set "
                    "ASC_TRACE_ASCENDC_HOME (tests use ../shared/vendor/asc-devkit when it exists)")
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_adversarial_kernel_on_cpu_debug(case):
    _check(case, case.knobs[0], "cpu_debug")


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_the_schedule_is_proved(case):
    g = asc.compile(_kernel(case, "sim"), case.make(*case.knobs[0])).graph
    assert prove(g) == []


def test_branch_chain_every_pair_of_far_apart_branches_is_ordered():
    """Every pair of steps i < j taken alone: the copy-out of step i before step j's vector write."""
    for i in range(11):
        for j in range(i + 1, 11):
            _check(CHAIN, ((1 << i) | (1 << j),), "sim")


def test_a_prologue_holding_every_id_does_not_starve_the_main_loop():
    """The kernel's own MTE2_V ids 0..7 are set and waited before the loop: auto_sync still schedules
    the loop (by liveness, or a PIPE_ALL barrier that says why), instead of refusing."""
    g = asc.compile(PROLOGUE.kernel, PROLOGUE.make(8)).graph
    loop = next(n for n in g if n.op == "for")
    inside = [n for n in g if n.attr("auto") and loop.id in n.loops]
    assert inside, str(g)
    assert all(n.attr("why") for n in inside)
