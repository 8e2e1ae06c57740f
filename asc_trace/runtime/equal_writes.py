"""Vector cores writing the same GM bytes: the verdict that needs the data.

Cores run independently, so two cores writing the same GM element leave whichever write lands last. When
every write of those bytes carries the same bytes, every order leaves the same memory: the result is
defined, as on the NPU (a DMA write of a byte is that byte, whoever issues it), and the launch is an
AscTraceWarning, as for the cube (runtime/cube_cores.py). When two of those writes differ (also two writes of
one core, X then Y, against another core's X: that X may land last), it is a RaceError. A core reading bytes
another core writes stays a RaceError whatever the bytes (runtime/race_check.py finds it first).

The address check (race_check.py `check_cross_core`) runs without data, so it raises `EqualWritesUnknown`
when the only conflicts are such writes; `writes_differ` then runs the kernel core by core in program
order on copies of the arguments, keeping the bytes of every GM write (the journal each GM write already goes
through hands them over). Program order is the pipes' order
for such a kernel: the address check passed everything but these writes."""
from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ..errors import AscTraceWarning, RaceError
from .base import LaunchJob
from .machine import GmJournal, Machine
from .race_check import EqualWritesUnknown


def _ptr(a: np.ndarray) -> int:
    return int(a.__array_interface__["data"][0])


def _byte_addrs(v: np.ndarray) -> np.ndarray:
    """The address of every byte of view `v`, in its elements' C order."""
    off = np.full(v.shape, _ptr(v), dtype=np.int64)
    for k, (n, s) in enumerate(zip(v.shape, v.strides)):
        off = off + (np.arange(n, dtype=np.int64) * s).reshape([-1 if j == k else 1 for j in range(v.ndim)])
    return (off.reshape(-1)[:, None] + np.arange(v.itemsize, dtype=np.int64)[None, :]).reshape(-1)


class _Shadow:
    """One argument's bytes as its writes left them: the first bytes written, the core, and whether a later
    write of another core came (`multi`) or a later write differed (`differs`)."""

    def __init__(self, nbytes: int) -> None:
        self.val = np.zeros(nbytes, dtype=np.uint8)
        self.owner = np.full(nbytes, -1, dtype=np.int64)
        self.multi = np.zeros(nbytes, dtype=bool)
        self.differs = np.zeros(nbytes, dtype=bool)
        self.other = np.full(nbytes, -1, dtype=np.int64)     # a core whose write differs from the first core's

    def write(self, core: int, at: np.ndarray, data: np.ndarray) -> None:
        old = self.owner[at] >= 0
        o, x = at[old], data[old]
        diff = self.val[o] != x
        self.differs[o] |= diff
        first = o[diff & (self.owner[o] != core)]
        self.other[first[self.other[first] < 0]] = core
        self.multi[o] |= self.owner[o] != core
        n = at[~old]
        self.val[n], self.owner[n] = data[~old], core


class _WitnessJournal(GmJournal):
    """A journal that also hands each GM write's bytes to the shadows (read back after the write: at the next
    write, and at `flush`)."""

    def __init__(self, arrays: list[np.ndarray | None], shadows: dict[int, _Shadow], core: int) -> None:
        super().__init__()
        self.bases = [(_ptr(a), a.nbytes, i) for i, a in enumerate(arrays) if a is not None and a.nbytes]
        self.shadows, self.core = shadows, core
        self.pending: tuple[Any, np.ndarray] | None = None     # (view written or _Later, its byte addresses)

    def save(self, target: np.ndarray) -> None:
        self.flush()
        super().save(target)
        self.pending = (target, _byte_addrs(target))

    def save_at(self, arr: np.ndarray, where: np.ndarray) -> None:
        self.flush()
        super().save_at(arr, where)
        w = np.asarray(where, dtype=np.int64).reshape(-1)
        if arr.ndim == 1:
            addrs = ((_ptr(arr) + w * arr.strides[0])[:, None] + np.arange(arr.itemsize, dtype=np.int64)).reshape(-1)
        else:
            addrs = _byte_addrs(arr)[_elem_bytes(w, arr.itemsize)]
        self.pending = (_Later(arr, where), addrs)     # type: ignore[assignment]

    def flush(self) -> None:
        if self.pending is None:
            return
        v, addrs = self.pending
        self.pending = None
        data = v.now() if isinstance(v, _Later) else np.ascontiguousarray(v).view(np.uint8).reshape(-1)
        for base, nbytes, i in self.bases:
            inside = (addrs >= base) & (addrs < base + nbytes)
            if inside.any():
                sh = self.shadows.setdefault(i, _Shadow(nbytes))
                sh.write(self.core, addrs[inside] - base, data[inside])


