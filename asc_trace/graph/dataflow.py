"""The dataflow view of a scheduled graph: what `ck.graph.nx` holds beyond tensor -> op data edges.

- `kind="dep"` edges op -> op for every RAW / WAR / WAW through the UB or GM the analysis found,
  labelled with the tensor (`tensor`, the node defining it), the memory (`space`), the pipe pair
  (`pipes`, e.g. "MTE2->V"), the loop carrying it and the distance in iterations (0 = same iteration);
- `kind="sync"` edges from each inserted set_flag to its wait_flag (`event`), `kind="orders"` edges
  from the producer to the set and from the wait to the consumer of every need the pair covers;
- `kind="value"` edges from each `yield` to the nodes that use the branch output or carried value it
  assigns (the scalar dataflow of asc.cond and asc.while_loop);
- node attributes `op`, `pipe` and `scope` (the enclosing regions) on every node.

The edges come from the same abstract runs the scheduler plans with (graph/analysis.py).
"""
from __future__ import annotations

from .analysis import Need, Trace, abstract_trace, find_deps
from .expr import free_vars
from .node import exprs_in
from .kernel_graph import KernelGraph
from .sync_plan import Plan


def dependences(g: KernelGraph, traces: list[Trace]) -> dict[tuple, dict]:
    """Node-level dependences of the graph's instruction instances, deduplicated."""
    out: dict[tuple, dict] = {}
    loop_ops = {n.id for n in g if n.op in ("for", "while")}
    for tr in traces[:1]:      # the first profile: every branch's then-side, every loop its full unroll
        for d in find_deps(tr, window=64):
            loop, dist = _carried(d, loop_ops)
            acc = next((x for x in d.b.accs if any(y.root == x.root or y.space == x.space for y in d.a.accs)),
                       d.b.accs[0])
            key = (d.a.node.id, d.b.node.id, d.kind, loop, dist)
            if key not in out:
                out[key] = dict(kind="dep", hazard=d.kind, tensor=acc.root, space=acc.space[0],
                                pipes=f"{d.a.pipe.value}->{d.b.pipe.value}", loop=loop, distance=dist,
                                same_pipe=d.same_pipe)
    return out


def _carried(d: Need, loop_ops: set[int]) -> tuple[int | None, int]:
    """The loop carrying a dependence and its distance in iterations (None, 0 within an iteration)."""
    _common, level = d.split(loop_ops.__contains__)
    if level is None:
        return None, 0
    return d.a.node.loops[level], d.b.iters[level] - d.a.iters[level]


def annotate(g: KernelGraph, traces: list[Trace], plans: list[Plan]) -> KernelGraph:
    """A copy of `g` with the dependences and the inserted flags' edges in its `nx`."""
    g = g.copy()
    added: set[tuple] = set()

    def edge(u: int, v: int, kind: str, **data: object) -> None:
        if (u, v, kind) not in added:
            added.add((u, v, kind))
            g.add_edge(u, v, kind=kind, **data)
    for (a, b, *_), data in dependences(g, traces).items():
        g.add_edge(a, b, **data)
    _value_edges(g, edge)
    for p in plans:
        sets = [nid for nid in p.nodes if g.node(nid).op == "set_flag"]
        waits = [nid for nid in p.nodes if g.node(nid).op == "wait_flag"]
        for s in sets:
            for w in waits:
                if g.node(s).attr("why") == g.node(w).attr("why") or p.loop is not None:
                    edge(s, w, "sync", event=p.event.name)
        for need in p.needs:
            for s in sets:
                if not g.node(s).attr("why", "").startswith("auto: prime"):
                    edge(need.a.node.id, s, "orders")
            for w in waits:
                if not g.node(w).attr("why", "").startswith("auto: drain"):
                    edge(w, need.b.node.id, "orders")
            if p.event is None:
                barrier = p.nodes[0]
                edge(need.a.node.id, barrier, "orders")
                edge(barrier, need.b.node.id, "orders")
    return g


def _value_edges(g: KernelGraph, edge) -> None:
    assigners: dict[str, list[int]] = {}
    for yid, targets in g.region_table().yield_targets.items():
        for v in targets:
            assigners.setdefault(v.env_key, []).append(yid)
    if not assigners:
        return
    for n in g:
        for e in exprs_in(n.args):
            for v in free_vars(e):
                for yid in assigners.get(v.env_key, ()):
                    edge(yid, n.id, "value", var=v.name)


def dataflow(g: KernelGraph) -> KernelGraph:
    """The pass for kernels the scheduler leaves alone (auto_sync=False): the same dependence edges,
    from one abstract run (every branch's then-side, every loop its unroll)."""
    return annotate(g, [abstract_trace(g)], [])
