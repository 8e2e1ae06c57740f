"""The simulator's race checker: graph/hazards.py applied to the concrete accesses of one group of
cores that run in lockstep, as the pipe model (runtime/pipes.py) executes them.

Per memory space (the UB, and each GM argument some instruction writes) and per pipe, the checker
keeps the last write and the last read of every byte, as run-length intervals (`IntervalMap`): an
access conflicts with another pipe's access to the same bytes (at least one a write) unless that
access happened before it (its epoch is within this pipe's vector clock), and with an access of its
own pipe when hazards.needs_barrier says so and no barrier (or set / wait) of the pipe came between.
Keeping only the last access per byte is enough: a pipe that knows the last access knows the ones
before it (epochs grow along a pipe).

GM addresses differ between the cores of a group (`base + block_idx * step`); while every access to an
argument moves by the same step from core to core, one map in core 0's coordinates stands for all
cores, else the argument gets a map per core. GM accesses of the written arguments are also recorded
for `check_cross_core`, which runs once every core has run: a byte one core writes and another reads
or writes in the same launch is an error no event can fix.
"""
from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import deque
from dataclasses import dataclass, field
import numpy as np

from ..enums import HardEvent
from ..errors import RaceError
from ..graph import hazards
from ..graph.expr import Const
from ..graph.hb import PIPES, S, Instr
from ..graph.kernel_graph import KernelGraph
from ..graph.node import Node
from ..graph.ops.sync import FLAG_OPS
from .base import written_params


class IntervalMap:
    """Disjoint half-open byte intervals, sorted, each holding the instruction that touched it last."""

    __slots__ = ("los", "his", "vals")

    def __init__(self) -> None:
        self.los: list[int] = []
        self.his: list[int] = []
        self.vals: list[Instr] = []

    def put(self, lo: int, hi: int, v: Instr) -> None:
        los, his, vals = self.los, self.his, self.vals
        i = bisect_right(his, lo)
        if i == len(los) or los[i] >= hi:           # touches nothing recorded: insert
            los.insert(i, lo)
            his.insert(i, hi)
            vals.insert(i, v)
            return
        if los[i] == lo and his[i] == hi:           # the same range again (a reused buffer)
            vals[i] = v
            return
        j = bisect_left(los, hi, i)
        nl, nh, nv = [], [], []
        if los[i] < lo:
            nl.append(los[i])
            nh.append(lo)
            nv.append(vals[i])
        nl.append(lo)
        nh.append(hi)
        nv.append(v)
        if his[j - 1] > hi:
            nl.append(hi)
            nh.append(his[j - 1])
            nv.append(vals[j - 1])
        los[i:j] = nl
        his[i:j] = nh
        vals[i:j] = nv

    def newer(self, lo: int, hi: int, known: int, out: list, q: int, write: bool) -> None:
        """Append (q, instr, lo, hi, write) for each interval overlapping [lo, hi) whose instruction's
        epoch is past `known`."""
        los, his, vals = self.los, self.his, self.vals
        i = bisect_right(his, lo)
        n = len(los)
        while i < n and los[i] < hi:
            v = vals[i]
            if v.epoch > known:
                out.append((q, v, max(lo, los[i]), min(hi, his[i]), write))
            i += 1

    def shifted(self, d: int) -> "IntervalMap":
        m = IntervalMap()
        m.los = [x + d for x in self.los]
        m.his = [x + d for x in self.his]
        m.vals = list(self.vals)
        return m


class Space:
    """The last write and last read of every byte of one memory space, per pipe."""

    __slots__ = ("w", "r")

    def __init__(self) -> None:
        self.w: list[IntervalMap | None] = [None] * 4
        self.r: list[IntervalMap | None] = [None] * 4

    def shifted(self, d: int) -> "Space":
        s = Space()
        s.w = [None if m is None else m.shifted(d) for m in self.w]
        s.r = [None if m is None else m.shifted(d) for m in self.r]
        return s


