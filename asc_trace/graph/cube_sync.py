"""auto_sync for cube kernels: the set_flag / wait_flag pairs between the cube's pipes (MTE2 -> MTE1 ->
M -> FIX and the "buffer free" flags back) derived from what each instruction reads and writes.

For two instructions on different pipes whose footprints may overlap (one writing), in program order a
then b, with L their innermost common loop (or the kernel's top level):
- same iteration: a forward flag a.pipe_b.pipe, set after L's body item holding a, waited before the
  item holding b (so an Mmad in the K loop is waited for once, before the Fixpipe after that loop);
- across iterations of L (or, when those cannot overlap, of an enclosing loop): a "buffer free" flag
  b.pipe_a.pipe, set after the item holding b, waited before the item holding a, set once before the
  loop (so the first wait passes) and waited once after it (so no flag is left set). When the footprints
  of consecutive iterations cannot overlap (ping-pong buffers: `buf = base + (i % 2) * size`), the flag
  takes `d` ids in rotation, d the shortest iteration distance at which they may, so the pipes overlap.
Footprints are byte ranges in L1 / L0A / L0B / L0C / the bias table (GM: the whole argument), compared
with graph/linear.py; a range it cannot prove disjoint is taken to overlap, so the flags are never too
few. A kernel that already has flags of its own is left as written (the simulator checks it).

A runtime branch holding cube work (a Python `if` on a runtime value, asc.cond) is fenced: a
PipeBarrier<PIPE_ALL> before its `if` and after its `end_if` orders everything before the branch before
everything in it, and everything in it before everything after it, whichever side runs (or none, on a
core that skips it). So no flag crosses the fence: each side is scheduled as straight-line code of its
own (its loops' "buffer free" flags primed and drained inside the side), and the side not taken sets and
waits nothing. Conservative (the pipes drain at the fence), and sound for any branch condition."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..cube_enums import CUBE_MEMORY
from ..enums import HardEvent, PipeID
from ..errors import NotProvidedError, SyncError
from .expr import Const, Expr, Var, binop, substitute
from .kernel_graph import Cond, KernelGraph, Loop
from .cube_bounds import bounds, disjoint
from .node import Node, Pipe, make_attrs
from .ops import REGISTRY
from .ops import accesses as op_accesses
from .sync_plan import rotating_id
from .verify import verify

MAX_DISTANCE = 4          # ids in rotation at most (ping-pong is 2)
EVENT_IDS = 8


@dataclass(frozen=True)
class Foot:
    mem: Any              # a cube memory's name, or ("gm", parameter index)
    lo: Expr              # first byte
    n: Expr               # bytes
    write: bool


@dataclass
class Access:
    node: Node
    pos: int
    feet: list[Foot]


@dataclass
class Edge:
    src: Node             # sets after its item
    dst: Node             # waits before its item
    level: int | None     # the loop (for-node id) whose body holds both items; None: the kernel's top level
    set_item: int         # index of the item in that body
    wait_item: int
    carried: bool
    distance: int = 1

    @property
    def event(self) -> HardEvent:
        return HardEvent[f"{self.src.pipe.value}_{self.dst.pipe.value}"]


def cube_pipeline(options: dict[str, Any]) -> list:
    from ..kernel_options import as_options
    passes: list = [("verify", verify)]
    if as_options(options).auto_sync:
        passes.append(("cube_sync", insert_cube_sync))
    return passes


def check_kernel_type(g: KernelGraph, options: dict[str, Any]) -> None:
    """A cube kernel given a vector kernel type (kernel_type=KernelType.AIV_ONLY, "aiv", "vector") is refused:
    it is an AIC_ONLY kernel (recognised from its calls)."""
    from ..errors import OptionError
    kt = options.get("kernel_type")
    if kt is not None and kt in ("vector", "aiv", "KERNEL_TYPE_AIV_ONLY"):
        first = next(n for n in g if REGISTRY[n.op].family == "cube" or n.op == "local_tensor")
        raise OptionError(f"kernel_type={kt!r} says this is a vector kernel, but it runs on the cube core (its "
                          "L1 / L0 tensors and cube instructions make it AIC_ONLY)", first.loc,
                          hint="leave kernel_type unset: asc_trace recognises a cube kernel from its calls")
    asked = getattr(g, "core_type_asked", None)
    if asked is not None:       # asc.ascend_is_aic() answered for a vector kernel, and the kernel is a cube one
        raise OptionError(f"{asked[0]}() was answered for a vector kernel (kernel_type unset), but this kernel runs "
                          "on the cube core", asked[1],
                          hint="say so before tracing: @asc.jit(matmul_cube_only=True) or "
                               "kernel_type=KernelType.AIC_ONLY")


def _footprints(g: KernelGraph, n: Node, roots: dict[int, Node]) -> list[Foot]:
    out = []
    for ref, first, count, write in op_accesses(n):
        size = ref.dtype.itemsize
        if ref.space == "gm":
            out.append(Foot(("gm", roots[ref.root].args[0].index), Const(0), Const(1 << 62), write))
            continue
        root = roots[ref.root]
        lo = binop("+", root.args[1], binop("*", binop("+", ref.offset, first), Const(size)))
        out.append(Foot(ref.space, lo, binop("*", count, Const(size)), write))
    return out


def _fresh(e: Expr, loops: tuple[int, ...], keep: int, tag: int, g: KernelGraph, vb: dict) -> Expr:
    """`e` with the index of every loop in `loops` after the first `keep` renamed (another iteration),
    the new index taking the old one's bounds in `vb`."""
    mapping = {}
    for lid in loops[keep:]:
        v = g.node(lid).args[0]
        mapping[v] = Var("loop", 10_000_000 * tag + v.key, f"{v.name}'{tag}")
        vb[mapping[v]] = vb.get(v, (0.0, float("inf")))
    return substitute(e, mapping) if mapping else e


