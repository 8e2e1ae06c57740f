"""Pruning the first guess's plans by local reasoning, confirmed by one proof.

The scheduler's plans (graph/sync_plan.py) each order some needs (a, b): a conflicting pair of
instruction instances. A plan is redundant when the other plans and the kernel's own order already
order its needs. Judging that with the proof (graph/sync_proof.py) once per plan costs one proof of the
rest of the kernel per plan; instead each need is judged by a walk of the program between its two
instances only (`reaches`), a must-analysis:

- the state is the set of pipes surely ordered after `a` (`R`, starting with a's pipe) and the flags
  whose pending set surely ran after `a` (`G`, keyed by event and id expression);
- a set on a pipe of `R` makes its flag good, a wait on a good flag puts its pipe into `R`; a wait by
  the scalar unit orders everything it issues later (graph/hb.py), a PIPE_ALL barrier everything;
- a branch meets (intersects) both sides; a loop, zero or more iterations, is a decreasing fixpoint
  of the meet; an id expression of a loop's index matches only within one iteration.

A need whose walk does not reach b's pipe surely needs the plan (nothing else in between can order
it): the plan is *essential* and no proof is spent on it. A plan all of whose needs the walk reaches
is *redundant* and dropped. Where the walk meets what it does not model (TQue events, an API call's
own flags, a same-pipe barrier plan) the plan is *unsure* and judged by the proof, as before. The
removals are then confirmed by one proof of the result (no pair may be unordered that the full plan
set ordered); if that fails, each dropped plan is judged by the proof again, latest first.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .analysis import Need
from .expr import Expr, free_vars
from .hb import api_steps
from .kernel_graph import KernelGraph
from .node import Node, Pipe
from .sync_plan import Plan, Regions
from .ops.block_sync import BLOCK_SYNC_OPS
from .ops.framework import QUEUE_OPS

ESSENTIAL, REDUNDANT, UNSURE = "essential", "redundant", "unsure"
_ALL = frozenset(Pipe)
MAX_FIXPOINT = 16


class _Unsure(Exception):
    """The walk met something it does not model."""


@dataclass(frozen=True)
class _St:
    reached: frozenset      # pipes surely ordered after a
    good: frozenset         # flag keys whose pending set surely ran after a

    def meet(self, o: "_St") -> "_St":
        return _St(self.reached & o.reached, self.good & o.good)


class _Walker:
    """Walks the program order of `g` (a build with every plan placed) between two instances."""

    def __init__(self, g: KernelGraph) -> None:
        self.g = g
        self.pos = {nid: i for i, nid in enumerate(g.order)}
        self.regions = Regions(g)
        self.else_of: dict[int, int] = {}
        for n in g:
            if n.op == "else":
                self.else_of[n.args[0]] = n.id
        self.skip: frozenset[int] = frozenset()

    # -- program structure ---------------------------------------------------------------------------
    def node_at(self, i: int) -> Node:
        return self.g.node(self.g.order[i])

    def body(self, rid: int) -> tuple[int, int]:
        """The flat positions [lo, hi) of a region's own nodes (a then-branch ends at its `else`)."""
        k = self.regions.kind[rid]
        if k == "if":
            els = self.else_of.get(rid)
            return self.pos[rid] + 1, self.pos[els if els is not None else self.regions.end[rid]]
        return self.pos[rid] + 1, self.pos[self.regions.end[rid]]

    def after(self, rid: int) -> int:
        """The position right after a region (after the whole `asc.cond` for either branch)."""
        return self.pos[self.regions.end[rid]] + 1

    # -- transfer ------------------------------------------------------------------------------------
    def run(self, lo: int, hi: int, st: _St) -> _St:
        """Positions lo..hi-1, every region among them complete."""
        i = lo
        while i < hi:
            n = self.node_at(i)
            if n.op in ("for", "while"):
                st = self.loop(n, st, zero=True)
                i = self.after(n.id)
            elif n.op == "if":
                then = self.run(*self.body(n.id), st)
                els_id = self.else_of.get(n.id)
                els = self.run(*self.body(els_id), st) if els_id is not None else st
                st = then.meet(els)
                i = self.after(n.id)
            else:
                st = self.step(n, st)
                i += 1
        return st

    def iterate(self, head: Node, st: _St) -> _St:
        """One more iteration of a loop's body, then its back edge."""
        return self.back_edge(head, self.run(*self.body(head.id), st))

    def back_edge(self, head: Node, st: _St) -> _St:
        var = head.args[0] if head.op == "for" else None
        mine = set(head.args[0]) if head.op == "while" else {var}
        return _St(st.reached, frozenset(k for k in st.good if not (isinstance(k[1], Expr)
                                                                      and free_vars(k[1]) & mine)))

    def loop(self, head: Node, st: _St, zero: bool) -> _St:
        """Zero (with `zero`) or more further iterations: the meet over their counts, as a fixpoint."""
        from .analysis import trip_count
        trips = trip_count(head) if head.op == "for" else None
        cur = st
        if not zero or (trips is not None and trips >= 1):
            cur = self.iterate(head, st)
        if trips == 0:
            return st
        for _ in range(MAX_FIXPOINT):
            nxt = cur.meet(self.iterate(head, cur))
            if nxt == cur:
                return cur
            cur = nxt
        raise _Unsure

    def step(self, n: Node, st: _St) -> _St:
        if n.id in self.skip:
            return st
        op = n.op
        if op in QUEUE_OPS:
            raise _Unsure
        if op == "set_flag":
            key = _key(n)
            good = st.good | {key} if n.pipe in st.reached else st.good - {key}
            return _St(st.reached, good)
        if op == "wait_flag":
            key = _key(n)
            reached = _reach(st.reached, n.pipe) if key in st.good else st.reached
            # the next set of this flag runs later; it is after a only where its pipe is
            src = Pipe(n.args[0].src)
            good = st.good | {key} if src in reached else st.good - {key}
            return _St(reached, good)
        if op == "pipe_barrier" or op in BLOCK_SYNC_OPS:     # the block-sync calls begin with PIPE_ALL
            return _St(_ALL, st.good) if n.pipe is None else st
        if n.pipe is not None and api_steps(n, lambda e: None) != ():
            raise _Unsure       # an API call's own sets and waits (or ones that depend on its operands)
        return st

    # -- one need ------------------------------------------------------------------------------------
    def reaches(self, need: Need, is_loop: Callable[[int], bool]) -> bool:
        a, b = need.a.node, need.b.node
        if a.id not in self.pos or b.id not in self.pos:
            raise _Unsure
        common, level = need.split(is_loop)
        st = _St(frozenset({need.a.pipe}), frozenset())
        if level is None:
            if self.pos[a.id] >= self.pos[b.id]:
                raise _Unsure
            st, i = self.leave(a, common, st)
        else:
            loop_id = a.regions[level]
            head = self.g.node(loop_id)
            st, i = self.leave(a, level + 1, st)
            st = self.run(i, self.body(loop_id)[1], st)
            st = self.back_edge(head, st)
            for _ in range(need.b.iters[level] - need.a.iters[level] - 1):
                st = self.iterate(head, st)
            i = self.body(loop_id)[0]
            common = level + 1
        st = self.enter(b, common, i, st)
        return need.b.pipe in st.reached

    def leave(self, a: Node, depth: int, st: _St) -> tuple[_St, int]:
        """From right after `a` out of its regions deeper than `depth`: (state, position after them)."""
        i = self.pos[a.id] + 1
        for rid in reversed(a.regions[depth:]):
            st = self.run(i, self.body(rid)[1], st)
            if self.regions.is_loop(rid):
                head = self.g.node(rid)
                st = self.loop(head, self.back_edge(head, st), zero=True)
            i = self.after(rid)
        return st, i

    def enter(self, b: Node, depth: int, i: int, st: _St) -> _St:
        """From position `i` into b's regions deeper than `depth`, up to `b`."""
        for rid in b.regions[depth:]:
            kind = self.regions.kind[rid]
            head_pos = self.pos[self.regions.head(rid)]
            st = self.run(i, head_pos, st)
            if kind in ("for", "while"):
                st = self.loop(self.g.node(rid), st, zero=True)      # earlier iterations, if any
            i = self.body(rid)[0]
        return self.run(i, self.pos[b.id], st)


