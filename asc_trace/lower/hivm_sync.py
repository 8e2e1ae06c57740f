"""The vendor's schedule, read back: the set_flag / wait_flag / pipe_barrier operations that
`hivm-inject-sync` or `hivm-graph-sync-solver` put into a module from `hivm.py`, placed as sync nodes
into the kernel graph it came from.

Each vendor sync is placed immediately before the next operation of its block that carries
`{asc.node = N}` (the graph node N), or at the end of its block (before the branch's `yield`, the
`else`, the loop's `end_for`). The result is an ordinary hand-synchronised graph: the simulator runs it
with its race checker and its timing model like a kernel written with its own flags.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..enums import HardEvent, PipeID
from ..errors import ToolchainError
from ..graph.expr import Const
from ..graph.kernel_graph import Cond, Item, KernelGraph, Loop, While
from ..graph.node import Node, Pipe, make_attrs

_FLAG = re.compile(r"hivm\.hir\.(set_flag|wait_flag)\[<PIPE_(\w+)>, <PIPE_(\w+)>, <EVENT_ID(\d+)>\]")
_BARRIER = re.compile(r"hivm\.hir\.pipe_barrier\[<PIPE_(\w+)>\]")
_NODE = re.compile(r"asc\.node = (\d+) : i64")
_OPENS = ("scf.for", "scf.if", "scf.while")


@dataclass
class VendorSync:
    """One sync operation of the vendor's output."""

    op: str            # "set_flag", "wait_flag", "pipe_barrier"
    event: str = ""    # "MTE2_V" ...; the pipe for a barrier ("V", "ALL")
    event_id: int = 0

    def __str__(self) -> str:
        if self.op == "pipe_barrier":
            return f"pipe_barrier PIPE_{self.event}"
        return f"{self.op} {self.event}, {self.event_id}"


@dataclass
class Region:
    """An scf region op of the vendor's output: its blocks (for: 1, if: 1 or 2, while: 2)."""

    node: int = -1
    blocks: list[list["Entry"]] = field(default_factory=lambda: [[]])


Entry = int | VendorSync | Region      # an op of graph node N, a sync, a region


def parse_schedule(text: str) -> list[Entry]:
    """The function body of the vendor's output as a tree of ops, syncs and regions."""
    top: list[Entry] = []
    stack: list[Region] = []

    def block() -> list[Entry]:
        return stack[-1].blocks[-1] if stack else top

    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("//"):
            continue
        if line.startswith("}"):
            if line.startswith("} else {") or line.startswith("} do {"):
                stack[-1].blocks.append([])
                continue
            if not stack:
                continue       # the end of the function or the module
            region = stack.pop()
            m = _NODE.search(line)
            if m is None:
                raise ToolchainError(f"the vendor's output closes a region without its asc.node: {line!r}")
            region.node = int(m.group(1))
            block().append(region)
            continue
        if any(op in line for op in _OPENS) and line.endswith("{"):
            stack.append(Region())
            continue
        m = _FLAG.search(line)
        if m:
            block().append(VendorSync(m.group(1), f"{m.group(2)}_{m.group(3)}", int(m.group(4))))
            continue
        m = _BARRIER.search(line)
        if m:
            block().append(VendorSync("pipe_barrier", m.group(1)))
            continue
        if "hivm.hir.set_flag" in line or "hivm.hir.wait_flag" in line:
            raise ToolchainError(f"asc_trace cannot read this vendor sync (a runtime event id?): {line!r}")
        m = _NODE.search(line)
        if m:
            block().append(int(m.group(1)))
    return top


def syncs_of(entries: list[Entry]) -> list[VendorSync]:
    """Every sync of a parsed schedule, in text order."""
    out: list[VendorSync] = []
    for e in entries:
        if isinstance(e, VendorSync):
            out.append(e)
        elif isinstance(e, Region):
            for b in e.blocks:
                out.extend(syncs_of(b))
    return out