class GmShadow:
    """One written GM argument as a group of cores sees it: one Space in core 0's coordinates while
    every access moves by `step` bytes from core to core, else one Space per core."""

    __slots__ = ("step", "one", "per_core")

    def __init__(self) -> None:
        self.step: int | None = None
        self.one = Space()
        self.per_core: list[Space] | None = None

    def explode(self, C: int) -> list[Space]:
        if self.per_core is None:
            st = self.step or 0
            self.per_core = [self.one.shifted(c * st) for c in range(C)]
        return self.per_core


@dataclass
class RaceContext:
    """What the checker needs from the kernel's graph, computed once per compiled kernel."""

    nodes: dict[int, Node]
    tracked: frozenset[int]                       # GM arguments some instruction writes
    names: dict[int, str]                         # GM argument index -> name
    event_ids: dict[HardEvent, set[int]] = field(default_factory=dict)   # constant ids the kernel uses
    pos: dict[int, int] = field(default_factory=dict)                     # node id -> place in program order
    own_pipe: bool = False                        # the kernel creates its TPipe (graph/hb.py API_EVENT_ID)
    homes: dict[int, tuple[int, int]] = field(default_factory=dict)   # GM argument sharing another's memory
                                                  # at this launch -> (that argument, byte offset in it)

    @property
    def full_events(self) -> frozenset[HardEvent]:
        """Events whose 8 ids the kernel's own flags all take."""
        return frozenset(ev for ev, ids in self.event_ids.items() if len(ids) >= 8)

    @classmethod
    def of(cls, graph: KernelGraph) -> "RaceContext":
        names: dict[int, str] = {}
        ids: dict[HardEvent, set[int]] = {}
        for n in graph:
            if n.op == "global_tensor":
                names[n.args[0].index] = n.args[0].name
            elif n.op in FLAG_OPS and isinstance(n.args[1], Const):
                ids.setdefault(n.args[0], set()).add(n.args[1].value)
        sig = graph.signature
        homes = {p.index: p.alias for p in sig.params if p.alias is not None}
        # arguments sharing memory are one memory to the checker: accesses through either are compared
        tracked = {sig.gm_home(i)[0] for i in written_params(graph)}
        return cls({n.id: n for n in graph}, frozenset(tracked), names, ids,
                   {nid: i for i, nid in enumerate(graph.order)}, any(n.op == "tpipe" for n in graph), homes)


class GmLog:
    """The GM accesses of one group of cores to one written argument (for the cross-core check): one row
    per instruction, the first byte of each core as `s0 + step * core` or, for irregular starts, a row
    of its own."""

    __slots__ = ("s0", "step", "nbytes", "write", "ins", "irregular", "blocks")

    def __init__(self) -> None:
        self.s0: list[int] = []
        self.step: list[int] = []
        self.nbytes: list[int] = []
        self.write: list[bool] = []
        self.ins: list[Instr] = []
        self.irregular: dict[int, np.ndarray] = {}      # row -> first byte per core
        self.blocks: dict[int, tuple[int, int, int]] = {}   # row -> (blocks, bytes, step) of a strided copy

    def add(self, g: tuple, ins: Instr, blocks: tuple[int, int, int] | None = None) -> None:
        if blocks is not None:
            self.blocks[len(self.s0)] = blocks
        size = g[3]
        if g[5] is None:
            self.irregular[len(self.s0)] = np.asarray(g[1], dtype=np.int64) * size + (g[7] if len(g) > 7 else 0)
            self.s0.append(0)
            self.step.append(0)
        else:
            self.s0.append(g[5] * size + (g[7] if len(g) > 7 else 0))
            self.step.append(g[6] * size)
        self.nbytes.append(g[2] * size)
        self.write.append(g[4])
        self.ins.append(ins)

    def starts(self, C: int) -> np.ndarray:
        """(rows, C) first bytes."""
        lo = np.asarray(self.s0, dtype=np.int64)[:, None] + np.asarray(self.step, dtype=np.int64)[:, None] * \
            np.arange(C, dtype=np.int64)
        for row, st in self.irregular.items():
            lo[row] = st
        return lo


