"""The simulator's pipe model for one group of cores that run in lockstep: the happens-before
bookkeeping of graph/hb.py, the race checker of runtime/race_check.py (UB and GM, within a core and
across cores), and, while profiling, the record of the execution order that runtime/core_timing.py
times (runtime/platform.py holds the parameters).
"""
from __future__ import annotations

import numpy as np

from ..graph.hazards import SEPARATORS
from ..graph.hb import MTE2, MTE3, PIDX, S, V, Instr, PipeClock
from ..graph.node import Node
from ..graph.ops import VecCost, vec_cost
from .core_timing import EXEC, ISSUE, KIND_CODES, SCALAR
from .platform import Platform
from .race_check import RaceChecker, RaceContext, check_cross_core


class PipeModel:
    """Issue, order and check the instructions of one group of cores; while profiling (`timing`), also
    record the order in which they execute, for runtime/core_timing.py to time."""

    def __init__(self, platform: Platform, ctx: RaceContext, cores: np.ndarray, sanitize: bool,
                 compiler_sync: bool = False, core_num: int = 1, timing: bool = True) -> None:
        self.plat = platform
        self.timing = timing               # False: order and check only (a launch's check needs no clock)
        self.clock = PipeClock(self._on_exec if timing else self._on_exec_untimed, scalar_flags=not compiler_sync,
                               own_pipe=ctx.own_pipe, full=ctx.full_events)
        self.clock.on_step = self._issued
        self.checker = RaceChecker(ctx, cores, compiler_sync, core_num) if sanitize else None
        self.n_issued = 0
        self.log: list[tuple] = []         # the execution order (core_timing's log format), when timing
        self.nodes: dict[int, Node] = {}   # node id -> node, for the timeline's slices
        self.gm_bytes = [0.0] * 4          # GM bytes moved per core, by pipe
        self.gm_unaligned = [0.0] * 4      # of them, bytes whose copies start off a gm_align_bytes boundary
        self.gm_reads: dict[int, float] = {}    # GM argument -> bytes read per core (MTE2)
        self.gm_writes: dict[int, float] = {}   # GM argument -> bytes written per core (MTE3)
        self._vcost: dict[int, tuple[VecCost, str, int]] = {}

    # -- issue ------------------------------------------------------------------------------------
    def scalar(self, what: int, node: Node | None = None) -> None:
        """The scalar unit issues `node` (what=ISSUE_COST) or runs a loop's bookkeeping (LOOP_COST)."""
        if node is None:
            self.log.append((SCALAR, what, -1))
            return
        self.nodes[node.id] = node
        self.log.append((SCALAR, what, node.id))

    def issue(self, ins: Instr) -> None:
        self._issued(ins)
        self.clock.issue(ins)

    def _issued(self, ins: Instr) -> None:
        """Number an instruction (and each set / wait an API call makes inside: PipeClock.on_step)."""
        self.n_issued += 1
        ins.order = self.n_issued
        if self.timing:
            self.log.append((ISSUE, ins.order))
        if self.checker is not None and ins.kind != "op":
            self.checker.issued(ins)

    def finish(self) -> None:
        self.clock.finish()

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
        kind = ins.kind
        amount: float = 0.0
        extra = -1
        if kind == "op":
            if self.checker is not None and (ins.ub or ins.gm):
                self.checker.check(ins, p, vc)
            if ins.apply is not None:
                ins.apply()
                ins.apply = None        # the race checker may keep the instruction: not its data
            if p == MTE2 or p == MTE3:
                amount, extra = self._copy(ins, p)
            elif p == V:
                amount = self._vector_cycles(ins)
        else:
            if self.checker is not None and kind in SEPARATORS:
                self.checker.separator(ins, p, vc)
            if kind == "wait" and ins.tag is not None:
                extra = ins.tag.ins.order
        node = ins.node
        self.nodes[node.id] = node
        self.log.append((EXEC, ins.order, p, KIND_CODES[kind], amount, extra, node.id))

    def _copy(self, ins: Instr, p: int) -> tuple[float, int]:
        """(bytes, 1 if the GM address is gm_align_bytes-aligned on every core else 0) of a copy, and
        its GM traffic tallied by argument."""
        plat = self.plat
        aligned = not ins.gm or plat.gm_aligned(ins.gm[0][1], ins.gm[0][3])
        tally = self.gm_reads if p == MTE2 else self.gm_writes
        for g in ins.gm:
            nb = g[2] * g[3]
            self.gm_bytes[p] += nb
            tally[g[0]] = tally.get(g[0], 0.0) + nb
            if not aligned:
                self.gm_unaligned[p] += nb
        return float(ins.work), int(aligned)

    def _vector_cycles(self, ins: Instr) -> float:
        c = self._vcost.get(ins.node.id)
        if c is None:
            c = self._vcost[ins.node.id] = vec_cost(ins.node)
        cost, dtype_name, itemsize = c
        return cost.cycles(dtype_name, int(ins.work), itemsize)


__all__ = ["PipeModel", "RaceContext", "check_cross_core", "MTE2", "MTE3", "V", "S"]
