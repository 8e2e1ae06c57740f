"""Interpreter: walk a KernelGraph in program order on a Machine (torch.fx `Interpreter` style).

Each node is bound once to a closure (`executors.bind`); loops run their bodies with the index in
the environment, asc.cond runs the branch its predicate selects and asc.while_loop its body while its
condition holds, each `yield` assigning its region's local Vars. Subclasses (the pipe-level
simulator) override `run_node` to observe each step.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from ..errors import AscTraceError, OutOfBoundsError, ScalarError
from ..graph.expr import compile_expr
from ..graph.operand_checks import Ranges, loop_range
from ..graph.regions import depends_through, local_sources
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


# Ops whose scalar operands may differ from core to core (they are values, not addresses or counts).
# For asc.cond and asc.while_loop only the predicate / condition decides anything (the outputs and the
# carried values are checked, through what they depend on, where they are used).
_VALUE_ARGS: dict[str, set[int]] = {"global_tensor": {0, 1, 2}, "printf": {1}, "vec_scalar": {2},
                                    "vec_duplicate": {1}, "if": {1}, "while": {0, 1}}
_PER_CORE = frozenset({"block_idx", "node"})


def per_core_reason(graph: KernelGraph) -> Node | None:
    """The first node whose UB address, count, loop bound, branch predicate, event id or
    parameter-struct field can differ between cores (it depends on the block index or on data,
    also through the values asc.cond and asc.while_loop compute); such kernels run core by core."""
    from ..graph.ops import REGISTRY
    sources = local_sources(graph)
    for n in graph:
        if n.op == "yield":     # values: what depends on them is checked where they are used
            continue
        fam = REGISTRY[n.op].family
        free = _VALUE_ARGS.get(n.op) or _VALUE_ARGS.get(fam) or set()
        for i, a in enumerate(n.args):
            if i in free:
                continue
            if isinstance(a, TensorRef):
                if a.space == "ub" and depends_through(a.offset, _PER_CORE, sources):
                    return n
            elif any(depends_through(e, _PER_CORE, sources) for e in exprs_in(a)):
                return n
    return None
