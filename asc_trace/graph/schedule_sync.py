"""insert_sync: add every synchronisation the data dependences need (auto_sync=True).

The analysis (graph/analysis.py) lists the conflicting access pairs the kernel does not order yet.
For each, in program order, a set_flag goes right after the producer and a wait_flag right before the
consumer (hoisted out of loops that contain only one side). A dependence carried by a loop from
iteration k to k+d gets ids rotating with the iteration (`base + i % d`), a set per id before the loop
(so the first iterations do not wait for nothing) and a wait per id after it (so no flag is left set).
Same-pipe dependences get a pipe_barrier. After each insertion the analysis runs again; at the end,
every inserted sync whose dependences are implied by the others is removed again.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..enums import HardEvent, PipeID
from ..errors import TraceError
from .analysis import Need, Trace, abstract_trace, find_needs
from .expr import Const, Expr, binop
from .kernel_graph import KernelGraph
from .node import Node, Pipe, make_attrs

MAX_ROUNDS = 64
_BARRIER_ID = {Pipe.V: PipeID.PIPE_V, Pipe.MTE2: PipeID.PIPE_MTE2, Pipe.MTE3: PipeID.PIPE_MTE3}


@dataclass
class Plan:
    """One inserted synchronisation: a set/wait pair (or a barrier), possibly loop-carried."""

    event: HardEvent | None          # None for a barrier
    set_after: int | None            # node id the set goes after
    wait_before: int                 # node id the wait (or barrier) goes before
    loop: int | None = None          # loop node carrying the dependence
    distance: int = 0
    pipe: Pipe | None = None         # barrier pipe
    needs: list[Need] = field(default_factory=list)
    base: int = 0                    # first event id
    nodes: list[int] = field(default_factory=list)
    rot_loop: int | None = None      # an in-iteration pair inside a loop may rotate its ids with that loop
    rotate: int = 1
    group: int = 0                   # index among the inserted plans (attr `sync` of its nodes)

    @property
    def width(self) -> int:
        return max(1, self.distance, self.rotate)

    @property
    def key(self) -> tuple:
        return (self.event, self.wait_before, self.loop, self.distance, self.pipe)

    def why(self) -> str:
        n = self.needs[0]
        more = f" +{len(self.needs) - 1}" if len(self.needs) > 1 else ""
        carry = f", carried {self.distance} iteration(s) by loop %{self.loop}" if self.loop is not None else ""
        return f"auto: {n.kind} %{n.a.node.id} ({n.a.node.loc.short}) -> %{n.b.node.id} ({n.b.node.loc.short}){more}{carry}"


def _anchor(g: KernelGraph, node: Node, depth: int, after: bool, end_of: dict[int, int]) -> int:
    """The node itself if it sits at loop depth `depth`, else its enclosing loop at that depth
    (that loop's end_for when placing after, its for when placing before)."""
    if len(node.loops) <= depth:
        return node.id
    loop = node.loops[depth]
    return end_of[loop] if after else loop


def plan_for(g: KernelGraph, need: Need, end_of: dict[int, int]) -> Plan:
    a, b = need.a, need.b
    common = 0
    while common < min(len(a.node.loops), len(b.node.loops)) and a.node.loops[common] == b.node.loops[common]:
        common += 1
    level = next((i for i in range(common) if a.iters[i] != b.iters[i]), None)
    depth = common if level is None else level + 1
    wait_before = _anchor(g, b.node, depth, False, end_of)
    if need.same_pipe:
        return Plan(None, None, wait_before, pipe=b.pipe, needs=[need])
    set_after = _anchor(g, a.node, depth, True, end_of)
    event = HardEvent[f"{a.pipe.value}_{b.pipe.value}"]
    if level is None:
        rot = a.node.loops[common - 1] if common else None
        return Plan(event, set_after, wait_before, needs=[need], rot_loop=rot)
    return Plan(event, set_after, wait_before, a.node.loops[level], b.iters[level] - a.iters[level], needs=[need])


class _Scheduler:
    def __init__(self, g: KernelGraph) -> None:
        self.base = g
        self.plans: list[Plan] = []
        self.first_trace: Trace | None = abstract_trace(g)
        self.unknown = self.first_trace.unknown_ids
        self.user_ids = self.first_trace.user_ids
        self.end_of = {n.args[0]: n.id for n in g if n.op == "end_for"}    # loop id -> its end_for

    def build(self, plans: list[Plan]) -> KernelGraph:
        g = self.base.copy()
        pos = {nid: i for i, nid in enumerate(g.order)}
        inserts: list[tuple[float, Node]] = []
        for gi, plan in enumerate(plans):
            plan.nodes = []
            plan.group = gi
            for where, node in self._nodes(g, plan):
                inserts.append((where, node))
                plan.nodes.append(node.id)
        order = list(g.order)
        keyed = [(float(i), nid) for i, nid in enumerate(order)]
        for k, (where_anchor, node) in enumerate(inserts):
            anchor, side = where_anchor
            keyed.append((pos[anchor] + side + k * 1e-6, node.id))
        keyed.sort()
        g.set_order([nid for _, nid in keyed])
        return g

    def _nodes(self, g: KernelGraph, plan: Plan):
        """(position, node) for every node of a plan; positions are (anchor id, -0.5 before / +0.5 after)."""
        wait_anchor = g.node(plan.wait_before)
        why = plan.why()

        def attrs(reason: str = why) -> tuple:
            return make_attrs(why=reason, auto=True, sync=plan.group)
        if plan.event is None:
            yield (plan.wait_before, -0.5), g.new_node(
                "pipe_barrier", (_BARRIER_ID[plan.pipe],), wait_anchor.loc, wait_anchor.loops, plan.pipe, attrs())
            return
        ev = plan.event
        src, dst = Pipe(ev.src), Pipe(ev.dst)
        set_anchor = g.node(plan.set_after)
        set_loops = set_anchor.loops if set_anchor.op != "end_for" else g.node(set_anchor.args[0]).loops
        if plan.loop is None:
            ids = _rotating_id(g.node(plan.rot_loop), plan.rotate, plan.base) if plan.rotate > 1 else Const(plan.base)
            yield (plan.set_after, 0.5), g.new_node("set_flag", (ev, ids), set_anchor.loc, set_loops, src, attrs())
            yield (plan.wait_before, -0.5), g.new_node("wait_flag", (ev, ids), wait_anchor.loc,
                                                       wait_anchor.loops, dst, attrs())
            return
        loop = g.node(plan.loop)
        ids = _rotating_id(loop, plan.distance, plan.base)
        for j in range(plan.distance):
            yield (plan.loop, -0.5), g.new_node("set_flag", (ev, Const(plan.base + j)), loop.loc, loop.loops, src,
                                                attrs(f"auto: prime for loop %{plan.loop}"))
        yield (plan.wait_before, -0.5), g.new_node("wait_flag", (ev, ids), wait_anchor.loc, wait_anchor.loops, dst,
                                                   attrs())
        yield (plan.set_after, 0.5), g.new_node("set_flag", (ev, ids), set_anchor.loc, set_loops, src, attrs())
        for j in range(plan.distance):
            yield (self.end_of[plan.loop], 0.5), g.new_node("wait_flag", (ev, Const(plan.base + j)), loop.loc,
                                                            loop.loops, dst,
                                                            attrs(f"auto: drain after loop %{plan.loop}"))

    def allocate(self, plan: Plan, plans: list[Plan]) -> None:
        if plan.event is None:
            return
        clash = next((n for n in self.unknown if n.args[0] == plan.event), None)
        if clash is not None:
            raise TraceError(f"auto_sync must add a HardEvent.{plan.event.name} pair, but this kernel's own "
                             f"{plan.event.name} flags use ids computed from runtime arguments, so a free id "
                             "cannot be chosen", clash.loc,
                             hint="use constant (or loop-index based) event ids, or pass auto_sync=False")
        width = plan.width
        used = set(self.user_ids.get(plan.event, set()))
        for p in plans:
            if p is not plan and p.event == plan.event:
                used.update(range(p.base, p.base + p.width))
        for base in range(0, 8 - width + 1):
            if not used.intersection(range(base, base + width)):
                plan.base = base
                return
        raise TraceError(f"auto_sync needs more than the 8 ids of HardEvent.{plan.event.name} for this kernel",
                         plan.needs[0].b.node.loc,
                         hint="use fewer distinct buffers per loop, or synchronise by hand with auto_sync=False")

    def run(self) -> KernelGraph:
        end_of = self.end_of
        plans: list[Plan] = []
        g = self.base
        for _ in range(MAX_ROUNDS):
            tr, self.first_trace = self.first_trace or abstract_trace(g), None
            needs = find_needs(tr)
            if not needs:
                break
            first = plan_for(self.base, needs[0], end_of)
            for n in needs[1:]:
                p = plan_for(self.base, n, end_of)
                if p.key == first.key:
                    first.needs.append(n)
                    if p.set_after is not None and self.base.order.index(p.set_after) > self.base.order.index(
                            first.set_after):
                        first.set_after = p.set_after
            self.allocate(first, plans)
            plans.append(first)
            g = self.build(plans)
        else:
            raise TraceError("auto_sync did not converge (please report this kernel)", self.base.node(
                self.base.order[0]).loc)
        if not plans:
            return self.base
        # drop every plan the others make redundant, latest first
        for plan in list(reversed(plans)):
            trial = [p for p in plans if p is not plan]
            if not find_needs(abstract_trace(self.build(trial))):
                plans = trial
        g = self.build(plans)
        g = self.rotate_ids(plans, g)
        if plans:
            g.notes.append(f"auto_sync: {sum(1 for p in plans if p.event)} set/wait pair(s), "
                           f"{sum(1 for p in plans if p.event is None)} barrier(s) inserted")
        return g

    def rotate_ids(self, plans: list[Plan], g: KernelGraph) -> KernelGraph:
        """A producer pipe that runs ahead of its consumer would set an in-iteration flag again before it
        is consumed; give such pairs one id per iteration in flight (`base + i % r`)."""
        for _ in range(8):
            bad = _alternation_problems(g, plans)
            if not bad:
                return g
            for p in bad:
                if p.loop is not None or p.rot_loop is None or p.rotate >= 8:
                    n = p.needs[0].b.node
                    raise TraceError("auto_sync could not make this synchronisation safe: the producing pipe can run "
                                     "arbitrarily far ahead of the consuming one", n.loc,
                                     hint="synchronise this kernel by hand with auto_sync=False")
                p.rotate += 1
                self.allocate(p, plans)
            g = self.build(plans)
        return g


def _alternation_problems(g: KernelGraph, plans: list[Plan]) -> list[Plan]:
    """Inserted pairs whose set can run again before its previous wait (the flag would be set twice)."""
    owner = {nid: p for p in plans for nid in p.nodes}
    bad: list[Plan] = []
    for err in abstract_trace(g).problems:
        p = owner.get(err.node.id if err.node is not None else -1)
        if p is not None and p not in bad:
            bad.append(p)
    return bad




def _rotating_id(loop: Node, distance: int, base: int) -> Expr:
    var, start, _stop, step = loop.args
    if distance <= 1:
        return Const(base)
    it: Expr = binop("-", var, start)
    if not (isinstance(step, Const) and step.value == 1):
        it = binop("//", it, step)
    return binop("+", Const(base), binop("%", it, Const(distance)))


def insert_sync(g: KernelGraph) -> KernelGraph:
    """The auto_sync pass (pure: returns a new graph)."""
    return _Scheduler(g).run()
