"""The schedule's proof: abstract interpretation of a scheduled kernel over its region tree.

No path or profile is enumerated. The abstract state after a program point over-approximates every
concrete state any path can reach there, on any core:
- per flag key ((HardEvent, id) or a TQue buffer's event): {unset, set, maybe} and the accesses its
  setting pipe had ordered when it was set (what a wait on it orders; a newer instance of one of them,
  issued after the set, leaves that set);
- per pipe: the accesses that may still be unordered with respect to the pipe's next instruction
  (`pending`), and the accesses of the pipe itself since its last separator (`same`: barrier, set,
  wait), for the same-pipe hazards (graph/hazards.py);
- per TQue: its free and queued buffers (or unknown after a merge of different ones).
The transfer functions are the pipe model's rules (graph/hb.py): in-order pipes, a set publishes what
its pipe has ordered, a wait joins it, every instruction of MTE2 / V / MTE3 joins what the scalar unit
has waited for when it issues (not the scalar unit's own accesses: the scheduler's builds keep
bisheng's auto-sync off), a PIPE_ALL barrier orders everything. A wait is also a pseudo-access of its
flag, so that a set that may run before the previous wait consumed the flag is a conflict.

Branches: both sides from the same state, joined. Loops (`for` with any start / stop / step, zero
trips included; `asc.while_loop` with any trip count): a fixpoint over P phases of the index (P: the
period of its `% m` indices, queue rotations and ids), the exit joins every head state, the entry
state included (zero trips). The index of phase p is `start + (P*M + p)*step` with M a symbol per loop;
on the back edge an access's M becomes `M - 1 - D` (D >= 0: any older round), and the values the
body defines (inner indices, branch outputs, carried values, values read from the UB) become
unknowns, so the lattice is finite and addresses from older iterations stay comparable with the
current ones where they are affine (elsewhere they overlap: a sound over-approximation). Ids that
rotate with a loop whose start is a runtime value are evaluated from iteration 0 with the entry
state joined into every phase (the real sequence is a rotation of that one).

`prove(g)` returns the violations: (a) a flag set while set or maybe set, waited while unset or maybe
unset, set before its previous wait is ordered, left set at the end; (b) a conflicting pair of
accesses no in-order pipe, flag chain or barrier orders. Empty means proved.

Cost (none of it changes a verdict): accesses are interned numbers (graph/sync_proof_state.py), so the
states' set algebra runs on small ints; what a node accesses under the current phases of its loops, the
conflict verdict of two accesses and the carrying of an access over a back edge are memoized; and a
loop's result is memoized by everything its walk reads (the phases, the entry state, the tensors' places,
the queues' sizes), so the round that confirms an outer loop's fixpoint does not walk its inner loops
again.
"""
from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from ..enums import HardEvent
from .analysis import _access, _moduli, _overlap  # one overlap rule for the guess and the proof
from .raw_alias import owned_layout, raw_space
from .expr import Const, Expr, Var, binop, substitute
from .hazards import dependence, needs_barrier
from .hb import API_EVENT_ID, PIDX, api_steps
from .ops.block_sync import BLOCK_SYNC_OPS
from .ops import REGISTRY
from .ops.framework import QUEUE_OPS
from .ops.sync import FLAG_OPS
from .pool_layout import arena_root, pool_layout
from .queue_model import HANDS_OUT, QueSlots, que_event, que_pipes
from .sync_proof_loops import MAX_PERIOD, carry_back, carry_exit, defined_by, loop_items, trip_count_of
from .sync_proof_state import EMPTY, MAYBE, SET, UNSET, Elem, ElemTable, State
from .sync_proof_symmetry import align_queues
from .kernel_graph import Cond, KernelGraph, Loop, While, walk_items
from .linear import Lin, linearize
from .node import Node, TensorRef, exprs_in
from .ops import accesses as op_accesses

MAX_NEST_PHASES = 16     # phases of one loop times those of the loops around it (see Prover.loop)
MAX_ROUNDS = 40
_S = 0


