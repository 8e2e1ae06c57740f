"""The `sim` backend: the kernel's graph on a NumPy model of the vector cores.

Cores that follow the same control flow run as one group (one NumPy call per instruction for all of
them); each group's instructions go through the pipe model, which orders them as the hardware would,
checks races and events (unless ASC_TRACE_SANITIZE=0) and models time.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .. import config
from ..graph.kernel_graph import KernelGraph
from .base import LaunchJob, Runtime
from .interpreter import Interpreter, LoopStep, NodeStep, per_core_reason
from .machine import GmJournal, Machine
from .pipes import PipeModel, check_gm_overlaps
from .platform import Platform, platform
from .printf import emit_output
from .profile import CoreTimeline, Profile

MAX_GROUP = 64   # cores simulated together at most (bounds the UB arrays' memory)


class Simulator(Interpreter):
    """The interpreter with a pipe model underneath (torch.fx-style `run_node` override)."""

    def __init__(self, graph: KernelGraph) -> None:
        super().__init__(graph)
        self.nodes = {n.id: n for n in graph}
        self.model: PipeModel | None = None

    def run_group(self, m: Machine, plat: Platform, sanitize: bool, trace: bool) -> PipeModel:
        self.model = PipeModel(plat, self.nodes, sanitize, trace)
        self.run(m)
        self.model.finish()
        return self.model

    def run_program_order(self, m: Machine) -> None:
        """Without the pipe model (ASC_TRACE_SANITIZE=0): apply every instruction in program order."""
        self.model = None
        self.run(m)

    def run_node(self, st: NodeStep, m: Machine) -> None:
        model = self.model
        if model is None:
            return super().run_node(st, m)
        model.scalar(model.plat.issue_cycles)
        ins = st.fn(m)
        if ins is not None:
            ins.where = self.where
            model.issue(ins)

    def iteration(self, st: LoopStep) -> None:
        if self.model is not None:
            self.model.scalar(self.model.plat.loop_cycles)


class SimArtifact:
    def __init__(self, graph: KernelGraph) -> None:
        self.sim = Simulator(graph)
        self.per_core = per_core_reason(graph) is not None


def _groups(core_num: int, per_core: bool) -> list[np.ndarray]:
    if per_core:
        return [np.array([c]) for c in range(core_num)]
    return [np.arange(s, min(s + MAX_GROUP, core_num)) for s in range(0, core_num, MAX_GROUP)]


def _run_cores(art: SimArtifact, job: LaunchJob, run_group: Callable[[Machine, np.ndarray], None],
               finish: Callable[[], None] | None = None) -> None:
    """Run `run_group` on every group of cores with journalled GM: if anything fails (including
    `finish`, the cross-core checks), the outputs are restored. printf output is emitted either way."""
    journal = GmJournal()
    out: list[tuple[int, list[str]]] = []
    try:
        for cores in _groups(job.core_num, art.per_core):
            m = Machine(cores, job.core_num, job.bound.arrays, job.bound.scalars, journal)
            try:
                run_group(m, cores)
            finally:
                out.extend((int(c), m.out[i]) for i, c in enumerate(cores))
        if finish is not None:
            finish()
    except BaseException:
        journal.rollback()
        raise
    finally:
        emit_output(sorted(out, key=lambda t: t[0]), job.core_num)
    journal.commit()


def simulate(art: SimArtifact, job: LaunchJob, plat: Platform, sanitize: bool, trace: bool) -> list[CoreTimeline]:
    """Run every core through the pipe model; returns each core's timeline."""
    timelines: list[CoreTimeline] = []
    gm_writes: list[tuple] = []

    def run_group(m: Machine, cores: np.ndarray) -> None:
        model = art.sim.run_group(m, plat, sanitize, trace)
        for param, starts, count, size, node in model.gm_writes:
            gm_writes.append((param, np.broadcast_to(starts, cores.shape), count, size, node, cores))
        for c in cores:
            timelines.append(CoreTimeline(int(c), model.cycles, list(model.busy), model.slices or [],
                                          list(model.gm_bytes)))

    _run_cores(art, job, run_group, (lambda: check_gm_overlaps(gm_writes)) if sanitize else None)
    return timelines


class SimRuntime(Runtime):
    name = "sim"

    def prepare(self, graph: KernelGraph, options: dict[str, Any]) -> SimArtifact:
        return SimArtifact(graph)

    def launch(self, art: SimArtifact, job: LaunchJob) -> None:
        if config.sanitize():
            simulate(art, job, platform(job.options.get("platform")), True, False)
        else:
            # The fast path: program order, no pipe model (same results when the kernel is race-free).
            _run_cores(art, job, lambda m, cores: art.sim.run_program_order(m))

    def profile(self, art: SimArtifact, job: LaunchJob, plat: Platform) -> Profile:
        return Profile(job.name, plat, job.core_num, simulate(art, job, plat, config.sanitize(), True))
