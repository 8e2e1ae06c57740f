"""The `eager` backend: run the kernel function itself, core after core, executing each API call on
real data the moment it is made. `print(x)` of a runtime value shows its value, `pdb` works, and
`LocalTensor.numpy()` shows a tensor's contents.

Eager accepts exactly the kernels the other backends accept and gives the same answer or the same
error: the kernel is traced and scheduled first (the trace-time errors are shared), runtime scalars
stay symbolic and are evaluated with the kernel's scalar semantics (int64 that wraps, float32; so a
Python `if` on a runtime value is the same TraceError as when tracing), every call runs the
simulator's executor with its checks, and the hazards the simulator finds in the scheduled kernel
(races, unmatched events, cross-core writes) are checked before the kernel runs
(runtime/hazards.py). Runtime loops are real Python loops here, in program order; asc.cond calls only
the branch taken and asc.while_loop is a Python while loop."""
from __future__ import annotations

from typing import Any, Iterator

import numpy as np

from ..errors import AscTraceError, OutOfBoundsError, ScalarError, TraceError
from ..graph.expr import BLOCK_IDX, BLOCK_NUM, Expr, Var, compile_expr
from ..graph.kernel_graph import KernelGraph
from ..graph.node import Node, Pipe, TensorRef
from ..graph.scalar_ops import ScalarFault
from ..graph.source_loc import SourceLoc
from ..proxies.context import TRACE_LOCK, use
from ..proxies.scalar import Scalar, to_expr
from ..proxies.tracer import TraceContext, param_proxy, user_loc_of_traceback
from .base import LaunchJob, Runtime
from .cube_eager import CubeHazards, cube_binder
from .executors import bind
from .hazards import HazardMemo, check_hazards
from .machine import GmJournal, Machine
from .printf import emit_output


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


class EagerArtifact:
    def __init__(self, graph: KernelGraph) -> None:
        from ..graph.cube_graph import is_cube_graph
        from ..graph.mix_split import MixGraph
        self.graph = graph
        self.mixed = isinstance(graph, MixGraph)
        self.cube = not self.mixed and is_cube_graph(graph)
        self.hazards = CubeHazards(graph) if self.cube else HazardMemo(graph)
        # the UB addresses graph/auto_place.py gave the LocalTensorAuto tensors, by call site (None where one
        # call site made tensors at different addresses, e.g. a sub-kernel called twice)
        self.auto_places: dict[Any, int | None] = {}
        for n in graph:
            if n.op == "local_tensor" and n.attr("auto"):
                key = (n.loc.file, n.loc.line, n.loc.col)
                addr = n.args[1].value
                self.auto_places[key] = addr if self.auto_places.get(key, addr) == addr else None


class EagerRuntime(Runtime):
    name = "eager"

    def prepare(self, graph: KernelGraph, options: dict[str, Any]) -> EagerArtifact:
        return EagerArtifact(graph)

    def launch(self, art: EagerArtifact, job: LaunchJob) -> None:
        if art.mixed:
            from ..errors import NotProvidedError
            # eager runs the user's calls as they are made; a flag-free mixed kernel's cross-core flags exist only
            # in the scheduled graph, so the three cores could not be ordered without them
            raise NotProvidedError(f"{job.name} is a mixed cube + vector kernel, which the eager backend does not run "
                                   "yet: its cross-core flags are derived in the scheduled kernel, not calls eager "
                                   "could make", job.loc, hint="run it with backend='sim' or 'cpp'")
        from .block_sync_sim import refuse_block_sync
        refuse_block_sync(art.graph, "eager")
        if art.cube:
            art.hazards.check(job)
        else:
            check_hazards(art.hazards, job)
        sig = job.bound.signature
        proxies = [param_proxy(p) for p in sig.params]
        journal = GmJournal()
        try:
            for core in range(job.core_num):
                m = Machine(np.array([core]), job.core_num, job.bound.arrays, job.bound.scalars, journal)
                ctx = EagerContext(KernelGraph(job.name, sig, dict(job.options)), m)
                if art.cube:
                    from .cube_exec import memories
                    m.cube = memories()
                    ctx.cube = True
                ctx.auto_places = art.auto_places
                try:
                    with TRACE_LOCK, use(ctx):
                        ctx.enter_function(job.fn)
                        try:
                            job.fn(*proxies)
                        except AscTraceError:
                            raise
                        except Exception as exc:  # noqa: BLE001 - a Python error in the kernel body
                            raise TraceError(f"{type(exc).__name__} while running {job.name} eagerly: {exc}",
                                             user_loc_of_traceback(exc.__traceback__)) from exc
                        finally:
                            ctx.restore()
                finally:
                    emit_output([(core, m.out[0])], job.core_num)
        except BaseException:
            journal.rollback()
            raise
        journal.commit()
