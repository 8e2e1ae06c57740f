"""Property tests of the schedule's proof (graph/sync_proof.py) and of the gate that makes auto_sync
emit only what it proved (graph/sync_gate.py).

Programs: the flag-free structured programs of tests/test_schedule_fuzz.py (loops nested three deep
with runtime starts and trip counts, zero trips included; asc.cond at every level, alternating with
the iteration; asc.while_loop with runtime trip counts; a TQue stage and a TBuf; more than 8 tiles
loaded before their first use), and issue 18's adversarial kernels (tests/adversarial_kernels.py).
Properties:
- every auto-synced program is proved (no violation but the kernel's own flags' misuse), runs race-free on the simulator on random
  paths (trip counts and branch modes drawn per run) and equals `eager` byte for byte;
- deleting any inserted wait_flag (or every node of a flag's sync group) from a proved schedule is
  rejected by the proof: the proof is not vacuous.
The suite runs a derandomized sample; `pytest -m fuzz tests/test_schedule_proof.py` runs a big one
(ASC_TRACE_FUZZ_EXAMPLES examples, 1500 by default).
"""
from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lane import examples

import asc_trace as asc
from adversarial_kernels import CASES
from asc_trace.graph.sync_proof import prove
from test_schedule_fuzz import MAX_TRIP, _args, cases, make_kernel

SUITE = settings(max_examples=examples(60), deadline=None, derandomize=True,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
BIG = settings(max_examples=int(os.environ.get("ASC_TRACE_FUZZ_EXAMPLES", "1500")), deadline=None, derandomize=False,
               suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _fuzz_enabled(config) -> bool:
    return "fuzz" in (config.getoption("-m") or "")


def _check_program(case, runs: list[tuple]) -> None:
    prog, trips, bits = case
    k = make_kernel(prog)
    g = asc.compile(k, _args(trips, bits)).graph
    assert _scheduler_violations(g) == [], f"the emitted schedule is not proved:\n{g}"
    for t, b in [(trips, bits)] + runs:
        x, z_sim, *rest = _args(t, b)
        z_eager = z_sim.copy()
        k[1](x, z_sim, *rest)                            # the simulator's race and flag checks are on
        asc.jit(k, backend="eager")[1](x, z_eager, *rest)
        np.testing.assert_array_equal(z_sim, z_eager)


def _scheduler_violations(g) -> list:
    """The proof's violations, but those of the kernel's own flags alone (a kernel's own set/wait pair
    repeated without a handshake back is its own race, which the simulator reports when a run shows it)."""
    auto = {n.id for n in g if n.attr("auto")}
    return [v for v in prove(g) if v.kind in ("order", "barrier") or auto.intersection(v.nodes)]


paths = st.lists(st.tuples(st.tuples(*[st.integers(0, MAX_TRIP)] * 8), st.integers(0, 4 ** 6 - 1)),
                 min_size=1, max_size=2)


@SUITE
@given(case=cases(), runs=paths)
def test_auto_sync_output_is_proved_race_free_and_equal_to_eager(case, runs):
    _check_program(case, runs)


@pytest.mark.fuzz
@BIG
@given(case=cases(), runs=paths)
def test_fuzz_auto_sync_output_is_proved_race_free_and_equal_to_eager(request, case, runs):
    if not _fuzz_enabled(request.config):
        pytest.skip("the big run: pytest -m fuzz")
    _check_program(case, runs)


def _mutants(g):
    """Graphs with one inserted wait_flag deleted."""
    for n in g:
        if n.attr("auto") and n.op == "wait_flag":
            m = g.copy()
            m.set_order([nid for nid in g.order if nid != n.id])
            yield n, m


@settings(SUITE, max_examples=examples(25))
@given(case=cases())
def test_deleting_an_inserted_wait_is_rejected(case):
    prog, trips, bits = case
    g = asc.compile(make_kernel(prog), _args(trips, bits)).graph
    for n, m in _mutants(g):
        assert prove(m), f"the proof accepted the schedule without %{n.id}:\n{m}"


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_adversarial_schedules_are_proved_and_mutants_rejected(case):
    g = asc.compile(case.kernel, case.make(*case.knobs[0])).graph
    assert prove(g) == []
    mutants = list(_mutants(g))
    for n, m in mutants:
        assert prove(m), f"the proof accepted the schedule without %{n.id}"


def test_a_missing_cross_pipe_order_is_reported_with_its_pair():
    """A hand-written kernel with no flags (auto_sync=False): the proof names the unordered pair."""
    @asc.jit(auto_sync=False)
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
        xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x)
        zg.set_global_buffer(z)
        t = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, 64)
        for i in asc.range(n):
            asc.data_copy(t, xg[i * 64:], 64)
            asc.adds(t, t, 1.0, 64)
            asc.data_copy(zg[i * 64:], t, 64)
    g = asc.compile(k, (np.zeros(256, np.float32), np.zeros(256, np.float32), 4)).graph
    found = {(g.node(a).op, g.node(b).op) for v in prove(g) if v.kind == "order" for a, b in [v.nodes]}
    assert ("data_copy", "adds") in found and ("adds", "data_copy") in found


def test_a_flag_waited_on_one_path_only_is_reported():
    @asc.jit(auto_sync=False)
    def k(x: asc.GlobalAddress, z: asc.GlobalAddress, n: int):
        xg, zg = asc.GlobalTensor(), asc.GlobalTensor()
        xg.set_global_buffer(x)
        zg.set_global_buffer(z)
        t = asc.LocalTensor(asc.float32, asc.TPosition.VECCALC, 0, 64)
        asc.data_copy(t, xg, 64)
        asc.set_flag(asc.HardEvent.MTE2_V, 0)
        asc.cond(n > 0, lambda: asc.wait_flag(asc.HardEvent.MTE2_V, 0), lambda: None)
        asc.adds(t, t, 1.0, 64)
    g = asc.compile(k, (np.zeros(64, np.float32), np.zeros(64, np.float32), 1)).graph
    kinds = {v.kind for v in prove(g)}
    assert "left_set" in kinds and "order" in kinds
