"""The proof gate of auto_sync: what the scheduler emits is what graph/sync_proof.py proved.

The scheduler's first guess (profiles, pruning, id sharing and rotation, merged plans) is kept where
the proof accepts it. For each violation the proof reports:
- a flag problem (set twice, waited unset, set before its previous wait is ordered, left set, an id
  that cannot be evaluated) of an inserted flag: that plan is undone into a PIPE_ALL barrier before
  its consumer (sound by construction: everything issued before it completes first);
- a pair no flag, pipe order or barrier orders: a barrier right before the later access, in its own
  region, so every path that reaches it has the earlier one done: a PipeBarrier of the pipe for a
  same-pipe pair, PIPE_ALL across pipes.
Each barrier says why on its line ("auto: PIPE_ALL: ..."). The proof runs again until it accepts;
the kernel's own flags are the kernel's (the simulator reports their misuse) and are left alone.
"""
from __future__ import annotations

from typing import Callable

from .kernel_graph import KernelGraph
from .node import Node, Pipe
from .analysis import AInstr, Need
from .hazards import fixing_event
from .sync_ids import NUM_IDS
from .sync_plan import Plan, Regions, plan_for
from .sync_proof import Violation, prove

MAX_GATE_ROUNDS = 32


def prove_gate(g: KernelGraph, plans: list[Plan], build: Callable[[list[Plan]], KernelGraph],
               regions: Regions | None = None, user_ids: dict | None = None,
               known: list[Violation] | None = None) -> tuple[KernelGraph, list[Plan]]:
    """(the graph the proof accepts, its plans); `g` is `build(plans)` (or the base graph, no plans).
    With `regions` (of the base graph), an unordered cross-pipe pair first gets a set/wait pair lifted
    to the regions the two share, on an id no other flag of its event uses (`user_ids`: the kernel's own).
    `known`: the proof's violations of `g` when the caller has just proved it."""
    placed: set[tuple] = {(p.wait_before, p.pipe) for p in plans if p.event is None}
    lifted: set[tuple] = set()
    for _ in range(MAX_GATE_ROUNDS):
        violations = known if known is not None else prove(g)
        known = None
        if not violations:
            return g, plans
        owner = {nid: p for p in plans for nid in p.nodes}
        changed = False
        for v in violations:
            if v.kind == "order" and regions is not None and (v.nodes not in lifted) \
                    and _lift(g, v, plans, regions, user_ids or {}):
                lifted.add(v.nodes)
                changed = True
            elif v.kind in ("order", "barrier"):
                changed |= _order(g, v, plans, placed)
            else:
                for nid in v.nodes:
                    p = owner.get(nid)
                    if p is not None and p.event is not None:
                        _undo(p, v)
                        changed = True
        if not changed:
            return g, plans       # only the kernel's own flags are at fault: the simulator reports them
        g = build(plans)
    return g, plans


def _undo(p: Plan, v: Violation) -> None:
    p.reason = f"auto: PIPE_ALL: the proof rejected a HardEvent.{p.event.name} flag here ({v.text})"
    p.event, p.pipe, p.loop, p.distance, p.rotate = None, None, None, 0, 1
    p.set_after, p.fallback = None, True


def _order(g: KernelGraph, v: Violation, plans: list[Plan], placed: set[tuple]) -> bool:
    a_id, b_id = v.nodes
    if b_id not in g:
        return False
    b: Node = g.node(b_id)
    pipe: Pipe | None = b.pipe if v.kind == "barrier" else None
    if (b_id, pipe) in placed or (b_id, None) in placed:
        return False
    placed.add((b_id, pipe))
    a = g.node(a_id) if a_id in g else b
    what = f"PipeBarrier({pipe.value})" if pipe is not None else "PIPE_ALL"
    reason = (f"auto: {what}: orders %{a_id} ({a.loc.short}) -> %{b_id} ({b.loc.short}), which the proof "
              "found unordered on some path")
    plans.append(Plan(None, None, b_id, len(b.regions), pipe=pipe, reason=reason))
    return True


def violation_need(regions: Regions, pos: dict[int, int], v: Violation) -> Need | None:
    """The need of an unordered pair the proof reported: both instances in the same iteration of their
    common loops when a comes first in program order, else b one iteration later in the innermost
    common loop (None when there is no such loop, or a node is not an instruction of the base graph)."""
    a_id, b_id = v.nodes
    base = regions.g
    if a_id not in base or b_id not in base:
        return None
    a, b = base.node(a_id), base.node(b_id)
    if a.pipe is None or b.pipe is None:
        return None
    common = 0
    while common < min(len(a.regions), len(b.regions)) and a.regions[common] == b.regions[common]:
        common += 1
    ia, ib = [0] * len(a.regions), [0] * len(b.regions)
    if pos[a_id] > pos[b_id]:
        loop = next((i for i in reversed(range(common)) if regions.is_loop(a.regions[i])), None)
        if loop is None:
            return None
        ib[loop] = 1
    return Need(AInstr(a, a.pipe, "op", None, (), tuple(ia), pos[a_id]),
                AInstr(b, b.pipe, "op", None, (), tuple(ib), pos[b_id]), "RAW", same_pipe=a.pipe == b.pipe)


def proof_needs(g: KernelGraph, regions: Regions, pos: dict[int, int]) -> tuple[list[Need], set[tuple]]:
    """(the needs of the pairs the proof finds unordered in `g`, a build of the scheduler's plans; the
    set of those pairs)."""
    out, pairs = [], set()
    for v in prove(g):
        if v.kind in ("order", "barrier"):
            pairs.add(v.nodes)
            need = violation_need(regions, pos, v)
            if need is not None and need.same_pipe == (v.kind == "barrier"):
                out.append(need)
    return out, pairs


def _lift(g: KernelGraph, v: Violation, plans: list[Plan], regions: Regions, user_ids: dict) -> bool:
    """A set/wait pair for (a, b) lifted out of every region the two do not share: set after a's region,
    wait before b's, in the same iteration of their common loops when a comes first there, else carried
    one iteration by the innermost common loop (primed before it, drained after). Its own id, unrotated."""
    base = regions.g
    pos = {nid: i for i, nid in enumerate(base.order)}
    need = violation_need(regions, pos, v)
    if need is None or need.same_pipe:
        return False
    a_id, b_id = v.nodes
    a, b = need.a.node, need.b.node
    try:
        event = fixing_event(a.pipe, b.pipe)
    except KeyError:
        return False
    p = plan_for(regions, need, pos)
    p.distance = min(p.distance, 1) if p.loop is not None else 0
    p.rot_loop, p.rotate = None, 1
    taken = set(user_ids.get(event, ()))
    for q in plans:
        if q.event == event:
            taken.update(range(q.base, q.base + q.width))
    free = [i for i in range(NUM_IDS - p.width + 1) if not taken.intersection(range(i, i + p.width))]
    if not free:
        return False
    p.base = free[0]
    p.reason = (f"auto: lifted by the proof: %{a_id} ({a.loc.short}) -> %{b_id} ({b.loc.short}) was unordered on "
                "some path" + (f", carried by loop %{p.loop}" if p.loop is not None else ""))
    plans.append(p)
    return True
