"""Symbolic scalars: what a kernel sees for a runtime `int`/`float` argument, `get_block_idx()`,
a loop index, or a value read at run time. Python arithmetic on them builds expressions; asking
Python for a truth value or a plain int (if / while / range-length) is a TraceError, whose hint for
a truth value shows the asc.cond / asc.while_loop form of the line (proxies/control_hint.py)."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import TraceError
from ..graph.expr import Const, Expr, binop, const, unop
from ..graph.scalar_ops import fits_int64
from .context import active
from .source_loc import user_loc

_BOOL_HINT = ("the value is only known when the kernel runs; branch on an asc.ConstExpr parameter or "
              "a Python constant instead, or iterate with asc.static_range")


_INT_ONLY = {"&", "|", "^", "<<", ">>"}


class Scalar:
    """A runtime scalar inside a traced kernel."""

    __slots__ = ("expr",)
    __array_priority__ = 1000  # make NumPy scalars defer to our operators

    def __init__(self, expr: Expr) -> None:
        self.expr = expr

    @property
    def type(self) -> str:
        return self.expr.type

    def _bin(self, op: str, other: Any, reverse: bool = False) -> Any:
        o = to_expr(other, f"the right operand of `{op}`")
        if op in _INT_ONLY and "float" in (o.type, self.expr.type):
            raise TraceError(f"`{op}` takes integers, but `{self.expr}` {op} `{o}` has a float operand", user_loc())
        return wrap(binop(op, o, self.expr) if reverse else binop(op, self.expr, o))

    def __add__(self, o): return self._bin("+", o)
    def __radd__(self, o): return self._bin("+", o, True)
    def __sub__(self, o): return self._bin("-", o)
    def __rsub__(self, o): return self._bin("-", o, True)
    def __mul__(self, o): return self._bin("*", o)
    def __rmul__(self, o): return self._bin("*", o, True)
    def __floordiv__(self, o): return self._bin("//", o)
    def __rfloordiv__(self, o): return self._bin("//", o, True)
    def __truediv__(self, o): return self._bin("/", o)
    def __rtruediv__(self, o): return self._bin("/", o, True)
    def __mod__(self, o): return self._bin("%", o)
    def __rmod__(self, o): return self._bin("%", o, True)
    def __and__(self, o): return self._bin("&", o)
    def __rand__(self, o): return self._bin("&", o, True)
    def __or__(self, o): return self._bin("|", o)
    def __ror__(self, o): return self._bin("|", o, True)
    def __xor__(self, o): return self._bin("^", o)
    def __rxor__(self, o): return self._bin("^", o, True)
    def __lshift__(self, o): return self._bin("<<", o)
    def __rlshift__(self, o): return self._bin("<<", o, True)
    def __rshift__(self, o): return self._bin(">>", o)
    def __rrshift__(self, o): return self._bin(">>", o, True)
    def __lt__(self, o): return self._bin("<", o)
    def __le__(self, o): return self._bin("<=", o)
    def __gt__(self, o): return self._bin(">", o)
    def __ge__(self, o): return self._bin(">=", o)
    def __eq__(self, o): return self._bin("==", o)  # type: ignore[override]
    def __ne__(self, o): return self._bin("!=", o)  # type: ignore[override]
    def __neg__(self): return wrap(unop("neg", self.expr))
    def __pos__(self): return self
    def __abs__(self): return wrap(unop("abs", self.expr))
    def ceildiv(self, o): return (self + o - 1) // o      # pyasc's runtime ints have .ceildiv (positive operands)

    __hash__ = None  # type: ignore[assignment]

    def __bool__(self) -> bool:
        from .control_hint import bool_hint
        loc = user_loc()
        raise TraceError(f"Python needs a True/False here, but `{self.expr}` is a runtime value", loc,
                         hint=bool_hint(loc))

    def __index__(self) -> int:
        raise TraceError(f"Python needs a plain int here, but `{self.expr}` is a runtime value", user_loc(),
                         hint="use it in kernel API calls, or make it an asc.ConstExpr parameter; a runtime "
                              "loop is written `for i in range(n)` directly in an @asc.jit function (or a "
                              "branch / body function of asc.cond / asc.while_loop), and `for i in "
                              "asc.range(n)` anywhere else, e.g. in a plain helper function")

    __int__ = __index__

    def __float__(self) -> float:
        raise TraceError(f"Python needs a plain float here, but `{self.expr}` is a runtime value", user_loc(),
                         hint=_BOOL_HINT)

    def __iter__(self):
        raise TraceError(f"cannot iterate over the runtime value `{self.expr}`", user_loc())

    def __repr__(self) -> str:
        ctx = active()
        if ctx is not None and ctx.eager:       # the eager backend knows the value: show it
            return repr(ctx.value(self.expr))
        return f"Scalar({self.expr})"

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        ctx = active()
        if ctx is not None and ctx.eager:
            return format(ctx.value(self.expr), spec)
        return repr(self)             # while tracing there is no number to format


def wrap(e: Expr) -> Any:
    """Constant expressions become plain Python numbers again, so trace-time code stays ordinary."""
    if isinstance(e, Const):
        return e.value
    return Scalar(e)


def to_expr(v: Any, what: str = "a scalar") -> Expr:
    if isinstance(v, Scalar):
        return v.expr
    if isinstance(v, Expr):
        return v
    if isinstance(v, (bool, int, float, np.integer, np.floating, np.bool_)):
        if isinstance(v, int) and not fits_int64(v):
            raise TraceError(f"{what} is {v}, which does not fit the kernel's 64-bit integers", user_loc())
        return const(v)
    if hasattr(v, "item") and getattr(v, "ndim", None) == 0:   # 0-d arrays / tensors
        return const(v.item())
    raise TraceError(f"{what} must be a number or a runtime scalar, got {type(v).__name__}", user_loc())


def is_scalar_like(v: Any) -> bool:
    return isinstance(v, (Scalar, bool, int, float, np.integer, np.floating, np.bool_))