@dataclass(frozen=True)
class Violation:
    kind: str               # "order", "barrier", "double_set", "unset_wait", "set_before_wait", "left_set", "unproven_id"
    nodes: tuple[int, ...]  # the nodes involved (the culprits of a flag problem; (a, b) of a pair)
    text: str


def join(a: State | None, b: State | None, tab: ElemTable, g: "KernelGraph | None" = None,
         memo: dict | None = None) -> State | None:
    """Both states' paths: flags equal on both or MAYBE, what a flag orders on every path that sets it,
    pending and same-pipe accesses of either; queues aligned first (sync_proof_symmetry.py)."""
    if a is None:
        return b
    if b is None:
        return a
    if g is not None and a.ques != b.ques:
        b = align_queues(a, b, g, tab, memo if memo is not None else {})
    flags = {}
    af, bf = a.flags, b.flags
    for k in af.keys() | bf.keys():
        fa, fb = af.get(k), bf.get(k)
        if fa is fb or fa == fb:
            flags[k] = fa
            continue
        sa, pa, wa = fa or (UNSET, EMPTY, EMPTY)
        sb, pb, wb = fb or (UNSET, EMPTY, EMPTY)
        st = sa if sa == sb else MAYBE
        # what the flag orders on every path that sets it (a path that does not set it cannot wait on it
        # without a reported violation)
        if sa == UNSET:
            pay = pb if sb != UNSET else EMPTY
        else:
            pay = pa if sb == UNSET else pa & pb
        flags[k] = (st, pay, wa | wb)
    ques, slots = a.ques, a.slots
    if a.ques != b.ques:
        ques = {q: (a.ques.get(q) if a.ques.get(q) == b.ques.get(q) else None) for q in a.ques.keys() | b.ques.keys()}
    if a.slots != b.slots:
        slots = {n: (a.slots.get(n) if a.slots.get(n) == b.slots.get(n) else None)
                 for n in a.slots.keys() | b.slots.keys()}
    return State(flags, [x if x is y else x | y for x, y in zip(a.pending, b.pending)],
                 [x if x is y else x | y for x, y in zip(a.same, b.same)], dict(ques), dict(slots))


@dataclass
class _LoopCtx:
    node: Node
    period: int
    m: Var
    d: Var
    defined: frozenset      # Vars the body defines
    any_phase: bool = False
    phase: int = 0          # the phase being walked
    _carried: tuple | None = None

    def carried(self) -> tuple:
        """(the body's values -> their older unknowns, the older round `M - 1 - D`): built once per loop, so
        that the memos of carry_back see the same objects at every back edge (hashes kept, equal by identity)."""
        if self._carried is None:
            olds = tuple((v, Var("local", -3000 - v.key, f"old_{v.name}", v.vtype)) for v in self.defined)
            self._carried = (olds, binop("-", binop("-", self.m, Const(1)), self.d))
        return self._carried


