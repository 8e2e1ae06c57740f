"""KernelGraph: immutable nodes, program order, and their networkx view (`graph.nx`).

Program order matters on an in-order machine, so the graph keeps it explicitly (`order`); edges
carry the data flow (`kind="data"`, `idx` = operand position) and, after scheduling, the
dependences the scheduler found (`kind="dep"`). Loops are `for` ... `end_for` node pairs whose
bodies are traced once, so the graph's size never depends on a trip count.

Regions (all traced once):
- `for` (args: index Var, start, stop, step) ... `end_for` (args: for id);
- `while` (args: carried Vars, initial values, condition Expr over the carried Vars) ... `yield`
  (args: the carried Vars' next values) `end_while` (args: while id): `asc.while_loop`;
- `if` (args: predicate Expr, output Vars) ... `yield` (then-branch outputs) `else` (args: if id) ...
  `yield` (else-branch outputs) `end_if` (args: if id): `asc.cond`. The outputs are Vars of kind
  "local", assigned by the taken branch's `yield`.
`Node.loops` is the node's scope: the ids of its enclosing regions, outermost first, where a region is
a `for`, a `while`, an `if` (its then-branch) or an `else` (the else-branch).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Iterator

if TYPE_CHECKING:
    import networkx as nx

from .expr import Expr, Var, free_vars
from .node import Node, ObjRef, Pipe, TensorRef
from .signature import Signature
from .source_loc import SourceLoc


@dataclass(frozen=True, slots=True)
class Loop:
    """A structured loop: its `for` node and its body (nodes and nested loops) in order."""

    node: Node
    body: tuple["Item", ...]


@dataclass(frozen=True, slots=True)
class While:
    """An `asc.while_loop`: its `while` node and its body, which ends with the `yield` node."""

    node: Node
    body: tuple["Item", ...]


@dataclass(frozen=True, slots=True)
class Cond:
    """An `asc.cond`: its `if` node, the then-branch (ending with a `yield`), the `else` node and the
    else-branch (ending with a `yield`)."""

    node: Node
    then_body: tuple["Item", ...]
    else_node: Node
    else_body: tuple["Item", ...]


Item = Node | Loop | While | Cond

REGION_OPEN = ("for", "while", "if")
REGION_CLOSE = ("end_for", "end_while", "end_if")


class KernelGraph:
    """The traced kernel. `str(graph)` is the readable dump; `graph.nx` is the networkx graph."""

    def __init__(self, name: str, signature: Signature, options: dict[str, Any] | None = None) -> None:
        self.name = name
        self.signature = signature
        self.options: dict[str, Any] = dict(options or {})
        self._nodes: dict[int, Node] = {}
        self._extra: list[tuple[int, int, dict[str, Any]]] = []   # edges passes add (graph/dataflow.py)
        # edges computed only when `nx` is asked for (a compile that never looks pays nothing for them):
        # (where in _extra they go, the function that lists them)
        self._later: list[tuple[int, Callable[[], list[tuple[int, int, dict[str, Any]]]]]] = []
        self._nx: "nx.MultiDiGraph | None" = None      # built when first asked for (networkx is slow to import)
        self.order: list[int] = []
        self._next_id = 0
        self._tree: tuple[Item, ...] | None = None
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
        self._tree = None
        self._nx = None

    def replace(self, node: Node) -> None:
        """Swap in a new version of an existing node (same id)."""
        self._insert(node)

    def set_order(self, order: list[int]) -> None:
        self.order = list(order)
        self._tree = None

    def add_edge(self, src: int, dst: int, **data: Any) -> None:
        """An edge beyond the tensor -> op data edges (a dependence, a sync, ...), kept in `nx`."""
        self._extra.append((src, dst, data))
        if self._nx is not None:
            self._nx.add_edge(src, dst, **data)

    def add_edges_later(self, edges: Callable[[], list[tuple[int, int, dict[str, Any]]]]) -> None:
        """Edges like add_edge's, listed by `edges()` the first time `nx` is built."""
        self._later.append((len(self._extra), edges))
        self._nx = None

    def _materialize(self) -> None:
        for at, edges in reversed(self._later):
            self._extra[at:at] = edges()
        self._later = []

    # -- reading --------------------------------------------------------------------------------
    @property
    def nx(self) -> "nx.MultiDiGraph":
        """The networkx view: a MultiDiGraph (an in-place op reads and writes one tensor: two edges
        join that pair) with every node (attributes n, op, pipe, scope), the `kind="data"` edges tensor
        -> op with the operand index, and the edges passes added."""
        if self._nx is None:
            import networkx as nx
            self._materialize()
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

    def structured(self) -> tuple[Item, ...]:
        """Program order as a tree of nodes and loops."""
        if self._tree is None:
            self._tree = _structure(self)
        return self._tree

    def copy(self) -> "KernelGraph":
        g = KernelGraph(self.name, self.signature, self.options)
        g._nodes = dict(self._nodes)
        g._extra = list(self._extra)
        g._later = list(self._later)
        g.order = list(self.order)
        g._next_id = self._next_id
        g.notes = list(self.notes)
        return g

    def __str__(self) -> str:
        from .printer import format_graph
        return format_graph(self)

    def dump(self, locs: bool = True) -> str:
        from .printer import format_graph
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


def _structure(g: KernelGraph) -> tuple[Item, ...]:
    # stack entries: (region head, items of the current body, then-items of an `if` once `else` is seen)
    stack: list[list[Any]] = [[None, [], None]]
    for nid in g.order:
        n = g.node(nid)
        if n.op in REGION_OPEN:
            stack.append([n, [], None])
        elif n.op == "else":
            top = stack[-1]
            top[2] = (tuple(top[1]), n)
            top[1] = []
        elif n.op in REGION_CLOSE:
            head, body, then = stack.pop()
            if head is None:
                raise ValueError(f"%{nid}: {n.op} without its region")  # verify() reports this properly
            if head.op == "for":
                item: Item = Loop(head, tuple(body))
            elif head.op == "while":
                item = While(head, tuple(body))
            elif then is None:
                item = Cond(head, tuple(body), n, ())
            else:
                item = Cond(head, then[0], then[1], tuple(body))
            stack[-1][1].append(item)
        else:
            stack[-1][1].append(n)
    return tuple(stack[0][1])


def walk_items(items: tuple[Item, ...]) -> Iterator[Node]:
    """Every node of a structured body in program order, region heads included (not their ends)."""
    for it in items:
        if isinstance(it, Loop):
            yield it.node
            yield from walk_items(it.body)
        elif isinstance(it, While):
            yield it.node
            yield from walk_items(it.body)
        elif isinstance(it, Cond):
            yield it.node
            yield from walk_items(it.then_body)
            yield it.else_node
            yield from walk_items(it.else_body)
        else:
            yield it


def loop_var(for_node: Node) -> Var:
    return for_node.args[0]