class _Later:
    """`arr[where]` as it is after the write (fancy indexing copies, so it is read back when flushed)."""

    def __init__(self, arr: np.ndarray, where: np.ndarray) -> None:
        self.arr, self.where = arr, where

    def now(self) -> np.ndarray:
        return np.ascontiguousarray(self.arr[self.where]).view(np.uint8).reshape(-1)


def _elem_bytes(where: np.ndarray, size: int) -> np.ndarray:
    """Byte indices (into a 1-D array's byte addresses) of elements `where`."""
    w = np.asarray(where, dtype=np.int64).reshape(-1)
    return (w[:, None] * size + np.arange(size, dtype=np.int64)[None, :]).reshape(-1)


def writes_differ(graph: Any, job: LaunchJob, simulator: type) -> tuple[int, int, tuple[int, int] | None] | None:
    """(argument index, first element, the two cores if known) where two cores' writes leave different bytes,
    or None when every GM
    byte written by two cores got the same bytes from every write. Runs each core alone in program order on
    copies of the arguments (the caller's are untouched)."""
    arrays = [None if a is None else a.copy() for a in job.bound.arrays]
    shadows: dict[int, _Shadow] = {}
    sim = simulator(graph)
    for core in range(job.core_num):
        journal = _WitnessJournal(arrays, shadows, core)
        m = Machine(np.array([core]), job.core_num, arrays, job.bound.scalars, journal)
        try:
            sim.run_program_order(m)
            journal.flush()
        finally:
            m.release()
            journal.rollback()          # the next core starts from the arguments as given
    for i in sorted(shadows):
        sh = shadows[i]
        bad = np.flatnonzero(sh.differs & sh.multi)
        if bad.size:
            b = int(bad[0])
            pair = (int(sh.owner[b]), int(sh.other[b])) if sh.other[b] >= 0 else None
            return i, b // arrays[i].itemsize, pair     # type: ignore[union-attr]
    return None


def judge(graph: Any, job: LaunchJob, err: EqualWritesUnknown, simulator: type) -> None:
    """Raise the RaceError when the writes differ (or cannot be compared), else warn at the second writer.
    `simulator`: runtime/sim.py's Simulator (passed in: sim.py imports this module)."""
    if job.bound.signature.shared:
        raise err           # copies would not share memory as the arguments do
    hit = writes_differ(graph, job, simulator)
    if hit is not None:
        param, elem, pair = hit
        pname = next((p.name for p in job.bound.signature.params if p.index == param), None)
        name, e0, e1, first, second, cores = next((h for h in err.hits if h[0] == pname and h[1] <= elem < h[2]),
                                                  next((h for h in err.hits if h[0] == pname), err.hits[0]))
        cores = sorted(pair) if pair is not None else cores
        raise RaceError(f"cores {cores[0]} and {cores[1]} both write element {elem} of global memory argument "
                        f"'{name}' and the writes leave different bytes; nothing orders writes of different cores "
                        "(on the NPU either may land last)", node=second, related=[("the other write", first.loc)],
                        hint="give each core its own part of the output, e.g. offset it by "
                             "asc.get_block_idx() * block_length")
    name, e0, e1, _first, second, cores = err.hits[0]
    warnings.warn_explicit(AscTraceWarning(
        f"cores {cores[0]} and {cores[1]} both write elements [{e0}, {e1}) of global memory argument '{name}' with "
        "nothing ordering the writes; every write of those bytes carried identical bytes in this run, so the result "
        "does not depend on which lands last (only because the bytes are equal: data that makes them differ is a "
        "race)"), AscTraceWarning, second.loc.file, second.loc.line)


__all__ = ["EqualWritesUnknown", "judge", "writes_differ"]
