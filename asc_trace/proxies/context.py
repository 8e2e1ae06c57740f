"""The active kernel context: a tracer that builds a graph, or the eager runner that executes each
call at once. Kernel-side API functions talk only to this interface."""
from __future__ import annotations

import threading
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Iterator

from ..errors import TraceError
from ..graph.expr import Var
from ..graph.node import Pipe
from ..graph.source_loc import SourceLoc


@dataclass
class OpenRegion:
    """A region open while tracing: a runtime loop (`var` is its index), or a branch of asc.cond or the
    body of asc.while_loop (`var` is None). `id` is the node that opens it (for / if / else / while)."""

    id: int
    var: Var | None
    loc: SourceLoc
    yielded: bool = False


class Context:
    """What a kernel-side API call can ask of the machinery behind it."""

    eager: bool = False

    def record(self, op: str, args: tuple[Any, ...], loc: SourceLoc, pipe: Pipe | None = None,
               attrs: tuple[tuple[str, Any], ...] = ()) -> int:
        """Record (trace) or execute (eager) one API call; returns the node id."""
        raise NotImplementedError

    def block_idx(self) -> Any:
        raise NotImplementedError

    def block_num(self) -> Any:
        raise NotImplementedError

    def node_value(self, nid: int, vtype: str) -> Any:
        """The scalar a node reads at run time: symbolic when tracing, a number when eager."""
        raise NotImplementedError

    def inline(self, jitfn: Any, args: tuple, kwargs: dict) -> Any:
        """Call an @asc.jit sub-kernel from inside a kernel."""
        fn = jitfn.traced_fn        # its `if`s on runtime values rewritten (proxies/runtime_if.py)
        enter = getattr(self, "enter_function", None)
        if enter is not None:
            enter(fn)
        return fn(*args, **kwargs)

    def loop_range(self, start: Any, stop: Any, step: Any, loc: SourceLoc) -> Any:
        """An iterable for a runtime loop."""
        raise NotImplementedError

    def cond(self, pred: Any, true_fn: Any, false_fn: Any, operands: tuple, loc: SourceLoc) -> Any:
        """asc.cond (proxies/control.py)."""
        raise NotImplementedError

    def while_loop(self, cond_fn: Any, body_fn: Any, init: Any, loc: SourceLoc) -> Any:
        """asc.while_loop (proxies/control.py)."""
        raise NotImplementedError

    def read_tensor(self, ref: Any, count: int | None, loc: SourceLoc) -> Any:
        raise TraceError("reading tensor data is only possible on the eager backend", loc,
                         hint="run with asc.jit(kernel, backend='eager') or use asc.dump_tensor")


_state = threading.local()
# Tracing swaps module globals (`range`) and uses process-wide caches: one trace at a time.
TRACE_LOCK = threading.RLock()


def current(what: str = "this function") -> Context:
    ctx = getattr(_state, "ctx", None)
    if ctx is None:
        from .source_loc import user_loc
        raise TraceError(f"{what} can only be used inside an @asc.jit kernel", user_loc(),
                         hint="decorate the function with @asc.jit and launch it with kernel[core_num](...)")
    return ctx


def active() -> Context | None:
    return getattr(_state, "ctx", None)


@contextmanager
def use(ctx: Context) -> Iterator[Context]:
    prev = getattr(_state, "ctx", None)
    _state.ctx = ctx
    try:
        yield ctx
    finally:
        _state.ctx = prev
