"""Event ids for the inserted flags, allocated by liveness like registers.

Each event kind (HardEvent.MTE2_V, ...) has 8 ids. Two plans of one kind *interfere* when their flags
can be set at the same time: their live ranges (first to last node in program order, a whole loop for
ids that rotate with it) overlap, or the proof (graph/sync_proof.py) shows one plan's set may run
before the other's wait consumed the flag. Interfering plans get disjoint ids, the others share them. When one kind runs
out, the two plans of the same shape whose sets lie closest are merged (one set after the later
producer, one wait before the earlier consumer: less overlap, same safety); only when nothing can
merge does the pair fall back to a PIPE_ALL barrier, naming on its line the tensors whose flags are live
together (graph/sync_gate.py then proves the result).
"""
from __future__ import annotations

from typing import Callable

from ..enums import HardEvent
from ..errors import TraceError
from .kernel_graph import KernelGraph
from .node import Node
from .ops.event_pool import POOL_OPS
from .ops.sync import FLAG_OPS
from .sync_plan import Plan, Regions, outer_region
from .sync_proof import prove

NUM_IDS = 8
MAX_ATTEMPTS = 200


class IdAllocator:
    def __init__(self, base: KernelGraph, regions: Regions, user_ids: dict[HardEvent, set[int]],
                 build: Callable[[list[Plan]], KernelGraph]) -> None:
        self.base = base
        self.regions = regions
        self.user_ids = user_ids
        self.build = build
        self.interfere: set[frozenset[int]] = set()      # pairs of id(plan)
        # every plan `interfere` has named stays alive while this allocator does, so that no id() of a
        # merged-away plan is reused by a new one (which would inherit its pairs, and the colouring
        # would depend on the heap's history: a schedule differing from one process to the next)
        self._alive: list[Plan] = []
        self.violations: list | None = None     # the proof's verdict on the graph `run` returns

    def run(self, plans: list[Plan]) -> tuple[KernelGraph, list[Plan]]:
        self._alive.extend(plans)
        g = self.build(plans)
        self._add_range_interference(g, plans)
        for _ in range(MAX_ATTEMPTS):
            failed = self._color(plans)
            if failed is not None:
                plans = self._merge_or_fallback(failed, plans)
                g = self.build(plans)
                self._add_range_interference(g, plans)
                continue
            g = self.build(plans)
            if not self._fix_problems(g, plans):
                return g, plans
        raise TraceError("auto_sync could not allocate event ids for this kernel (please report it)",
                         plans[0].needs[0].b.node.loc)

    # -- interference ------------------------------------------------------------------------------
    def _range(self, pos: dict[int, int], p: Plan, whole: bool) -> tuple[int, int]:
        """Program-order positions where p's flags may be set: its loop (or, `whole`, the region its
        primes and drains enclose) for ids that rotate or are carried, else its own nodes."""
        if p.loop is not None:
            rid = outer_region(self.base, p) if whole else p.loop
            return pos[self.regions.head(rid)], pos[self.regions.end[rid]]
        lo = min(pos[n] for n in p.nodes)
        hi = max(pos[n] for n in p.nodes)
        if p.rot_loop is not None and p.rotate > 1:
            lo = min(lo, pos[self.regions.head(p.rot_loop)])
            hi = max(hi, pos[self.regions.end[p.rot_loop]])
        return lo, hi

    def _add_range_interference(self, g: KernelGraph, plans: list[Plan]) -> None:
        pos = {nid: i for i, nid in enumerate(g.order)}
        flagged = [p for p in plans if p.event is not None]
        self.user_ranges = _user_ranges(g, self.regions, pos)
        self.plan_range = {id(p): self._range(pos, p, True) for p in flagged}
        for i, p in enumerate(flagged):
            for q in flagged[i + 1:]:
                if p.event != q.event:
                    continue
                whole = not _siblings(self.base, p, q)
                (a0, a1), (b0, b1) = self._range(pos, p, whole), self._range(pos, q, whole)
                if a0 <= b1 and b0 <= a1:
                    self.interfere.add(frozenset((id(p), id(q))))

    def _fix_problems(self, g: KernelGraph, plans: list[Plan]) -> bool:
        """Act on every flag set twice in the abstract runs; True when something changed."""
        owner = {nid: p for p in plans for nid in p.nodes}
        changed = False
        self.violations = prove(g)
        for v in self.violations:
            if v.kind not in ("double_set", "set_before_wait"):
                continue
            mine = [owner[n] for n in v.nodes if n in owner and owner[n].event is not None]
            mine = list({id(x): x for x in mine}.values())
            if not mine:
                continue        # the kernel's own flags: the simulator reports them
            for p, q in [(mine[0], mine[1] if len(mine) > 1 else None)]:
                if q is not None and q is not p:
                    pair = frozenset((id(p), id(q)))
                    if pair not in self.interfere:
                        self.interfere.add(pair)
                        changed = True
                elif p.loop is None and p.rot_loop is not None and p.rotate < 4:
                    p.rotate += 1   # the producer runs ahead: one id per iteration in flight
                    changed = True
                else:
                    # nothing to rotate by (a while loop, a carried pair): a PIPE_ALL barrier is always safe
                    p.event, p.pipe, p.loop, p.distance, p.rotate = None, None, None, 0, 1
                    p.set_after, p.fallback = None, True
                    changed = True
        return changed

    # -- colouring ---------------------------------------------------------------------------------
    def _color(self, plans: list[Plan]) -> Plan | None:
        """First-fit ids per event kind; the first plan that does not fit, or None."""
        done: list[Plan] = []
        for p in plans:
            if p.event is None:
                continue
            used = self._user_ids_live(p)
            share: list[int] = []
            for q in done:
                if q.event != p.event:
                    continue
                if frozenset((id(p), id(q))) in self.interfere:
                    used.update(range(q.base, q.base + q.width))
                elif _siblings(self.base, p, q):
                    share.append(q.base)      # the same ids and one prime: nothing more is live
            fits = [b for b in share if not used.intersection(range(b, b + p.width))]
            base = fits[0] if fits else next(
                (b for b in range(NUM_IDS - p.width + 1) if not used.intersection(range(b, b + p.width))), None)
            if base is None:
                return p
            p.base = base
            done.append(p)
        return None

    def _user_ids_live(self, p: Plan) -> set[int]:
        """The kernel's own ids of p's event that are live where p's flags may be set: an id the kernel
        sets and waits only elsewhere (a prologue) is free here; ids an API call takes, or ids of flags
        whose nodes were not found, stay taken (the proof checks whatever is shared)."""
        ids = set(self.user_ids.get(p.event, ()))
        rng = getattr(self, "plan_range", {}).get(id(p))
        ranges = getattr(self, "user_ranges", {})
        if rng is None:
            return ids
        free = {i for (ev, i), (lo, hi) in ranges.items() if ev == p.event and (hi < rng[0] or rng[1] < lo)}
        live = {i for (ev, i), (lo, hi) in ranges.items() if ev == p.event and not (hi < rng[0] or rng[1] < lo)}
        return (ids - free) | live

    def _merge_or_fallback(self, failed: Plan, plans: list[Plan]) -> list[Plan]:
        pos = {nid: i for i, nid in enumerate(self.base.order)}
        rivals = [q for q in plans if q.event == failed.event]
        best: tuple[int, Plan, Plan] | None = None
        for i, p in enumerate(rivals):
            for q in rivals[i + 1:]:
                if not _mergeable(self.base, p, q, pos):
                    continue
                gap = abs(pos[p.set_after] - pos[q.set_after])
                if best is None or gap < best[0]:
                    best = (gap, p, q)
        if best is None:
            # nothing can merge: this pair falls back to a PIPE_ALL barrier before its consumer, which
            # needs no id and is sound by construction (its line says why)
            failed.reason = (f"auto: PIPE_ALL: more than the {NUM_IDS} ids of HardEvent.{failed.event.name} "
                             f"would be live together here ({refusal_text(rivals, self.base)})")
            failed.event, failed.pipe, failed.loop, failed.distance, failed.rotate = None, None, None, 0, 1
            failed.set_after, failed.fallback = None, True
            return plans
        _gap, p, q = best
        later = p if pos[p.set_after] >= pos[q.set_after] else q
        earlier = p if pos[p.wait_before] <= pos[q.wait_before] else q
        merged = Plan(p.event, later.set_after, earlier.wait_before, p.depth, p.loop, p.distance,
                      needs=p.needs + q.needs, rot_loop=p.rot_loop, rotate=p.rotate)
        self._alive.append(merged)
        out = [x for x in plans if x is not p and x is not q]
        out.insert(min(plans.index(p), plans.index(q)), merged)
        # interference of the merged plan: whatever either part interfered with
        for pair in list(self.interfere):
            if id(p) in pair or id(q) in pair:
                other = next(iter(pair - {id(p), id(q)}), None)
                if other is not None:
                    self.interfere.add(frozenset((id(merged), other)))
        return out


