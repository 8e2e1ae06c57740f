"""The per-core half of the timing model: the cycles of one core's pipes, replayed from the order in
which the pipe model executed its instructions.

The pipe model (runtime/pipes.py) decides *what* runs *after what* (in-order pipes, flags, queues,
barriers); that order never depends on time. While profiling it records that order as a log, and
`time_core` turns the log into cycles on a platform, for a given share of the chip's GM bandwidth.
Keeping the two apart lets the launch model (runtime/launch_model.py) first add up the launch's GM
traffic, then decide each core's share of the memory level the traffic lives in, then time the cores
with it; and lets a recorded launch be re-timed on other parameters (`Profile.retimed`, the
calibration's leave-one-out fits) without simulating it again.

Per core, the model is a discrete-event simulation of the in-order pipes:
- S issues every instruction (issue_cycles) and runs loop bookkeeping (loop_cycles);
- an MTE2 / MTE3 copy costs its start-up (copy_start_cycles), then its bytes. The bytes move at most
  at the pipe's own peak rate and, together with the other MTE pipe's copy, at most at the core's
  share of the chip's GM bandwidth, split fairly while both move (each half, or what the other cannot
  use). When all cores stream, that share is what bounds them, so whether a core keeps its share busy
  (double buffering) or leaves it idle while it computes (single buffering) decides its time;
- the core's first GM copy waits first_copy_latency before its bytes move (once per core: later
  copies queue behind earlier ones, and the per-copy start-up covers what is left);
- a V instruction costs its op record's startup + slope x repeats;
- a wait resumes flag_latency after its set.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .platform import Platform

# Log entries (tuples, so that a core's log can be compared and hashed as a whole):
#   (SCALAR, ISSUE_COST | LOOP_COST, node_id)         the scalar unit issues / runs loop bookkeeping
#   (ISSUE, order)                                    instruction `order` is issued (program order)
#   (EXEC, order, pipe, kind, amount, aligned_or_set, node_id)
# amount: bytes of a copy, cycles of a V instruction, 0 otherwise; the last number is 1 / 0 for a
# copy whose GM address is / is not gm_align_bytes-aligned, and for a wait the order of its set (-1: none).
SCALAR, ISSUE, EXEC = 0, 1, 2
ISSUE_COST, LOOP_COST = 0, 1
OP, SET, WAIT, BARRIER, BARRIER_ALL, NOP = range(6)
KIND_CODES = {"op": OP, "set": SET, "wait": WAIT, "barrier": BARRIER, "barrier_all": BARRIER_ALL, "nop": NOP}
S_PIPE, MTE2_PIPE, V_PIPE, MTE3_PIPE = range(4)


@dataclass(slots=True)
class IssueRun:
    """A stretch of time in which the scalar unit issues instructions back to back (one trace slice)."""

    start: float
    end: float
    node: Any
    count: int = 1


@dataclass(slots=True)
class CoreTiming:
    cycles: float
    busy: list[float]                                     # by pipe index (S, MTE2, V, MTE3)
    slices: list[tuple[int, float, float, Any]] | None    # (pipe, start, end, Node or IssueRun)
    latency: float                                        # cycles the first copy waited (0: no copy)



class _Costs:
    """The platform's figures the replay needs, in cycles and bytes per cycle."""

    __slots__ = ("rates", "setup", "unaligned", "flag_cycles", "flag_latency", "scalar_ub", "latency", "scalar")

    def __init__(self, plat: Platform) -> None:
        self.rates = (0.0, plat.mte2_bytes_per_cycle, 0.0, plat.mte3_bytes_per_cycle)
        self.setup = (0.0, plat.copy_start_cycles(self.rates[1]), 0.0, plat.copy_start_cycles(self.rates[3]))
        self.unaligned = plat.gm_unaligned_efficiency
        self.flag_cycles = plat.flag_cycles
        self.flag_latency = plat.flag_latency
        self.scalar_ub = plat.scalar_ub_cycles
        self.latency = plat.us_to_cycles(plat.first_copy_latency_us)
        self.scalar = (plat.issue_cycles, plat.loop_cycles)     # by ISSUE_COST / LOOP_COST


