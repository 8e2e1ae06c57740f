"""A warm launch: a checked launch key run again as the straight tape of NumPy calls it came to.

A launch whose checks passed runs in program order with its loops batched (runtime/batch.py). Everything
that run decides besides the data - which nodes run, every address, count, loop bound and branch, which
batch plan each loop takes - is fixed by the launch key (runtime/sim.py `launch_key`: core count,
scalars, array shapes and dtypes, aliasing), unless values read from the UB steer the kernel, and such a
kernel has no launch key. So the first verified run of a key is recorded as a tape (runtime/tape.py):
each instruction's data effect with its operands already evaluated (the UB views of a machine the tape
keeps, the GM element ranges of the copies), each batched loop with its plan, and each loop whose
iterations are independent as one run over a stacked axis (runtime/tape_vector.py). The next launches of
that key run the tape alone, on the new arguments' arrays: no interpreter, no operand evaluation.

Values read from the UB (get_value) that feed an op's scalar operand are the only values a tape computes
again: the op is bound again with the launch's values (its addresses, which such values never steer, are
the same). Bytes a launch reads before writing them hold the poison, as in a fresh launch: the tape
poisons them again before each run. A tape runs under a lock: a second thread launching the same key at
once takes the interpreter instead.
"""
from __future__ import annotations

import threading
from typing import Any, Callable

import numpy as np

from .. import config
from . import value_memo
from .tape import TapeBuilder

Entry = Callable[[list], None]


class Replay:
    """The tape of a recorded launch: `entries` run in order on the arguments' arrays, after `poison`."""

    __slots__ = ("entries", "poison", "uses_ub", "empty", "lock", "builders", "loop_counts", "rows")

    def __init__(self, builders: list[TapeBuilder]) -> None:
        self.builders = builders
        self.entries: list[Entry] = [e for b in builders for e in b.entries]
        self.poison: list[tuple[np.ndarray, int, int]] = [(b.ub, lo, hi) for b in builders for lo, hi in b.poison]
        self.uses_ub = any(b.ub is not None for b in builders)
        self.loop_counts = [n for b in builders for n in b.loop_counts]     # the batched loops' iterations
        self.rows = [n for b in builders for n in b.rows]       # those of the loops run over a stacked axis
        self.empty = not self.entries
        self.lock = threading.Lock()

    def run(self, arrays: list[np.ndarray | None]) -> bool:
        """Run the tape on `arrays`; False (nothing done) when another thread is running it."""
        if self.empty:
            return True
        if not self.lock.acquire(blocking=False):
            return False
        prev = value_memo.begin()       # a transcendental computed once per value in this run
        try:
            with np.errstate(all="ignore"):
                for ub, lo, hi in self.poison:
                    ub[:, lo:hi] = config.UB_POISON_BYTE
                for e in self.entries:
                    e(arrays)
        finally:
            value_memo.end(prev)
            self.lock.release()
        return True


class Recorder:
    """Collects what each group of a verified run did (runtime/sim.py drives it) and makes the Replay."""

    def __init__(self) -> None:
        self.builders: list[TapeBuilder] = []
        self.ok = True

    def run_group(self, interp: Any, m: Any) -> None:
        """Run one group's machine on the batch interpreter `interp`, recording its tape."""
        b = TapeBuilder(m, interp)
        interp.tape = b
        try:
            interp.run(m)
        finally:
            interp.tape = None
        if any(m.out):
            b.fail()                # printf output happens as the node is bound: only a run prints it
        if self.ok and b.ok:
            b.finish()
            self.builders.append(b)
        else:
            self.ok = False

    def replay(self) -> Replay | None:
        return Replay(self.builders) if self.ok and self.builders else None
