"""Recording a verified run as a tape (runtime/replay.py runs it): one entry per data effect, each a
closure over operands that the launch key fixes.

- an instruction that touches only the UB (vector ops, reductions, casts, get_value / set_value, UB to
  UB copies) is its own `apply`, bound to the views of the machine the tape keeps; when a scalar
  operand is computed from values read from the UB, the node is bound again at each run, with the
  run's values (its addresses never depend on them: such a kernel has no launch key);
- a copy between GM and the UB (the count form) is the copy between the kept UB view and the same
  element range of the run's array, made by the store rules of runtime/machine.py `gm_access`;
- a batched loop is its plan (runtime/batch.py), its scalars evaluated again when they come from data;
- anything else (printf, other GM accesses, a value a branch computes from data) makes the launch
  one that is not replayed.

What the UB bytes each entry reads held when the launch reached it decides two things: the bytes read
before anything wrote them are poisoned again before each run (a fresh launch reads the poison there),
and a batched loop leaves its last writes in the UB only when a later entry reads the UB.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable

import numpy as np

from .. import config
from ..graph.expr import free_vars
from ..graph.node import exprs_in
from ..graph.ops import REGISTRY
from ..graph.ops.cmpmask import reads_cmpmask
from .batch_ops import Gm, Grid

Entry = Callable[[list], None]
# families whose instructions touch only the UB through the views bound when the node ran
_UB_ONLY = frozenset({"vec_binary", "vec_unary", "vec_scalar", "vec_duplicate", "vec_cast", "vec_cmpsel",
                      "vec_reduce", "vec_whole_reduce", "scalar", "adv"})


class _Memory:
    """What a plan's execution reads of a machine: the arguments' arrays, the core count, the UB."""

    __slots__ = ("gm", "C", "ub", "env")

    def __init__(self, gm: list | None, C: int, ub: np.ndarray | None, env: dict | None = None) -> None:
        self.gm, self.C, self.ub, self.env = gm, C, ub, env


class TapeBuilder:
    """The tape of one group of cores, built while the batch interpreter `interp` runs machine `m`."""

    MAX_ENTRIES = 1 << 14      # a longer launch (an unbatched loop of many iterations) is not kept

    def __init__(self, m: Any, interp: Any) -> None:
        self.m = m
        self.interp = interp
        self.ok = True
        self.entries: list[Entry] = []
        self.reads: list[bool] = []            # per entry: whether it reads UB bytes
        self.loops: list[tuple[int, list]] = []   # (entry index, its write-back cell)
        self.loop_counts: list[int] = []          # each batched loop's iteration count, in order
        self.written = np.zeros(config.UB_BYTES, bool)
        self.poison: list[tuple[int, int]] = []
        self.ub: np.ndarray | None = m.ub
        self.mem = _Memory(None, m.C, m.ub)
        self._keys: dict[int, tuple[str, ...]] = {}
        self.probe: Any = None                    # runtime/tape_vector.py `Rows` while a loop is watched
        self.rows: list[int] = []                 # the iteration counts of the loops run over a stacked axis

    # -- while the run goes ------------------------------------------------------------------------------
    def fail(self) -> None:
        self.ok = False
        self.entries.clear()

    def _add(self, e: Entry, reads: bool) -> None:
        self.entries.append(e)
        self.reads.append(reads)
        if len(self.entries) > self.MAX_ENTRIES:
            self.fail()

    def _read(self, lo: int, hi: int) -> None:
        if not self.written[lo:hi].all():
            self.poison.append((lo, hi))

    def data_keys(self, node: Any) -> tuple[str, ...]:
        """The env keys of values read from the UB that the node's operands use."""
        keys = self._keys.get(node.id)
        if keys is None:
            used = {v.env_key for e in exprs_in(node.args) for v in free_vars(e)}
            keys = self._keys[node.id] = tuple(sorted(used & self.interp.data_keys))
        return keys

    def node(self, st: Any, ins: Any) -> None:
        """Instruction `ins` of step `st` has just been applied."""
        if not self.ok:
            return
        node = ins.node
        fam = REGISTRY[node.op].family
        if fam not in _UB_ONLY and fam != "data_copy":     # a UB to UB copy is UB-only too
            return self.fail()
        if reads_cmpmask(node):         # the CMPMASK register a replay would find as the last run left it
            return self.fail()
        reads = False
        probe = self.probe
        for addr, nbytes, write in ins.ub:
            if not write:
                self._read(addr, addr + nbytes)
                reads = True
                if probe is not None:
                    probe.ub(addr, addr + nbytes, False)
        for addr, nbytes, write in ins.ub:
            if write:
                self.written[addr:addr + nbytes] = True
                if probe is not None:
                    probe.ub(addr, addr + nbytes, True)
        if probe is not None:
            for param, start, count, _isz, write, _s0, _step in ins.gm:
                probe.gm(param, start, start + count, write)
        if ins.gm:
            e = self._copy(node, ins)
            if e is None:
                return self.fail()
            return self._add(e, reads)
        keys = self.data_keys(node)
        if keys:
            self._add(self._rebind(st.fn, keys), reads)
        else:
            apply = ins.apply
            self._add(lambda arrays: apply(), reads)

    def loop(self, lb: Any, plan: Any, count: int, values: np.ndarray) -> None:
        """Batched loop `lb` has just run `count` iterations by `plan`."""
        if not self.ok:
            return
        reads = False
        probe = self.probe
        for srcs in plan.sources:
            for src in srcs:
                if src[0] in ("ub", "carry"):
                    u = src[1]
                    for a in np.unique(u.addr).tolist():
                        self._read(a, a + u.nbytes)
                        if probe is not None:
                            probe.ub(a, a + u.nbytes, False)
                    reads = True
        for op in plan.ops:
            if op.kind in ("load", "ub_copy", "elementwise"):
                for a in np.unique(op.dst.addr).tolist():
                    self.written[a:a + op.dst.nbytes] = True
                    if probe is not None:
                        probe.ub(a, a + op.dst.nbytes, True)
            if probe is not None:
                for x in (op.dst, *op.srcs):
                    if isinstance(x, Gm):
                        probe.gm(x.param, x.start.min(axis=0), x.start.max(axis=0) + x.count,
                                 x is op.dst and op.kind == "store")
        mem, wb = self.mem, [True]
        self.loops.append((len(self.entries), wb))
        self.loop_counts.append(count)
        if not lb.revalue:
            def run(arrays: list) -> None:
                mem.gm = arrays
                lb.execute(mem, plan, count, wb[0])
            return self._add(run, reads)
        # its element-wise scalars come from data: evaluated again from this run's values
        m, key = self.m, lb.step.key
        snap = dict(m.env)
        keys = tuple(k for k in snap if k in self.interp.data_keys)

        # the tape's own copies of the ops whose scalar comes from data (a replay runs under its lock, so
        # setting their scalar at each run is safe; the loop's cached plan is left alone)
        own = [replace(op) if op.scalar_of is not None else op for op in plan.ops]
        p = replace(plan, ops=own)
        revalued = [op for op in own if op.scalar_of is not None]

        def run_revalued(arrays: list) -> None:
            env = dict(snap)
            live = m.env
            for k in keys:
                env[k] = live[k]
            g = Grid(_Memory(None, mem.C, None, env), key, values)
            for op in revalued:
                op.scalar = op.scalar_of(g)
            mem.gm = arrays
            lb.execute(mem, p, count, wb[0])
        self._add(run_revalued, reads)

    # -- the entries -------------------------------------------------------------------------------------
    def _rebind(self, fn: Callable, keys: tuple[str, ...]) -> Entry:
        m = self.m
        snap = dict(m.env)
        roots = dict(m.roots)       # the tensors as they were then (a multi-buffered one moves per iteration)

        def run(arrays: list) -> None:
            live, live_roots = m.env, m.roots
            env = dict(snap)
            for k in keys:
                env[k] = live[k]
            m.env, m.roots = env, roots
            try:
                ins = fn(m)
            finally:
                m.env, m.roots = live, live_roots
            if ins is not None and ins.apply is not None:
                ins.apply()
        return run

    def _copy(self, node: Any, ins: Any) -> Entry | None:
        """A count-form copy between GM and the UB, or None for any other GM access."""
        if node.op != "data_copy" or node.attr("form") == "params" or len(ins.gm) != 1 or len(ins.ub) != 1:
            return None
        d, s = node.args[0], node.args[1]
        param, start, count, _isz, write, _s0, _step = ins.gm[0]
        addr, nbytes, _ = ins.ub[0]
        ref = s if write else d
        view = self.m.ub[:, addr:addr + nbytes].view(ref.dtype.np)
        C = self.m.C
        return gm_store(view, param, start, count, C) if write else gm_load(view, param, start, count, C)

    def truncate(self, pos: int, counts: int) -> None:
        """Drop the entries from `pos` on and the loop counts from `counts` on (a loop's iterations,
        replaced by its stacked run)."""
        del self.entries[pos:], self.reads[pos:], self.loop_counts[counts:]
        self.loops = [(i, cell) for i, cell in self.loops if i < pos]

    def add_region(self, entries: list[Entry], enter_reads: bool, exit_cell: list) -> None:
        """A loop run over a stacked axis (runtime/tape_vector.py): its entering copy, its own machine's
        entries, and its exit, whose copy back into this UB runs when a later entry reads the UB."""
        self._add(entries[0], enter_reads)
        for e in entries[1:-1]:
            self._add(e, False)
        self.loops.append((len(self.entries), exit_cell))
        self._add(entries[-1], False)

    def finish(self, tail_reads: bool = False) -> None:
        """Decide the batched loops' write-backs and whether the UB is needed at all; keep the machine
        (`tail_reads`: something after this tape reads its UB)."""
        later = tail_reads
        wbs = dict(self.loops)
        for i in range(len(self.entries) - 1, -1, -1):
            cell = wbs.get(i)
            if cell is not None:
                cell[0] = later          # a later entry reads the UB: leave the loop's last writes there
            later = later or self.reads[i]
        self.poison = sorted(set(self.poison))
        only_loops = len(self.loops) == len(self.entries)
        if only_loops and not any(self.reads) and not tail_reads:
            self.ub = self.mem.ub = None       # nothing reads the UB: the replay needs none
        else:
            self.m.keep = True                 # the entries hold views of its UB