class Prover:
    def __init__(self, g: KernelGraph) -> None:
        self.g = g
        self.violations: dict[tuple, Violation] = {}
        self.env: dict[Var, Expr] = {}            # loop index -> its phase expression
        self.id_env: dict[Var, Expr] = {}         # ... for event ids (runtime starts dropped)
        self.roots: dict[int, tuple] = {}
        self.que_info: dict[int, dict] = {}
        self.loops: list[_LoopCtx] = []
        self.restart = False
        self.own_pipe = any(n.op == "tpipe" for n in g)
        self.memo: dict[tuple, dict] = {}
        self.tab = ElemTable()
        self.E = self.tab.elems
        # the env is a function of the phases of the `for` loops being walked: that tuple keys the memos
        # of what a node evaluates under it (its accesses, its API call's flags)
        self.env_key: tuple = ()
        self.node_accs: dict[int, tuple] = {}
        self.acc_memo: dict[tuple, tuple] = {}
        self.loop_memo: dict[tuple, tuple] = {}
        self.wait_elems: dict[tuple, frozenset] = {}     # a wait's pseudo-access (its number), per node and flag
        self.phase_envs: dict[tuple, tuple] = {}         # a loop phase's index expressions
        self.flag_keys: dict[tuple, tuple] = {}          # a set / wait's evaluated (event, id), per env_key
        # loops whose walk changes the TQue table (not replayed by the loop memo)
        self.unmemoized = {it.node.id for it in loop_items(g.structured())
                           if any(REGISTRY[n.op].defines == "que" or n.op == "init_buffer" for n in walk_items(it.body))}

    # -- driver -------------------------------------------------------------------------------------
    def run(self, cache: "ProofCache | None" = None) -> list[Violation]:
        items = self.g.structured()
        st, start = State(), 0
        entries: list[tuple] = []
        if cache is not None:
            self.tab = cache.tab
            self.E = self.tab.elems
            # the top-level items this graph shares with the last one proved: their states carry over
            for i, it in enumerate(items):
                if i < len(cache.entries) and cache.entries[i][0] == it:
                    start = i + 1
                else:
                    break
            entries = cache.entries[:start]
            if start:
                _it, saved, roots, ques, violations = entries[-1]
                st, self.roots, self.que_info, self.violations = saved.copy(), dict(roots), dict(ques), dict(violations)
        for it in items[start:]:
            st = self.block((it,), st)
            if cache is not None:
                entries.append((it, st.copy(), dict(self.roots), dict(self.que_info), dict(self.violations)))
        if cache is not None:
            cache.entries = entries
        for k, (s, _p, setters) in st.flags.items():
            if s != UNSET and not (isinstance(k, tuple) and k and k[0] in ("que", "api")):
                self.report("left_set", tuple(sorted(setters)), f"{_key(k)} may be left set at the end of the kernel")
        return list(self.violations.values())

    def join(self, a: State | None, b: State | None) -> State | None:
        return join(a, b, self.tab, self.g, self.memo.setdefault(("align",), {}))

    def report(self, kind: str, nodes: tuple[int, ...], text: str) -> None:
        self.violations.setdefault((kind, nodes), Violation(kind, nodes, text))

    def block(self, items: tuple, st: State) -> State:
        for it in items:
            if isinstance(it, Loop):
                st = self.loop(it.node, it.body, st)
            elif isinstance(it, While):
                st = self.loop(it.node, it.body, st)
            elif isinstance(it, Cond):
                st = self.join(self.block(it.then_body, st.copy()), self.block(it.else_body, st.copy()))
            else:
                st = self.node(it, st)
        return st

    # -- loops --------------------------------------------------------------------------------------
    def loop(self, head: Node, body: tuple, entry: State) -> State:
        """The state after the loop, memoized: an outer loop's fixpoint walks its body again with the
        same state (the round that confirms it), and the inner loop's result is then the same."""
        if head.id in self.unmemoized:
            return self._loop(head, body, entry)
        # (everything the walk reads: the env, the state, the tensors' places and the queues' sizes)
        key = (head.id, self.env_key, entry.key(), frozenset(self.roots.items()),
               tuple((q, info.get("num")) for q, info in self.que_info.items()))
        hit = self.loop_memo.get(key)
        if hit is not None:
            out, roots, restart = hit
            self.roots.update(roots)
            if restart is not None:
                self.restart = restart
            return out.copy()
        before = dict(self.roots)
        out = self._loop(head, body, entry)
        roots = {k: v for k, v in self.roots.items() if before.get(k) is not v}
        # the restart flag as the loop's last body walk left it (each walk starts it afresh), or None
        # when a loop of no trips walked nothing and left it as it was
        walked = not (head.op == "for" and trip_count_of(head) == 0)
        self.loop_memo[key] = (out.copy(), roots, self.restart if walked else None)
        return out

    def _loop(self, head: Node, body: tuple, entry: State) -> State:
        is_for = head.op == "for"
        trips = trip_count_of(head) if is_for else None
        if trips == 0:
            return entry
        period = period_of(self.g, head, body) if is_for else 1
        if period > 1 and math.prod(c.period for c in self.loops) * period > MAX_NEST_PHASES:
            # nested loops each told apart by phase multiply their work: past the budget, only what the
            # event ids need (addresses of other phases then may overlap: sound)
            period = period_of(self.g, head, body, ids_only=True)
        lid = head.id
        ctx = _LoopCtx(head, period, Var("local", -1000 - lid, f"M{lid}"), Var("local", -2000 - lid, f"D{lid}"),
                       frozenset(defined_by(self.g, body)))
        for _attempt in range(2):
            out = self._fixpoint(ctx, body, entry, trips)
            if out is not None:
                return out
            ctx.any_phase = True          # an id needed the canonical phases: enter at any of them
        return self._fixpoint(ctx, body, entry, trips, last=True)

    def _fixpoint(self, ctx: _LoopCtx, body: tuple, entry: State, trips: int | None, last: bool = False) -> State | None:
        P = ctx.period
        heads: list[State | None] = [entry] + [entry if ctx.any_phase else None] * (P - 1)
        exit_st: State | None = entry if trips is None or ctx.any_phase else None
        self.loops.append(ctx)
        saved = (dict(self.env), dict(self.id_env), self.env_key)
        try:
            if not ctx.any_phase:
                # the first round of P iterations on its own (peeled): queue buffers and primed flags
                # start fresh there, and the steady state the fixpoint finds is not blurred by it
                st = entry
                for p in range(P):
                    self._phase_env(ctx, p)
                    self.restart = False
                    st = self.block(body, st.copy())
                    if self.restart and not last:
                        return None
                    exit_st = self.join(exit_st, st)
                heads = [self._back_edge(ctx, st)] + [None] * (P - 1)
            # (not for a loop whose walk changes the TQue table, as for the loop memo)
            walked: dict[tuple, tuple] | None = None if ctx.node.id in self.unmemoized else {}
            for _round in range(MAX_ROUNDS):
                changed = False
                for p in range(P):
                    if heads[p] is None:
                        continue
                    self._phase_env(ctx, p)
                    self.restart = False
                    # a phase walked again from the same head state gives the same state (its violations
                    # and tensor places are already recorded): the round that confirms a fixpoint
                    # re-walks only the phases whose head changed
                    wkey = None if walked is None else (self.env_key, heads[p].key(), frozenset(self.roots.items()))
                    hit = None if wkey is None else walked.get(wkey)
                    if hit is not None:
                        out, roots, self.restart = hit[0].copy(), hit[1], hit[2]
                        self.roots.update(roots)
                    else:
                        before = dict(self.roots)
                        out = self.block(body, heads[p].copy())
                        if wkey is not None:
                            roots = {k: v for k, v in self.roots.items() if before.get(k) is not v}
                            walked[wkey] = (out.copy(), roots, self.restart)
                    if self.restart and not ctx.any_phase and not last:
                        return None
                    exit_st = self.join(exit_st, out)
                    nxt = (p + 1) % P
                    carried = self._back_edge(ctx, out) if nxt == 0 else out
                    new = self.join(heads[nxt], carried)
                    if heads[nxt] is None or new != heads[nxt]:
                        heads[nxt] = new
                        changed = True
                if not changed:
                    break
        finally:
            self.loops.pop()
            self.env, self.id_env, self.env_key = saved
        return self._exit(ctx, exit_st)

    def _phase_env(self, ctx: _LoopCtx, p: int) -> None:
        n = ctx.node
        if n.op != "for":
            return
        var, start, _stop, step = n.args
        s, t = self.ev(start), self.ev(step)
        mkey = (n.id, ctx.period, p, ctx.any_phase, s, t)
        envs = self.phase_envs.get(mkey)
        if envs is None:
            k = binop("+", binop("*", Const(ctx.period), ctx.m), Const(p))
            at = binop("+", s, binop("*", k, t))
            envs = self.phase_envs[mkey] = (at, binop("*", k, t) if ctx.any_phase else at)
        self.env[var], self.id_env[var] = envs
        ctx.phase = p
        self.env_key = tuple((c.node.id, c.phase, c.any_phase) for c in self.loops if c.node.op == "for")

    def _back_edge(self, ctx: _LoopCtx, st: State) -> State:
        olds, older = ctx.carried()

        def f(e: Elem) -> Elem:
            lins = carry_back(e.start, e.length, olds, ctx.m, ctx.d, older)
            return e if lins is None else Elem(e.node, e.pipe, self._respace(e.space, lins), *lins, e.write, e.api)
        return self._map(st, ("back", ctx.node.id, ctx.any_phase), f)

    def _exit(self, ctx: _LoopCtx, st: State) -> State:
        anyv = Var("local", -4000 - ctx.node.id, f"any{ctx.node.id}")
        olds = ctx.carried()[0]

        def f(e: Elem) -> Elem:
            lins = carry_exit(e.start, e.length, olds, ctx.m, anyv)
            return e if lins is None else Elem(e.node, e.pipe, self._respace(e.space, lins), *lins, e.write, e.api)
        return self._map(st, ("exit", ctx.node.id), f)

    def _respace(self, space: tuple, lins: tuple[Lin, Lin]) -> tuple:
        """A raw UB access carried to other iterations may alias what its new range covers as well."""
        if space[0] != "ub" or len(space) == 1:
            return space
        wider = raw_space(owned_layout(self.g), *lins)
        return wider if len(wider) == 1 else ("ub", space[1] | wider[1])

    def _map(self, st: State, name: tuple, f) -> State:
        """`st` with every access mapped by f (pure; named by `name` for its memos)."""
        return st.map(self.tab.mapper(self.memo.setdefault(name, {}), f), self.memo.setdefault(name + ("sets",), {}))

    # -- instructions -------------------------------------------------------------------------------
    def ev(self, e: Any) -> Any:
        return substitute(e, self.env) if isinstance(e, Expr) and self.env else e

    def node(self, n: Node, st: State) -> State:
        op = n.op
        if op == "local_tensor":     # [2]: where the TPipe's buffers are, which the raw bytes may alias
            self.roots[n.id] = ("ub", self.ev(n.args[1]), owned_layout(self.g))
        elif op == "global_tensor":
            home, delta = self.g.signature.gm_home(n.args[0].index)     # shared memory: one space
            self.roots[n.id] = ("gm", home, self.ev(n.args[1]), delta)
        elif op == "tque":
            self.que_info[n.id] = {"pos": n.args[0]}
        elif op == "init_buffer":
            q = self.que_info.get(n.args[0].root)
            num = self.ev(n.args[1])
            if q is not None:
                q["num"] = num.value if isinstance(num, Const) else None
                # (the proof reads a buffer's first use from its flag state: QueSlots does not track it)
                st.ques[n.args[0].root] = QueSlots.fresh(q["num"], track_use=False) if q["num"] else None
        elif op == "tbuf_get":
            self.roots[n.id] = ("tbuf", n.args[0].root)
        elif op in QUEUE_OPS:
            self.que_op(n, st)
        elif op in FLAG_OPS:
            key = self.flag_key(n)
            if key is not None:
                self.flag(n, PIDX[n.pipe], REGISTRY[op].sync_side, key, st)
        elif op == "pipe_barrier" or op in BLOCK_SYNC_OPS:     # the block-sync calls begin with PIPE_ALL
            if n.pipe is None:
                st.pending = [EMPTY] * 4
                st.same = [EMPTY] * 4
            else:
                st.same[PIDX[n.pipe]] = EMPTY
        elif n.pipe is not None:
            self.op(n, st)
        return st

    def flag_key(self, n: Node) -> tuple | None:
        # (the id_env, like the env, is a function of env_key: an id evaluated once per phase of its loops)
        mkey = (n.id, self.env_key)
        hit = self.flag_keys.get(mkey)
        if hit is not None:
            return hit
        ev, eid = n.args
        v = substitute(eid, self.id_env) if self.id_env else eid
        lin = linearize(v) if isinstance(v, Expr) else None
        if lin is not None and lin.is_const:
            out = self.flag_keys[mkey] = (ev, lin.const)
            return out
        if n.attr("auto") and self.loops:
            self.restart = True       # an id rotating with a loop whose start is a runtime value
        if n.attr("auto"):
            self.report("unproven_id", (n.id,), f"the id of %{n.id} cannot be evaluated")
        return None

    def issue(self, p: int, st: State) -> None:
        """MTE2 / V / MTE3 join what the scalar unit has ordered when they issue (not its own accesses)."""
        if p != _S:
            mine, ps = st.pending[p], st.pending[_S]
            if mine and not mine <= ps:
                E = self.E
                st.pending[p] = frozenset(e for e in mine if e in ps or E[e].pipe == _S)

    def flag(self, n: Node, p: int, kind: str, key: tuple, st: State, api: bool = False) -> None:
        self.issue(p, st)
        check = not (key[0] in ("que",))
        state, payload, setters = st.flags.get(key, (UNSET, EMPTY, EMPTY))
        if kind == "set":
            if check and state != UNSET and not api:
                self.report("double_set", tuple(sorted(setters | {n.id})),
                            f"set_flag of {_key(key)} at %{n.id} may run while the flag is still set")
            if check:
                space = ("flag", key)
                for i in st.pending[p]:
                    e = self.E[i]
                    if e.space == space and not (api and e.api):
                        self.report("set_before_wait", tuple(sorted({e.node, n.id})),
                                    f"set_flag of {_key(key)} at %{n.id} may run before the wait %{e.node} consumed it")
            # what the setting pipe has ordered: every tracked access not pending for it
            known = frozenset().union(*st.pending) - st.pending[p]
            st.flags[key] = (SET, known, frozenset({n.id}))
        else:
            if check and state != SET and not api:
                self.report("unset_wait", tuple(sorted(setters | {n.id})),
                            f"wait_flag of {_key(key)} at %{n.id} may wait for a flag nobody set")
            if payload and state != UNSET:
                st.pending[p] = st.pending[p] - payload
            st.flags[key] = (UNSET, EMPTY, setters)
            w = self.wait_elems.get((n.id, p, key, api))
            if w is None:
                fe = _flag_elem(key)
                w = self.wait_elems[(n.id, p, key, api)] = frozenset(
                    (self.tab.id(Elem(n.id, p, fe.space, fe.start, fe.length, True, api)),))
            self.reissue(w, st)
            for q in range(4):
                if q != p:
                    st.pending[q] = st.pending[q] | w
        st.same[p] = EMPTY

    def reissue(self, new: frozenset, st: State) -> None:
        """New instances of accesses: a flag's knowledge of an older instance with the same abstract form
        does not cover them, so they leave every flag's known set (the older one stays unordered too:
        conservative)."""
        if not new:
            return
        flags = st.flags
        hit = [k for k, (_s, known, _w) in flags.items() if known and not known.isdisjoint(new)]
        for k in hit:
            s_, known, setters = flags[k]
            flags[k] = (s_, known - new, setters)

    def op(self, n: Node, st: State) -> None:
        p = PIDX[n.pipe]
        self.issue(p, st)
        spec = self.node_accs.get(n.id)
        if spec is None:
            # (each operand's first element, offset + start, is the same in every phase: built once)
            spec = self.node_accs[n.id] = tuple((ref, binop("+", ref.offset, start), nelem, write)
                                                for ref, start, nelem, write in op_accesses(n))
        roots, slots = self.roots, st.slots
        key = (n.id, self.env_key, tuple(roots.get(r.root) or ("slot", slots.get(r.root, -1)) for r, *_ in spec))
        memo = self.acc_memo.get(key)
        if memo is None:
            accs = []
            for ref, first, nelem, write in spec:
                acc = self.access(n, ref, first, self.ev(nelem), write, st)
                if acc is not None:
                    accs.append(acc)
            memo = self.acc_memo[key] = (accs, tuple(api_steps(n, self._int) or ()))
        accs, steps = memo
        E, order, barrier = self.E, self.tab.order, self.tab.barrier
        for b in accs:
            B = E[b]
            for a in st.pending[p]:
                hit = order.get((a, b))
                if hit is None:
                    A = E[a]
                    hit = order[(a, b)] = A.pipe != p and (A.write or B.write) and _overlap(A, B)
                if hit:
                    a_node = E[a].node
                    self.report("order", (a_node, n.id), f"%{a_node} and %{n.id} may touch the same bytes unordered")
            for a in st.same[p]:
                hit = barrier.get((a, b))
                if hit is None:
                    A = E[a]
                    kind = dependence(A.write, B.write)
                    hit = barrier[(a, b)] = bool(kind) and needs_barrier(n.pipe, kind) and _overlap(A, B)
                if hit:
                    a_node = E[a].node
                    self.report("barrier", (a_node, n.id), f"%{a_node} and %{n.id} on one pipe need a barrier")
        new = frozenset(accs)
        self.reissue(new, st)
        for q in range(4):
            if q != p:
                st.pending[q] = st.pending[q] | new
        st.same[p] = st.same[p] | new
        for pipe, kind, ev in steps:
            key = ("api", ev) if self.own_pipe else (ev, API_EVENT_ID)
            self.flag(n, PIDX[pipe], kind, key, st, api=True)

    def _int(self, e: Expr) -> int | None:
        v = self.ev(e)
        return v.value if isinstance(v, Const) and isinstance(v.value, int) else None

    def access(self, n: Node, ref: TensorRef, offset: Expr, nelem: Expr, write: bool, st: State) -> int | None:
        p = PIDX[n.pipe]
        root = self.roots.get(ref.root)
        if root is None:
            if ref.root in st.slots:
                q = self.g.node(ref.root).args[0].root
                root = ("que", q, st.slots[ref.root])
            else:
                return None
        root = arena_root(pool_layout(self.g), root)
        acc = _access(ref, self.ev(offset), nelem, write, root)
        if acc is None:
            space = root[:1] + ((root[1],) if root[0] != "ub" else ())     # a UB root's [1] is its address
            if root[0] == "que":
                space = ("que", root[1], None)
            return self.tab.id(Elem(n.id, p, space, Lin((), 0), Lin(((Var("local", -5, "unknown"), 1),), 1 << 40), write))
        return self.tab.id(Elem(n.id, p, acc.space, acc.start, acc.length, write))

    def que_op(self, n: Node, st: State) -> None:
        qid = n.args[0].root
        info = self.que_info.get(qid)
        qs = st.ques.get(qid)
        if info is None or not info.get("num"):
            if REGISTRY[n.op].defines == "tensor":      # AllocTensor, DeQue: the step hands out a buffer
                st.slots[n.id] = None
            return
        if qs is None:
            # nothing known about the queue's buffers: its events order nothing provable
            if REGISTRY[n.op].defines == "tensor":      # AllocTensor, DeQue: the step hands out a buffer
                st.slots[n.id] = None
            return
        if n.op in HANDS_OUT:
            got = qs.hand_out(n.op)
            if got is None:         # an empty list: the node's buffer is unknown
                st.slots[n.id] = None
                return
            slot, _first, st.ques[qid] = got
            st.slots[n.id] = slot
        else:
            # the buffer of the tensor handed back; where it is not known neither is the queue's state
            slot = st.slots.get(n.args[1].root)
            st.ques[qid] = None if slot is None else qs.take_back(n.op, slot)
            if slot is None:
                return
        if n.op == "alloc_tensor":
            self.alloc_wait(n, info, slot, st)
        else:
            self.que_flag(n, info, slot, st)

    def alloc_wait(self, n: Node, info: dict, slot: int, st: State) -> None:
        """The wait of alloc_tensor on buffer `slot`, which the framework makes only for a buffer used before."""
        qid = n.args[0].root
        if que_pipes(info["pos"]) is None:      # a queue without events (VECCALC)
            return
        pipe, _wait, key = que_event(info["pos"], n.op, qid, slot)
        prod = PIDX[pipe]
        # the framework waits for a buffer's free event once it was freed (a buffer's first use waits
        # for nothing); where that is not known on every path, the wait orders nothing provable
        if st.flags.get(key, (UNSET,))[0] == SET:
            self.flag(n, prod, "wait", key, st)
        elif st.flags.get(key, (UNSET,))[0] == MAYBE:
            # where the buffer was never freed it was never used (a buffer is free and its event unset
            # only before its first use), so no access to its bytes is pending on those paths; where it
            # was freed the framework waits: either way the accesses of this buffer that the free
            # event's setter had ordered are ordered now (and nothing else is)
            own = frozenset(e for e in st.flags[key][1] if self.E[e].space == ("que", qid, slot))
            self.issue(prod, st)
            if own:
                st.pending[prod] = st.pending[prod] - own
            st.flags[key] = (UNSET, EMPTY, st.flags[key][2])

    def que_flag(self, n: Node, info: dict, slot: int, st: State) -> None:
        """The set or wait of a queue operation (graph/queue_model.py)."""
        ev = que_event(info["pos"], n.op, n.args[0].root, slot)
        if ev is not None:          # None: a queue no pipe pair serves issues no events
            self.flag(n, PIDX[ev[0]], ev[1], ev[2], st)


