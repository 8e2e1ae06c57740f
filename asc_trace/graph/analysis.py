"""Static analysis for the scheduler: run the kernel's structure on an abstract machine.

Every loop is unrolled a few iterations (enough to see the dependences it carries: twice the period of
its `% m` indices and queue rotations, plus one; 3 for a loop around other loops), loop indices become
numbers, runtime arguments stay symbolic. What the kernel does at run time is covered by *profiles*,
one abstract run each: every `asc.cond` taking its then-branch, its else-branch, alternating between
them (and, for up to four branches, every constant combination; for more, every pair of nearby branches'), each loop whose trip count is a
runtime value running zero times, inner loops all empty at once, and all of them once (so the
dependences that jump over a loop, or across a loop's first and last iteration, are seen). The needs
of all profiles are the scheduler's input.

The instruction instances go through the same pipe model as the simulator's (graph/hb.py), which gives
each one a vector clock. A *need* is a pair of conflicting accesses on different pipes (at least one a
write, possibly overlapping bytes; graph/hazards.py) whose order the kernel does not already
guarantee; a *barrier need* is the same on one pipe without a pipe_barrier between.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable

from ..enums import HardEvent
from .expr import Bin, Const, Expr, Un, Var, binop, free_vars, substitute, vars_of
from .hazards import SEPARATORS, dependence, needs_barrier, strongest
from .hb import API_EVENT_ID, PIDX, Instr, PipeClock, api_events, api_steps
from .ops.cmpmask import cmpmask_access
from .pool_layout import arena_root, pool_layout
from .raw_alias import ANY_OWNED, may_alias, owned_layout, raw_space
from .queue_model import HANDS_OUT, QueSlots, que_event
from .kernel_graph import Cond, KernelGraph, Loop, While, walk_items
from .linear import Lin, disjoint, linearize
from .node import Node, Pipe, TensorRef, exprs_in
from .ops import accesses as op_accesses
from .ops.block_sync import BLOCK_SYNC_OPS
from .ops import REGISTRY, with_role
from .ops.framework import QUEUE_OPS
from .ops.sync import FLAG_OPS

MAX_UNROLL = 9
MAX_ALL_COMBINATIONS = 4     # branches up to which every combination of taken / not taken is a profile
PAIR_WINDOW = 3              # beyond that, each branch is combined with the next ones in program order
MAX_PAIR_PROFILES = 48       # ... in at most this many profiles
# the ops without a pipe that the walk still follows: memory, TQue steps, barriers (their records' roles)
_BOOKKEEPING = with_role("storage", "queue", "barrier", "block_sync")


@dataclass(frozen=True, slots=True)
class Acc:
    """A symbolic access: `space` names the memory (("ub", what it may alias), ("que", q, slot), ("tbuf", t),
    ("arena", pool), ("gm", param))."""

    space: tuple
    start: Lin
    length: Lin
    write: bool
    root: int


class AInstr(Instr):
    """An instruction instance; `iters` holds one entry per scope region of its node (`Node.regions`):
    the iteration of a `for` / `while`, 0 for a branch."""

    __slots__ = ("iters", "vc", "accs", "index")

    def __init__(self, node: Node, pipe: Pipe, kind: str, key: Any, accs: tuple[Acc, ...], iters: tuple[int, ...],
                 index: int) -> None:
        super().__init__(node, pipe, kind, key)
        self.accs = accs
        self.iters = iters
        self.vc: list[int] | None = None
        self.index = index


@dataclass
class Need:
    a: AInstr
    b: AInstr
    kind: str                # "RAW", "WAR", "WAW"
    same_pipe: bool = False

    def describe(self) -> str:
        return f"{self.kind} %{self.a.node.id} -> %{self.b.node.id}"

    def split(self, is_loop: Callable[[int], bool]) -> tuple[int, int | None]:
        """(how many enclosing regions the two instances share, the index among them of the first loop
        in which they run in different iterations, or None when they share every iteration)."""
        sa, sb = self.a.node.regions, self.b.node.regions
        common = 0
        while common < min(len(sa), len(sb)) and sa[common] == sb[common]:
            common += 1
        level = next((i for i in range(common) if is_loop(sa[i]) and self.a.iters[i] != self.b.iters[i]), None)
        return common, level


@dataclass
class Trace:
    instrs: list[AInstr] = field(default_factory=list)
    loops: dict[int, int] = field(default_factory=dict)      # loop node id -> unrolled iterations
    unknown_ids: list[Node] = field(default_factory=list)     # user flags whose id we could not evaluate
    user_ids: dict[HardEvent, set[int]] = field(default_factory=dict)
    problems: list[Any] = field(default_factory=list)
    pairs: list[tuple[Node, Node]] = field(default_factory=list)   # (set, previous set / wait) of each problem


@dataclass(frozen=True)
class PathChoice:
    """One way the kernel may run: how each branch is chosen (by visit number) and loop trip overrides."""

    branches: str = "then"                          # "then", "else", "alt", "alt2" or "fixed"
    fixed: tuple[tuple[int, bool], ...] = ()        # "fixed": if id -> branch taken
    trips: tuple[tuple[int, int], ...] = ()         # loop id -> iterations to run instead of the unroll

    def take_then(self, cond: int, visit: int) -> bool:
        if self.branches == "then":
            return True
        if self.branches == "else":
            return False
        if self.branches == "alt":
            return visit % 2 == 0
        if self.branches == "alt2":
            return visit % 2 == 1
        return dict(self.fixed).get(cond, True)


def _inductions(w: While) -> dict[Var, tuple[Expr, int]]:
    """Carried values of a while loop that each iteration steps by a constant: var -> (initial, step)."""
    last = w.body[-1] if w.body else None
    if not isinstance(last, Node) or last.op != "yield":
        return {}
    out: dict[Var, tuple[Expr, int]] = {}
    for v, init, nxt in zip(w.node.args[0], w.node.args[1], last.args):
        if isinstance(nxt, Bin) and nxt.op in ("+", "-") and nxt.a == v and isinstance(nxt.b, Const) \
                and isinstance(nxt.b.value, int) and v.type == "int":
            out[v] = (init, nxt.b.value if nxt.op == "+" else -nxt.b.value)
    return out


def trip_count(for_node: Node) -> int | None:
    """The trip count of a `for` whose bounds are known while tracing, else None."""
    _var, start, stop, step = for_node.args
    if not all(isinstance(x, Const) for x in (start, stop, step)):
        return None
    a, b, c = start.value, stop.value, step.value
    return max(0, -(-(b - a) // c)) if c > 0 else max(0, -(-(a - b) // -c))


def profiles(g: KernelGraph) -> list[PathChoice]:
    """The runs the scheduler analyses (see module docstring)."""
    conds = [n.id for n in g if n.op == "if"]
    runtime = [n.id for n in g if (n.op == "for" and trip_count(n) is None) or n.op == "while"]
    out: list[PathChoice] = []
    if not conds:
        out.append(PathChoice())
    elif len(conds) <= MAX_ALL_COMBINATIONS:
        for mask in range(1 << len(conds)):
            out.append(PathChoice("fixed", tuple((c, bool(mask >> i & 1)) for i, c in enumerate(conds))))
        out += [PathChoice("alt"), PathChoice("alt2")]
    else:
        out += [PathChoice("then"), PathChoice("else"), PathChoice("alt"), PathChoice("alt2")]
        # every pair of nearby branches (within PAIR_WINDOW in program order: nested in each other or
        # one after the other) in each of its four combinations, the others all taken or all not
        pairs: list[PathChoice] = []
        for i, a in enumerate(conds):
            for b in conds[i + 1:i + 1 + PAIR_WINDOW]:
                for rest in (True, False):
                    others = tuple((c, rest) for c in conds if c not in (a, b))
                    pairs += [PathChoice("fixed", ((a, x), (b, y)) + others) for x in (True, False) for y in (True, False)
                              if (x, y) != (rest, rest)]
        step = -(-len(pairs) // MAX_PAIR_PROFILES)      # every step-th, so that the cost stays bounded
        out += pairs[::step]
    modes = ("alt", "alt2") if conds else ("then",)
    trips: list[tuple] = [((lid, 0),) for lid in runtime]
    if runtime:
        trips.append(tuple((lid, 1) for lid in runtime))
    # every runtime loop from some nesting depth on empty at once (an outer loop's iteration in which
    # none of its inner loops runs: its flags must still alternate)
    loop_ids = {n.id for n in g if n.op in ("for", "while")}
    depth = {lid: sum(1 for r in g.node(lid).regions if r in loop_ids) for lid in runtime}
    for d in sorted(set(depth.values()) - {0}):
        deep = tuple((lid, 0) for lid in runtime if depth[lid] >= d)
        if len(deep) > 1:
            trips.append(deep)
    return out + [PathChoice(mode, trips=t) for t in trips for mode in modes]


# -- building the abstract trace ----------------------------------------------------------------------

class _AbstractRun:
    def __init__(self, g: KernelGraph, profile: PathChoice = PathChoice()) -> None:
        self.g = g
        self.profile = profile
        self.trips = dict(profile.trips)
        self.visits: dict[int, int] = {}
        self.trace = Trace()
        self.roots: dict[int, tuple] = {}
        self.ques: dict[int, tuple] = {}       # tque id -> (position, QueSlots or None)
        # the scheduler's kernels are built with bisheng's auto-sync off: scalar accesses need flags too
        self.clock = PipeClock(self._on_exec, strict=False, scalar_flags=True,
                               own_pipe=any(n.op == "tpipe" for n in g))
        self.subst: dict[Var, Expr] = {}
        self.subst_key: tuple = ()

    def _on_exec(self, ins: Instr, vc: list[int]) -> None:
        if isinstance(ins, AInstr):
            ins.vc = vc[:]

    def run(self) -> Trace:
        self.block(self.g.structured(), ())
        self.clock.drain()
        self.clock.force_drain()
        self.trace.problems = list(self.clock.problems)
        self.trace.pairs = list(self.clock.problem_pairs)
        return self.trace

    def block(self, items: tuple, iters: tuple[int, ...]) -> None:
        for it in items:
            if isinstance(it, Loop):
                self.loop(it, iters)
            elif isinstance(it, While):
                u = self.trips.get(it.node.id, 3)
                self.trace.loops[it.node.id] = u
                inductions = _inductions(it)
                for k in range(u):
                    # a carried value that steps by a constant is known in each unrolled iteration (the
                    # addresses it indexes are then told apart like a for loop's)
                    for v, (init, step) in inductions.items():
                        self.subst[v] = binop("+", substitute(init, self.subst), Const(k * step))
                    self.subst_key = tuple(self.subst.items())
                    self.block(it.body, iters + (k,))
                for v in inductions:
                    self.subst.pop(v, None)
                self.subst_key = tuple(self.subst.items())
            elif isinstance(it, Cond):
                visit = self.visits.get(it.node.id, 0)
                self.visits[it.node.id] = visit + 1
                if self.profile.take_then(it.node.id, visit):
                    self.block(it.then_body, iters + (0,))
                else:
                    self.block(it.else_body, iters + (0,))
            else:
                self.node(it, iters)

    def loop(self, lp: Loop, iters: tuple[int, ...]) -> None:
        var, start, stop, step = lp.node.args
        s, e, t = (substitute(x, self.subst) for x in (start, stop, step))
        # The same number of iterations whatever a runtime trip count, so that a loop's schedule (and its
        # source) does not depend on how often it runs; a loop known to run fewer times runs just those.
        u = self.trace.loops.get(lp.node.id) or unroll_count(self.g, lp)
        self.trace.loops[lp.node.id] = u
        known = trip_count(lp.node)
        if known is not None and known <= 1:
            u = known      # carries nothing (longer constant loops keep the unroll, so the source does not
                           # depend on the trip count)
        u = self.trips.get(lp.node.id, u)
        for k in range(u):
            self.subst[var] = binop("+", s, binop("*", Const(k), t))
            self.subst_key = tuple(self.subst.items())
            self.block(lp.body, iters + (k,))
        self.subst.pop(var, None)
        self.subst_key = tuple(self.subst.items())

    def ev(self, e: Expr | None) -> Expr | None:
        return None if e is None else _subst(e, self.subst_key)

    def node(self, n: Node, iters: tuple[int, ...]) -> None:
        op = n.op
        if n.pipe is None and op not in _BOOKKEEPING:
            return
        if op == "local_tensor":     # [2]: where the TPipe's buffers are, which the raw bytes may alias
            self.roots[n.id] = ("ub", self.ev(n.args[1]), owned_layout(self.g))
        elif op == "global_tensor":
            home, delta = self.g.signature.gm_home(n.args[0].index)     # shared memory: one space
            self.roots[n.id] = ("gm", home, self.ev(n.args[1]), delta)
        elif op == "tque":
            self.ques[n.id] = (n.args[0], None)      # (position, QueSlots once init_buffer gave it buffers)
        elif op == "tbuf":
            pass
        elif op == "init_buffer":
            q = self.ques.get(n.args[0].root)
            num = self.ev(n.args[1])
            if q is not None:       # a count known only at run time: the queue's buffers are not followed
                known = isinstance(num, Const) and num.value
                self.ques[n.args[0].root] = (q[0], QueSlots.fresh(num.value) if known else None)
        elif op == "tbuf_get":
            self.roots[n.id] = ("tbuf", n.args[0].root)
        elif op in QUEUE_OPS:
            self.que_op(n, iters)
            return
        elif op in FLAG_OPS:
            ev, eid = n.args
            v = self.ev(eid)
            if not isinstance(v, Const):
                lin = linearize(v)     # `(start + k - start) % 2`: runtime starts cancel out
                if lin is not None and lin.is_const:
                    v = Const(lin.const)
            if isinstance(v, Const):
                key = (ev, v.value)
                self.trace.user_ids.setdefault(ev, set()).add(v.value)
            else:
                self.trace.unknown_ids.append(n)
                return    # an id we cannot evaluate orders nothing we can prove
            self.emit(n, n.pipe, REGISTRY[op].sync_side, key, (), iters)
            return
        elif op == "pipe_barrier" or op in BLOCK_SYNC_OPS:
            # SyncAll / IBSet / IBWait begin with PipeBarrier<PIPE_ALL> and end with the scalar unit waiting
            # (graph/ops/block_sync.py): within the core they order as that barrier does
            if n.pipe is None:
                self.emit(n, Pipe.S, "barrier_all", None, (), iters)
            else:
                self.emit(n, n.pipe, "barrier", None, (), iters)
            return
        accs = self.accesses(n)
        if accs is not None and n.pipe is not None:
            self.emit(n, n.pipe, "op", None, accs, iters, self.api(n))

    def api(self, n: Node) -> tuple:
        """The sets and waits an API call makes itself (graph/hb.py api_steps): the scheduler keeps their
        ids (API_EVENT_ID) out of its own flags, and orders by them only where the call surely makes them."""
        for ev in api_events(n):
            self.trace.user_ids.setdefault(ev, set()).add(API_EVENT_ID)
        steps = api_steps(n, self._int)
        return steps or ()

    def _int(self, e: Expr) -> int | None:
        v = self.ev(e)
        return v.value if isinstance(v, Const) and isinstance(v.value, int) else None

    def emit(self, n: Node, pipe: Pipe, kind: str, key: Any, accs: tuple, iters: tuple[int, ...],
             api: tuple = ()) -> None:
        ins = AInstr(n, pipe, kind, key, accs, iters, len(self.trace.instrs))
        ins.api = api
        self.trace.instrs.append(ins)
        self.clock.issue(ins)

    def que_op(self, n: Node, iters: tuple[int, ...]) -> None:
        qid = n.args[0].root
        q = self.ques.get(qid)
        if q is None or q[1] is None:
            if REGISTRY[n.op].defines == "tensor":      # a step that hands out a buffer (AllocTensor, DeQue)
                self.roots[n.id] = ("que", qid, None)
            return
        # a queue no pipe pair serves (TQue at VECCALC) still hands out its buffers, without events (que_event)
        pos, slots = q
        if n.op in HANDS_OUT:
            got = slots.hand_out(n.op)
            if got is None:         # (the path taken through branches need not match enques with deques)
                self.roots[n.id] = ("que", qid, None)
                return
            slot, reused, slots = got
            self.roots[n.id] = ("que", qid, slot)
        else:
            slot = self.slot_of(n.args[1])
            if slot is None:
                return
            reused, slots = True, slots.take_back(n.op, slot)
        self.ques[qid] = (pos, slots)
        ev = que_event(pos, n.op, qid, slot, reused)
        if ev is not None:
            self.emit(n, ev[0], ev[1], ev[2], (), iters)

    def slot_of(self, ref: TensorRef) -> int | None:
        r = self.roots.get(ref.root)
        return r[2] if r and r[0] == "que" else None

    def accesses(self, n: Node) -> tuple[Acc, ...] | None:
        out: list[Acc] = []
        for ref, start, nelem, write in op_accesses(n):
            acc = self.access(ref, binop("+", ref.offset, start), self.ev(nelem), write)
            if acc is not None:
                out.append(acc)
        cm = cmpmask_access(n)
        if cm is not None:      # the CMPMASK register: V-pipe instructions that share it are ordered by barriers
            out.append(Acc(("cmpmask",), linearize(Const(0)), linearize(Const(16)), cm, -1))
        return tuple(out)

    def access(self, ref: TensorRef, offset: Expr, nelem: Expr, write: bool) -> Acc | None:
        root = self.roots.get(ref.root)
        if root is None:
            return None
        return _access(ref, self.ev(offset), nelem, write, arena_root(pool_layout(self.g), root))


@lru_cache(maxsize=65536)
def _subst(e: Expr, key: tuple) -> Expr:
    return substitute(e, dict(key)) if key else e


@lru_cache(maxsize=65536)
def _access(ref: TensorRef, offset: Expr, nelem: Expr, write: bool, root: tuple) -> Acc | None:
    """The symbolic byte range an operand touches (memoised: the same instances recur every round)."""
    size = ref.dtype.itemsize
    off = binop("*", offset, Const(size))
    length = linearize(binop("*", nelem, Const(size)))
    if root[0] == "ub":
        start = linearize(binop("+", root[1], off))
        space: tuple = ANY_OWNED
        if start is not None and length is not None and len(root) > 2:
            space = raw_space(root[2], start, length)
    elif root[0] == "gm":
        # root[3]: the parameter's first byte in the memory it shares with another (0 alone)
        start = linearize(binop("+", binop("*", root[2], Const(size)), binop("+", off, Const(root[3]))))
        space = ("gm", root[1])
    elif root[0] == "que":
        start = linearize(off)
        space = ("que", root[1], root[2])
    elif root[0] == "arena":        # a pooled buffer in a block handed out more than once (pool_layout.py)
        start = linearize(binop("+", Const(root[2]), off))
        space = ("arena", root[1])
    else:
        start = linearize(off)
        space = ("tbuf", root[1])
    if start is None or length is None:
        return None
    return Acc(space, start, length, write, ref.root)


def unroll_count(g: KernelGraph, lp: Loop) -> int:
    """Iterations to unroll: twice the loop's period (its `% m` indices, queue rotations) plus one."""
    var = lp.node.args[0]
    period = 1
    ques: set[int] = set()
    for n in _walk(lp.body):
        for e in exprs_in(n.args):
            for m in _moduli(e, var):
                period = math.lcm(period, m)
        if n.op == "alloc_tensor":
            ques.add(n.args[0].root)
    for n in g:
        if n.op == "init_buffer" and n.args[0].root in ques and isinstance(n.args[1], Const):
            period = math.lcm(period, n.args[1].value)
    # a loop around other loops multiplies their instances: it gets 3 iterations, enough to see what it
    # carries to the next iteration and across a double buffer's period (iteration 0 to 2)
    nested = any(isinstance(it, (Loop, While)) or (isinstance(it, Cond) and _has_loop(it)) for it in lp.body)
    return max(3, min(3 if nested else MAX_UNROLL, 2 * period + 1))


