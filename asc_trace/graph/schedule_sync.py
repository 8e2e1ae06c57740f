"""insert_sync: add every synchronisation the data dependences need (auto_sync=True).

1. The analysis (graph/analysis.py) runs the kernel's structure under every profile (branch choices,
   zero / one trip loops) and lists the conflicting access pairs it does not order yet: the needs.
2. Needs implied by others are dropped: on a DAG of the instances involved, with each pipe's program
   order and one edge per need, `networkx.transitive_reduction` keeps the needs no other path covers.
3. Each kept need becomes a plan (graph/sync_plan.py: where its set and wait go); plans with the same
   wait merge. The analysis runs again on the graph with the plans placed, until nothing is unordered.
4. Every plan whose needs the others imply is removed, latest first (judged by the proof,
   graph/sync_proof.py: a removal may not leave a pair unordered that was ordered).
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
from .dataflow import annotate
from .kernel_graph import KernelGraph
from .sync_ids import IdAllocator
from .sync_gate import prove_gate
from .sync_proof import ProofCache, prove
from .sync_plan import Plan, Regions, build, plan_for

MAX_ROUNDS = 64
PRUNE_PROFILES = 24
_TEMP_ID = 1000     # ids used while planning (every plan its own), before the real allocation


class _Scheduler:
    def __init__(self, g: KernelGraph) -> None:
        self.base = g
        self.regions = Regions(g)
        self.pos = {nid: i for i, nid in enumerate(g.order)}
        self.profiles: list[PathChoice] = profiles(g)
        first = self.traces(g)
        self.first = first
        self.unknown = [n for tr in first for n in tr.unknown_ids]
        self.user_ids: dict = {}
        for tr in first:
            for ev, ids in tr.user_ids.items():
                self.user_ids.setdefault(ev, set()).update(ids)

    def traces(self, g: KernelGraph) -> list[Trace]:
        return [abstract_trace(g, p) for p in self.profiles]

    def build(self, plans: list[Plan]) -> KernelGraph:
        return build(self.base, self.regions, plans)

    def run(self) -> KernelGraph:
        plans: list[Plan] = []
        g, start = self.base, 0
        for _ in range(MAX_ROUNDS + len(self.profiles)):
            # the first profile with needs left; adding syncs only adds order, so a profile found clean
            # stays clean and the search goes on from where it stopped
            needs: list[Need] = []
            for i in range(start, len(self.profiles)):
                tr = self.first[i] if g is self.base else abstract_trace(g, self.profiles[i])
                needs = find_needs(tr)
                if needs:
                    start = i
                    break
            if not needs:
                break
            self._check_unknown([needs])
            self._add_plans(plans, [needs])
            g = self.build(plans)
        # (a first guess that has not settled after its rounds is left as it is: the proof gate below orders
        # whatever it left open, so a correct kernel is never refused for it)
        g = self.base
        if plans:
            self.planned = len(plans)
            plans = self._prune(plans)
            # merged flags leave fewer waits between a pipe's instructions, and a flag turned into a
            # PIPE_ALL barrier orders only its own iteration: what the others covered may be left open,
            # which the proof gate below finds and orders
            g, plans = IdAllocator(self.base, self.regions, self.user_ids, self.build).run(plans)
        g, plans = prove_gate(g, plans, self.build, self.regions, self.user_ids)
        if not plans:
            return annotate(self.base, self.first, [])
        flags = sum(1 for p in plans if p.event is not None)
        g.notes.append(f"auto_sync: {flags} set/wait pair(s), {len(plans) - flags} barrier(s) inserted")
        return annotate(g, self.first, plans)

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

    def _prune(self, plans: list[Plan]) -> list[Plan]:
        """Drop every plan the others make redundant, latest first. With many profiles, a removal is
        judged on the first PRUNE_PROFILES of them; the check after the id allocation runs them all and
        puts back whatever a wrongly dropped plan ordered."""
        cache, stable = ProofCache(), {}
        baseline = _unordered(build(self.base, self.regions, plans, stable), cache)
        for plan in list(reversed(plans)):
            if len(plans) == 1:
                break
            trial = [p for p in plans if p is not plan]
            if _unordered(build(self.base, self.regions, trial, stable), cache) <= baseline:
                plans = trial
        return plans


def _unordered(g: KernelGraph, cache: ProofCache | None = None) -> set[tuple]:
    """The pairs the proof finds unordered in `g` (its flag problems are the id allocation's)."""
    return {v.nodes for v in prove(g, cache) if v.kind in ("order", "barrier")}


def essential(needs: list[Need]) -> list[Need]:
    """The needs no chain of other needs and in-order pipes already covers (same-pipe needs all stay).

    A set after instruction a' covers a when a precedes a' on their pipe; a wait before b' covers b when
    b' precedes b: on the DAG of the instances involved (each pipe's order, one edge per need), a need
    is covered exactly when another path joins its ends, which transitive reduction removes.
    """
    cross = [n for n in needs if not n.same_pipe]
    if len(cross) <= 1:
        return needs
    import networkx as nx      # only a kernel with something to order pays for importing it
    dag = nx.DiGraph()
    chains: dict[object, list] = {}
    for n in cross:
        for ins in (n.a, n.b):
            if ins not in dag:
                dag.add_node(ins)
                chains.setdefault(ins.pipe, []).append(ins)
        dag.add_edge(n.a, n.b)
    for chain in chains.values():
        chain.sort(key=lambda i: i.index)
        for u, v in zip(chain, chain[1:]):
            if not dag.has_edge(u, v):
                dag.add_edge(u, v, chain=True)
    kept = nx.transitive_reduction(dag)
    return [n for n in needs if n.same_pipe or kept.has_edge(n.a, n.b)]


def insert_sync(g: KernelGraph) -> KernelGraph:
    """The auto_sync pass (pure: returns a new graph)."""
    return _Scheduler(g).run()