def _siblings(g: KernelGraph, p: Plan, q: Plan) -> bool:
    """Carried plans that may share ids and their prime (see sync_plan.plan_nodes)."""
    return (p.loop is not None and q.loop is not None and p.event == q.event and p.distance == q.distance
            and outer_region(g, p) == outer_region(g, q))


def _mergeable(g: KernelGraph, p: Plan, q: Plan, pos: dict[int, int]) -> bool:
    """Two plans one set and one wait can serve: the same shape (carried by the same loop and distance,
    or in the same iteration rotating alike), anchors in the same region, and the later set still on
    the right side of the earlier wait (before it in an iteration; after it for a carried pair, whose
    wait serves the previous iterations' sets)."""
    if (p.loop, p.distance, p.rot_loop, p.rotate, p.depth) != (q.loop, q.distance, q.rot_loop, q.rotate, q.depth):
        return False
    if g.node(p.wait_before).regions != g.node(q.wait_before).regions or \
            g.node(p.set_after).regions != g.node(q.set_after).regions:
        return False
    set_after = max(pos[p.set_after], pos[q.set_after])
    wait_before = min(pos[p.wait_before], pos[q.wait_before])
    return set_after < wait_before if p.loop is None else wait_before < set_after


def refusal_text(rivals: list[Plan], g: KernelGraph) -> str:
    """The UB tensors the rival flags guard, for the reason on a fallback's line."""
    held: dict[int, Node] = {}
    for p in rivals:
        for need in p.needs:
            for acc in need.a.accs + need.b.accs:
                if acc.space[0] != "gm" and acc.root in g:
                    held.setdefault(acc.root, g.node(acc.root))
    return "guarding the tensors " + ", ".join(f"%{n.id} ({n.loc.short})" for n in list(held.values())[:6])