def _progression(start: np.ndarray, C: int) -> tuple[int, int, bool]:
    st = start.astype(np.int64, copy=False)
    s0 = int(st[0])
    step = int(st[1] - st[0]) if C > 1 else 0
    return s0, step, C == 1 or bool(np.all(np.diff(st) == step))


def _rows(arr: np.ndarray, s0: int, step: int, count: int, C: int) -> np.ndarray:
    """The (C, count) elements of `arr` from s0, step apart (step >= 0), as a writable view."""
    isz = arr.itemsize
    if arr.flags.c_contiguous:       # the plain constructor: as_strided's checks cost more than the copy
        return np.ndarray((C, count), arr.dtype, arr, s0 * isz, (step * isz, isz))
    from numpy.lib.stride_tricks import as_strided
    return as_strided(arr[s0:], shape=(C, count), strides=(step * arr.strides[0], arr.strides[0]))


def gm_load(view: np.ndarray, param: int, start: Any, count: int, C: int) -> Entry:
    """UB view <- `count` elements per core of argument `param` from `start` (machine.gm_rows's rule)."""
    if not isinstance(start, np.ndarray):
        s, e = int(start), int(start) + count

        def run_one(arrays: list) -> None:
            view[...] = arrays[param][s:e]
        return run_one
    s0, step, ap = _progression(start, C)
    if ap and step >= 0:
        def run_rows(arrays: list) -> None:
            view[...] = _rows(arrays[param], s0, step, count, C)
        return run_rows
    idx = start.astype(np.int64)[:, None] + np.arange(count)

    def run_gather(arrays: list) -> None:
        view[...] = arrays[param][idx]
    return run_gather


def gm_store(view: np.ndarray, param: int, start: Any, count: int, C: int) -> Entry:
    """`count` elements per core of argument `param` from `start` <- UB view (machine.gm_access's rule:
    cores that write the same range land in core order)."""
    if not isinstance(start, np.ndarray):
        s, e = int(start), int(start) + count

        def run_one(arrays: list) -> None:
            arrays[param][s:e] = view[-1]
        return run_one
    s0, step, ap = _progression(start, C)
    if C == 1 or (ap and step >= count):
        def run_rows(arrays: list) -> None:
            _rows(arrays[param], s0, step, count, C)[...] = view
        return run_rows
    starts = [int(v) for v in start.tolist()]

    def run_each(arrays: list) -> None:
        arr = arrays[param]
        for c, s in enumerate(starts):
            arr[s:s + count] = view[c]
    return run_each
