"""Where an inserted synchronisation goes: the plan of one set/wait pair (or barrier) and its nodes.

A need (a conflicting pair of instruction instances, graph/analysis.py) becomes a `Plan`:
- the set goes after the producer and the wait before the consumer, both lifted out of every region
  (loop, while loop, branch) the two do not share, so that the pair runs the same number of times on
  every path: a wait inside a branch the set is not in would wait for nothing on the other path;
- a dependence carried by a loop from iteration k to k+d, where the consumer comes first in the
  body, is *carried*: ids rotate with the loop index (`base + i % d`), d sets before the outermost
  region around the loop prime the first iterations and d waits after it drain the last ones. Priming
  outside every enclosing loop keeps each id's set / wait alternating across the whole nest (a prime
  per outer iteration could be set again before the inner loop's last set is consumed);
- any other pair is *in-iteration*: set and wait in the same iteration of their common loops; if the
  producing pipe can run ahead of the consumer, its ids rotate with the innermost common loop;
- a same-pipe dependence gets a `pipe_barrier` of that pipe before the consumer.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator

from ..enums import HardEvent, PipeID
from . import hazards
from .analysis import Need
from .expr import Const, Expr, binop
from .kernel_graph import KernelGraph
from .node import Node, Pipe, make_attrs

BARRIER_ID: dict[Pipe | None, PipeID] = {**hazards.BARRIER_ID, None: PipeID.PIPE_ALL}
LOOPS = ("for", "while")


class Regions:
    """Heads and ends of the graph's regions, by the scope ids nodes carry in `Node.regions`."""

    def __init__(self, g: KernelGraph) -> None:
        self.g = g
        self.end: dict[int, int] = {}
        self.kind: dict[int, str] = {}
        for n in g:
            if n.op in ("for", "while", "if"):
                self.kind[n.id] = n.op
            elif n.op == "else":
                self.kind[n.id] = "else"
            elif n.op in ("end_for", "end_while", "end_if"):
                self.end[n.args[0]] = n.id
        for rid, k in list(self.kind.items()):
            if k == "else":
                self.end[rid] = self.end[self.g.node(rid).args[0]]

    def head(self, rid: int) -> int:
        """The node to insert before when placing something in front of the region."""
        return self.g.node(rid).args[0] if self.kind[rid] == "else" else rid

    def is_loop(self, rid: int) -> bool:
        return self.kind.get(rid) in LOOPS

    def rotatable(self, rid: int) -> bool:
        """A `for` whose iteration number `(i - start) // step` the analysis can evaluate: a constant
        step (a while loop has no index; a runtime step leaves the division symbolic)."""
        return self.kind.get(rid) == "for" and isinstance(self.g.node(rid).args[3], Const)

    def before(self, n: Node, depth: int) -> int:
        return n.id if len(n.regions) <= depth else self.head(n.regions[depth])

    def after(self, n: Node, depth: int) -> int:
        return n.id if len(n.regions) <= depth else self.end[n.regions[depth]]


@dataclass
class Plan:
    """One inserted synchronisation: a set/wait pair (or a barrier), possibly loop-carried."""

    event: HardEvent | None          # None for a barrier
    set_after: int | None            # node id the set goes after
    wait_before: int                 # node id the wait (or barrier) goes before
    depth: int                       # scope depth of the set and the wait
    loop: int | None = None          # loop node carrying the dependence
    distance: int = 0
    pipe: Pipe | None = None         # barrier pipe (None with event None: PIPE_ALL)
    needs: list[Need] = field(default_factory=list)
    base: int = 0                    # first event id
    nodes: list[int] = field(default_factory=list)
    rot_loop: int | None = None      # an in-iteration pair inside a `for` may rotate its ids with it
    rotate: int = 1
    group: int = 0                   # index among the inserted plans (attr `sync` of its nodes)
    fallback: bool = False           # a flag that could be set twice, replaced by a PIPE_ALL barrier
    reason: str | None = None        # the line's text when the proof gate placed or changed the plan

    @property
    def width(self) -> int:
        return max(1, self.distance, self.rotate)

    @property
    def key(self) -> tuple:
        return (self.event, self.wait_before, self.loop, self.distance, self.pipe)

    def why(self) -> str:
        if self.reason is not None:
            return self.reason
        n = self.needs[0]
        more = f" +{len(self.needs) - 1}" if len(self.needs) > 1 else ""
        carry = f", carried {self.distance} iteration(s) by loop %{self.loop}" if self.loop is not None else ""
        why = (f"auto: {n.kind} %{n.a.node.id} ({n.a.node.loc.short}) -> %{n.b.node.id} ({n.b.node.loc.short})"
               f"{more}{carry}")
        return why + (" (PIPE_ALL: a flag here could be set again before its wait)" if self.fallback else "")


def plan_for(regions: Regions, need: Need, pos: dict[int, int]) -> Plan:
    """The plan that orders one need (see module docstring); `pos` is the program order position."""
    a, b = need.a, need.b
    sa = a.node.regions
    common, level = need.split(regions.is_loop)
    depth = common if level is None else level + 1
    wait_before = regions.before(b.node, depth)
    if need.same_pipe:
        return Plan(None, None, wait_before, depth, pipe=b.pipe, needs=[need])
    set_after = regions.after(a.node, depth)
    event = hazards.fixing_event(a.pipe, b.pipe)
    if level is not None and pos[wait_before] < pos[set_after]:
        loop = sa[level]
        distance = b.iters[level] - a.iters[level]
        if not regions.rotatable(loop):
            distance = 1   # no index to rotate by: wait for the previous iteration, which implies older ones
        return Plan(event, set_after, wait_before, depth, loop, distance, needs=[need])
    rot = next((r for r in reversed(sa[:depth]) if regions.rotatable(r)), None)
    return Plan(event, set_after, wait_before, depth, needs=[need], rot_loop=rot)


