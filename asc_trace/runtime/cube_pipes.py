"""The pipe model of one cube core: S (the scalar unit, which issues everything in program order),
MTE2 (GM -> L1), MTE1 (L1 -> L0A / L0B / bias table), M (Mmad) and FIX (Fixpipe), each an in-order queue.

The rules are the vector core's (graph/hb.py) on the cube's pipes: `set_flag(X_Y, id)` on X publishes X's
vector clock once X's earlier work is done, the `wait_flag` on Y consumes it (a wait whose flag is not set
blocks Y, and later Y instructions queue behind it); two sets without a wait between, a wait nothing can
satisfy and a flag left set at the end are errors. Every memory access is checked against the earlier
ones it overlaps: two accesses from different pipes, one a write, not ordered by happens-before, are a
race, reported with both source lines. Time: each pipe starts an instruction when it is free, issued and
(for a wait) its flag is set; `busy` sums each pipe's cycles."""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any

from ..enums import HardEvent
from ..errors import RaceError, SyncError
from ..graph.hb import Instr
from ..graph.node import Node, Pipe

PIPES = (Pipe.S, Pipe.MTE2, Pipe.MTE1, Pipe.M, Pipe.FIX)
PIDX = {p: i for i, p in enumerate(PIPES)}
NP = len(PIPES)
ISSUE_CYCLES = 1.0           # the scalar unit issues one instruction a cycle (an assumption, as for the vector core)


@dataclass(slots=True)
class Access:
    lo: int
    hi: int
    write: bool
    pipe: int
    epoch: int
    node: Node


@dataclass(slots=True)
class Flag:
    vc: list[int]
    node: Node
    time: float


def _key_text(key: Any) -> str:
    if key[0] == "uf":
        return f"the unit flag of L0C byte {key[1]} (waiting for it to be {key[2]})"
    ev, i = key
    return f"HardEvent.{ev.name} id {i}" if isinstance(ev, HardEvent) else str(key)


def _mem_text(mem: Any) -> str:
    if isinstance(mem, tuple):
        return f"GM argument #{mem[1]}"
    return {"l1": "L1", "l0a": "L0A", "l0b": "L0B", "l0c": "L0C", "bt": "the bias table"}[mem]


