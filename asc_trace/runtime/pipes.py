"""The simulator's pipe model for one group of cores that run in lockstep: the happens-before
bookkeeping of graph/hb.py, the race checker of runtime/race_check.py (UB and GM, within a core and
across cores), and a first-order timing model (runtime/platform.py holds its parameters).
"""
from __future__ import annotations

import numpy as np

from ..graph.hazards import SEPARATORS
from ..graph.hb import MTE2, MTE3, PIDX, S, V, Instr, PipeClock
from ..graph.node import Node, Pipe
from ..graph.ops import VecCost, vec_cost
from .platform import Platform
from .profile import IssueRun
from .race_check import RaceChecker, RaceContext, check_cross_core


class PipeModel:
    """Issue, order, check and time the instructions of one group of cores."""

    def __init__(self, platform: Platform, ctx: RaceContext, cores: np.ndarray, sanitize: bool, trace: bool,
                 compiler_sync: bool = False, core_num: int = 1, timing: bool = True) -> None:
        self.plat = platform
        self.timing = timing               # False: order and check only (a launch's check needs no clock)
        self.clock = PipeClock(self._on_exec if timing else self._on_exec_untimed, scalar_flags=not compiler_sync,
                               own_pipe=ctx.own_pipe, full=ctx.full_events)
        self.clock.on_step = self._issued
        self.checker = RaceChecker(ctx, cores, compiler_sync, core_num) if sanitize else None
        self.n_issued = 0
        self.t_issue = 0.0
        self.free = [0.0] * 4
        self.busy = [0.0] * 4
        self.slices: list[tuple[int, float, float, Node]] | None = [] if trace else None
        self.gm_bytes = [0.0] * 4          # GM bytes moved per core, by pipe
        self.gm_extra = [0.0] * 4          # bytes the chip's GM loses to copies not 512 B-aligned, by pipe
        self.gm_params: set[int] = set()   # GM arguments touched (the launch's working set)
        self._run: IssueRun | None = None  # the scalar unit's current stretch of issuing
        self._vcost: dict[int, tuple[VecCost, str, int]] = {}

    # -- issue ------------------------------------------------------------------------------------
    def scalar(self, cycles: float, node: Node | None = None) -> None:
        """The scalar unit spends `cycles` issuing `node` (or running a loop's bookkeeping)."""
        start = self.t_issue
        self.t_issue = start + cycles
        self.busy[S] += cycles
        if self.slices is not None:
            run = self._run
            if run is not None and run.end == start:
                run.end = self.t_issue
                run.count += 1
            else:
                self._flush_run()
                self._run = IssueRun(start, self.t_issue, node)

    def _flush_run(self) -> None:
        run = self._run
        if run is not None and self.slices is not None:
            self.slices.append((S, run.start, run.end, run))
        self._run = None

    def issue(self, ins: Instr) -> None:
        self._issued(ins)
        self.clock.issue(ins)

    def _issued(self, ins: Instr) -> None:
        ins.t_issue = self.t_issue
        self.n_issued += 1
        ins.order = self.n_issued
        if self.checker is not None and ins.kind != "op":
            self.checker.issued(ins)

    def finish(self) -> None:
        self.clock.finish()
        self._flush_run()

    @property
    def cycles(self) -> float:
        return max(max(self.free), self.t_issue)

    # -- execution --------------------------------------------------------------------------------
    def _on_exec_untimed(self, ins: Instr, vc: list[int]) -> None:
        kind = ins.kind
        if kind == "op":
            if self.checker is not None and (ins.ub or ins.gm):
                self.checker.check(ins, PIDX[ins.pipe], vc)
            if ins.apply is not None:
                ins.apply()
                ins.apply = None
        elif self.checker is not None and kind in SEPARATORS:
            self.checker.separator(ins, PIDX[ins.pipe], vc)

    def _on_exec(self, ins: Instr, vc: list[int]) -> None:
        p = PIDX[ins.pipe]
        if ins.kind == "op":
            if self.checker is not None and (ins.ub or ins.gm):
                self.checker.check(ins, p, vc)
            if ins.apply is not None:
                ins.apply()
                ins.apply = None        # the race checker may keep the instruction: not its data
            for g in ins.gm:
                self.gm_bytes[p] += g[2] * g[3]
                self.gm_params.add(g[0])
        elif self.checker is not None and ins.kind in SEPARATORS:
            self.checker.separator(ins, p, vc)
        dur = self._cost(ins)
        if p == S:
            start = ins.t_issue
        else:
            start = max(ins.t_issue, self.free[p])
        if ins.kind == "wait":
            start = max(start, ins.tag.time + self.plat.flag_latency)
        elif ins.kind == "barrier_all":
            start = max(start, *self.free, self.t_issue)
        end = start + dur
        ins.start, ins.end = start, end
        if p == S:
            self.t_issue = max(self.t_issue, end)
        else:
            self.free[p] = end
        if ins.kind == "barrier_all":
            self.free = [end] * 4
            self.t_issue = max(self.t_issue, end)
        self.busy[p] += dur
        if self.slices is not None:
            self.slices.append((p, start, end, ins.node))

    def _cost(self, ins: Instr) -> float:
        plat = self.plat
        if ins.kind != "op":
            return plat.flag_cycles
        p = ins.pipe
        if p is Pipe.MTE2 or p is Pipe.MTE3:
            aligned = not ins.gm or plat.gm_aligned(ins.gm[0][1], ins.gm[0][3])
            if not aligned:
                self.gm_extra[PIDX[p]] += ins.work * (1 / plat.gm_unaligned_efficiency - 1)
            return plat.copy_cycles(p is Pipe.MTE2, ins.work, aligned)
        if p is Pipe.S:
            return plat.scalar_ub_cycles
        c = self._vcost.get(ins.node.id)
        if c is None:
            c = self._vcost[ins.node.id] = vec_cost(ins.node)
        cost, dtype_name, itemsize = c
        return cost.cycles(dtype_name, int(ins.work), itemsize)


__all__ = ["PipeModel", "RaceContext", "check_cross_core", "MTE2", "MTE3", "V", "S"]
