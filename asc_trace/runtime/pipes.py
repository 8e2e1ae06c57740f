"""The simulator's pipe model for one group of cores that run in lockstep: the happens-before
bookkeeping of graph/hb.py, a race checker on the Unified Buffer, cross-core GM write tracking, and
a first-order timing model (runtime/platform.py holds its parameters).

Race checking: the UB is shadowed in 32-byte granules (every UB address an instruction starts at is
32-byte aligned). For each pipe and granule we keep the epoch and node of the last write and of the
last read. An access conflicts with another pipe's earlier access to the same granules (at least one
a write) unless that access happened before it (its epoch is within this pipe's vector clock).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .. import config
from ..errors import RaceError
from ..graph.hb import MTE2, MTE3, PIDX, PIPES, S, V, Instr, PipeClock
from ..graph.node import Node, Pipe
from ..graph.ops import VecCost, vec_cost
from .interpreter import describe_where
from .platform import Platform
from .profile import IssueRun

GRANULE = config.UB_ALIGN
_NGRAN = config.UB_BYTES // GRANULE


class RaceShadow:
    def __init__(self, nodes: dict[int, Node]) -> None:
        self.w_ep = np.zeros((4, _NGRAN), np.int32)
        self.w_node = np.zeros((4, _NGRAN), np.int32)
        self.r_ep = np.zeros((4, _NGRAN), np.int32)
        self.r_node = np.zeros((4, _NGRAN), np.int32)
        self.touched = [False] * 4
        self.nodes = nodes
        self.where: dict[tuple[int, int], tuple] = {}    # (pipe, epoch) -> loop iterations, for messages

    def check(self, ins: Instr, p: int, vc: list[int]) -> None:
        epoch = ins.epoch
        for addr, nbytes, write in ins.ub:
            g0 = addr // GRANULE
            g1 = -(-(addr + nbytes) // GRANULE)
            for q in range(4):
                if q == p or not self.touched[q]:
                    continue
                known = vc[q]
                seg = self.w_ep[q, g0:g1]
                if seg.size and seg.max() > known:
                    self._race(ins, q, self.w_node, seg, known, g0, "written", write, addr, nbytes)
                if write:
                    seg = self.r_ep[q, g0:g1]
                    if seg.size and seg.max() > known:
                        self._race(ins, q, self.r_node, seg, known, g0, "read", write, addr, nbytes)
        for addr, nbytes, write in ins.ub:
            g0 = addr // GRANULE
            g1 = -(-(addr + nbytes) // GRANULE)
            if write:
                self.w_ep[p, g0:g1] = epoch
                self.w_node[p, g0:g1] = ins.node.id
            else:
                self.r_ep[p, g0:g1] = epoch
                self.r_node[p, g0:g1] = ins.node.id
        if ins.ub:
            self.touched[p] = True
            if ins.where:
                self.where[(p, epoch)] = ins.where

    def _race(self, ins: Instr, q: int, node_arr: np.ndarray, seg: np.ndarray, known: int, g0: int,
              other_did: str, write: bool, addr: int, nbytes: int) -> None:
        i = int(np.argmax(seg > known))
        other = self.nodes.get(int(node_arr[q, g0 + i]))
        other_where = self.where.get((q, int(seg[i])), ())
        this_did = "writes" if write else "reads"
        p_name, q_name = ins.pipe.value, PIPES[q].value
        event = f"{q_name}_{p_name}"
        byte = (g0 + i) * GRANULE
        msg = (f"data race on UB bytes [{byte}, {byte + GRANULE}): this {p_name} instruction{_iters(ins.where)} "
               f"{this_did} them while the {q_name} instruction at {other.loc.short if other else '?'}"
               f"{_iters(other_where)} has {other_did} them, and nothing orders the two")
        hint = (f"add asc.set_flag(asc.HardEvent.{event}, id) after the {q_name} instruction and "
                f"asc.wait_flag(asc.HardEvent.{event}, id) before this one, or launch with auto_sync=True")
        if event not in {"MTE2_V", "V_MTE2", "MTE3_V", "V_MTE3", "MTE3_MTE2", "MTE2_MTE3", "S_V", "V_S", "S_MTE2",
                         "MTE2_S", "S_MTE3", "MTE3_S"}:
            hint = "order the two instructions with a set/wait pair between their pipes, or use auto_sync=True"
        err = RaceError(msg, node=ins.node, related=[(f"the other access ({q_name})", other.loc)] if other else [],
                        hint=hint)
        err.iteration = ""      # both iterations are in the message already
        raise err


def _iters(where: tuple) -> str:
    """' (loop at k.py:17: index 1)': which iteration of which loop an instruction ran in."""
    return f" ({describe_where(where)})" if where else ""


class PipeModel:
    """Issue, order, check and time the instructions of one group of cores."""

    def __init__(self, platform: Platform, nodes: dict[int, Node], sanitize: bool, trace: bool) -> None:
        self.plat = platform
        self.clock = PipeClock(self._on_exec)
        self.shadow = RaceShadow(nodes) if sanitize else None
        self.t_issue = 0.0
        self.free = [0.0] * 4
        self.busy = [0.0] * 4
        self.slices: list[tuple[int, float, float, Node]] | None = [] if trace else None
        self.gm_writes: list[tuple[int, Any, int, int, Node]] = []
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
        ins.t_issue = self.t_issue
        self.clock.issue(ins)

    def finish(self) -> None:
        self.clock.finish()
        self._flush_run()

    @property
    def cycles(self) -> float:
        return max(max(self.free), self.t_issue)

    # -- execution --------------------------------------------------------------------------------
    def _on_exec(self, ins: Instr, vc: list[int]) -> None:
        p = PIDX[ins.pipe]
        if ins.kind == "op":
            if self.shadow is not None and ins.ub:
                self.shadow.check(ins, p, vc)
            if ins.apply is not None:
                ins.apply()
            for g in ins.gm:
                self.gm_bytes[p] += g[2] * g[3]
                self.gm_params.add(g[0])
                if g[4]:
                    self.gm_writes.append((g[0], g[1], g[2], g[3], ins.node))
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


def check_gm_overlaps(writes: list[tuple[int, np.ndarray, int, int, Node]]) -> None:
    """Two cores writing overlapping GM elements is a race no in-core event can order (the second
    write wins at random on the NPU)."""
    by_param: dict[int, list[tuple[int, int, int, Node]]] = {}
    for param, starts, count, _size, node, cores in writes:
        lst = by_param.setdefault(param, [])
        for c, s0 in zip(cores, starts):
            lst.append((int(s0), int(s0) + count, int(c), node))
    for param, ivs in by_param.items():
        ivs.sort(key=lambda t: (t[0], t[1]))
        best = (-1, -1, None)      # (end, core, node) with the largest end
        second = (-1, -1, None)    # largest end among cores other than best's
        for s0, e0, c, node in ivs:
            other = best if best[1] != c else second
            if s0 < other[0]:
                raise RaceError(f"cores {other[1]} and {c} both write elements [{s0}, {min(e0, other[0])}) of global "
                                "memory argument #" + str(param) + "; nothing orders writes of different cores",
                                node=node, related=[(f"core {other[1]}'s write", other[2].loc)],
                                hint="give each core its own part of the output, e.g. offset it by "
                                     "asc.get_block_idx() * block_length")
            if e0 > best[0]:
                if best[1] != c:
                    second = best
                best = (e0, c, node)
            elif c != best[1] and e0 > second[0]:
                second = (e0, c, node)


__all__ = ["PipeModel", "RaceShadow", "check_gm_overlaps", "MTE2", "MTE3", "V", "S"]
