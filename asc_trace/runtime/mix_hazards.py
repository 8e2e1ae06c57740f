"""The hazard verdict of a mixed cube + vector kernel for the backends that run it in program order (cpp,
eager): the mixed simulator (runtime/mix_sim.py) runs the launch on copies of the arrays, with its pipe models,
cross-core counters and GM race checker, and raises what it finds; the caller's arrays are untouched. A
launch key that passed is not checked again (the key is what addresses, counts and control flow depend on,
runtime/sim.py `launch_key`; a kernel whose control flow reads tensor data is checked every launch).

The mixed simulator has no data-free mode yet (the cube's has, runtime/cube_eager.py), so this check costs
one simulated run per new launch key."""
from __future__ import annotations

import contextlib
import dataclasses
import io
from typing import Any

from .. import config
from .base import LaunchJob


class MixHazards:
    def __init__(self, graph: Any) -> None:
        self.graph = graph
        self.art: Any = None
        self.clean: set[tuple] = set()
        self.data_dependent: bool | None = None

    def check(self, job: LaunchJob) -> None:
        if not config.sanitize():
            return
        from .sim import Simulator, data_steers, launch_key
        if self.data_dependent is None:
            self.data_dependent = data_steers(self.graph.aic) or data_steers(self.graph.aiv)
        key = None if self.data_dependent else launch_key(job)[0]
        if key is not None and key in self.clean:
            return
        if self.art is None:
            from .mix_sim import MixArtifact
            self.art = MixArtifact(self.graph, Simulator)
        arrays = [None if a is None else a.copy() for a in job.bound.arrays]
        trial = dataclasses.replace(job, bound=dataclasses.replace(job.bound, arrays=arrays))
        with contextlib.redirect_stdout(io.StringIO()):     # the kernel's printf text comes from the real run
            self.art.launch(trial, True)
        if key is not None:
            self.clean.add(key)
