"""The eager backend's kernel context (runtime/eager.py runs the kernel with it; runtime/mix_eager.py subclasses
it for mixed kernels): the tracer's context, whose every API call executes at once on a Machine."""
from __future__ import annotations

from typing import Any, Iterator

import numpy as np

from ..errors import OutOfBoundsError, ScalarError, TraceError
from ..graph.expr import BLOCK_IDX, BLOCK_NUM, Expr, Var, compile_expr
from ..graph.kernel_graph import KernelGraph
from ..graph.node import Node, Pipe, TensorRef
from ..graph.scalar_ops import ScalarFault
from ..graph.source_loc import SourceLoc
from ..proxies.scalar import Scalar, to_expr
from ..proxies.tracer import TraceContext
from .cube_eager import cube_binder
from .executors import bind
from .machine import Machine


class EagerContext(TraceContext):
    """The tracer's context (runtime loops are intercepted the same way) that executes each call."""

    eager = True
    cube = False

    def __init__(self, graph: KernelGraph, m: Machine) -> None:
        super().__init__(graph)
        self.m = m
        self._next = 0
        self._depth = 0
        self._nodes: dict[int, Node] = {}    # for tensor metadata (LocalTensor.get_size, ...)
        self.history: list[Node] = []        # every call so far, in the order it ran (the mask register's writes)

    def record(self, op: str, args: tuple[Any, ...], loc: SourceLoc, pipe: Pipe | None = None,
               attrs: tuple[tuple[str, Any], ...] = ()) -> int:
        nid = self._next
        self._next += 1
        node = Node(nid, op, tuple(args), loc, (), pipe, attrs)
        self.history.append(node)
        if pipe is None:                     # bookkeeping nodes only: those define tensors and buffers
            self._nodes[nid] = node
        try:
            with np.errstate(all="ignore"):
                binder = cube_binder(node) if self.cube else None     # a cube kernel's memories and ops
                ins = (binder or bind(node))(self.m)
                if ins is not None and ins.apply is not None:
                    ins.apply()
        except ScalarFault as exc:
            raise ScalarError(str(exc), node=node) from None
        return nid

    def recorded(self) -> dict[int, Node]:
        return self._nodes

    auto_places: dict[Any, int | None] = {}

    def auto_address(self, loc: SourceLoc) -> int | None:
        """The UB address the scheduled kernel gave the LocalTensorAuto made at `loc` (None: not one address)."""
        return self.auto_places.get((loc.file, loc.line, loc.col))

    def block_idx(self) -> Scalar:
        return Scalar(BLOCK_IDX)

    def block_num(self) -> Scalar:
        return Scalar(BLOCK_NUM)

    def value(self, e: Expr) -> Any:
        """The current value of a runtime scalar (for print / repr)."""
        v = compile_expr(e)(self.m.env)
        return v.item() if isinstance(v, np.generic) else v

    def loop_range(self, start: Any, stop: Any, step: Any, loc: SourceLoc) -> Iterator[Scalar]:
        try:
            bounds = [int(self.value(to_expr(x))) for x in (start, stop, step)]
        except ScalarFault as exc:
            raise ScalarError(str(exc), loc) from None
        if bounds[2] == 0:
            raise OutOfBoundsError("the loop step is zero", loc)
        return self._iterate(range(*bounds))

    def _iterate(self, values: range) -> Iterator[Scalar]:
        # Loop indices are named by nesting depth, so the expressions of every iteration (and of
        # every core) are the same objects and their compiled code is reused.
        var = Var("loop", 1000 + self._depth, f"i{self._depth}")
        self._depth += 1
        try:
            for v in values:
                self.m.env[var.env_key] = v
                yield Scalar(var)
        finally:
            self._depth -= 1

    def open_loop_vars(self) -> set[Var]:
        """The indices of the runtime loops running now (outermost first by depth)."""
        return {Var("loop", 1000 + d, f"i{d}") for d in range(self._depth)}

    def cond(self, pred: Any, true_fn: Any, false_fn: Any, operands: tuple, loc: SourceLoc) -> Any:
        from ..proxies.control import eager_cond
        return eager_cond(self, pred, true_fn, false_fn, operands, loc)

    def while_loop(self, cond_fn: Any, body_fn: Any, init: Any, loc: SourceLoc) -> Any:
        from ..proxies.control import eager_while
        return eager_while(self, cond_fn, body_fn, init, loc)

    def read_tensor(self, ref: TensorRef, count: Any, loc: SourceLoc) -> np.ndarray:
        from ..dtypes import to_compute
        m = self.m
        node = Node(-1, "printf", ("", ()), loc)
        if ref.space == "ub":
            root = m.roots[ref.root]
            off = int(self.value(ref.offset))
            avail = (root.addr + root.nbytes) // ref.dtype.itemsize - root.addr // ref.dtype.itemsize
            n = int(self.value(to_expr(count))) if count is not None else avail - off
            return to_compute(m.ub_view(ref, off, n, node, "the tensor")[0].copy(), ref.dtype)
        raise TraceError("only LocalTensors can be read this way", loc)
