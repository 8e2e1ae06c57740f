"""The cross-core flags of one AI core (1 cube core + 2 vector cores, KERNEL_TYPE_MIX_AIC_1_2) and the
cooperative threads that run its three cores.

Counters (ascend-cube-facts §6): one per core and flag id; a set adds one, a wait blocks its core until
the counter is positive, then takes one; a counter holds at most 15 sets. Mode 2: a cube set raises both
vector cores' counters, and the cube's counter rises once both vector cores have set (one wait takes the
pair); mode 1: a vector core raises the other vector core's counter. Each set carries what its core knew
when it fired (a vector clock per core and pipe), and the wait that takes it learns it: the GM race
checker (`GmOrder`) asks that knowledge whether one core's access is ordered before another's.

The three cores run as threads of which exactly one runs at a time (deterministic): a core gives the
turn away only when it waits on a counter that is zero, or ends. If no core can run while one waits,
the wait is never satisfied: on the NPU the kernel would hang there."""
from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from ..errors import NotProvidedError, RaceError, SyncError
from ..graph.node import Node
from ..graph.ops.cross_core import MAX_PENDING

Knowledge = dict  # core id -> [epoch per pipe] of that core's pipes known to have run


def merge(a: Knowledge, b: Knowledge) -> Knowledge:
    out = dict(a)
    for k, v in b.items():
        mine = out.get(k)
        out[k] = list(v) if mine is None else [max(x, y) for x, y in zip(mine, v)]
    return out


@dataclass
class MixCore:
    """One core of an AI core: `kind` "aic" or "aiv", `local` 0 (cube), 1, 2 (vector), `gid` its id in the
    launch, `knowledge` what it has learnt through waits."""

    kind: str
    ai_core: int
    local: int
    gid: int
    knowledge: Knowledge = field(default_factory=dict)
    vc_of: Callable[[int], list] | None = None        # pipe index -> that pipe's vector clock now

    @property
    def name(self) -> str:
        return f"the cube core of AI core {self.ai_core}" if self.kind == "aic" else \
            f"vector core {self.gid} (AI core {self.ai_core}, sub-block {self.local - 1})"


class _Abort(BaseException):
    """Unwinds a core's thread when another core has failed."""