@dataclass(slots=True)
class GmRecord:
    """The GM accesses of one group of cores (`cores`) to one argument."""

    param: int
    cores: np.ndarray
    log: GmLog
    itemsize: int


class RaceChecker:
    """Checks every memory access of one group of cores against hazards.py (see the module docstring)."""

    def __init__(self, ctx: RaceContext, cores: np.ndarray, compiler_sync: bool, core_num: int = 1) -> None:
        self.ctx = ctx
        self.cores = cores
        self.C = len(cores)
        self.core_num = core_num          # cores in the launch (reports name the core when there are several)
        self.compiler_sync = compiler_sync
        # the same-pipe dependence kinds that need a barrier, by pipe index
        self.barrier_kinds = [frozenset(k for k in hazards.KINDS if hazards.needs_barrier(p, k, compiler_sync))
                              for p in PIPES]
        self.ub = Space()
        self.gm: dict[int, GmShadow] = {}
        self.sep = [0, 0, 0, 0]           # epoch of each pipe's last barrier / set / wait
        self.seq = 0                      # instructions executed so far (orders accesses of different pipes)
        self.gm_logs: dict[int, GmLog] = {}      # written GM argument -> its accesses (cross-core check)
        self.itemsize: dict[int, int] = {}
        self.log: deque = deque(maxlen=512)   # recent set / wait / barrier instructions, in issue order

    # -- events -----------------------------------------------------------------------------------
    def issued(self, ins: Instr) -> None:
        if ins.kind != "op" and ins.kind != "nop":
            self.log.append(ins)

    def separator(self, ins: Instr, p: int, vc: list[int]) -> None:
        """A barrier, set or wait ran on pipe p (vc: p's clock): earlier work of p no longer overlaps later."""
        if ins.kind == "barrier_all":
            self.sep[:] = vc
        elif p != S:
            self.sep[p] = ins.epoch

    # -- accesses ---------------------------------------------------------------------------------
    def check(self, ins: Instr, p: int, vc: list[int]) -> None:
        self.seq += 1
        ins.seq = self.seq
        found: list = []
        ub = ins.ub
        for addr, nbytes, write in ub:
            n0 = len(found)
            self._find(self.ub, addr, addr + nbytes, write, p, vc, found)
            for k in range(n0, len(found)):
                found[k] += (write, ("ub",), 0)
        gm_spaces = []
        for k, g in enumerate(ins.gm):
            param, delta = self.ctx.homes.get(g[0], (g[0], 0))
            if param not in self.ctx.tracked:
                continue
            if delta:
                g = (param, g[1], g[2], g[3], g[4], g[5], g[6], delta)
            elif param != g[0]:
                g = (param, *g[1:])
            for core, space, lo in self._gm_spaces(g):
                hi = lo + g[2] * g[3]
                n0 = len(found)
                self._find(space, lo, hi, g[4], p, vc, found)
                for k in range(n0, len(found)):
                    found[k] += (g[4], ("gm", param, g[3]), core)
                gm_spaces.append((space, lo, hi, g[4]))
            log = self.gm_logs.get(param)
            if log is None:
                log = self.gm_logs[param] = GmLog()
                self.itemsize[param] = g[3]
            log.add(g, ins, ins.gm_blocks[k] if k < len(ins.gm_blocks) else None)
        if found:
            self._raise(ins, p, found)
        for addr, nbytes, write in ub:
            self._put(self.ub, addr, addr + nbytes, write, p, ins)
        for space, lo, hi, write in gm_spaces:
            self._put(space, lo, hi, write, p, ins)

    @property
    def records(self) -> list[GmRecord]:
        return [GmRecord(p, self.cores, log, self.itemsize[p]) for p, log in self.gm_logs.items()]

    def _gm_spaces(self, g: tuple) -> list[tuple[int, Space, int]]:
        """(core index in the group, Space, first byte in that Space's coordinates) for a GM access
        g = (param, element starts, count, itemsize, write, first start if they are regular, step)."""
        param, start, _count, size, _write, s0, step = g[:7]
        delta = g[7] if len(g) > 7 else 0       # the argument's first byte in the memory it shares
        sh = self.gm.get(param)
        if sh is None:
            sh = self.gm[param] = GmShadow()
        C = self.C
        if C == 1:
            return [(0, sh.one, int(s0 if s0 is not None else np.asarray(start).flat[0]) * size + delta)]
        if s0 is not None and sh.per_core is None:
            if sh.step is None:
                sh.step = step * size
            if sh.step == step * size:
                return [(0, sh.one, s0 * size + delta)]
        spaces = sh.explode(C)
        starts = np.broadcast_to(np.asarray(start, dtype=np.int64), (C,)) * size + delta
        return [(c, spaces[c], int(starts[c])) for c in range(C)]

    def _find(self, space: Space, lo: int, hi: int, write: bool, p: int, vc: list[int], found: list) -> None:
        w, r = space.w, space.r
        for q in range(4):
            if q == p:
                kinds = self.barrier_kinds[p]
                if not kinds:
                    continue
                known = self.sep[p]
                m = w[q]
                if m is not None and (hazards.WAW if write else hazards.RAW) in kinds:
                    m.newer(lo, hi, known, found, q, True)
                m = r[q]
                if write and m is not None and hazards.WAR in kinds:
                    m.newer(lo, hi, known, found, q, False)
                continue
            known = vc[q]
            m = w[q]
            if m is not None:
                m.newer(lo, hi, known, found, q, True)
            if write:
                m = r[q]
                if m is not None:
                    m.newer(lo, hi, known, found, q, False)

    @staticmethod
    def _put(space: Space, lo: int, hi: int, write: bool, p: int, ins: Instr) -> None:
        maps = space.w if write else space.r
        m = maps[p]
        if m is None:
            m = maps[p] = IntervalMap()
        m.put(lo, hi, ins)

    def _raise(self, ins: Instr, p: int, found: list) -> None:
        from .race_report import race_error
        # The access that ran last: ordering against it is the fix (what ran before it on other pipes is
        # ordered through it, or is reported next). Of one instruction's conflicts, name the data flow
        # (RAW) first, then WAW, then WAR.
        rank = {k: i for i, k in enumerate(reversed(hazards.KINDS))}

        def key(f: tuple) -> tuple:
            return f[1].seq, rank[hazards.dependence(f[4], f[5])], -f[7]
        q, other, lo, hi, other_write, this_write, space, core = max(found, key=key)
        raise race_error(self, ins, p, other, q, this_write, other_write, lo, hi, space, int(self.cores[core]))