def time_core(log: tuple, plat: Platform, share: float, nodes: dict[int, Any] | None = None) -> CoreTiming:
    """The cycles of one core whose pipe model recorded `log`, with `share` bytes per cycle of the
    chip's GM bandwidth for its copies (float('inf'): only the pipes' own rates bound them). With
    `nodes` (node id -> Node) the timeline's slices are kept too."""
    costs = _Costs(plat)
    if share >= costs.rates[1] + costs.rates[3]:
        return _time_unshared(log, costs, nodes)     # both pipes at their peaks never exceed the share
    return _SharedCore(log, costs, share, nodes).run()


def _time_unshared(log: tuple, costs: _Costs, nodes: dict[int, Any] | None) -> CoreTiming:
    """The replay when the share never binds: every instruction's start and end follow from what ran
    before it, in the order of the log."""
    rates, setup, unaligned, scalar = costs.rates, costs.setup, costs.unaligned, costs.scalar
    keep = nodes is not None
    slices: list[tuple[int, float, float, Any]] | None = [] if keep else None
    t_issue = 0.0
    free = [0.0, 0.0, 0.0, 0.0]
    busy = [0.0, 0.0, 0.0, 0.0]
    issued: dict[int, float] = {}
    set_end: dict[int, float] = {}
    first_copy = True
    latency = 0.0
    run: IssueRun | None = None
    for e in log:
        code = e[0]
        if code == SCALAR:
            start = t_issue
            cost = scalar[e[1]]
            t_issue = start + cost
            busy[0] += cost
            if keep:
                if run is not None and run.end == start:
                    run.end = t_issue
                    run.count += 1
                else:
                    if run is not None:
                        slices.append((0, run.start, run.end, run))
                    run = IssueRun(start, t_issue, nodes.get(e[2]))
            continue
        if code == ISSUE:
            issued[e[1]] = t_issue
            continue
        _, order, p, kind, amount, extra, node_id = e
        t0 = issued.pop(order)
        start = t0 if p == 0 else max(t0, free[p])
        if kind == OP:
            if p == MTE2_PIPE or p == MTE3_PIPE:
                if first_copy:
                    first_copy = False
                    start += costs.latency
                    latency = costs.latency
                dur = setup[p] + (amount if extra else amount / unaligned) / rates[p]
            elif p == V_PIPE:
                dur = amount
            else:
                dur = costs.scalar_ub
        else:
            dur = costs.flag_cycles
            if kind == WAIT and extra >= 0:
                start = max(start, set_end.pop(extra) + costs.flag_latency)
            elif kind == BARRIER_ALL:
                start = max(start, free[1], free[2], free[3], t_issue)
        end = start + dur
        if kind == SET:
            set_end[order] = end
        if p == 0:
            if end > t_issue:
                t_issue = end
        else:
            free[p] = end
        if kind == BARRIER_ALL:
            free[1] = free[2] = free[3] = end
            if end > t_issue:
                t_issue = end
        busy[p] += dur
        if keep:
            slices.append((p, start, end, nodes.get(node_id)))
    if keep and run is not None:
        slices.append((0, run.start, run.end, run))
    return CoreTiming(max(max(free), t_issue), busy, slices, latency)


class _Transfer:
    """A copy whose bytes are moving: what is left of them, at what rate since when."""

    __slots__ = ("entry", "start", "left", "cap", "rate", "since")

    def __init__(self, entry: tuple, start: float, nbytes: float, cap: float, since: float) -> None:
        self.entry, self.start, self.left, self.cap, self.rate, self.since = entry, start, nbytes, cap, 0.0, since

    def end(self) -> float:
        return self.since + self.left / self.rate


