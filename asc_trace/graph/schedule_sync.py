"""insert_sync: add every synchronisation the data dependences need (auto_sync=True).

0. A kernel that brings its own flags, barriers or TQue stages is proved first (graph/sync_proof.py):
   when no pair is left unordered, nothing is added and steps 1-5 do not run.
1. The analysis (graph/analysis.py) runs the kernel's structure under every profile (branch choices,
   zero / one trip loops) and lists the conflicting access pairs it does not order yet: the needs.
2. Needs implied by others are dropped: on a DAG of the instances involved, with each pipe's program
   order and one edge per need, `networkx.transitive_reduction` keeps the needs no other path covers.
3. Each kept need becomes a plan (graph/sync_plan.py: where its set and wait go); plans with the same
   wait merge. The analysis runs again on the graph with the plans placed, until nothing is unordered.
4. Every plan whose needs the others imply is removed, latest first (graph/sync_prune.py: judged by a
   local walk between each need's instances, or by the proof where the walk cannot tell; the removals
   are confirmed by the proof: a removal may not leave a pair unordered that was ordered).
5. Event ids are allocated by liveness (graph/sync_ids.py), the kernel's own ids too (an id its flags
   use only elsewhere is free), and checked in the abstract runs.
5b. The gate (graph/sync_gate.py): the proof over the region tree (graph/sync_proof.py) must accept
   the result; what it cannot prove is undone (a flag plan becomes a PIPE_ALL barrier) or ordered by
   a barrier right before the consumer, each saying why on its line. Steps 1-5 are a fast first guess.
6. The dependences and the inserted flags are written into the graph's networkx view
   (graph/dataflow.py), so `ck.graph.nx` shows what the scheduler used.
"""
from __future__ import annotations

from ..errors import TraceError
from .analysis import Need, PathChoice, Trace, abstract_trace, find_needs, profiles
from .expr import Const
from .hb import API_EVENT_ID, api_events
from .dataflow import annotate
from .kernel_graph import KernelGraph
from .sync_ids import IdAllocator
from .sync_gate import proof_needs, prove_gate
from .sync_proof import ProofCache, prove
from .sync_plan import Plan, Regions, build, plan_for
from .sync_prune import prune
from .ops.framework import QUEUE_OPS
from .ops.opdef import family
from .ops.event_pool import POOL_OPS
from .ops.sync import FLAG_OPS

# what makes a kernel one that brings (some of) its own synchronisation: events, barriers, TQue stages
OWN_SYNC_OPS = frozenset(op.name for op in family("sync")) | QUEUE_OPS

MAX_ROUNDS = 64
FIRST_GUESS_PROFILES = 6
MAX_PROOF_ROUNDS = 8
_TEMP_ID = 1000     # ids used while planning (every plan its own), before the real allocation