def _may_overlap(f: Foot, h: Foot, vb: dict, residues: list | None = None) -> bool:
    """Whether f and h may overlap, for some assignment of the residues (`var % m` terms resolved)."""
    if f.mem != h.mem or not (f.write or h.write):
        return False
    for res in residues or [None]:
        a0, an, b0, bn = f.lo, f.n, h.lo, h.n
        if res is not None:
            a0, an, b0, bn = (substitute(x, res) for x in (a0, an, b0, bn))
        if not disjoint(a0, an, b0, bn, vb):
            return True
    return False


class _Cube:
    def __init__(self, g: KernelGraph) -> None:
        self.g = g
        self.roots = {n.id: n for n in g if n.op == "local_tensor" or n.op == "global_tensor"}
        self.vb: dict[Var, tuple[float, float]] = {}      # loop index -> its bounds
        for n in g:
            if n.op == "for":
                var, start, stop, _step = n.args
                self.vb[var] = (bounds(start, self.vb)[0], bounds(stop, self.vb)[1] - 1)
        self.items: dict[int | None, tuple] = {}        # loop id (None: top) -> its body's items
        self.where: dict[int, dict[int | None, int]] = {}  # node id -> {level: index of the item holding it}
        self.fences: list[Cond] = []                        # runtime branches holding cube work
        self._index(g.structured(), None, ())
        self.accesses = [Access(n, i, _footprints(g, n, self.roots)) for i, n in enumerate(g) if _moves_data(n)]

    def _index(self, items: tuple, level: int | None, outer: tuple) -> None:
        self.items[level] = items
        for i, it in enumerate(items):
            if isinstance(it, Loop):
                self._mark(it, level, i)
                self._index(it.body, it.node.id, outer + (level,))
            elif hasattr(it, "body"):
                raise NotProvidedError("auto_sync of a cube kernel with asc.while_loop is not provided yet: write "
                                       "its flags, with auto_sync=False", node=it.node)
            elif isinstance(it, Cond) and not _scalar_only(it):       # fenced: each side on its own
                self.where.setdefault(it.node.id, {})[level] = i
                self.fences.append(it)
                self._index(it.then_body, it.node.id, outer + (level,))
                self._index(it.else_body, it.else_node.id, outer + (level,))
            else:       # an instruction, or a scalar-only branch (its id: the `if` node's)
                self.where.setdefault(getattr(it, "node", it).id, {})[level] = i

    def _mark(self, loop: Loop, level: int | None, i: int) -> None:
        for it in loop.body:
            if isinstance(it, Loop):
                self.where.setdefault(it.node.id, {})[level] = i
                self._mark(it, level, i)
            else:       # an instruction, or a scalar-only branch (its `if` node)
                self.where.setdefault(getattr(it, "node", it).id, {})[level] = i
        self.where.setdefault(loop.node.id, {})[level] = i

    # -- dependences -----------------------------------------------------------------------------
    def edges(self) -> list[Edge]:
        out: list[Edge] = []
        acc = self.accesses
        for i, a in enumerate(acc):
            for b in acc[i + 1:]:
                if a.node.pipe == b.node.pipe:
                    continue
                out += self._pair(a, b)
        return out

    def _pair(self, a: Access, b: Access) -> list[Edge]:
        g = self.g
        la, lb = a.node.regions, b.node.regions
        start = _fence_depth(g, la)
        if start != _fence_depth(g, lb) or la[:start] != lb[:start]:
            return []       # a fence (PIPE_ALL barrier) lies between them on every path
        k = 0
        while k < min(len(la), len(lb)) and la[k] == lb[k]:
            k += 1
        common = la[:k]
        out: list[Edge] = []
        # same iteration of every common loop: the inner loops' indices are independent
        vb = self.vb
        fa = [Foot(f.mem, _fresh(f.lo, la, k, 1, g, vb), _fresh(f.n, la, k, 1, g, vb), f.write) for f in a.feet]
        fb = [Foot(f.mem, _fresh(f.lo, lb, k, 2, g, vb), _fresh(f.n, lb, k, 2, g, vb), f.write) for f in b.feet]
        level = common[-1] if common else None
        if any(_may_overlap(x, y, vb) for x in fa for y in fb):
            out.append(Edge(a.node, b.node, level, self.where[a.node.id][level], self.where[b.node.id][level], False))
        # across iterations, innermost common loop first
        for depth in range(k - 1, start - 1, -1):      # the loops inside their side only
            lid = common[depth]
            d = self._distance(a, b, common[:depth + 1], depth)
            if d is None:
                continue
            out.append(Edge(b.node, a.node, lid, self.where[b.node.id][lid], self.where[a.node.id][lid], True, d))
            if not out[0:1] or out[0].carried:
                # the carried flag's set must follow its previous wait: a forward flag a -> b orders them
                out.append(Edge(a.node, b.node, level, self.where[a.node.id][level], self.where[b.node.id][level],
                                False))
            break
        return out

    def _distance(self, a: Access, b: Access, shared: tuple[int, ...], depth: int) -> int | None:
        """The least iteration distance of loop shared[depth] at which b (earlier iteration) and a (later)
        may touch the same bytes; None if they never can."""
        g = self.g
        loop = g.node(shared[depth])
        var, start, _stop, step = loop.args
        # b in iteration i, a in iteration i + d: indices of loops inside shared[depth] are independent
        vb = self.vb
        fb = [Foot(f.mem, _fresh(f.lo, b.node.regions, depth + 1, 3, g, vb),
                   _fresh(f.n, b.node.regions, depth + 1, 3, g, vb), f.write) for f in b.feet]
        fa0 = [Foot(f.mem, _fresh(f.lo, a.node.regions, depth + 1, 4, g, vb),
                    _fresh(f.n, a.node.regions, depth + 1, 4, g, vb), f.write) for f in a.feet]
        if not any(x.mem == y.mem and (x.write or y.write) for x in fa0 for y in fb):
            return None
        mod = _modulus(var, [f.lo for f in fa0 + fb])
        period = _period(var, step, fa0 + fb, mod)
        t = Var("loop", 20_000_000 + var.key, f"{var.name}_t")
        hi = vb.get(var, (0.0, float("inf")))[1]
        vb[t] = (0.0, hi // mod if mod and hi < float("inf") else float("inf"))     # var = mod * t + residue
        for d in range(1, MAX_DISTANCE + 1):
            moved = binop("+", var, binop("*", Const(d), step))
            fa = [Foot(f.mem, substitute(f.lo, {var: moved}), substitute(f.n, {var: moved}), f.write) for f in fa0]
            residues = None
            if mod:
                residues = [{var: binop("+", binop("*", Const(mod), t), Const(r))} for r in range(mod)]
            if any(_may_overlap(x, y, vb, residues) for x in fa for y in fb):
                return d
            if period is not None and d >= period:
                return None         # the footprints repeat every `period` iterations: they never meet
        # not periodic (a short last tile's size, min(rest, B), depends on the index), yet maybe apart in any
        # two iterations whatever: the index renamed apart in a, within its bounds
        other = Var("loop", 30_000_000 + var.key, f"{var.name}_any")
        vb[other] = vb.get(var, (0.0, float("inf")))
        fa = [Foot(f.mem, substitute(f.lo, {var: other}), substitute(f.n, {var: other}), f.write) for f in fa0]
        if not any(_may_overlap(x, y, vb) for x in fa for y in fb):
            return None
        return MAX_DISTANCE if mod else 1

    # -- placement ---------------------------------------------------------------------------------
    def build(self, edges: list[Edge]) -> KernelGraph:
        """The graph with the edges' flags placed. A "buffer free" flag is set once before the outermost
        loop around its loop and waited once after it, as the vendor's ProcessLoop does, and the flags of
        one event inside that loop share their ids: each id keeps one outstanding set from one run of an
        inner loop to the next (a wait takes the set of the last iteration that used the same buffer, the
        same residue of the rotation, which orders the two uses as they must be anyway), so the pipes
        stay overlapped across the outer loop's iterations. A forward flag paced by such a flag may take
        the same ids in sibling loops for the same reason."""
        g = self.g.copy()
        edges = _pace(_merge(edges), g)
        ends = _region_ends(g)
        pos = {nid: i for i, nid in enumerate(g.order)}
        groups: dict[tuple, dict[Any, list[Edge]]] = {}
        for i, e in enumerate(edges):
            # flags share ids only between sibling loops (loops of one body): there each id's waits and
            # sets follow each other without interleaving. The key is made of program facts only (a
            # top-level edge: its place in the list), never an object's address: the ids assigned in
            # the sorted order below must be the same in every process
            parent = (0, i) if not _is_loop(g, e.level) else (1, (g.node(e.level).regions[-1:] or (-1,))[0])
            key = (e.event.value, e.carried, e.distance, parent)
            groups.setdefault(key, {}).setdefault(e.level, []).append(e)
        ids: dict[HardEvent, int] = {}
        before: dict[int, list[Node]] = {}
        after: dict[int, list[Node]] = {}
        for (_, carried, d, _), levels in sorted(groups.items()):
            any_edge = next(iter(levels.values()))[0]
            ev = any_edge.event
            base = ids.get(ev, 0)
            slots = max(len(v) for v in levels.values())
            ids[ev] = base + slots * d
            if ids[ev] > EVENT_IDS:
                raise SyncError(f"auto_sync needs more than {EVENT_IDS} ids of HardEvent.{ev.name} for this cube "
                                "kernel", node=any_edge.dst,
                                hint="use fewer buffers or loops, or write the flags with auto_sync=False")
            src, dst = Pipe(ev.src), Pipe(ev.dst)
            for level, group in levels.items():
                for slot, e in enumerate(group):
                    self._place(g, e, base + slot * d, ends, before, after)
            if carried:              # one prime before the outermost loop around them, one drain after it
                outer = [_outermost_in_side(g, lid) for lid in levels]
                loops = sorted(outer, key=lambda lid: pos[lid])
                first, last = g.node(loops[0]), g.node(loops[-1])
                why = make_attrs(auto=True, why=f"prime / drain for loop %{first.id}"
                                 + (f" .. %{last.id}" if last is not first else ""))
                for k in range(slots * d):
                    before.setdefault(first.id, []).append(
                        g.new_node("set_flag", (ev, Const(base + k)), first.loc, first.regions, src, why))
                    after.setdefault(ends[last.id], []).insert(
                        0, g.new_node("wait_flag", (ev, Const(base + k)), last.loc, last.regions, dst, why))
        for cond in self.fences:
            fence = make_attrs(auto=True, why=f"fence of the runtime branch %{cond.node.id} (cube work inside)")
            # no flag is placed at the `if` or `end_if` themselves (no edge crosses a fence)
            for where, at in ((before, cond.node.id), (after, ends[cond.node.id])):
                where.setdefault(at, []).append(
                    g.new_node("pipe_barrier", (PipeID.PIPE_ALL,), cond.node.loc, cond.node.regions, None, fence))
        order: list[int] = []
        for nid in g.order:
            order += [n.id for n in before.get(nid, ())]
            order.append(nid)
            order += [n.id for n in after.get(nid, ())]
        g.set_order(order)
        return g

    def _place(self, g: KernelGraph, e: Edge, base: int, ends: dict[int, int], before: dict, after: dict) -> None:
        ev = e.event
        body = self.items[e.level]
        _, s_last = _span(body[e.set_item], ends)
        w_first, _ = _span(body[e.wait_item], ends)
        scope = () if e.level is None else g.node(e.level).regions + (e.level,)
        why = make_attrs(auto=True, why=f"{'free' if e.carried else 'ready'}: %{e.src.id} -> %{e.dst.id}")
        idx = rotating_id(g.node(e.level), e.distance, base) if e.distance > 1 else Const(base)
        after.setdefault(s_last, []).append(g.new_node("set_flag", (ev, idx), e.src.loc, scope, Pipe(ev.src), why))
        before.setdefault(w_first, []).append(g.new_node("wait_flag", (ev, idx), e.dst.loc, scope, Pipe(ev.dst), why))


def _period(var: Var, step: Expr, feet: list[Foot], mod: int) -> int | None:
    """1 when no footprint depends on the loop index, `mod` when each repeats after `mod` iterations
    (the index only in `% mod` terms), else None."""
    from .linear import linearize as lin
    for p in (1, mod) if mod else (1,):
        moved = {var: binop("+", var, binop("*", Const(p), step))}
        if all(lin(substitute(x, moved)) == lin(x) for f in feet for x in (f.lo, f.n)):
            return p
    return None


def _is_loop(g: KernelGraph, level: int | None) -> bool:
    """Whether a level is a loop's body (not the kernel's top level nor a side of a fenced branch)."""
    return level is not None and g.node(level).op == "for"


def _fence_depth(g: KernelGraph, regions: tuple[int, ...]) -> int:
    """How many of `regions` lie outside the innermost fenced branch side holding them (0: none)."""
    for j in range(len(regions) - 1, -1, -1):
        if g.node(regions[j]).op in ("if", "else"):
            return j + 1
    return 0


def _outermost_in_side(g: KernelGraph, lid: int) -> int:
    """The outermost loop around loop `lid` (itself included) within the branch side holding it."""
    scope = g.node(lid).regions + (lid,)
    return scope[_fence_depth(g, scope)]


def _scalar_only(item: Any) -> bool:
    """A branch holding no instruction of any pipe (scalar code only, e.g. a runtime `if` clamping a
    tail length): it orders nothing, so the cube scheduler can pass over it (a while loop is still
    refused)."""
    if isinstance(item, Node):
        return item.pipe is None
    bodies = [getattr(item, "then_body", ()), getattr(item, "else_body", ()), getattr(item, "body", ())]
    return all(_scalar_only(x) for body in bodies for x in body)


def _moves_data(n: Node) -> bool:
    """An instruction of a cube pipe that touches memory (a cube op, or a GM -> L1 copy by count)."""
    return n.pipe is not None and (REGISTRY[n.op].family == "cube" or n.op == "data_copy")


def _modulus(var: Var, exprs: list[Expr]) -> int:
    """The modulus m of `var % m` terms in the footprints (ping-pong buffers), 0 if none."""
    found: list[int] = []

    def walk(e: Any) -> None:
        if hasattr(e, "op") and getattr(e, "op", None) == "%" and isinstance(e.b, Const) and var in _vars(e.a):
            found.append(int(e.b.value))
        for c in ("a", "b"):
            if hasattr(e, c):
                walk(getattr(e, c))
    for e in exprs:
        walk(e)
    m = 0
    for f in found:
        m = f if m == 0 else m * f // _gcd(m, f)
    return m if m <= MAX_DISTANCE else 0


def _gcd(a: int, b: int) -> int:
    while b:
        a, b = b, a % b
    return a


def _vars(e: Any) -> set:
    from .expr import free_vars
    return free_vars(e)


def _region_ends(g: KernelGraph) -> dict[int, int]:
    stack, out = [], {}
    for n in g:
        if n.op in ("for", "if"):
            stack.append(n.id)
        elif n.op in ("end_for", "end_if"):
            out[stack.pop()] = n.id
    return out


def _span(item: Any, ends: dict[int, int]) -> tuple[int, int]:
    """(first node id, last node id) of a body item: a node, a loop from its `for` to its `end_for`, or a
    scalar-only branch from its `if` to its `end_if`."""
    if isinstance(item, Loop) or hasattr(item, "then_body"):
        return item.node.id, ends[item.node.id]
    return item.id, item.id


def _merge(edges: list[Edge]) -> list[Edge]:
    """As few flags as the edges need, per event, loop level and kind. A forward flag set after item s and
    waited before item w serves every edge whose source item is at or before s and whose destination item
    is after it (a set fires once all earlier work of its pipe is done; a wait holds all later work): the
    edges sorted by destination are covered greedily. Carried flags of one event and loop become one,
    waited before the first destination and set after the last source, in the shortest rotation."""
    groups: dict[tuple, list[Edge]] = {}
    for e in edges:
        groups.setdefault((e.event.value, -1 if e.level is None else e.level, e.carried), []).append(e)
    out: list[Edge] = []
    for (_, _, carried), group in sorted(groups.items()):
        if carried:
            first = group[0]
            out.append(Edge(first.src, first.dst, first.level, max(e.set_item for e in group),
                            min(e.wait_item for e in group), True, min(e.distance for e in group)))
            continue
        todo = sorted(group, key=lambda e: e.wait_item)
        while todo:
            head = todo[0]
            cut = head.wait_item - 1            # set after this item, wait before the next
            took = [e for e in todo if e.set_item <= cut < e.wait_item]
            todo = [e for e in todo if e not in took]
            out.append(Edge(head.src, head.dst, head.level, max(e.set_item for e in took),
                            min(e.wait_item for e in took), False))
    return out


def _pace(edges: list[Edge], g: KernelGraph) -> list[Edge]:
    """A forward flag in a loop is set again every iteration: the set of iteration i + d must not run
    before the wait of iteration i. A "buffer free" flag back (wait before the forward flag's source,
    set after its destination, distance d) keeps the setting pipe at most d iterations ahead, so the
    forward flag takes d ids in rotation; where there is no such flag, one is added (distance 1)."""
    out = list(edges)
    for f in edges:
        if f.carried or not _is_loop(g, f.level):     # straight-line code: set once, waited once
            continue
        back = [c for c in out if c.carried and c.level == f.level and c.src.pipe == f.dst.pipe
                and c.dst.pipe == f.src.pipe and c.wait_item <= f.set_item and c.set_item >= f.wait_item]
        if back:
            f.distance = min(c.distance for c in back)
        else:
            out.append(Edge(f.dst, f.src, f.level, f.wait_item, f.set_item, True, 1))
    return out


def insert_cube_sync(g: KernelGraph) -> KernelGraph:
    """The cube kernel with every flag its data dependences need (see the module docstring)."""
    # flags the kernel wrote itself are left as written; a pipe_barrier (pyasc kernels end with
    # PipeBarrier<PIPE_ALL>) only adds order, so the derived flags stay right around it
    if any(REGISTRY[n.op].family == "sync" and n.op != "pipe_barrier" for n in g):
        return g
    c = _Cube(g)
    return c.build(c.edges())
