"""Tracing: run the kernel function once on proxies and record every API call in a KernelGraph."""
from __future__ import annotations

import traceback
from types import CodeType, TracebackType
from typing import Any, Callable

from .. import config
from ..errors import AscTraceError, TraceError
from ..graph.expr import BLOCK_IDX, BLOCK_NUM, Const, Var
from ..graph.kernel_graph import KernelGraph
from ..graph.node import ParamRef, Pipe
from ..graph.signature import Param, Signature
from ..graph.source_loc import SourceLoc
from .context import TRACE_LOCK, Context, OpenRegion, use
from .control import trace_cond, trace_while
from .kernel_state import changed_any, check_unchanged, watch
from .loops import SymbolicRange, intercepting_range
from .runtime_if import kernel_callable
from .scalar import Scalar, to_expr
from .source_loc import is_internal, loc_of_def, loc_of_frame
from .tensors import GlobalAddress


class TraceContext(Context):
    """Builds the graph; owns the loop stack and the `range` interception of kernel modules."""

    eager = False

    def __init__(self, graph: KernelGraph) -> None:
        self.graph = graph
        self.regions: list[OpenRegion] = []
        self.kernel_codes: set[CodeType] = set()
        self._patched: dict[int, dict[str, Any]] = {}
        self.pending: TraceError | None = None
        self._loop_count = 0
        self._local_count = 0

    # -- recording ------------------------------------------------------------------------------
    def _scope(self) -> tuple[int, ...]:
        return tuple(r.id for r in self.regions)

    def check_pending(self) -> None:
        if self.pending is not None:
            err, self.pending = self.pending, None
            raise err

    def record(self, op: str, args: tuple[Any, ...], loc: SourceLoc, pipe: Pipe | None = None,
               attrs: tuple[tuple[str, Any], ...] = ()) -> int:
        self.check_pending()
        return self.graph.add(op, args, loc, self._scope(), pipe, attrs)

    def recorded(self) -> Any:
        """The nodes recorded so far, by id (for metadata such as a tensor's size or position)."""
        return {n.id: n for n in self.graph}

    def block_idx(self) -> Scalar:
        return Scalar(BLOCK_IDX)

    def block_num(self) -> Scalar:
        return Scalar(BLOCK_NUM)

    def node_value(self, nid: int, vtype: str) -> Scalar:
        return Scalar(Var("node", nid, f"v{nid}", vtype))

    def read_tensor(self, ref: Any, count: Any, loc: SourceLoc) -> Any:
        """`LocalTensor.numpy()` while the eager backend traces the kernel (before running it): the data
        does not exist yet, so a placeholder that refuses to be computed with stands in for it."""
        backend = self.graph.options.get("backend") or config.backend_from_env()
        if str(backend).lower() != "eager":
            return super().read_tensor(ref, count, loc)
        return DataLater(loc)

    # -- loops ----------------------------------------------------------------------------------
    def loop_range(self, start: Any, stop: Any, step: Any, loc: SourceLoc) -> SymbolicRange:
        return SymbolicRange(self, (start, stop, step), loc)

    def open_loop(self, start: Any, stop: Any, step: Any, loc: SourceLoc) -> OpenRegion:
        self.check_pending()
        var = Var("loop", self._loop_count, f"i{self._loop_count}")
        self._loop_count += 1
        nid = self.graph.add("for", (var, to_expr(start), to_expr(stop), to_expr(step)), loc, self._scope())
        region = OpenRegion(nid, var, loc)
        self.regions.append(region)
        return region

    def close_loop(self, region: OpenRegion) -> None:
        self.check_pending()
        if not self.regions or self.regions[-1] is not region:
            raise TraceError("runtime loops were left out of order", region.loc)
        self.regions.pop()
        self.graph.add("end_for", (region.id,), region.loc, self._scope())

    def abandon_loop(self, region: OpenRegion) -> None:
        if self.pending is None:
            self.pending = TraceError(
                "a `break` or `return` leaves the runtime loop that starts here, which would cut every "
                "iteration short", region.loc,
                hint="runtime loops (`for i in range(...)` in a kernel) run their whole body; to stop early "
                     "with a bound known while tracing, iterate with asc.static_range")
        if region in self.regions:
            self.regions.remove(region)

    # -- asc.cond and asc.while_loop (proxies/control.py) -----------------------------------------
    def new_local(self, vtype: str) -> Var:
        """A fresh local Var; its name differs from every parameter's, so that the dump (the cache key)
        stays unambiguous."""
        k = self._local_count
        self._local_count += 1
        name = f"l{k}"
        taken = {p.name for p in self.graph.signature.params}
        while name in taken:
            name += "_"
        return Var("local", k, name, vtype)

    def cond(self, pred: Any, true_fn: Callable[..., Any], false_fn: Callable[..., Any], operands: tuple,
             loc: SourceLoc) -> Any:
        return trace_cond(self, pred, true_fn, false_fn, operands, loc)

    def while_loop(self, cond_fn: Callable[..., Any], body_fn: Callable[..., Any], init: Any, loc: SourceLoc) -> Any:
        return trace_while(self, cond_fn, body_fn, init, loc)

    # -- sub-kernels and module patching ----------------------------------------------------------
    def inline(self, jitfn: Any, args: tuple, kwargs: dict) -> Any:
        fn = jitfn.traced_fn
        self.enter_function(fn)
        return fn(*args, **kwargs)

    def enter_function(self, fn: Callable[..., Any]) -> None:
        self.kernel_codes.add(fn.__code__)
        g = fn.__globals__
        if id(g) in self._patched or "range" in g:   # a module-level `range` of the user's own stays
            return
        g["range"] = intercepting_range
        self._patched[id(g)] = g

    def restore(self) -> None:
        for g in self._patched.values():
            if g.get("range") is intercepting_range:
                del g["range"]
        self._patched.clear()


