"""KernelGraph: immutable nodes, program order, and their networkx view (`graph.nx`).

Program order matters on an in-order machine, so the graph keeps it explicitly (`order`); edges
carry the data flow (`kind="data"`, `idx` = operand position) and, after scheduling, the
dependences the scheduler found (`kind="dep"`). Loops are `for` ... `end_for` node pairs whose
bodies are traced once, so the graph's size never depends on a trip count.

Regions (`for`, `while`, `if`/`else`: graph/regions.py describes their marker nodes) are read once per
program order into a `RegionTable` (`region_table()`). `Node.loops` is the node's scope: the ids of
its enclosing regions, outermost first, where a region is a `for`, a `while`, an `if` (its
then-branch) or an `else` (the else-branch).
"""
from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any, Iterator

if TYPE_CHECKING:
    import networkx as nx

from .expr import Expr, free_vars
from .node import Node, ObjRef, Pipe, TensorRef
from .printer import format_graph
from .regions import Cond, Item, Loop, RegionTable, While, loop_var, walk_items  # noqa: F401 (re-exported)
from .signature import Signature
from .source_loc import SourceLoc


class KernelGraph:
    """The traced kernel. `str(graph)` is the readable dump; `graph.nx` is the networkx graph."""

    def __init__(self, name: str, signature: Signature, options: dict[str, Any] | None = None) -> None:
        self.name = name
        self.signature = signature
        self.options: dict[str, Any] = dict(options or {})
        self._nodes: dict[int, Node] = {}
        self._extra: list[tuple[int, int, dict[str, Any]]] = []   # edges passes add (graph/dataflow.py)
        self._nx: "nx.MultiDiGraph | None" = None      # built when first asked for (networkx is slow to import)
        self.order: list[int] = []
        self._next_id = 0
        self._regions: RegionTable | None = None
        self.notes: list[str] = []   # pass annotations shown at the end of the dump

    # -- building -------------------------------------------------------------------------------
    def add(self, op: str, args: tuple[Any, ...], loc: SourceLoc, loops: tuple[int, ...] = (),
            pipe: Pipe | None = None, attrs: tuple[tuple[str, Any], ...] = ()) -> int:
        """Append a node in program order; returns its id."""
        nid = self._next_id
        self._next_id += 1
        node = Node(nid, op, tuple(args), loc, tuple(loops), pipe, attrs)
        self._insert(node)
        self.order.append(nid)
        return nid

    def new_node(self, op: str, args: tuple[Any, ...], loc: SourceLoc, loops: tuple[int, ...] = (),
                 pipe: Pipe | None = None, attrs: tuple[tuple[str, Any], ...] = ()) -> Node:
        """A node with a fresh id that is not yet placed in program order (passes place it)."""
        nid = self._next_id
        self._next_id += 1
        node = Node(nid, op, tuple(args), loc, tuple(loops), pipe, attrs)
        self._insert(node)
        return node

    def _insert(self, node: Node) -> None:
        self._nodes[node.id] = node
        self._regions = None
        self._nx = None

    def replace(self, node: Node) -> None:
        """Swap in a new version of an existing node (same id)."""
        self._insert(node)

    def set_order(self, order: list[int]) -> None:
        self.order = list(order)
        self._regions = None

    def add_edge(self, src: int, dst: int, **data: Any) -> None:
        """An edge beyond the tensor -> op data edges (a dependence, a sync, ...), kept in `nx`."""
        self._extra.append((src, dst, data))
        if self._nx is not None:
            self._nx.add_edge(src, dst, **data)

    # -- reading --------------------------------------------------------------------------------
    @property
    def nx(self) -> "nx.MultiDiGraph":
        """The networkx view: a MultiDiGraph (an in-place op reads and writes one tensor: two edges
        join that pair) with every node (attributes n, op, pipe, scope), the `kind="data"` edges tensor
        -> op with the operand index, and the edges passes added."""
        if self._nx is None:
            import networkx as nx
            G = nx.MultiDiGraph()
            for nid, n in self._nodes.items():
                G.add_node(nid, n=n, op=n.op, pipe=n.pipe.value if n.pipe else None, scope=n.loops)
            for nid, n in self._nodes.items():
                for idx, producer in _producers(n.args):
                    if producer in self._nodes:
                        G.add_edge(producer, nid, kind="data", idx=idx)
            for u, v, data in self._extra:
                G.add_edge(u, v, **data)
            self._nx = G
        return self._nx

    def node(self, nid: int) -> Node:
        return self._nodes[nid]

    def __iter__(self) -> Iterator[Node]:
        nodes = self._nodes
        for nid in self.order:
            yield nodes[nid]

    def __len__(self) -> int:
        return len(self.order)

    def __contains__(self, nid: int) -> bool:
        return nid in self._nodes

    def region_table(self) -> RegionTable:
        """The regions of the current program order, read from its marker nodes once."""
        if self._regions is None or len(self._regions.nodes) != len(self.order):
            # the length check catches a caller that appended to `order` in place
            self._regions = RegionTable([self._nodes[nid] for nid in self.order])
        return self._regions

    def structured(self) -> tuple[Item, ...]:
        """Program order as a tree of nodes and regions."""
        return self.region_table().tree

    def copy(self) -> "KernelGraph":
        g = KernelGraph(self.name, self.signature, self.options)
        g._nodes = dict(self._nodes)
        g._extra = list(self._extra)
        g.order = list(self.order)
        g._next_id = self._next_id
        g.notes = list(self.notes)
        return g

    def __str__(self) -> str:
        return format_graph(self)

    def dump(self, locs: bool = True) -> str:
        return format_graph(self, locs=locs)


def _producers(args: Any, idx: int = -1) -> Iterator[tuple[int, int]]:
    """(operand index, producing node id) for every TensorRef root and node-valued Var in `args`."""
    for i, a in enumerate(args) if idx < 0 else [(idx, args)]:
        yield from _producers_of(a, i)


def _producers_of(a: Any, idx: int) -> Iterator[tuple[int, int]]:
    if isinstance(a, TensorRef):
        yield idx, a.root
        yield from _producers_of(a.offset, idx)
    elif isinstance(a, ObjRef):
        yield idx, a.root
    elif isinstance(a, Expr):
        for v in free_vars(a):
            if v.kind == "node":
                yield idx, v.key
    elif isinstance(a, (tuple, list)):
        for x in a:
            yield from _producers_of(x, idx)
    elif dataclasses.is_dataclass(a) and not isinstance(a, type):
        for f in dataclasses.fields(a):
            yield from _producers_of(getattr(a, f.name), idx)