class CubePipes:
    def __init__(self, check: bool = True, trace: bool = False) -> None:
        self.log: list[tuple[int, float, float, Node]] | None = [] if trace else None   # (pipe, start, end, node)
        self.gm_log: list[tuple[tuple, Node]] | None = [] if check else None   # GM rows touched, for across cores
        self.vc = [[0] * NP for _ in range(NP)]
        self.queues: list[deque] = [deque() for _ in range(NP)]
        self.flags: dict[Any, Flag] = {}
        self.waited: dict[Any, tuple[int, int, Node]] = {}     # key -> (pipe, epoch, node) of the last wait
        self.backlog = 0
        self.check = check
        self.history: dict[Any, list[Access]] = {}
        self.free = [0.0] * NP          # when each pipe is free
        self.busy = [0.0] * NP
        # unitFlag: L0C base address -> (bit, clock and time of the instruction that last flipped it). Mmad
        # writes when the bit is 0, Fixpipe reads when it is 1; mode 3 flips it (Mmad -> 1, Fixpipe -> 0).
        self.unit: dict[int, tuple[int, list[int] | None, float]] = {}
        self.t_issue = 0.0
        self.end = 0.0

    # -- issue ---------------------------------------------------------------------------------------
    def issue(self, ins: Instr) -> None:
        self.t_issue += ISSUE_CYCLES
        ins.t_issue = self.t_issue
        p = PIDX.get(ins.pipe, 0) if ins.pipe is not None else 0
        if ins.kind == "barrier_all":
            self.drain()
            if self.backlog:
                blocked = next(q[0] for q in self.queues if q)
                self._hang(blocked, ins)
            self._execute(ins, 0)
            return
        if p == 0:
            if ins.kind == "wait" and ins.key not in self.flags:
                self.drain()
                if ins.key not in self.flags:
                    self._hang(ins)
            self._execute(ins, 0)
            return
        if self.queues[p] or not self._ready(ins):
            ins.issue_vc = self.vc[0][:]
            self.queues[p].append(ins)
            self.backlog += 1
            return
        self._execute(ins, p)
        if self.backlog and (ins.kind == "set" or ins.key is not None):
            self.drain()

    def _ready(self, ins: Instr) -> bool:
        """Whether a pipe's head instruction can run: a wait once its flag is set; an Mmad / Fixpipe with a
        unit flag once its L0C block's bit has the value it needs (ascend-cube-facts §4, unitFlag)."""
        if ins.kind == "wait":
            return ins.key in self.flags
        if ins.key is not None and ins.kind == "op":
            return self.unit.get(ins.key[1], (0,))[0] == ins.key[2]
        return True

    def drain(self) -> None:
        progress = True
        while progress and self.backlog:
            progress = False
            for p in range(1, NP):
                q = self.queues[p]
                while q:
                    head = q[0]
                    if not self._ready(head):
                        break
                    q.popleft()
                    self.backlog -= 1
                    self._execute(head, p)
                    progress = True

    # -- execution -----------------------------------------------------------------------------------
    def _execute(self, ins: Instr, p: int) -> None:
        vc = self.vc[p]
        src = ins.issue_vc if ins.issue_vc is not None else self.vc[0]
        for i in range(NP):
            if src[i] > vc[i]:
                vc[i] = src[i]
        vc[p] += 1
        ins.epoch = vc[p]
        start = max(self.free[p], ins.t_issue)
        kind = ins.kind
        if kind == "wait":
            flag = self.flags.pop(ins.key)
            for i in range(NP):
                if flag.vc[i] > vc[i]:
                    vc[i] = flag.vc[i]
            start = max(start, flag.time)
            self.waited[ins.key] = (p, vc[p], ins.node)
        elif kind == "set":
            self._check_set(ins, vc)
        elif kind == "op" and ins.key is not None:       # a unit flag: ordered after the last flip
            _bit, fvc, ftime = self.unit.get(ins.key[1], (0, None, 0.0))
            if fvc is not None:
                for i in range(NP):
                    if fvc[i] > vc[i]:
                        vc[i] = fvc[i]
                start = max(start, ftime)
        elif kind == "barrier_all":
            t = max(self.free)
            for q in range(NP):
                for i in range(NP):
                    if self.vc[q][i] > vc[i]:
                        vc[i] = self.vc[q][i]
            for q in range(NP):
                self.vc[q][:] = vc
                self.free[q] = max(self.free[q], t)
            start = max(start, t)
        cost = ins.work if kind == "op" else 0.0
        ins.start, ins.end = start, start + cost
        self.free[p] = ins.end
        self.busy[p] += cost
        self.end = max(self.end, ins.end)
        if kind == "op":
            if self.log is not None:
                self.log.append((p, ins.start, ins.end, ins.node))
            if self.gm_log is not None and ins.gm:
                self.gm_log.append((ins.gm, ins.node))
            if self.check and ins.ub:
                self._check_races(ins, p, vc)
            if ins.apply is not None:
                ins.apply()
        if kind == "set":
            self.flags[ins.key] = Flag(vc[:], ins.node, ins.end)
        elif kind == "op" and ins.key is not None and ins.key[3]:
            self.unit[ins.key[1]] = (1 - ins.key[2], vc[:], ins.end)

    def _check_set(self, ins: Instr, vc: list[int]) -> None:
        prev = self.flags.get(ins.key)
        if prev is not None:
            raise SyncError(f"set_flag of {_key_text(ins.key)} while the flag is still set: nothing waited for the "
                            "previous set (two sets without a wait are undefined behaviour on the NPU)", node=ins.node,
                            related=[("the previous set", prev.node.loc)],
                            hint="each set_flag needs exactly one wait_flag before the same event id is set again")
        mark = self.waited.get(ins.key)
        if mark is not None and vc[mark[0]] < mark[1]:
            raise SyncError(f"set_flag of {_key_text(ins.key)} can run before the wait_flag that consumes the previous "
                            "set: nothing orders that wait before this set, so on the NPU the flag may be set twice",
                            node=ins.node, related=[("the previous wait", mark[2].loc)],
                            hint="order the waiting pipe before the setting pipe, or alternate event ids")

    def _hang(self, ins: Instr, barrier: Instr | None = None) -> None:
        extra = [("the PIPE_ALL barrier that cannot pass it", barrier.node.loc)] if barrier is not None else []
        what = "this instruction's wait for" if ins.kind == "op" else "wait_flag of"
        raise SyncError(f"{what} {_key_text(ins.key)} is never satisfied: nothing that can run before it sets it, "
                        "so on the NPU the kernel would hang here", node=ins.node, related=extra,
                        hint="add the matching set_flag on the source pipe (a 'buffer free' flag is set once "
                             "before the loop), or remove this wait")

    # -- races -----------------------------------------------------------------------------------------
    def _check_races(self, ins: Instr, p: int, vc: list[int]) -> None:
        for mem, lo, hi, write in ins.ub:
            if hi <= lo:
                continue
            hist = self.history.setdefault(mem, [])
            keep: list[Access] = []
            for a in hist:
                if a.hi <= lo or a.lo >= hi:
                    keep.append(a)
                    continue
                ordered = a.epoch <= vc[a.pipe]
                if not ordered and (write or a.write):
                    self._race(a, ins, p, mem, max(lo, a.lo), min(hi, a.hi), write)
                # an access before this one and inside its range is covered by it: a write covers anything,
                # a read covers reads (a write it does not cover still conflicts with later reads)
                if not (ordered and lo <= a.lo and a.hi <= hi and (write or not a.write)):
                    keep.append(a)
            keep.append(Access(lo, hi, write, p, vc[p], ins.node))
            self.history[mem] = keep

    def _race(self, a: Access, ins: Instr, p: int, mem: Any, lo: int, hi: int, write: bool) -> None:
        what = lambda w: "writes" if w else "reads"     # noqa: E731
        raise RaceError(f"race on {_mem_text(mem)} bytes [{lo}, {hi}): {PIPES[p].value} {what(write)} them here while "
                        f"{PIPES[a.pipe].value} {what(a.write)} them at {a.node.loc.short}, and nothing orders the "
                        "two (no set_flag / wait_flag between the pipes)", node=ins.node,
                        related=[(f"the other access ({PIPES[a.pipe].value})", a.node.loc)],
                        hint=f"add set_flag / wait_flag of HardEvent.{PIPES[a.pipe].value}_{PIPES[p].value} between "
                             "them, or let auto_sync=True derive the flags")

    # -- end ---------------------------------------------------------------------------------------------
    def finish(self) -> None:
        self.drain()
        for q in self.queues:
            if q:
                self._hang(q[0])
        for key, flag in self.flags.items():
            raise SyncError(f"the kernel ends with {_key_text(key)} still set: its set_flag has no wait_flag, which "
                            "leaves the flag set for the next kernel on this core", node=flag.node,
                            hint="add the matching wait_flag (drain 'buffer free' flags after the loop), or remove "
                                 "this set_flag")

    def pipe_busy(self) -> dict[str, float]:
        return {PIPES[i].value: self.busy[i] for i in range(1, NP)}