class _SharedCore:
    """The replay when the core's share of the chip's GM bandwidth binds: MTE2 and MTE3 copies that
    move at the same time split it (max-min fair), so a copy's end depends on copies that start after
    it. The pipes' instruction streams (each pipe in its order of the log) are therefore advanced in
    time order: everything that does not move GM bytes as soon as its inputs are known, the copies
    event by event (a copy's bytes start moving, a copy's last byte moves)."""

    def __init__(self, log: tuple, costs: _Costs, share: float, nodes: dict[int, Any] | None) -> None:
        self.costs, self.share, self.nodes = costs, share, nodes
        self.slices: list[tuple[int, float, float, Any]] | None = [] if nodes is not None else None
        # the scalar unit's stream: its issue time, its own instructions, PIPE_ALL barriers (with how
        # many entries of each pipe precede them); each other pipe's instructions in their order
        self.s_items: list[tuple] = []
        self.items: list[list[tuple]] = [[], [], [], []]
        self.first_copy = None
        for e in log:
            if e[0] == EXEC and e[2] != S_PIPE and e[3] != BARRIER_ALL:
                if self.first_copy is None and e[3] == OP and e[2] != V_PIPE:
                    self.first_copy = e
                self.items[e[2]].append(e)
            elif e[0] == EXEC and e[3] == BARRIER_ALL:
                self.s_items.append(e + ((len(self.items[1]), len(self.items[2]), len(self.items[3])),))
            else:
                self.s_items.append(e)
        self.si = 0
        self.cursor = [0, 0, 0, 0]
        self.t_issue = 0.0
        self.free = [0.0, 0.0, 0.0, 0.0]
        self.busy = [0.0, 0.0, 0.0, 0.0]
        self.issued: dict[int, float] = {}
        self.set_end: dict[int, float] = {}
        self.moving: dict[int, _Transfer] = {}       # pipe -> its copy in flight
        self.latency = 0.0
        self.now = 0.0                               # the time of the last GM event
        self.run_: IssueRun | None = None

    # -- the scalar unit ----------------------------------------------------------------------------
    def _advance_scalar(self) -> bool:
        progressed = False
        items, costs = self.s_items, self.costs
        while self.si < len(items):
            e = items[self.si]
            code = e[0]
            if code == SCALAR:
                start = self.t_issue
                cost = costs.scalar[e[1]]
                self.t_issue = start + cost
                self.busy[0] += cost
                if self.slices is not None:
                    run = self.run_
                    if run is not None and run.end == start:
                        run.end = self.t_issue
                        run.count += 1
                    else:
                        if run is not None:
                            self.slices.append((0, run.start, run.end, run))
                        self.run_ = IssueRun(start, self.t_issue, self.nodes.get(e[2]))
            elif code == ISSUE:
                self.issued[e[1]] = self.t_issue
            else:
                order, p, kind, extra = e[1], e[2], e[3], e[5]
                start = self.issued[order]
                if kind == WAIT and extra >= 0:
                    if extra not in self.set_end:
                        return progressed
                    start = max(start, self.set_end.pop(extra) + costs.flag_latency)
                elif kind == BARRIER_ALL:
                    before = e[7]
                    if any(self.cursor[q] < before[q - 1] for q in (1, 2, 3)):
                        return progressed
                    start = max(start, self.free[p], self.free[1], self.free[2], self.free[3], self.t_issue)
                dur = costs.scalar_ub if kind == OP and p == S_PIPE else costs.flag_cycles
                end = start + dur
                self._done(e, p, start, end)
                if kind == BARRIER_ALL:
                    self.free[1] = self.free[2] = self.free[3] = end
                if end > self.t_issue:
                    self.t_issue = end
            self.si += 1
            progressed = True
        return progressed

    # -- the other pipes --------------------------------------------------------------------------
    def _advance_pipe(self, q: int) -> tuple[float, tuple] | None:
        """Run pipe q's instructions that move no GM bytes while their inputs are known; returns
        (start, entry) of a copy at its head that is ready to start, else None."""
        items, costs = self.items[q], self.costs
        while self.cursor[q] < len(items) and q not in self.moving:
            e = items[self.cursor[q]]
            order, kind, amount, extra = e[1], e[3], e[4], e[5]
            t0 = self.issued.get(order)
            if t0 is None:
                return None
            start = max(t0, self.free[q])
            if kind == WAIT and extra >= 0:
                if extra not in self.set_end:
                    return None
                start = max(start, self.set_end[extra] + costs.flag_latency)
            if kind == OP and q != V_PIPE:
                if e is self.first_copy:
                    start += costs.latency
                return start, e
            if kind == WAIT and extra >= 0:
                del self.set_end[extra]
            end = start + (amount if kind == OP else costs.flag_cycles)
            self.free[q] = end
            self._done(e, q, start, end)
            self.cursor[q] += 1
        return None

    def _done(self, e: tuple, p: int, start: float, end: float) -> None:
        if e[3] == SET:
            self.set_end[e[1]] = end
        self.busy[p] += end - start
        if self.slices is not None:
            self.slices.append((p, start, end, self.nodes.get(e[6])))

    # -- the core's GM link -------------------------------------------------------------------------
    def _share_out(self, now: float) -> None:
        """Bring the moving copies to `now` at their rates, then give them the fair split from now on."""
        moving = list(self.moving.values())
        for t in moving:
            t.left = max(0.0, t.left - t.rate * (now - t.since))
            t.since = now
        b = self.share
        if len(moving) == 1:
            moving[0].rate = min(moving[0].cap, b)
        elif len(moving) == 2:
            a, c = moving
            if a.cap + c.cap <= b:
                a.rate, c.rate = a.cap, c.cap
            elif a.cap <= b / 2:
                a.rate, c.rate = a.cap, min(c.cap, b - a.cap)
            elif c.cap <= b / 2:
                c.rate, a.rate = c.cap, min(a.cap, b - c.cap)
            else:
                a.rate = c.rate = b / 2

    def run(self) -> CoreTiming:
        costs = self.costs
        while True:
            progressed = True
            while progressed:
                progressed = self._advance_scalar()
                for q in (2, 1, 3):
                    before = self.cursor[q]
                    self._advance_pipe(q)
                    progressed = progressed or self.cursor[q] != before
            # the next GM event: a ready copy's bytes start moving, or a moving copy's last byte moves
            events: list[tuple[float, int, int, Any]] = []
            for q in (1, 3):
                if q in self.moving:
                    events.append((self.moving[q].end(), 0, q, None))
                else:
                    ready = self._advance_pipe(q)
                    if ready is not None:
                        start, e = ready
                        events.append((start + costs.setup[q], 1, q, (start, e)))
            if not events:
                break
            t, is_start, q, what = min(events)
            t = max(t, self.now)            # nothing starts before what has been decided
            self.now = t
            if is_start:
                start, e = what
                if e is self.first_copy:
                    self.latency = costs.latency
                nbytes = e[4] if e[5] else e[4] / costs.unaligned
                self.moving[q] = _Transfer(e, start, nbytes, costs.rates[q], t)
            else:
                done = self.moving.pop(q)
                self._share_out(t)
                self.free[q] = t
                self._done(done.entry, q, done.start, t)
                self.cursor[q] += 1
            self._share_out(t)
        if any(self.cursor[q] < len(self.items[q]) for q in (1, 2, 3)) or self.si < len(self.s_items):
            raise RuntimeError("timing replay stalled: the log is not an order the pipes can run in")
        if self.slices is not None and self.run_ is not None:
            self.slices.append((0, self.run_.start, self.run_.end, self.run_))
        return CoreTiming(max(max(self.free), self.t_issue), self.busy, self.slices, self.latency)