class _Scheduler:
    def __init__(self, g: KernelGraph) -> None:
        self.base = g
        self.regions = Regions(g)
        self.pos = {nid: i for i, nid in enumerate(g.order)}
        self.profiles: list[PathChoice] = profiles(g)
        self.first: list[Trace | None] = [None] * len(self.profiles)

    def _user_ids(self) -> None:
        """The kernel's own event ids (what the inserted flags' ids must avoid) and those it computes
        from runtime values (`unknown`)."""
        g = self.base
        self.user_ids: dict = {}
        own = [n for n in g if n.op in FLAG_OPS]
        for n in g:
            if n.op in POOL_OPS:         # ids the kernel reserved from its TPipe (alloc_event_id): its own
                self.user_ids.setdefault(n.args[0], set()).add(n.args[1].value)
        if all(isinstance(n.args[1], Const) for n in own):
            # the kernel's own ids, read off the graph: the profiles need not all be traced for them
            for n in own:
                self.user_ids.setdefault(n.args[0], set()).add(n.args[1].value)
            for n in g:
                for ev in api_events(n):
                    self.user_ids.setdefault(ev, set()).add(API_EVENT_ID)
            self.unknown: list = []
        else:
            # ids computed from loop indices or arguments: each profile evaluates them on its path
            for i in range(len(self.profiles)):
                for ev, ids in self.trace_base(i).user_ids.items():
                    self.user_ids.setdefault(ev, set()).update(ids)
            self.unknown = [n for tr in self.first for n in tr.unknown_ids]

    def trace_base(self, i: int) -> Trace:
        tr = self.first[i]
        if tr is None:
            tr = self.first[i] = abstract_trace(self.base, self.profiles[i])
        return tr

    def _first_trace(self) -> list[Trace]:
        return [self.trace_base(0)]

    def build(self, plans: list[Plan]) -> KernelGraph:
        return build(self.base, self.regions, plans)

    def run(self) -> KernelGraph:
        if any(n.op in OWN_SYNC_OPS for n in self.base):
            # a kernel that brings its own flags, barriers or TQue stages often needs nothing more: the
            # proof says so at once, without the first guess's runs (what it finds is the gate's anyway)
            known = prove(self.base)
            if not any(v.kind in ("order", "barrier") for v in known):
                return annotate(self.base, self._first_trace, [])
        self._user_ids()
        plans: list[Plan] = []
        g, start = self.base, 0
        # the first guess plans from the first FIRST_GUESS_PROFILES profiles; what the others would add,
        # the proof finds on the planned graph (a few proofs cost less than tracing tens of profiles)
        limit = min(len(self.profiles), FIRST_GUESS_PROFILES)
        for _ in range(MAX_ROUNDS + limit):
            # the first profile with needs left; adding syncs only adds order, so a profile found clean
            # stays clean and the search goes on from where it stopped
            needs: list[Need] = []
            for i in range(start, limit):
                tr = self.trace_base(i) if g is self.base else abstract_trace(g, self.profiles[i])
                needs = find_needs(tr)
                if needs:
                    start = i
                    break
            if not needs:
                break
            self._check_unknown([needs])
            self._add_plans(plans, [needs])
            g = self.build(plans)
        baseline: set | None = None
        if len(self.profiles) > limit:
            for _ in range(MAX_PROOF_ROUNDS):
                needs, baseline = proof_needs(g, self.regions, self.pos)
                if not needs:
                    break
                baseline = None
                self._check_unknown([needs])
                layout = [(p.key, p.set_after) for p in plans]
                self._add_plans(plans, [needs])
                if [(p.key, p.set_after) for p in plans] == layout:
                    break       # these needs only joined plans already placed: the same graph, the same proof
                g = self.build(plans)
        # (a first guess that has not settled after its rounds is left as it is: the proof gate below orders
        # whatever it left open, so a correct kernel is never refused for it)
        g = self.base
        if plans:
            self.planned = len(plans)
            plans = self._prune(plans, baseline)
            # merged flags leave fewer waits between a pipe's instructions, and a flag turned into a
            # PIPE_ALL barrier orders only its own iteration: what the others covered may be left open,
            # which the proof gate below finds and orders
            alloc = IdAllocator(self.base, self.regions, self.user_ids, self.build)
            g, plans = alloc.run(plans)
            known = alloc.violations
        else:
            known = None
        g, plans = prove_gate(g, plans, self.build, self.regions, self.user_ids, known)
        first = self._first_trace
        if not plans:
            return annotate(self.base, first, [])
        flags = sum(1 for p in plans if p.event is not None)
        g.notes.append(f"auto_sync: {flags} set/wait pair(s), {len(plans) - flags} barrier(s) inserted")
        return annotate(g, first, plans)

    def _check_unknown(self, per_profile: list[list[Need]]) -> None:
        events = {f"{n.a.pipe.value}_{n.b.pipe.value}" for needs in per_profile for n in needs if not n.same_pipe}
        clash = next((n for n in self.unknown if n.args[0].name in events), None)
        if clash is not None:
            raise TraceError(f"auto_sync must add a HardEvent.{clash.args[0].name} pair, but this kernel's own "
                             f"{clash.args[0].name} flags use ids computed from runtime arguments, so a free id "
                             "cannot be chosen", clash.loc,
                             hint="use constant (or loop-index based) event ids, or pass auto_sync=False")

    def _add_plans(self, plans: list[Plan], per_profile: list[list[Need]]) -> None:
        by_key = {p.key: p for p in plans}
        # one profile per round (the first that still has needs): the plans it gets often order the
        # other profiles' needs too, and every plan added here is one more the prune has to try
        needs = next(n for n in per_profile if n)
        # flags order a pipe's instructions on their two sides too: barriers wait until no flag is missing
        cross = [n for n in needs if not n.same_pipe]
        for needs in [cross or needs]:
            for need in essential(needs):
                p = plan_for(self.regions, need, self.pos)
                old = by_key.get(p.key)
                if old is None:
                    p.base = _TEMP_ID + 16 * len(plans)
                    plans.append(p)
                    by_key[p.key] = p
                    continue
                old.needs.append(need)
                if p.set_after is not None and self.pos[p.set_after] > self.pos[old.set_after]:
                    old.set_after = p.set_after

    def _prune(self, plans: list[Plan], baseline: set | None = None) -> list[Plan]:
        """Drop every plan the others make redundant, latest first: judged by a local walk between each
        need's two instances where it can, by the proof where it cannot, and confirmed by the proof
        (graph/sync_prune.py)."""
        cache = ProofCache()
        return prune(self.base, self.regions, plans, build, lambda g: _unordered(g, cache), baseline)