# -- across cores -----------------------------------------------------------------------------------

_WAW = object()     # _check_param's mark on a conflict of writes only


class EqualWritesUnknown(RaceError):
    """Cores write the same GM elements and nothing else conflicts: whether the bytes are equal needs the data
    (runtime/equal_writes.py). `hits`: (argument name, first element, end element, first writer's node, second
    writer's node, the two cores) per argument."""

    hits: list[tuple] = []


def check_cross_core(records: list[GmRecord], names: dict[int, str]) -> None:
    """A GM byte that one core writes and another core reads or writes in the same launch is a race no
    in-core event can order (the NPU runs cores independently): raise the one at the lowest address."""
    by_param: dict[int, list[GmRecord]] = {}
    equal: list[tuple] = []      # arguments whose only conflicts are writes of two cores (equal bytes or not)
    for r in records:
        by_param.setdefault(r.param, []).append(r)
    for param in sorted(by_param):
        recs = by_param[param]
        if not any(any(r.log.write) for r in recs):
            continue
        hit = _check_param(recs, names.get(param, f"#{param}"), exact=False)
        # the envelopes of strided copies overlap: compare the blocks they really touch
        if hit and any(r.log.blocks for r in recs):
            hit = _check_param(recs, names.get(param, f"#{param}"), exact=True)
        if hit and hit[-1] is _WAW:
            equal.append(hit[:-1])     # only the data can tell (runtime/equal_writes.py)
        elif hit:
            _cross_core_error(*hit)
    if equal:
        hits = []
        for h in equal:
            try:
                _cross_core_error(*h)
            except RaceError as e:
                hits.append(e)
        err = EqualWritesUnknown(hits[0].msg, node=hits[0].node, related=hits[0].related,
                                 hint=hits[0].hint)
        err.iteration = ""
        err.hits = [e.waw for e in hits]
        raise err


