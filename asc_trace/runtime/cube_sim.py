"""The sim backend for cube kernels: each AI core's cube core runs the kernel's graph on its own memories
(runtime/cube_exec.py) through the cube's pipe model (runtime/cube_pipes.py), core after core, with GM
journalled so that a refused launch leaves the outputs as they were. The profile is the cube's: per-pipe
busy cycles of each core, and the kernel's time is the slowest core's."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..cube_enums import CUBE_MEMORY
from ..graph.kernel_graph import KernelGraph
from ..graph.node import Node
from ..graph.operand_checks import Ranges
from .base import LaunchJob
from .cube_exec import BINDERS, bind_copy_gm_l1, bind_local_tensor, memories
from . import cube_exec_l1  # noqa: F401 - registers Fixpipe L0C -> L1
from .cube_cores import keep_written_bytes
from .cube_pipes import CubePipes
from .cube_timing import CLOCK_HZ
from .executors import bind
from .interpreter import Interpreter, NodeStep
from .machine import GmJournal, Machine, NullJournal
from .printf import emit_output


class CubeInterpreter(Interpreter):
    """The interpreter with the cube's executors and pipe model underneath."""

    def __init__(self, graph: KernelGraph) -> None:
        super().__init__(graph)
        self.model: CubePipes | None = None

    def bind_node(self, node: Node, ranges: Ranges, known: set) -> Any:
        b = BINDERS.get(node.op)
        if b is not None:
            return b(node)
        if node.op == "local_tensor" and node.args[0] in CUBE_MEMORY:
            return bind_local_tensor(node)
        if node.op == "data_copy" and node.args[0].space == "l1":
            return bind_copy_gm_l1(node)
        return bind(node, ranges, known, checks=False)

    def run_node(self, st: NodeStep, m: Machine) -> None:
        ins = st.fn(m)
        if ins is None:
            return
        ins.where = self.where
        if not m.data:
            ins.apply = None            # timing only: checked and timed, nothing computed
        assert self.model is not None
        if ins.apply is not None and ins.gm and ins.gm[4] and self.model.gm_log is not None:
            # the check across cores tells two cores writing equal bytes (order-independent) from different
            # ones: keep what this write put in GM (runtime/cube_cores.py)
            ins.apply, ins.gm = keep_written_bytes(ins.apply, m.gm[ins.gm[0]], ins.gm)
        self.model.issue(ins)

    def run_core(self, m: Machine, check: bool, trace: bool = False) -> CubePipes:
        m.cube = memories()
        self.model = CubePipes(check, trace)
        self.run(m)
        self.model.finish()
        return self.model


@dataclass
class CubeProfile:
    """The modelled execution of a cube kernel: per core, each pipe's busy cycles and the core's cycles;
    the kernel's time is the slowest core's (the cores run in parallel, one per AI core)."""

    kernel: str
    core_num: int
    core_cycles: list[float]
    core_busy: list[dict[str, float]]
    clock_hz: float = CLOCK_HZ
    cores: list[int] | None = None          # the cores timed (None: all of them)
    logs: list | None = None                # per core: (pipe, start, end, node) of every instruction
    cycles: float = field(init=False)
    pipe_busy: dict[str, float] = field(init=False)
    slowest_core: int = field(init=False)

    def __post_init__(self) -> None:
        i = int(np.argmax(self.core_cycles)) if self.core_cycles else 0
        self.slowest_core = self.cores[i] if self.cores else i
        self._slowest_index = i
        self.cycles = max(self.core_cycles, default=0.0)
        self.pipe_busy = dict(self.core_busy[i]) if self.core_busy else {}

    @property
    def utilization(self) -> dict[str, float]:
        """Pipe name -> busy cycles of the slowest core over its cycles."""
        return {k: (v / self.cycles if self.cycles else 0.0) for k, v in self.pipe_busy.items()}

    @property
    def time_us(self) -> float:
        return self.cycles / self.clock_hz * 1e6

    @property
    def bound(self) -> str:
        if not self.pipe_busy:
            return "nothing"
        pipe, busy = max(self.pipe_busy.items(), key=lambda kv: kv[1])
        return f"{pipe} pipe" if busy >= 0.9 * self.cycles else "pipe dependences"

    def save_chrome_trace(self, path: str | Path) -> Path:
        """The cores' pipes as a Chrome trace / Perfetto timeline (one process per core, one row per pipe)."""
        from .cube_pipes import PIPES
        events = []
        us = 1e6 / self.clock_hz
        for ci, log in enumerate(self.logs or []):
            core = self.cores[ci] if self.cores else ci
            for p, start, end, node in log:
                events.append({"name": node.op, "ph": "X", "pid": core, "tid": PIPES[p].value, "ts": start * us,
                               "dur": (end - start) * us, "args": {"at": node.loc.short}})
        out = Path(path)
        out.write_text(json.dumps({"traceEvents": events, "displayTimeUnit": "ns"}))
        return out

    def summary(self) -> str:
        timed = "" if self.cores is None else f" (timed: cores {', '.join(map(str, self.cores))})"
        lines = [f"{self.kernel}: {self.core_num} cube core(s){timed}, modelled at {self.clock_hz / 1e9:.2f} GHz"]
        for name, busy in self.pipe_busy.items():
            share = busy / self.cycles if self.cycles else 0.0
            lines.append(f"  {name:5s} busy {busy:14,.0f} cycles ({share:6.1%})")
        lines.append(f"  total: {self.cycles:,.0f} cycles = {self.time_us:.2f} us (slowest core {self.slowest_core}); "
                     f"bound by {self.bound}")
        return "\n".join(lines)