class CoreRunner:
    """Run one function per core as threads, one at a time (see the module docstring)."""

    def __init__(self, n: int) -> None:
        self.cv = threading.Condition()
        self.n = n
        self.turn = 0
        self.done = [False] * n
        self.waiting: dict[int, Callable[[], bool]] = {}
        self.abort = False
        self.stuck: int | None = None
        self.error: BaseException | None = None

    def run(self, fns: list[Callable[[], None]]) -> None:
        threads = [threading.Thread(target=self._main, args=(i, f), daemon=True) for i, f in enumerate(fns)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if self.error is not None:
            raise self.error

    def _main(self, i: int, fn: Callable[[], None]) -> None:
        with self.cv:
            while self.turn != i and not self.abort:
                self.cv.wait()
        try:
            if not self.abort:
                fn()
        except _Abort:
            pass
        except BaseException as exc:      # noqa: BLE001 - re-raised by run() in the caller's thread
            with self.cv:
                if self.error is None:
                    self.error = exc
                self.abort = True
        with self.cv:
            self.done[i] = True
            self._pass(i)

    def _pass(self, i: int) -> None:
        """Give the turn to the next core that can run (caller holds the lock)."""
        for k in range(1, self.n + 1):
            j = (i + k) % self.n
            if self.done[j]:
                continue
            ready = self.waiting.get(j)
            if ready is None or self.abort or ready():
                self.turn = j
                self.cv.notify_all()
                return
        stuck = next((j for j in range(self.n) if not self.done[j]), None)
        if stuck is not None:             # every core left waits for a counter nothing will raise
            self.stuck = stuck
            self.turn = stuck
            self.cv.notify_all()

    def block(self, i: int, ready: Callable[[], bool], hang: Callable[[], None]) -> None:
        """Core `i` (holding the turn) waits until `ready()`; `hang()` raises if it never can be."""
        with self.cv:
            while not ready():
                self.waiting[i] = ready
                self._pass(i)
                while self.turn != i and not self.abort:
                    self.cv.wait()
                if self.abort:
                    raise _Abort()
                if self.stuck == i:
                    self.waiting.pop(i, None)
                    hang()
            self.waiting.pop(i, None)


class FlagBoard:
    """The counters of one AI core: (core local index, flag id) -> the knowledge each pending set carries."""

    def __init__(self, cores: list[MixCore]) -> None:
        self.cores = cores
        # the vector cores present: two (1:2), or one when each Matmul client is paired with a cube core of its
        # own (graph/matmul_clients.py)
        self.vecs = tuple(c.local for c in cores if c.kind == "aiv")
        self.pending: dict[tuple[int, int], deque] = {}
        self.half: dict[tuple[int, int], deque] = {}      # mode 2 sets of one vector core to the cube
        self.setters: dict[tuple[int, int], Node] = {}

    def _push(self, key: tuple[int, int], k: Knowledge, node: Node, q: dict | None = None) -> None:
        q = self.pending if q is None else q
        d = q.setdefault(key, deque())
        if len(d) >= MAX_PENDING:
            raise SyncError(f"cross-core flag {key[1]} of {self.cores[key[0]].name} already holds {MAX_PENDING} sets "
                            "nobody has waited for: the counter saturates and this set would be lost on the NPU",
                            node=node, hint="the waiting core must keep up: wait once per set (auto_sync adds the "
                                            "acknowledgement that bounds how far the setter runs ahead)")
        d.append(k)
        self.setters[key] = node

    def set(self, core: MixCore, fid: int, mode: int, k: Knowledge, node: Node) -> None:
        if mode == 0:
            raise NotProvidedError("cross-core flags in mode 0 (all cube cores or all vector cores of the launch) "
                                   "are not provided by the simulator yet; modes 1 and 2 are", node=node)
        if mode == 1:
            if core.kind != "aiv":
                raise SyncError("a cross-core set in mode 1 synchronises the two vector cores of an AI core; the "
                                "cube core sets in mode 2", node=node)
            if len(self.vecs) != 2:
                raise SyncError("a cross-core set in mode 1 synchronises the two vector cores of an AI core, but in "
                                "pyasc's MIX Matmul mode each client runs here with a cube core of its own and no "
                                "partner vector core", node=node)
            self._push((3 - core.local, fid), k, node)
            return
        if core.kind == "aic":
            for v in self.vecs:
                self._push((v, fid), k, node)
            return
        if len(self.vecs) == 1:           # one vector core: its set raises the cube's counter
            self._push((0, fid), k, node)
            return
        self._push((core.local, fid), k, node, self.half)
        a, b = self.half.get((1, fid)), self.half.get((2, fid))
        if a and b:                       # both vector cores have set: the cube's counter rises once
            self._push((0, fid), merge(a.popleft(), b.popleft()), node)

    def ready(self, core: MixCore, fid: int) -> bool:
        return bool(self.pending.get((core.local, fid)))

    def take(self, core: MixCore, fid: int) -> Knowledge:
        return self.pending[(core.local, fid)].popleft()

    def finish(self, where: str) -> None:
        for (local, fid), d in sorted(self.pending.items()):
            if d:
                raise SyncError(f"the kernel ends with {len(d)} set(s) of cross-core flag {fid} that "
                                f"{self.cores[local].name} never waited for ({where}): the counter is left raised "
                                "for the next kernel", node=self.setters[(local, fid)],
                                hint="wait once per set, or drop the set")
        for (local, fid), d in sorted(self.half.items()):
            if d:
                raise SyncError(f"the kernel ends with a mode-2 set of cross-core flag {fid} from "
                                f"{self.cores[local].name} that the other vector core never matched: the cube core "
                                "counts the two vector cores' sets in pairs", node=self.setters[(local, fid)])


@dataclass(slots=True)
class _Access:
    lo: np.ndarray
    hi: np.ndarray
    write: bool
    core: MixCore
    pipe: int
    epoch: int
    node: Node
    kept: np.ndarray | None = None      # a write's bytes once applied, one row per start (GmOrder with arrays)


class GmOrder:
    """GM accesses of every core of a launch: an access must be ordered after every earlier access by
    another core to the same elements when either writes (within a core, the pipe model checks).

    With `arrays` (a run with data), two writes of different cores to the same elements are compared byte for
    byte once the second has run: identical bytes leave the same memory whichever lands last, an
    AscTraceWarning as for vector and cube kernels (runtime/equal_writes.py, cube_cores.py); different bytes a
    RaceError. A read of bytes another core writes stays a RaceError."""

    def __init__(self, names: dict[int, str], arrays: list | None = None) -> None:
        self.names = names
        self.log: dict[int, list[_Access]] = {}
        self.arrays = arrays
        self.warned = False

    def access(self, core: MixCore, pipe: int, epoch: int, gm: tuple, node: Node) -> Callable[[], None] | None:
        """Check the access; for a write of a run with data, returns what to call once it has run (it keeps the
        bytes and judges the writes of other cores to the same elements)."""
        # the cube's instructions carry one (param, row starts, row length, size, write), the vector
        # core's a tuple of (param, starts, count, size, write, ...)
        after: list[tuple] = []
        for g in ((gm,) if isinstance(gm[0], (int, np.integer)) else gm):
            param, starts, length, size, write = g[:5]
            lo = np.atleast_1d(np.asarray(starts, dtype=np.int64))
            hi = lo + int(length)
            hist = self.log.setdefault(param, [])
            k = core.knowledge
            pairs: list[tuple] = []
            for a in hist:
                if a.core is core or not (write or a.write):
                    continue
                known = k.get(a.core.gid)
                if known is not None and known[a.pipe] >= a.epoch:
                    continue
                hit = (a.lo[:, None] < hi[None, :]) & (lo[None, :] < a.hi[:, None])
                if hit.any():
                    i, j = np.argwhere(hit)[0]
                    if write and a.write and self.arrays is not None:
                        pairs.append((a, hit))      # judged by the bytes once this write has run
                        continue
                    self._race(a, core, node, write, param, max(a.lo[i], lo[j]), min(a.hi[i], hi[j]))
            acc = _Access(lo, hi, bool(write), core, pipe, epoch, node)
            hist.append(acc)
            if write and self.arrays is not None:
                after.append((acc, param, int(length), int(size), pairs))
        if not after:
            return None
        return lambda: self._written(core, node, after)

    def _written(self, core: MixCore, node: Node, after: list[tuple]) -> None:
        for acc, param, length, size, pairs in after:
            flat = self.arrays[param].reshape(-1).view(np.uint8)      # type: ignore[index]
            idx = acc.lo[:, None] * size + np.arange(length * size, dtype=np.int64)[None, :]
            acc.kept = flat[idx]        # fancy indexing: a copy, as written now
            for a, hit in pairs:
                for i, j in np.argwhere(hit):
                    lo, hi = max(a.lo[i], acc.lo[j]), min(a.hi[i], acc.hi[j])
                    mine = acc.kept[j][(lo - acc.lo[j]) * size:(hi - acc.lo[j]) * size]
                    theirs = None if a.kept is None else a.kept[i][(lo - a.lo[i]) * size:(hi - a.lo[i]) * size]
                    if theirs is None or not np.array_equal(mine, theirs):
                        self._race(a, core, node, True, param, lo, hi, differ=theirs is not None)
                lo, hi = max(a.lo[i], acc.lo[j]), min(a.hi[i], acc.hi[j])
                if not self.warned:
                    self.warned = True
                    import warnings
                    from ..errors import AscTraceWarning
                    warnings.warn_explicit(AscTraceWarning(
                        f"{a.core.name} and {core.name} both write elements [{int(lo)}, {int(hi)}) of GM argument "
                        f"'{self.names.get(param, param)}' with no cross-core flag ordering the writes; every write "
                        "of those bytes carried identical bytes in this run, so the result does not depend on which "
                        "lands last (only because the bytes are equal: data that makes them differ is a race)"),
                        AscTraceWarning, node.loc.file, node.loc.line)

    def _race(self, a: _Access, core: MixCore, node: Node, write: bool, param: int, lo: int, hi: int,
              differ: bool = False) -> None:
        what = lambda w: "writes" if w else "reads"     # noqa: E731
        raise RaceError(f"race on GM argument '{self.names.get(param, param)}' elements [{int(lo)}, {int(hi)}): "
                        f"{core.name} {what(write)} them here, {a.core.name} {what(a.write)} them at "
                        f"{a.node.loc.short}, and no cross-core flag orders the two"
                        + (" (and the two writes leave different bytes)" if differ else ""), node=node,
                        related=[(f"the other access ({a.core.name})", a.node.loc)],
                        hint="the cube core sets CrossCoreSetFlag<2, PIPE_FIX> after its Fixpipe and each vector "
                             "core waits before reading; a reused workspace needs the acknowledgement back "
                             "(auto_sync=True derives both)")
