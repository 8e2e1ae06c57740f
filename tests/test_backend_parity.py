"""One contract for every CPU backend: for every program and every argument value, sim, eager and
cpp return the same bytes or raise the same AscTraceError subclass (and a refused launch leaves the
outputs untouched). Random programs from program_gen.py, random arguments with edge values.

The cpp backend builds each program once (g++, with a precompiled header) and runs it on several
argument sets, which keeps the g++ time of the suite small."""
from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from program_gen import launches, make_kernel, outcome, programs

SUPPRESS = [HealthCheck.too_slow, HealthCheck.data_too_large]


def _same(prog, backends, launch_list):
    k = make_kernel(prog)
    for launch in launch_list:
        got = {b: outcome(k, b, prog, launch) for b in backends}
        first = got[backends[0]]
        for b in backends[1:]:
            assert got[b] == first, f"{backends[0]} vs {b} differ on launch {launch}: {first[:2]} vs {got[b][:2]}"
        if first[0] == "error":
            assert first[2], f"a refused launch ({first[1]}) changed the output"


@settings(max_examples=30, deadline=None, suppress_health_check=SUPPRESS)
@given(prog=programs(), launch_list=st.lists(launches(), min_size=3, max_size=4))
def test_sim_eager_cpp_agree(prog, launch_list):
    _same(prog, ("sim", "eager", "cpp"), launch_list)


@settings(max_examples=90, deadline=None, suppress_health_check=SUPPRESS)
@given(prog=programs(), launch_list=st.lists(launches(), min_size=2, max_size=3))
def test_sim_eager_agree(prog, launch_list):
    _same(prog, ("sim", "eager"), launch_list)
