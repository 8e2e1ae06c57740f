"""Hazard checks for the backends that run a kernel in program order (`eager`, `cpp`; the same call
suits any backend that does not model the pipes).

What the simulator finds about synchronisation is a property of the scheduled kernel on the
hardware, not of one backend: two pipes touching the same UB or GM bytes with nothing ordering them,
overlapping copies on one pipe without its barrier, a wait that no set satisfies, a second set before
the wait, a flag left set, a core reading or writing GM bytes another core writes (RaceError /
SyncError). A backend that executes in program order cannot see these, so before it runs a kernel, `check_hazards` runs the simulator's own pipe model and race checker
(runtime/sim.py, runtime/pipes.py) on the scheduled graph, without the instructions' data effects
(on copies of the GM arguments when values read from the UB steer the kernel) and without printf
output, and raises the hazard it reports. Any other error of that run (a bound, a queue, a
division by zero) is left to the backend, which checks it itself and reports it as the same class.

One narrow entry point on purpose: what counts as a hazard is graph/hazards.py, shared with the
scheduler; the checks themselves are the simulator's (runtime/race_check.py). The verdict is remembered per
argument values when the kernel's addresses, counts and control cannot depend on data
(no `get_value`), so repeated launches with the same scalars pay for it once.
"""
from __future__ import annotations

import dataclasses
from typing import Any

from .. import config
from ..errors import AscTraceError, RaceError, SyncError
from ..graph.kernel_graph import KernelGraph
from .base import LaunchJob

HAZARDS = (RaceError, SyncError)


class HazardMemo:
    """What one compiled kernel's hazard checks found: the simulator artifact and clean launches."""

    def __init__(self, graph: KernelGraph) -> None:
        self.graph = graph
        self.data_dependent = any(n.op == "get_value" for n in graph)
        self.sim: Any = None
        self.clean: set[tuple] = set()


def check_hazards(memo: HazardMemo, job: LaunchJob) -> None:
    """Raise the RaceError / SyncError the simulator would raise for this launch (nothing with
    ASC_TRACE_SANITIZE=0, which turns the race checker off everywhere)."""
    if not config.sanitize():
        return
    key = None if memo.data_dependent else _launch_key(job)
    if key is not None and key in memo.clean:
        return
    from .platform import platform
    from .sim import SimArtifact, Simulator, simulate
    if memo.sim is None:
        memo.sim = SimArtifact(memo.graph)
    trial = dataclasses.replace(job, graph=memo.graph)
    if memo.data_dependent:     # values read from the UB steer the kernel: compute it, on copies
        arrays = [None if a is None else a.copy() for a in job.bound.arrays]
        trial = dataclasses.replace(trial, bound=dataclasses.replace(job.bound, arrays=arrays))
    from .equal_writes import EqualWritesUnknown, judge
    try:
        # without data effects (the caller's arrays are untouched) unless the kernel needs its data
        simulate(memo.sim, trial, platform(job.options.get("platform")), True, False,
                 execute=memo.data_dependent, emit=False, timing=False)
    except EqualWritesUnknown as err:
        # cores write the same GM elements: defined when the bytes are equal, which this launch's data tells
        # (runtime/equal_writes.py); not remembered as clean, other data may differ
        judge(memo.graph, job, err, Simulator)
        return
    except HAZARDS:
        raise
    except AscTraceError:
        return          # not a hazard: the backend's own checks report it
    if key is not None:
        memo.clean.add(key)


def _launch_key(job: LaunchJob) -> tuple:
    scalars = tuple(sorted((k, repr(v)) for k, v in job.bound.scalars.items()))
    shapes = tuple(None if a is None else a.shape for a in job.bound.arrays)
    return job.core_num, scalars, shapes
