"""A warm launch: a checked launch key run again as the straight list of batched loops it came to.

A launch whose checks passed runs in program order with its loops batched (runtime/batch.py). Everything
that run decides besides the data - which nodes run, every address, count, loop bound and branch, which
batch plan each loop takes - is fixed by the launch key (runtime/sim.py `launch_key`: core count,
scalars, array shapes and dtypes, aliasing), unless values read from the UB steer the kernel, and such a
kernel has no launch key. So the first verified run of a key is recorded (the batched loops it ran, with
their plans and iteration counts); when nothing else in it had a data effect (the other nodes only
define tensors, queues and events), the next launches of that key run those plans alone, on the new
arguments' arrays: no interpreter, no Machine, no operand evaluation.

The UB is needed only when a loop reads UB bytes that it does not write itself (what an earlier loop
left there, or the poison of bytes nothing wrote; an accumulator's first value): then every loop leaves its last writes in a poisoned
UB from the pool, as program order does; otherwise the UB of a replay is never touched and none is taken.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .batch import LoopBatch, Plan
from .machine import UB_POOL

Step = tuple[LoopBatch, Plan, int]     # a batched loop, the plan it ran, its iteration count


class _Memory:
    """What a plan's execution reads of a machine: the arguments' arrays, the core count, the UB."""

    __slots__ = ("gm", "C", "ub")

    def __init__(self, gm: list, C: int, ub: np.ndarray | None) -> None:
        self.gm, self.C, self.ub = gm, C, ub


class Replay:
    """The batched loops of a recorded launch, per group of cores (`groups`: (core count, steps))."""

    __slots__ = ("groups", "uses_ub", "ub_hi", "empty")

    def __init__(self, groups: list[tuple[int, list[Step]]]) -> None:
        self.groups = groups
        self.empty = not any(steps for _, steps in groups)     # a kernel with nothing to compute
        plans = [p for _, steps in groups for _, p, _ in steps]
        self.uses_ub = any(src[0] in ("ub", "carry") for p in plans for srcs in p.sources for src in srcs)
        # the UB bytes the write-backs may touch: poisoned again when the UB goes back to the pool
        self.ub_hi = max((int(op.dst.addr.max()) + op.dst.nbytes for p in plans for op in p.ops
                          if op.kind in ("load", "ub_copy", "elementwise")), default=0)

    def run(self, arrays: list[np.ndarray | None]) -> None:
        if self.empty:
            return
        with np.errstate(all="ignore"):
            for C, steps in self.groups:
                ub = UB_POOL.take(C) if self.uses_ub else None
                mem = _Memory(arrays, C, ub)
                try:
                    for lb, plan, count in steps:
                        lb.execute(mem, plan, count, ub is not None)
                finally:
                    if ub is not None:
                        UB_POOL.give(ub, self.ub_hi)


class Recorder:
    """Collects what each group of a verified run did (runtime/sim.py drives it) and makes the Replay."""

    def __init__(self) -> None:
        self.groups: list[tuple[int, list[Step]]] = []
        self.ok = True

    def run_group(self, interp: Any, m: Any) -> None:
        """Run one group's machine on the batch interpreter `interp`, recording."""
        interp.record, interp.replayable = [], True
        try:
            interp.run(m)
            if interp.replayable:
                self.groups.append((m.C, interp.record))
            else:
                self.ok = False
        finally:
            interp.record = None

    def replay(self) -> Replay | None:
        return Replay(self.groups) if self.ok and self.groups else None