def _accesses(recs: list[GmRecord], exact: bool) -> tuple:
    """(first bytes, ends, cores, writes, atomic operation or "" per write, (instruction, itemsize)) of one
    argument's accesses, one per instruction and core; with `exact`, a strided copy gives one per block."""
    lo_parts, hi_parts, core_parts, w_parts, k_parts, ins = [], [], [], [], [], []
    for r in recs:
        C = len(r.cores)
        lo = r.log.starts(C)
        nbytes = np.asarray(r.log.nbytes, dtype=np.int64)
        kinds = np.array([(i.node.attr("atomic") or ("",))[0] if wr else "" for i, wr in zip(r.log.ins, r.log.write)],
                         dtype=object)
        if not (exact and r.log.blocks):
            lo_parts.append(lo.ravel())
            hi_parts.append((lo + nbytes[:, None]).ravel())
            core_parts.append(np.broadcast_to(r.cores.astype(np.int64), lo.shape).ravel())
            w_parts.append(np.repeat(np.asarray(r.log.write, dtype=bool), C))
            k_parts.append(np.repeat(kinds, C))
            ins.extend((i, r.itemsize) for i in r.log.ins for _ in range(C))
            continue
        for row in range(lo.shape[0]):
            n, length, step = r.log.blocks.get(row, (1, int(nbytes[row]), 0))
            starts = (lo[row][:, None] + np.arange(n, dtype=np.int64)[None, :] * step).ravel()
            lo_parts.append(starts)
            hi_parts.append(starts + length)
            core_parts.append(np.repeat(r.cores.astype(np.int64), n))
            w_parts.append(np.full(starts.size, r.log.write[row], dtype=bool))
            k_parts.append(np.full(starts.size, kinds[row], dtype=object))
            ins.extend([(r.log.ins[row], r.itemsize)] * starts.size)
    return (np.concatenate(lo_parts), np.concatenate(hi_parts), np.concatenate(core_parts),
            np.concatenate(w_parts), np.concatenate(k_parts), ins)