def rotating_id(loop: Node, width: int, base: int) -> Expr:
    """`base + (iteration number of the loop) % width`."""
    if width <= 1:
        return Const(base)
    var, start, _stop, step = loop.args
    it: Expr = binop("-", var, start)
    if not (isinstance(step, Const) and step.value == 1):
        it = binop("//", it, step)
    return binop("+", Const(base), binop("%", it, Const(width)))


def outer_region(g: KernelGraph, plan: Plan) -> int:
    """The outermost region around a carried plan's loop: its primes go before it, its drains after."""
    loop = g.node(plan.loop)
    return loop.regions[0] if loop.regions else loop.id


def plan_nodes(g: KernelGraph, regions: Regions, plan: Plan,
               primed: set[tuple] | None = None) -> Iterator[tuple[tuple[int, float], Node]]:
    """((anchor id, -0.5 before / +0.5 after), node) for every node of a plan, created in `g`.

    Carried plans of sibling loops that share their ids share one prime and one drain (`primed` holds
    the (event, ids, outer region) already primed): each id then alternates set / wait across the
    loops, and they cost no more ids than one of them."""
    wait_anchor = g.node(plan.wait_before)
    scope = wait_anchor.regions[:plan.depth]
    why = plan.why()

    def attrs(reason: str = why) -> tuple:
        return make_attrs(why=reason, auto=True, sync=plan.group)
    if plan.event is None:
        yield (plan.wait_before, -0.5), g.new_node("pipe_barrier", (BARRIER_ID[plan.pipe],), wait_anchor.loc, scope,
                                                   plan.pipe, attrs())
        return
    ev = plan.event
    src, dst = Pipe(ev.src), Pipe(ev.dst)
    set_anchor = g.node(plan.set_after)
    if plan.loop is None:
        ids = rotating_id(g.node(plan.rot_loop), plan.rotate, plan.base) if plan.rotate > 1 else Const(plan.base)
        yield (plan.set_after, 0.5), g.new_node("set_flag", (ev, ids), set_anchor.loc, scope, src, attrs())
        yield (plan.wait_before, -0.5), g.new_node("wait_flag", (ev, ids), wait_anchor.loc, scope, dst, attrs())
        return
    loop = g.node(plan.loop)
    outer = outer_region(g, plan)
    first, last = regions.head(outer), regions.end[outer]
    ids = rotating_id(loop, plan.distance, plan.base) if regions.rotatable(loop.id) else Const(plan.base)
    shared = (ev, plan.base, plan.distance, outer)
    prime = primed is None or shared not in primed
    if primed is not None:
        primed.add(shared)
    for j in range(plan.distance if prime else 0):
        yield (first, -0.5), g.new_node("set_flag", (ev, Const(plan.base + j)), loop.loc, (), src,
                                        attrs(f"auto: prime for loop %{plan.loop}"))
    yield (plan.wait_before, -0.5), g.new_node("wait_flag", (ev, ids), wait_anchor.loc, scope, dst, attrs())
    yield (plan.set_after, 0.5), g.new_node("set_flag", (ev, ids), set_anchor.loc, scope, src, attrs())
    for j in range(plan.distance if prime else 0):
        yield (last, 0.5), g.new_node("wait_flag", (ev, Const(plan.base + j)), loop.loc, (), dst,
                                      attrs(f"auto: drain after loop %{plan.loop}"))


def build(base: KernelGraph, regions: Regions, plans: list[Plan], stable: dict[int, int] | None = None
          ) -> KernelGraph:
    """A copy of `base` with every plan's nodes placed (plans' `nodes` and `group` are updated).

    With `stable` (plan id() -> its number, kept by the caller), a plan's nodes get the same ids and
    group whatever the other plans are, so that builds differing in one plan share everything else
    (the proof then reuses the states of what they share: graph/sync_proof.py ProofCache)."""
    g = base.copy()
    pos = {nid: i for i, nid in enumerate(g.order)}
    keyed = [(float(i), 0, nid) for i, nid in enumerate(g.order)]
    k = 0
    primed: set[tuple] = set()
    first = g._next_id
    top = first
    for gi, plan in enumerate(plans):
        plan.nodes = []
        plan.group = gi
        if stable is not None:
            uid = stable.setdefault(id(plan), len(stable))
            plan.group = uid
            g._next_id = first + 64 * uid
        for (anchor, side), node in plan_nodes(g, regions, plan, primed):
            k += 1
            # what goes after node p and what goes before node p + 1 share a slot: the "after" ones first,
            # so a loop's drain waits come before the next loop's prime sets of the same flag
            keyed.append((pos[anchor] + side, -1_000_000 + k if side > 0 else k, node.id))
            plan.nodes.append(node.id)
        top = max(top, g._next_id)
    g._next_id = top
    keyed.sort()
    g.set_order([nid for _, _, nid in keyed])
    return g