def _has_loop(c: Cond) -> bool:
    return any(n.op in ("for", "while") for n in walk_items(c.then_body + c.else_body))


def _walk(items: tuple):
    return walk_items(items)


def _moduli(e: Expr, var: Var):
    # (a subtree without `var` holds no modulus of it: skipped on its kept variable set, not walked)
    if isinstance(e, Bin):
        if var not in vars_of(e):
            return
        if e.op in ("%", "//") and isinstance(e.b, Const) and isinstance(e.b.value, int) and e.b.value > 1 \
                and var in vars_of(e.a):
            yield e.b.value
        yield from _moduli(e.a, var)
        yield from _moduli(e.b, var)
    elif isinstance(e, Un):
        yield from _moduli(e.a, var)


def abstract_trace(g: KernelGraph, profile: PathChoice = PathChoice()) -> Trace:
    return _AbstractRun(g, profile).run()


# -- needs ------------------------------------------------------------------------------------------

def _overlap(a: Acc, b: Acc) -> bool:
    if a.space[0] != b.space[0]:
        # a raw LocalTensor's bytes may be those of a TPipe buffer (graph/raw_alias.py); GM stays apart
        if a.space[0] == "ub":
            return may_alias(a.space, b.space)
        if b.space[0] == "ub":
            return may_alias(b.space, a.space)
        return False
    if a.space[0] == "ub":
        pass            # two raw tensors: compared by address below, whatever they may alias
    elif a.space[0] == "que":
        if a.space[1] != b.space[1]:
            return False
        if a.space[2] is not None and b.space[2] is not None and a.space[2] != b.space[2]:
            return False
    elif a.space != b.space:
        return False
    return not disjoint(a.start, a.length, b.start, b.length)