def _check_param(recs: list[GmRecord], name: str, exact: bool) -> tuple | None:
    """The arguments of _cross_core_error for the lowest-addressed cross-core conflict on one argument, or
    None."""
    lo, hi, core, w, kind, ins = _accesses(recs, exact)
    if core.min() == core.max():
        return None
    # atomic stores of one operation commute (graph/ops/atomic.py): they may overlap each other, not
    # another access; every other write may overlap no access of another core
    plain = w & (kind == "")
    touched, written = _runs(lo, hi, core), _runs(lo[plain], hi[plain], core[plain])
    waw = None
    if _overlapped(touched, written):       # numpy first: the sweep below is Python, one step per run
        hit = _sweep(_as_list(touched), _as_list(written))
        if hit is not None:
            # a read of bytes another core writes is a race whatever the bytes; writes of two cores only are
            # defined when they carry the same bytes (runtime/equal_writes.py), which needs the data
            reads = ~w
            read_hit = _sweep_between(_merge(lo[plain], hi[plain], core[plain]),
                                      _merge(lo[reads], hi[reads], core[reads]))
            if read_hit is not None:      # reported as the read: the reading core's writes there left out
                keep = ~(w & _reader_side(read_hit, lo, hi, core, w))
                at = np.flatnonzero(keep).tolist()
                return read_hit, [ins[i] for i in at], lo[keep], hi[keep], core[keep], w[keep], name
            waw = (hit, ins, lo, hi, core, w, name, None, _WAW)
    for op in sorted(set(kind.tolist()) - {""}):
        mine = w & (kind == op)
        hit = _sweep_between(_merge(lo[mine], hi[mine], core[mine]), _merge(lo[~mine], hi[~mine], core[~mine]))
        if hit is not None:        # the atomic store against another core's other access
            return hit, ins, lo, hi, core, w, name, mine
    return waw


def _reader_side(hit: tuple, lo: np.ndarray, hi: np.ndarray, core: np.ndarray, w: np.ndarray) -> np.ndarray:
    """The reading core's writes over the conflict: left out, so that the report names its read."""
    _cw, co, a, b = hit
    return (lo < b) & (hi > a) & (core == co)


def _merge(lo: np.ndarray, hi: np.ndarray, core: np.ndarray) -> list[tuple[int, int, int]]:
    """The union of each core's intervals, as (lo, hi, core) runs."""
    return _as_list(_runs(lo, hi, core))


def _as_list(runs: tuple[np.ndarray, np.ndarray, np.ndarray]) -> list[tuple[int, int, int]]:
    return list(zip(runs[0].tolist(), runs[1].tolist(), runs[2].tolist()))


def _overlapped(touched: tuple, written: tuple) -> bool:
    """Whether a written run overlaps a touched run of another core. Each written run lies inside exactly
    one touched run of its own core (runs are each core's maximal unions), so it overlaps another core's
    access exactly when more than one touched run meets it: counted with two binary searches."""
    a, b = written[0], written[1]
    if a.size == 0:
        return False
    meets = np.searchsorted(np.sort(touched[0]), b, side="left") - \
        np.searchsorted(np.sort(touched[1]), a, side="right")
    return bool((meets > 1).any())