class CubeArtifact:
    """What the sim backend prepares for a cube kernel."""

    def __init__(self, graph: KernelGraph) -> None:
        self.graph = graph
        self.interp = CubeInterpreter(graph)
        self.checked: set = set()            # launch keys that passed the race checker

    def time_cores(self, job: LaunchJob, cores: list[int], check: bool = True) -> "CubeProfile":
        """The profile of `cores` only, without data (nothing is read or written): for kernels too large to
        simulate whole, when the caller knows which cores are the slowest (the model has no interaction
        between cores: each core's time depends only on its own instructions)."""
        models = []
        for core in cores:
            m = Machine(np.array([core]), job.core_num, job.bound.arrays, job.bound.scalars, NullJournal())
            m.data = False
            try:
                models.append(self.interp.run_core(m, check))
            finally:
                m.release()
        return CubeProfile(job.name, job.core_num, [mo.end for mo in models], [mo.pipe_busy() for mo in models],
                           cores=list(cores))

    def launch(self, job: LaunchJob, check: bool = True, key: Any = None, data: bool = True,
               trace: bool = False, arrays: list | None = None) -> list[CubePipes]:
        """Every core in turn; GM writes are journalled, so a launch refused on any core leaves the
        outputs as they were. printf output is shown either way, core by core. A launch whose `key`
        (runtime/sim.py launch_key: what addresses, counts and control flow depend on) passed the race
        checker before runs without it: its verdict cannot change. Flags and bounds are checked always."""
        if key is not None and key in self.checked:
            check = False
        models: list[CubePipes] = []
        journal = GmJournal()
        out: list[tuple[int, list[str]]] = []
        try:
            for core in range(job.core_num):
                m = Machine(np.array([core]), job.core_num, job.bound.arrays if arrays is None else arrays,
                            job.bound.scalars, journal)
                m.data = data
                try:
                    models.append(self.interp.run_core(m, check, trace))
                finally:
                    out.append((core, m.out[0]))
                    m.release()
            if check:
                from .cube_cores import check_across_cores
                names = {p.index: p.name for p in self.graph.signature.runtime if p.kind == "gm"}
                check_across_cores([(c, mo.gm_log or []) for c, mo in enumerate(models)], names)
        except BaseException:
            journal.rollback()
            raise
        finally:
            emit_output(out, job.core_num)
        journal.commit()
        if check and key is not None:
            self.checked.add(key)
        return models

    def profile(self, job: LaunchJob, execute: bool = True) -> CubeProfile:
        from .. import config
        models = self.launch(job, config.sanitize(), data=execute, trace=True)
        return CubeProfile(job.name, job.core_num, [mo.end for mo in models], [mo.pipe_busy() for mo in models],
                           logs=[mo.log for mo in models])
