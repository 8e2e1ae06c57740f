"""Loops in kernels.

- `for i in range(n)` in an @asc.jit function is a *runtime* loop: the body is traced once with a
  symbolic index and becomes a `for` ... `end_for` region (a C loop), whatever `n` is.
- `asc.static_range(n)` is a Python loop, unrolled while tracing; `n` must be known then.
- `asc.range(...)` is always a runtime loop (pyasc's spelling).

Only `range` calls that head a `for` statement of a kernel are intercepted (found from the kernel's
source, and from its bytecode: the call's result goes straight into the statement's FOR_ITER);
comprehensions and helper functions keep Python's `range`, also when the source cannot be read.
"""
from __future__ import annotations

import ast
import builtins
import dis
import sys
from functools import lru_cache
from types import CodeType
from typing import Any

from ..errors import TraceError
from . import python_state
from .context import active, current
from .scalar import Scalar, to_expr
from .source_loc import user_loc

_py_range = builtins.range


class SymbolicRange:
    """The iterable of a runtime loop: yields the symbolic index once, then closes the region."""

    __slots__ = ("ctx", "args", "loc", "state", "region", "before", "held", "__weakref__")

    def __init__(self, ctx: Any, args: tuple, loc) -> None:
        self.ctx = ctx
        self.args = args
        self.loc = loc
        self.state = 0   # 0 new, 1 open (body being traced), 2 closed

    def __iter__(self) -> "SymbolicRange":
        if self.state != 0:
            raise TraceError("a runtime range can be iterated only once", self.loc)
        self.region = self.ctx.open_loop(*self.args, self.loc)
        self.state = 1
        frame = sys._getframe(1)
        self.before = python_state.snapshot(frame)
        self.held = python_state.contents(frame)
        return self

    def __next__(self) -> Scalar:
        if self.state == 1 and not self.region.yielded:
            self.region.yielded = True
            return Scalar(self.region.var)
        if self.state == 1:
            self.state = 2
            self.ctx.close_loop(self.region)
            python_state.check_loop(sys._getframe(1), self.before, self.loc)
            python_state.check_mutation(self.held, self.loc, "for")
        raise StopIteration

    def __del__(self) -> None:
        # CPython drops the iterator the moment a `break` or `return` leaves the loop; the body
        # would then be silently cut short, so the tracer reports it at its next step.
        if self.state == 1:
            try:
                self.ctx.abandon_loop(self.region)
            except Exception:  # noqa: BLE001 - never raise from __del__
                pass


def _range_args(args: tuple, loc) -> tuple[Any, Any, Any]:
    if not 1 <= len(args) <= 3:
        raise TraceError(f"range expected 1 to 3 arguments, got {len(args)}", loc)
    start, stop, step = (0, args[0], 1) if len(args) == 1 else (args[0], args[1], args[2] if len(args) == 3 else 1)
    for a in (start, stop, step):
        e = to_expr(a, "a range bound")
        if e.type != "int":
            raise TraceError(f"range bounds must be integers, got `{e}`", loc)
    if isinstance(step, int) and step == 0:
        raise TraceError("range() step must not be zero", loc)
    return start, stop, step


def runtime_range(*args: Any) -> Any:
    """`asc.range(...)`: a runtime loop (traced once; a real Python loop on the eager backend)."""
    loc = user_loc()
    ctx = current("asc.range")
    return ctx.loop_range(*_range_args(args, loc), loc)


def static_range(*args: Any) -> _py_range:
    """`asc.static_range(...)`: a Python loop unrolled while tracing; the bounds must be known then.

    Raises:
        TraceError: a bound is a runtime value.
    """
    for a in args:
        if isinstance(a, Scalar):
            raise TraceError(f"asc.static_range needs bounds known while tracing, but `{a.expr}` is a runtime value",
                             user_loc(), hint="use `range(...)` for a runtime loop, or make the bound an "
                                              "asc.ConstExpr parameter")
    try:
        return _py_range(*args)
    except (TypeError, ValueError, OverflowError) as e:     # a float, a str, a step of 0, a bound past C's
        raise TraceError(f"asc.static_range{args!r}: {e}", user_loc(),
                         hint="static_range takes 1 to 3 int bounds known while tracing, as Python's range") from None


def intercepting_range(*args: Any) -> Any:
    """Stands in for `range` in kernel modules while a trace (or an eager run) runs (see module docstring)."""
    ctx = active()
    if ctx is not None:
        f = sys._getframe(1)
        if f.f_code in ctx.kernel_codes and f.f_lineno in for_range_lines(f.f_code) \
                and heads_for_statement(f.f_code, f.f_lasti):
            loc = user_loc()
            return ctx.loop_range(*_range_args(args, loc), loc)
    return _py_range(*args)


@lru_cache(maxsize=4096)
def heads_for_statement(code: CodeType, lasti: int) -> bool:
    """Whether the call at byte offset `lasti` of `code` is the iterable of a `for` statement of that
    code: its result goes straight to GET_ITER then FOR_ITER. A comprehension or generator expression
    passes it on instead (to its own code object, or, inlined since 3.12, through other instructions
    first), so `sum(1.0 for _ in range(4))` stays Python's range even where the source cannot be read
    and every line would be a `for` header."""
    ops = [i for i in dis.get_instructions(code) if i.opname not in ("CACHE", "EXTENDED_ARG", "NOP")]
    # f_lasti may point into the call's inline cache entries (CPython 3.11): the call is the last
    # instruction that starts at or before it
    at = next((k for k in reversed(range(len(ops))) if ops[k].offset <= lasti), None)
    if at is None or not ops[at].opname.startswith("CALL"):
        return True         # not found (another interpreter's offsets): the source lines decide alone
    nxt = [i.opname for i in ops[at + 1:at + 3]]
    return nxt == ["GET_ITER", "FOR_ITER"]


@lru_cache(maxsize=1024)
def for_range_lines(code: CodeType) -> frozenset[int]:
    """Lines of `for ... in range(...)` headers in a function's source (all its lines when the
    source is not available, e.g. for functions made by exec)."""
    tree = python_state.function_ast(code)
    first = code.co_firstlineno
    if tree is None:
        return frozenset(_py_range(first, first + 10_000))
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.For, ast.AsyncFor)) and isinstance(node.iter, ast.Call):
            func = node.iter.func
            if isinstance(func, ast.Name) and func.id == "range":
                end = node.iter.end_lineno or node.iter.lineno
                out.update(_py_range(node.iter.lineno + first - 1, end + first))
    return frozenset(out)