def _key(n: Node) -> tuple:
    return (n.args[0], n.args[1])


def _reach(reached: frozenset, p: Pipe) -> frozenset:
    # what the scalar unit waited for, every pipe's later instructions have (they issue after it)
    return _ALL if p == Pipe.S else reached | {p}


def classify(walker: _Walker, plan: Plan, is_loop: Callable[[int], bool]) -> str:
    """ESSENTIAL, REDUNDANT or UNSURE for `plan`, given the nodes in `walker.skip` already removed."""
    if plan.event is None or not plan.needs:
        return UNSURE
    verdict = REDUNDANT
    for need in plan.needs:
        if need.same_pipe:
            return UNSURE
        try:
            if not walker.reaches(need, is_loop):
                return ESSENTIAL
        except _Unsure:
            verdict = UNSURE
    return verdict


def prune(base: KernelGraph, regions: Regions, plans: list[Plan],
          build: Callable[..., KernelGraph], unordered: Callable[[KernelGraph], set],
          baseline: set | None = None) -> list[Plan]:
    """Drop every plan the others make redundant, latest first (see module docstring).

    `build(base, regions, plans, stable)` places plans; `unordered(g)` is the set of pairs the proof
    finds unordered in `g`; `baseline`, when the caller knows it, is that set for all of `plans`."""
    stable: dict[int, int] = {}
    full = build(base, regions, plans, stable)
    walker = _Walker(full)
    kept = list(plans)
    dropped: list[Plan] = []
    unsure: list[Plan] = []
    skip: set[int] = set()
    for plan in reversed(plans):
        if len(kept) == 1:
            break
        walker.skip = frozenset(skip | set(plan.nodes))
        verdict = classify(walker, plan, regions.is_loop)
        if verdict == REDUNDANT:
            kept.remove(plan)
            dropped.append(plan)
            skip |= set(plan.nodes)
        elif verdict == UNSURE:
            unsure.append(plan)
    if (dropped or unsure) and baseline is None:
        baseline = unordered(full)
    if dropped and not unordered(build(base, regions, kept, stable)) <= baseline:
        kept = [p for p in plans if p in kept or p in dropped]
        unsure = [p for p in plans if p in unsure or p in dropped][::-1]
    # the plans the walk could not judge (and, when the confirmation failed, the ones it dropped): one
    # proof each, latest first
    for plan in unsure:
        if len(kept) == 1:
            break
        trial = [p for p in kept if p is not plan]
        if unordered(build(base, regions, trial, stable)) <= baseline:
            kept = trial
    return kept