def _runs(lo: np.ndarray, hi: np.ndarray, core: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The union of each core's intervals, as arrays (lo, hi, core) of runs."""
    if lo.size == 0:
        e = np.zeros(0, dtype=np.int64)
        return e, e, e
    order = np.lexsort((lo, core))
    lo, hi, core = lo[order], hi[order], core[order]
    base = int(lo.min())
    span = int(hi.max()) - base + 1
    end = np.maximum.accumulate(hi - base + core * span)
    start = lo - base + core * span
    new = np.ones(lo.size, dtype=bool)
    new[1:] = start[1:] > end[:-1]
    first = np.flatnonzero(new)
    runs_hi = np.maximum.reduceat(hi, first)
    return lo[first], runs_hi, core[first]


def _sweep_between(written: list, touched: list) -> tuple[int, int, int, int] | None:
    """(writer core, other core, lo, hi) of the lowest-addressed overlap between a `written` run and a
    `touched` run of another core (overlaps within each list are allowed), or None."""
    items = sorted([(lo, hi, c, 0) for lo, hi, c in written] + [(lo, hi, c, 1) for lo, hi, c in touched])
    best = [[(-1, -1), (-1, -1)], [(-1, -1), (-1, -1)]]      # per list: (hi, core) reaching furthest, and another core's
    for lo, hi, c, side in items:
        other = best[1 - side][0] if best[1 - side][0][1] != c else best[1 - side][1]
        if other[0] > lo:
            return (c, other[1], lo, min(hi, other[0])) if side == 0 else (other[1], c, lo, min(hi, other[0]))
        b = best[side]
        if hi > b[0][0]:
            if b[0][1] != c:
                b[1] = b[0]
            b[0] = (hi, c)
        elif c != b[0][1] and hi > b[1][0]:
            b[1] = (hi, c)
    return None


def _sweep(touched: list, written: list) -> tuple[int, int, int, int] | None:
    """(writer core, other core, lo, hi) of the lowest-addressed overlap between a run one core writes
    and a run another core touches, or None."""
    items = sorted([(lo, hi, c, False) for lo, hi, c in touched] + [(lo, hi, c, True) for lo, hi, c in written],
                   key=lambda t: (t[0], not t[3]))
    wb = [(-1, -1), (-1, -1)]      # (hi, core): the written run reaching furthest, and the furthest of another core
    tb = [(-1, -1), (-1, -1)]
    for lo, hi, c, is_w in items:
        other = wb[0] if wb[0][1] != c else wb[1]
        if other[0] > lo:
            return other[1], c, lo, min(hi, other[0])
        if is_w:
            other = tb[0] if tb[0][1] != c else tb[1]
            if other[0] > lo:
                return c, other[1], lo, min(hi, other[0])
        for best in ((wb,) if is_w else ()) + (tb,):
            if hi > best[0][0]:
                if best[0][1] != c:
                    best[1] = best[0]
                best[0] = (hi, c)
            elif c != best[0][1] and hi > best[1][0]:
                best[1] = (hi, c)
    return None


def _cross_core_error(hit: tuple, ins: list, lo: np.ndarray, hi: np.ndarray, core: np.ndarray, w: np.ndarray,
                      name: str, atomic: np.ndarray | None = None) -> None:
    from .race_report import describe_iters
    cw, co, a, b = hit
    over = (lo < b) & (hi > a)
    if atomic is not None:      # the writer is an atomic store; the other access is anything else
        writer, size = ins[int(np.flatnonzero(over & atomic & (core == cw))[0])]
        theirs = np.flatnonzero(over & (core == co) & ~atomic)
    else:
        writer, size = ins[int(np.flatnonzero(over & w & (core == cw))[0])]
        theirs = np.flatnonzero(over & (core == co))
    both = theirs[w[theirs]]
    other_write = bool(both.size)
    other = ins[int(both[0] if other_write else theirs[0])][0]
    e0, e1 = a // size, -(-b // size)
    where_w = describe_iters(writer.where)
    where_o = describe_iters(other.where)
    if other_write:
        first, second = sorted(((cw, writer, where_w), (co, other, where_o)), key=lambda t: t[0])
        waw = (name, e0, e1, first[1].node, second[1].node, (first[0], second[0]))
        msg = (f"cores {first[0]} and {second[0]} both write elements [{e0}, {e1}) of global memory argument "
               f"'{name}'{second[2]}; nothing orders writes of different cores (on the NPU either may land last)")
        node, related = second[1].node, [(f"core {first[0]}'s write{first[2]}", first[1].node.loc)]
        hint = "give each core its own part of the output, e.g. offset it by asc.get_block_idx() * block_length"
    else:
        msg = (f"core {co} reads elements [{e0}, {e1}) of global memory argument '{name}'{where_o} that core "
               f"{cw} writes in the same launch; nothing orders accesses of different cores, so the read may see "
               "the old or the new values")
        node, related = other.node, [(f"core {cw}'s write, the last write of these bytes{where_w}", writer.node.loc)]
        hint = ("order the write before the other core's read with asc.sync_all() between them (every core calls "
                "it) or an asc.ib_set / asc.ib_wait pair; or give each core the inputs it needs, or split the kernel "
                "into two launches (the second reads what the first wrote)")
    err = RaceError(msg, node=node, related=related, hint=hint)
    err.iteration = ""
    if other_write:
        err.waw = waw       # runtime/equal_writes.py reports from it
    raise err