def _conflict(a: AInstr, b: AInstr) -> str | None:
    """The dependence of b on a, named by the most telling kind when several hold (graph/hazards.py)."""
    return strongest(_conflicts(a, b))


def find_needs(tr: Trace, barriers: bool = True) -> list[Need]:
    """Conflicting access pairs the kernel does not order yet (see module docstring)."""
    needs: list[Need] = []
    by_pipe: dict[int, list[AInstr]] = {0: [], 1: [], 2: [], 3: []}
    last_barrier: dict[int, int] = {0: -1, 1: -1, 2: -1, 3: -1}
    for b in tr.instrs:
        p = PIDX[b.pipe]
        if b.kind in SEPARATORS and b.kind != "barrier_all":
            # a set_flag runs once the pipe's earlier work is done, and a wait holds back what follows:
            # either one keeps the pipe's instructions on its two sides from overlapping (assumed)
            last_barrier[p] = b.index
            continue
        if b.kind == "barrier_all":
            for q in last_barrier:
                last_barrier[q] = b.index
            continue
        if b.kind != "op" or not b.accs or b.vc is None:
            continue
        for q, prior in by_pipe.items():
            if q == p:
                # only what ran on this pipe since its last barrier (or set / wait) can overlap b
                for a in reversed(prior):
                    if a.index <= last_barrier[p]:
                        break
                    kind = _conflict(a, b)
                    if kind is not None:
                        if barriers and needs_barrier(b.pipe, kind):
                            needs.append(Need(a, b, kind, same_pipe=True))
                        break
                continue
            known = b.vc[q]
            for a in reversed(prior):
                if a.epoch <= known:
                    break       # a, and all of pipe q before it, happened before b
                kind = _conflict(a, b)
                if kind is not None:
                    needs.append(Need(a, b, kind))
                    break
        by_pipe[p].append(b)
    return needs


def find_deps(tr: Trace, window: int = 256) -> list[Need]:
    """Every dependence between instruction instances, ordered or not: for each instance and pipe, the
    latest earlier access of each kind (RAW, WAR, WAW) it conflicts with, looking `window` back."""
    deps: list[Need] = []
    by_pipe: dict[int, list[AInstr]] = {0: [], 1: [], 2: [], 3: []}
    for b in tr.instrs:
        if b.kind != "op" or not b.accs:
            continue
        p = PIDX[b.pipe]
        for q, prior in by_pipe.items():
            kinds: set[str] = set()
            for a in reversed(prior[-window:]):
                for kind in _conflicts(a, b) - kinds:
                    kinds.add(kind)
                    deps.append(Need(a, b, kind, same_pipe=q == p))
                if len(kinds) == 3:
                    break
        by_pipe[p].append(b)
    return deps


def _conflicts(a: AInstr, b: AInstr) -> set[str]:
    kinds = set()
    for x in a.accs:
        for y in b.accs:
            if (x.write or y.write) and _overlap(x, y):
                kinds.add(dependence(x.write, y.write))
    return kinds