class DataLater:
    """Tensor data that only exists when the kernel runs: the trace the eager backend makes first
    gets this from `LocalTensor.numpy()`; the eager run that follows gets the real array. It can be
    printed and stored, not computed with (the kernel's graph must not depend on data)."""

    __slots__ = ("loc",)

    def __init__(self, loc: SourceLoc) -> None:
        self.loc = loc

    def __repr__(self) -> str:
        return "<LocalTensor data: known when the kernel runs>"

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        raise TraceError("LocalTensor.numpy() data exists only while the kernel runs; print or store it, but the "
                         "kernel's operations must not depend on it", self.loc)

    __getattr__ = __getitem__ = __array__ = __bool__ = __iter__ = __len__ = __float__ = __int__ = _refuse
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __lt__ = __gt__ = _refuse


def param_proxy(p: Param) -> Any:
    """What the kernel body receives for parameter `p` while being traced."""
    if p.kind == "gm":
        return GlobalAddress(ParamRef(p.index, p.name), Const(0), p.dtype)
    if p.kind in ("int", "float"):
        return Scalar(Var("param", p.index, p.name, p.kind))
    copy = getattr(p.value, "__asc_kernel_copy__", None)
    return copy() if copy is not None else p.value     # a struct passed by value (asc.adv.TCubeTiling)


def trace(fn: Callable[..., Any], signature: Signature, options: dict[str, Any] | None = None,
          name: str | None = None, core_type: str | None = None) -> KernelGraph:
    """Run `fn` once on proxies for `signature`; returns the recorded graph.

    Raises:
        TraceError (or another AscTraceError): the kernel cannot be traced; the message names the line.
    """
    args = outside_args(signature)
    held = watch(fn, args)
    graph = _trace_once(fn, signature, options, name, core_type)
    if changed_any(held):
        # the kernel's Python changed state that outlives it: acceptable only if running it again (as eager
        # does on every core) changes nothing more (proxies/kernel_state.py)
        held = watch(fn, args)
        graph = _trace_once(fn, signature, options, name, core_type)
        check_unchanged(held, fn, graph.name)
    return graph


def outside_args(signature: Signature) -> dict[str, Any]:
    """The ConstExpr arguments the kernel receives as the caller's own objects (param_proxy), by parameter
    name: state that outlives the kernel as its globals do. A struct passed by value gets a copy per trace."""
    return {p.name: p.value for p in signature.params
            if p.kind == "const" and getattr(p.value, "__asc_kernel_copy__", None) is None}


def _trace_once(fn: Callable[..., Any], signature: Signature, options: dict[str, Any] | None,
                name: str | None, core_type: str | None) -> KernelGraph:
    graph = KernelGraph(name or fn.__name__, signature, options)
    ctx = TraceContext(graph)
    if core_type is not None:      # what asc.ascend_is_aic() answers (proxies/core_type.py)
        ctx.core_type = core_type
    with TRACE_LOCK, use(ctx):
        run = kernel_callable(fn)          # its `if`s may branch on runtime values (runtime_if_rewrite.py)
        ctx.enter_function(run)
        try:
            ret = run(*[param_proxy(p) for p in signature.params])
            ctx.check_pending()
            if ctx.regions:
                raise TraceError("a runtime loop or branch was never closed", ctx.regions[-1].loc)
        except AscTraceError:
            raise
        except Exception as exc:  # a Python error inside the kernel body: point at the user's line
            raise TraceError(f"{type(exc).__name__} while tracing {graph.name}: {exc}",
                             user_loc_of_traceback(exc.__traceback__)) from exc
        finally:
            ctx.restore()
    refuse_return(ret, graph.name, fn)
    return graph


def refuse_return(ret: Any, name: str, fn: Callable[..., Any]) -> None:
    """Kernels have no return value (the `__global__` function is void): refuse one at its `def`."""
    if ret is not None:
        raise TraceError(f"kernel {name} returned {type(ret).__name__}; kernels return nothing and write "
                         "their results through GlobalTensors", loc_of_def(fn))


def user_loc_of_traceback(tb: TracebackType | None) -> SourceLoc | None:
    """The innermost user frame of a traceback."""
    found = None
    for frame, _ in traceback.walk_tb(tb):
        if not is_internal(frame.f_code.co_filename):
            found = frame
    return loc_of_frame(found) if found is not None else None
