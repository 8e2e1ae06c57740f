"""Interpreter: walk a KernelGraph in program order on a Machine (torch.fx `Interpreter` style).

Each node is bound once to a closure (`executors.bind`); loops run their bodies with the index in
the environment. Subclasses (the pipe-level simulator) override `run_node` to observe each step.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from ..errors import AscTraceError, OutOfBoundsError, ScalarError
from ..graph.expr import compile_expr, depends_on
from ..graph.operand_checks import Ranges, loop_range
from ..graph.scalar_ops import ScalarFault
from ..graph.kernel_graph import KernelGraph, Loop
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


def describe_where(where: tuple) -> str:
    """'loop at k.py:17: index 1' for each enclosing runtime loop, outermost first."""
    return ", ".join(f"loop at {loop.loc.short}: index {v}" for loop, v in where)


class Interpreter:
    def __init__(self, graph: KernelGraph) -> None:
        self.graph = graph
        self.program = self.prepare(graph.structured())
        self.where: tuple[tuple[Node, int], ...] = ()    # the enclosing loops and their index values now

    def prepare(self, items: tuple, ranges: Ranges | None = None, known: set | None = None) -> list:
        """Steps of a block; `ranges` bounds the loop indices in scope and `known` holds the operand
        checks already made in it (both let bind() leave out checks that cannot fail)."""
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
                if st.__class__ is LoopStep:
                    self.run_loop(st, m)
                else:
                    self.run_node(st, m)
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

    def iteration(self, st: LoopStep) -> None:
        """Called at the start of every loop iteration (the simulator charges the scalar unit for it)."""

    def run_node(self, st: NodeStep, m: Machine) -> None:
        ins = st.fn(m)
        if ins is not None and ins.apply is not None:
            ins.apply()


# Ops whose scalar operands may differ from core to core (they are values, not addresses or counts).
_VALUE_ARGS: dict[str, set[int]] = {"global_tensor": {0, 1, 2}, "printf": {1}, "vec_scalar": {2},
                                    "vec_duplicate": {1}}
_PER_CORE = frozenset({"block_idx", "node"})


def per_core_reason(graph: KernelGraph) -> Node | None:
    """The first node whose UB address, count, loop bound, event id or parameter-struct field can
    differ between cores (it depends on the block index or on data); such kernels run core by core."""
    from ..graph.ops import REGISTRY
    for n in graph:
        fam = REGISTRY[n.op].family
        free = _VALUE_ARGS.get(n.op) or _VALUE_ARGS.get(fam) or set()
        for i, a in enumerate(n.args):
            if i in free:
                continue
            if isinstance(a, TensorRef):
                if a.space == "ub" and depends_on(a.offset, _PER_CORE):
                    return n
            elif any(depends_on(e, _PER_CORE) for e in exprs_in(a)):
                return n
    return None
