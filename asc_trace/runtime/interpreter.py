"""Interpreter: walk a KernelGraph in program order on a Machine (torch.fx `Interpreter` style).

Each node is bound once to a closure (`executors.bind`); loops run their bodies with the index in
the environment, asc.cond runs the branch its predicate selects and asc.while_loop its body while its
condition holds, each `yield` assigning its region's local Vars. Subclasses (the pipe-level
simulator) override `run_node` to observe each step.
"""
from __future__ import annotations

import dataclasses
import weakref
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from ..errors import AscTraceError, OutOfBoundsError, ScalarError
from ..graph.expr import Expr, compile_expr
from ..graph.operand_checks import Ranges, loop_range
from ..graph.regions import depends_through
from ..graph.scalar_ops import ScalarFault
from ..graph.kernel_graph import Cond, KernelGraph, Loop, While
from ..graph.node import Node, TensorRef, exprs_in
from .executors import bind
from .machine import Machine


@dataclass(slots=True)
class NodeStep:
    node: Node
    fn: Callable[[Machine], None]


@dataclass(slots=True)
class LoopStep:
    node: Node
    key: str
    start: Callable[[dict], Any]
    stop: Callable[[dict], Any]
    step: Callable[[dict], Any]
    body: list


@dataclass(slots=True)
class CondStep:
    node: Node
    pred: Callable[[dict], Any]
    then: list
    other: list


@dataclass(slots=True)
class WhileStep:
    node: Node
    keys: tuple[str, ...]
    inits: tuple[Callable[[dict], Any], ...]
    cond: Callable[[dict], Any]
    body: list


@dataclass(slots=True)
class YieldStep:
    node: Node
    keys: tuple[str, ...]
    values: tuple[Callable[[dict], Any], ...]


def describe_where(where: tuple) -> str:
    """'loop at k.py:17: index 1' for each enclosing runtime loop (and 'while_loop at k.py:20:
    iteration 3'), outermost first."""
    return ", ".join(f"while_loop at {loop.loc.short}: iteration {v}" if loop.op == "while" else
                     f"loop at {loop.loc.short}: index {v}" for loop, v in where)


def truth(v: Any, node: Node, what: str) -> bool:
    """A predicate's truth (C's: non-zero, NaN included), the same on every core of the group."""
    if isinstance(v, np.ndarray):
        t = np.asarray(v != 0)
        if t.size == 0 or not np.all(t == t.flat[0]):
            raise OutOfBoundsError(f"{what} differs between cores ({v.tolist()})", node=node)
        return bool(t.flat[0])
    return bool(v)


class Interpreter:
    def __init__(self, graph: KernelGraph) -> None:
        self.graph = graph
        self.program = self.prepare(graph.structured())
        self.where: tuple[tuple[Node, int], ...] = ()    # the enclosing loops and their index values now

    def prepare(self, items: tuple, ranges: Ranges | None = None, known: set | None = None,
                targets: tuple[str, ...] = ()) -> list:
        """Steps of a block; `ranges` bounds the loop indices in scope and `known` holds the operand
        checks already made in it (both let bind() leave out checks that cannot fail); `targets`
        are the env keys a `yield` at the end of the block assigns."""
        ranges = {} if ranges is None else ranges
        known = set() if known is None else known
        steps: list = []
        for it in items:
            if isinstance(it, Loop):
                var, start, stop, step = it.node.args
                inner = dict(ranges)
                r = loop_range(start, stop, step, ranges)
                if r is not None:
                    inner[var.env_key] = r
                steps.append(LoopStep(it.node, var.env_key, compile_expr(start), compile_expr(stop),
                                      compile_expr(step), self.prepare(it.body, inner, set(known))))
            elif isinstance(it, Cond):
                # a branch may not run: what its checks establish does not hold after the cond
                pred, outs = it.node.args
                keys = tuple(v.env_key for v in outs)
                steps.append(CondStep(it.node, compile_expr(pred), self.prepare(it.then_body, ranges, set(known), keys),
                                      self.prepare(it.else_body, ranges, set(known), keys)))
            elif isinstance(it, While):
                carried, inits, cond = it.node.args
                keys = tuple(v.env_key for v in carried)
                steps.append(WhileStep(it.node, keys, tuple(compile_expr(e) for e in inits), compile_expr(cond),
                                       self.prepare(it.body, ranges, set(known), keys)))
            elif it.op == "yield":
                steps.append(YieldStep(it, targets, tuple(compile_expr(e) for e in it.args)))
            else:
                steps.append(NodeStep(it, self.bind_node(it, ranges, known)))
        return steps

    def bind_node(self, node: Node, ranges: Ranges, known: set) -> Callable[[Machine], Any]:
        """A node's executor with its operand checks (executors.bind)."""
        return bind(node, ranges, known)

    def run(self, m: Machine) -> None:
        with np.errstate(all="ignore"):
            self.run_block(self.program, m)

    def run_block(self, steps: list, m: Machine) -> None:
        for st in steps:
            try:
                cls = st.__class__
                if cls is NodeStep:
                    self.run_node(st, m)
                elif cls is LoopStep:
                    self.run_loop(st, m)
                elif cls is CondStep:
                    self.run_cond(st, m)
                elif cls is WhileStep:
                    self.run_while(st, m)
                else:
                    self.run_yield(st, m)
            except ScalarFault as exc:
                err = ScalarError(str(exc), node=st.node)
                if self.where:
                    err.iteration = describe_where(self.where)
                raise err from None
            except AscTraceError as exc:
                # name the iteration the failing node ran in (not for errors about another, deferred node)
                if exc.iteration is None and exc.node is getattr(st, "node", None) and self.where:
                    exc.iteration = describe_where(self.where)
                raise

    def run_loop(self, st: LoopStep, m: Machine) -> None:
        env = m.env
        start = m.uniform_int(st.start(env), st.node, "the loop start")
        stop = m.uniform_int(st.stop(env), st.node, "the loop bound")
        step = m.uniform_int(st.step(env), st.node, "the loop step")
        if step == 0:
            raise OutOfBoundsError("the loop step is zero", node=st.node)
        key = st.key
        body = st.body
        outer = self.where
        try:
            for v in range(start, stop, step):
                env[key] = v
                self.where = (*outer, (st.node, v))
                self.iteration(st)
                self.run_block(body, m)
        finally:
            self.where = outer

    def run_cond(self, st: CondStep, m: Machine) -> None:
        taken = truth(st.pred(m.env), st.node, "the predicate of asc.cond")
        self.branch(st)
        self.run_block(st.then if taken else st.other, m)

    def run_while(self, st: WhileStep, m: Machine) -> None:
        env = m.env
        values = [f(env) for f in st.inits]     # all evaluated before any is assigned
        for k, v in zip(st.keys, values):
            env[k] = v
        outer = self.where
        cond, body, node = st.cond, st.body, st.node
        try:
            k = 0
            while truth(cond(env), node, "the condition of asc.while_loop"):
                self.where = (*outer, (node, k))
                self.iteration(st)
                self.run_block(body, m)
                k += 1
        finally:
            self.where = outer

    def run_yield(self, st: YieldStep, m: Machine) -> None:
        env = m.env
        values = [f(env) for f in st.values]    # a carried value's next value may read the others
        for k, v in zip(st.keys, values):
            env[k] = v

    def iteration(self, st: LoopStep | WhileStep) -> None:
        """Called at the start of every loop iteration (the simulator charges the scalar unit for it)."""

    def branch(self, st: CondStep) -> None:
        """Called when an asc.cond has chosen its branch (the simulator charges the scalar unit for it)."""

    def run_node(self, st: NodeStep, m: Machine) -> None:
        ins = st.fn(m)
        if ins is not None and ins.apply is not None:
            ins.apply()