def _flag_elem(key: tuple) -> Elem:
    return Elem(-1, -1, ("flag", key), Lin((), 0), Lin((), 1), True)


def _key(key: tuple) -> str:
    if key and key[0] == "que":
        return f"the TQue %{key[1]} buffer {key[2]} ({key[3]} event)"
    if key and key[0] == "api":
        return f"HardEvent.{key[1].name} (an API call's own id)"
    ev, i = key
    return f"HardEvent.{ev.name} id {i}" if isinstance(ev, HardEvent) else str(key)


def period_of(g: KernelGraph, head: Node, body: tuple, ids_only: bool = False) -> int:
    """The phases the proof tells apart in loop `head`: the lcm of the `% m` of its index in the body's
    addresses and ids. A TQue's buffer rotation needs none: its buffers are interchangeable, and the
    join aligns them up to a renaming (graph/sync_proof_symmetry.py), so a phase per buffer would only
    walk the body more often (it doubled the proof of the TQue vadd and changed no schedule)."""
    var = head.args[0]
    period = 1
    for n in walk_items(body):
        if n.op not in ("if", "yield") and (not ids_only or n.op in FLAG_OPS):
            # (a branch's predicate and its outputs do not matter here: the proof takes both sides, and
            # the outputs are unknowns of the iteration; a `% 2` there would only double the work)
            for e in exprs_in(n.args):
                for m in _moduli(e, var):
                    period = math.lcm(period, m)
    return period if period <= MAX_PERIOD else 1


