"""The ops that are traced and emitted but run on no backend (graph/ops/vec_fused_cast.py NOT_EXECUTED): their
binder is the same NotProvidedError, at the call's line, that a launch on any backend gives
(jit_function.CompiledKernel.run refuses before a backend is prepared)."""
from __future__ import annotations

from ..errors import NotProvidedError
from ..graph.node import Node
from ..graph.ops import OpDef
from ..graph.ops.vec_fused_cast import NOT_EXECUTED
from .executor_base import binder


def not_run_error(node: Node) -> NotProvidedError:
    return NotProvidedError(f"asc.{node.op} is traced and emitted, but no backend runs it: {NOT_EXECUTED[node.op]}",
                            node.loc, hint="the emitted Ascend C (asc.compile(kernel, args).source) is what an NPU "
                                           "would run; compute it with asc.add / asc.relu / asc.cast to run it here")


@binder("vec_fused_cast", "vec_cast_deq", "deq_scale")
def _bind_not_run(node: Node, op: OpDef):
    raise not_run_error(node)


def refuse_not_run(graph) -> None:
    """The first node of `graph` no backend runs, as its NotProvidedError."""
    n = first_not_run(graph)
    if n is not None:
        raise not_run_error(n)


def first_not_run(graph) -> Node | None:
    """The first node of `graph` no backend runs, or None (a compiled kernel asks once: its graph is fixed)."""
    for n in graph:
        if n.op in NOT_EXECUTED:
            return n
    return None