_PER_CORE = frozenset({"block_idx", "node"})


@dataclass(frozen=True, slots=True)
class Steering:
    """What steers a kernel's addresses, counts, loop bounds, branch predicates, event ids and
    parameter-struct fields (every operand but the ones its record calls values, graph/ops `OpDef.values`
    / `per_core`): the first node where they can differ between cores (the block index, or data, also
    through the values asc.cond and asc.while_loop compute; such kernels run core by core), and the first
    where they can depend on tensor data (a value read from the UB into a scalar; such a kernel cannot be
    timed without computing it)."""

    per_core: Node | None
    data: Node | None


_STEERING: "weakref.WeakKeyDictionary[KernelGraph, tuple[int, Steering]]" = weakref.WeakKeyDictionary()


def steering(graph: KernelGraph) -> Steering:
    """One walk over the graph for both questions of `Steering` (remembered per graph while its nodes
    stay the same: the simulator, the profiler and the tuner each ask)."""
    hit = _STEERING.get(graph)
    if hit is not None and hit[0] == len(graph.order):
        return hit[1]
    result = _steering(graph)
    _STEERING[graph] = (len(graph.order), result)
    return result


def _steering(graph: KernelGraph) -> Steering:
    from ..graph.ops import REGISTRY
    sources = graph.region_table().local_sources
    per_core: Node | None = None
    data: Node | None = None
    for n in graph:
        op = REGISTRY[n.op]
        nargs = len(n.args)
        if per_core is None:
            free = op.value_positions(nargs, per_core=True)
            for i, a in enumerate(n.args):
                if i in free:
                    continue
                if isinstance(a, TensorRef):
                    if a.space == "ub" and depends_through(a.offset, _PER_CORE, sources):
                        per_core = n
                        break
                elif any(depends_through(e, _PER_CORE, sources) for e in exprs_in(a)):
                    per_core = n
                    break
        if data is None:
            values = op.value_positions(nargs)
            if any(_reads_data(a, sources) for i, a in enumerate(n.args) if i not in values):
                data = n
        if per_core is not None and data is not None:
            break
    return Steering(per_core, data)


def per_core_reason(graph: KernelGraph) -> Node | None:
    """The first node whose operands can differ between cores (`Steering.per_core`)."""
    return steering(graph).per_core


def _reads_data(a: Any, sources: dict) -> bool:
    if isinstance(a, TensorRef):
        return depends_through(a.offset, {"node"}, sources)
    if isinstance(a, Expr):
        return depends_through(a, {"node"}, sources)
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        return any(_reads_data(getattr(a, f.name), sources) for f in dataclasses.fields(a))
    if isinstance(a, tuple):
        return any(_reads_data(x, sources) for x in a)
    return False