def _unordered(g: KernelGraph, cache: ProofCache | None = None) -> set[tuple]:
    """The pairs the proof finds unordered in `g` (its flag problems are the id allocation's)."""
    return {v.nodes for v in prove(g, cache) if v.kind in ("order", "barrier")}


def essential(needs: list[Need]) -> list[Need]:
    """The needs no chain of other needs and in-order pipes already covers (same-pipe needs all stay).

    A set after instruction a' covers a when a precedes a' on their pipe; a wait before b' covers b when
    b' precedes b: on the DAG of the instances involved (each pipe's order, one edge per need), a need
    is covered exactly when another path joins its ends (the edges a transitive reduction removes).
    Every edge goes forward in the trace, and from an instance every later instance of a pipe is
    reachable once one is: so `low[x][p]`, the first instance of pipe p reachable from x, found in one
    backward sweep, tells whether a successor of a other than b reaches b.
    """
    cross = [n for n in needs if not n.same_pipe]
    if len(cross) <= 1:
        return needs
    nodes: dict[int, object] = {}
    for n in cross:
        nodes.setdefault(id(n.a), n.a)
        nodes.setdefault(id(n.b), n.b)
    order = sorted(nodes.values(), key=lambda i: i.index)
    rank = {id(x): k for k, x in enumerate(order)}
    succ: dict[int, set[int]] = {k: set() for k in range(len(order))}
    last: dict[object, int] = {}
    for k, x in enumerate(order):          # each pipe's chain
        if x.pipe in last:
            succ[last[x.pipe]].add(k)
        last[x.pipe] = k
    for n in cross:
        succ[rank[id(n.a)]].add(rank[id(n.b)])
    inf = len(order)
    low: list[dict[object, int]] = [{} for _ in order]
    for k in reversed(range(len(order))):
        mine = {order[k].pipe: k}
        for s_ in succ[k]:
            for p, r in low[s_].items():
                if r < mine.get(p, inf):
                    mine[p] = r
        low[k] = mine
    kept = set()
    for n in cross:
        a, b = rank[id(n.a)], rank[id(n.b)]
        pb = order[b].pipe
        if not any(c != b and low[c].get(pb, inf) <= b for c in succ[a]):
            kept.add(id(n))
    return [n for n in needs if n.same_pipe or id(n) in kept]


def insert_sync(g: KernelGraph) -> KernelGraph:
    """The auto_sync pass (pure: returns a new graph)."""
    return _Scheduler(g).run()