def _user_ranges(g: KernelGraph, regions: Regions, pos: dict[int, int]) -> dict[tuple, tuple[int, int]]:
    """(event, id) -> the program-order span of the kernel's own set/wait nodes of that constant id,
    widened to the outermost region around each (a flag set in a loop is live across the whole loop)."""
    from .expr import Const
    out: dict[tuple, tuple[int, int]] = {}
    for n in g:
        if n.op not in FLAG_OPS or n.attr("auto"):
            continue
        ev, eid = n.args
        if not isinstance(eid, Const):
            continue
        lo = hi = pos[n.id]
        if n.regions:
            outer = n.regions[0]
            lo, hi = pos[regions.head(outer)], pos[regions.end[outer]]
        key = (ev, eid.value)
        a, b = out.get(key, (lo, hi))
        out[key] = (min(a, lo), max(b, hi))
    # an id reserved from the TPipe's pool (alloc_event_id, only in straight-line code) is the kernel's from
    # the reservation to its release, or to the kernel's end: the span covers whatever flags use it there
    opened: dict[tuple, int] = {}
    for n in g:
        if n.op in POOL_OPS:
            key = (n.args[0], n.args[1].value)
            if POOL_OPS[n.op] > 0:
                opened[key] = pos[n.id]
            elif key in opened:
                _widen(out, key, opened.pop(key), pos[n.id])
    for key, lo in opened.items():
        _widen(out, key, lo, max(pos.values(), default=lo))
    return out


def _widen(out: dict[tuple, tuple[int, int]], key: tuple, lo: int, hi: int) -> None:
    a, b = out.get(key, (lo, hi))
    out[key] = (min(a, lo), max(b, hi))