class ProofCache:
    """The states after each top-level item of the last graph proved: proving a variant of it (one plan
    removed, as the scheduler's prune does) starts from the first item that differs."""

    def __init__(self) -> None:
        self.entries: list[tuple] = []
        self.tab = ElemTable()      # the states' accesses are numbers in this table


# Remembered verdicts: compiling a kernel again (a fresh JitFunction, another backend's wrapper, the
# scheduler proving the same build twice) proves it once. The key is everything the proof reads: every
# node in program order (op, operands, addresses, regions, pipe, attributes, source line: the violations'
# text), and the signature (constants, dtypes, and which GM arguments share memory at this launch).
MAX_VERDICTS = 256
_verdicts: "OrderedDict[tuple, tuple[Violation, ...]]" = OrderedDict()


def verdict_key(g: KernelGraph) -> tuple:
    return (g.signature, tuple(g))


def clear_verdicts() -> None:
    """Forget every remembered verdict (the next `prove` of any graph runs the proof)."""
    _verdicts.clear()


def prove(g: KernelGraph, cache: ProofCache | None = None) -> list[Violation]:
    """The violations of the schedule (empty: proved on every path)."""
    key = verdict_key(g)
    hit = _verdicts.get(key)
    if hit is not None:
        try:
            _verdicts.move_to_end(key)
        except KeyError:        # forgotten meanwhile by another thread's compile: the verdict stands
            pass
        return list(hit)
    out = Prover(g).run(cache)
    _verdicts[key] = tuple(out)
    while len(_verdicts) > MAX_VERDICTS:
        try:
            _verdicts.popitem(last=False)
        except KeyError:
            break
    return out