class _Placer:
    def __init__(self, g: KernelGraph, why: str) -> None:
        self.g = g
        self.why = why
        self.order: list[int] = []
        self.ends: dict[int, int] = {}
        for n in g:
            if n.op in ("end_for", "end_while", "end_if"):
                self.ends[n.args[0]] = n.id

    def node(self, s: VendorSync, anchor: Node, scope: tuple[int, ...]) -> Node:
        if s.op == "pipe_barrier":
            pid = PipeID[f"PIPE_{s.event}"]
            pipe = None if s.event == "ALL" else Pipe(s.event)
            args: tuple = (pid,)
        else:
            try:
                ev = HardEvent[s.event]
            except KeyError:
                raise ToolchainError(f"the vendor synchronises with {s.event}, which asc_trace has no HardEvent for",
                                     node=anchor) from None
            src, dst = s.event.split("_")
            pipe = Pipe(src if s.op == "set_flag" else dst)
            args = (ev, Const(s.event_id))
        return self.g.new_node(s.op, args, anchor.loc, scope, pipe, make_attrs(why=self.why))

    def block(self, entries: list[Entry], items: tuple[Item, ...], scope: tuple[int, ...], owner: Node) -> None:
        """Our items in order, each vendor sync placed before the op it precedes in `entries`."""
        before: dict[int, list[VendorSync]] = {}
        after: dict[int, list[VendorSync]] = {}
        regions: dict[int, Region] = {}
        pending: list[VendorSync] = []
        last: int | None = None
        for e in entries:
            if isinstance(e, VendorSync):
                pending.append(e)
                continue
            nid = e.node if isinstance(e, Region) else e
            if isinstance(e, Region):
                regions[nid] = e
            if nid == last:
                # between two steps of one node (axpy, leaky_relu): a wait moves before the node and a
                # set or barrier after it, which only ever orders more
                before[nid].extend(s for s in pending if s.op == "wait_flag")
                after.setdefault(nid, []).extend(s for s in pending if s.op != "wait_flag")
            else:
                before.setdefault(nid, []).extend(pending)
            pending = []
            last = nid
        placed = set()
        trailing_yield = items[-1] if items and isinstance(items[-1], Node) and items[-1].op == "yield" else None
        for it in items:
            head = it if isinstance(it, Node) else it.node
            if it is trailing_yield:
                break
            for s in before.get(head.id, []):
                self.order.append(self.node(s, head, scope).id)
            placed.add(head.id)
            self.order.append(head.id)
            if isinstance(it, Node):
                for s in after.get(head.id, []):
                    self.order.append(self.node(s, head, scope).id)
                continue
            r = regions.get(head.id)
            if r is None:
                raise ToolchainError(f"the vendor's output lost the region of %{head.id}", node=head)
            self.region(it, r, scope)
        missing = sorted(set(before) - placed)
        if missing:
            raise ToolchainError(f"the vendor's output has ops of nodes {missing} where the graph has none",
                                 node=owner)
        for s in pending:
            self.order.append(self.node(s, owner, scope).id)
        if trailing_yield is not None:
            self.order.append(trailing_yield.id)

    def region(self, it: Item, r: Region, scope: tuple[int, ...]) -> None:
        head = it.node
        if isinstance(it, Loop):
            self.block(r.blocks[0], it.body, scope + (head.id,), head)
        elif isinstance(it, Cond):
            self.block(r.blocks[0], it.then_body, scope + (head.id,), head)
            if it.else_node.op == "else":
                self.order.append(it.else_node.id)
                self.block(r.blocks[1] if len(r.blocks) > 1 else [], it.else_body, scope + (it.else_node.id,),
                           it.else_node)
        elif isinstance(it, While):
            if syncs_of(r.blocks[0]):
                raise ToolchainError("the vendor put a sync into a while loop's condition; asc_trace's graph has no "
                                     "place for one there", node=head)
            self.block(r.blocks[1], it.body, scope + (head.id,), head)
        self.order.append(self.ends[head.id])


def apply_schedule(g: KernelGraph, text: str, why: str = "vendor") -> KernelGraph:
    """`g` (flag-free, as lowered by hivm.py) with the vendor's syncs from its output `text` placed in it.

    Raises:
        ToolchainError: the output does not match the graph, or uses a sync asc_trace cannot express.
    """
    out = g.copy()
    placer = _Placer(out, why)
    first = next(iter(g), None)
    if first is None:
        return out
    placer.block(parse_schedule(text), g.structured(), (), first)
    out.set_order(placer.order)
    return out


__all__ = ["parse_schedule", "apply_schedule", "syncs_of", "VendorSync", "Region"]
