"""A Python `if` on a runtime value: the region of asc.cond, with the names its sides bind merged.

proxies/runtime_if_rewrite.py turns the kernel's `if` statements into calls of `branch` when the test
is a runtime scalar. Each side is a function of the names either side binds (their values before the
`if`, or UNBOUND) returning their values after it. Both sides are traced into an `if` / `else` region,
as asc.cond's are (the scheduler, the proof and the emitters see the same nodes), and after it each
name is, as in pyasc (a `scf.if` yields the values both sides define):
- a scalar (runtime or Python int / float) on both sides: the value of the side taken (a `yield` of
  each side, like asc.cond's return values), same kind (int / float) on both sides or a TraceError;
- the same object on both sides (a tensor, a list the sides only read or write into): that object;
- bound on one side only, a name new in the `if`: unusable after it (`Unmerged`, whose every use is a
  TraceError naming it); inside its side it is an ordinary local;
- any other object rebound (a tensor name pointing to another tensor on one side): a TraceError
  naming the variable, because the traced kernel has one tensor per name.
The eager backend runs the chosen side only, with the values it computed.
"""
from __future__ import annotations

import sys
from typing import Any, Callable

from ..errors import TraceError
from ..graph.expr import Const, free_vars
from ..graph.node import Node
from ..graph.source_loc import SourceLoc
from . import runtime_if_rewrite
from .context import OpenRegion, current
from .control import _close, _enter, _guarded, _snapshot, _truth, kind_of
from .scalar import Scalar, is_scalar_like, to_expr
from .source_loc import user_loc


def kernel_callable(fn: Callable[..., Any]) -> Callable[..., Any]:
    """What runs for the kernel or @asc.jit helper `fn`: `fn` with its `if`s rewritten to call this
    module when their test is a runtime value (proxies/runtime_if_rewrite.py)."""
    return runtime_if_rewrite.kernel_callable(fn, sys.modules[__name__])


class _Unbound:
    """A name not bound before the `if` (the rewritten code passes this instead)."""

    def __repr__(self) -> str:
        return "UNBOUND"


UNBOUND = _Unbound()


def is_runtime(test: Any) -> bool:
    """Whether the `if` must be traced as a runtime branch (else Python's `if` runs as written)."""
    return isinstance(test, Scalar)


def _truth_of(v: Scalar) -> Scalar:
    return v != 0


def or_(*thunks: Callable[[], Any]) -> Any:
    """`a or b or ...` in an `if` test: Python's on Python values; once a runtime value is met, the
    truth of the rest is `|`-ed (no short circuit: the C code evaluates both sides)."""
    v = thunks[0]()
    for t in thunks[1:]:
        if not isinstance(v, Scalar):
            if v:
                return v
            v = t()
            continue
        w = t()
        if not isinstance(w, Scalar):
            if w:
                return True
            v = _truth_of(v)
            continue
        v = _truth_of(v) | _truth_of(w)
    return v


def and_(*thunks: Callable[[], Any]) -> Any:
    """`a and b and ...` in an `if` test, as `or_` with `&`."""
    v = thunks[0]()
    for t in thunks[1:]:
        if not isinstance(v, Scalar):
            if not v:
                return v
            v = t()
            continue
        w = t()
        if not isinstance(w, Scalar):
            if not w:
                return False
            v = _truth_of(v)
            continue
        v = _truth_of(v) & _truth_of(w)
    return v


def not_(v: Any) -> Any:
    """`not a` in an `if` test: `a == 0` on a runtime value."""
    return v == 0 if isinstance(v, Scalar) else not v


class Unmerged:
    """A name bound on one side of a runtime `if` only (or to objects that cannot merge): using it
    after the `if` is a TraceError naming it."""

    def __init__(self, name: str, loc: SourceLoc, why: str) -> None:
        object.__setattr__(self, "_asc_info", (name, loc, why))

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        name, loc, why = object.__getattribute__(self, "_asc_info")
        raise TraceError(f"`{name}` has no value after the runtime `if` at line {loc.line}: {why}", user_loc(),
                         related=[("the `if`", loc)],
                         hint=f"bind `{name}` on both sides of the `if` (scalars: the same kind, int or float), "
                              "or use it only inside its side")

    def __getattr__(self, item: str) -> Any:
        return self._refuse()

    __bool__ = __index__ = __int__ = __float__ = __iter__ = __len__ = __call__ = __getitem__ = _refuse
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = _refuse
    __floordiv__ = __rfloordiv__ = __mod__ = __rmod__ = __lt__ = __le__ = __gt__ = __ge__ = _refuse
    __and__ = __rand__ = __or__ = __ror__ = __neg__ = __setattr__ = _refuse

    def __repr__(self) -> str:
        return f"<{object.__getattribute__(self, '_asc_info')[0]}: no value after a runtime if>"


def branch(test: Any, then_fn: Callable[..., tuple], else_fn: Callable[..., tuple], names: tuple[str, ...],
           ins: tuple) -> tuple:
    """The runtime `if` (called by the rewritten kernel): the values of `names` after it."""
    loc = user_loc()
    ctx = current("a runtime `if`")
    frame = sys._getframe(1)
    if getattr(ctx, "eager", False):
        return _eager(ctx, test, then_fn, else_fn, names, ins, loc)
    return _guarded(ctx, frame, loc, "a runtime `if`", lambda: _trace(ctx, test, then_fn, else_fn, names, ins, loc))


def _eager(ctx: Any, test: Any, then_fn: Callable[..., tuple], else_fn: Callable[..., tuple],
           names: tuple[str, ...], ins: tuple, loc: SourceLoc) -> tuple:
    fn = then_fn if _truth(ctx, to_expr(test, "the condition of the `if`"), loc) else else_fn
    _enter(ctx, fn)
    outs = _inner_indices(ctx, fn(*ins), names, loc)
    return tuple(Unmerged(n, loc, "it is bound on one side only") if v is UNBOUND else
                 v if isinstance(v, Unmerged) else _snapshot(ctx, v, loc) for n, v in zip(names, outs))


def _inner_indices(ctx: Any, outs: tuple, names: tuple[str, ...], loc: SourceLoc) -> tuple:
    """The side's values with each one computed from the index of a runtime loop that ran inside the
    side (`for i in range(n)` in a side binds `i`) made Unmerged: the index has no value after its
    loop, so, like a name of one side only, it is refused where it is used, not at the `if`."""
    if getattr(ctx, "eager", False):       # eager runs loops as Python loops (runtime/eager_context.py)
        open_ = ctx.open_loop_vars()
    else:
        open_ = {r.var for r in ctx.regions if r.var is not None}
    out = []
    for n, v in zip(names, outs):
        if isinstance(v, Scalar) and any(x.kind == "loop" and x not in open_ for x in free_vars(v.expr)):
            v = Unmerged(n, loc, "it holds the index of a runtime loop inside a side, which has no value after "
                                 "that loop")
        out.append(v)
    return tuple(out)


def _trace(ctx: Any, test: Any, then_fn: Callable[..., tuple], else_fn: Callable[..., tuple],
           names: tuple[str, ...], ins: tuple, loc: SourceLoc) -> tuple:
    ctx.check_pending()
    p = to_expr(test, "the condition of the `if`")
    if isinstance(p, Const):                # known while tracing after all: only that side exists
        outs = (then_fn if p.value else else_fn)(*ins)
        return tuple(Unmerged(n, loc, "it is bound on one side only") if v is UNBOUND else v
                     for n, v in zip(names, outs))
    g = ctx.graph
    scope = ctx._scope()
    if_id = g.add("if", (p, ()), loc, scope)
    sides: list[tuple] = []
    yields: list[tuple[int, tuple[int, ...]]] = []
    for fn, head in ((then_fn, if_id), (else_fn, None)):
        if head is None:
            head = g.add("else", (if_id,), loc, scope)
        _enter(ctx, fn)
        region = OpenRegion(head, None, loc)
        ctx.regions.append(region)
        sides.append(_inner_indices(ctx, tuple(fn(*ins)), names, loc))
        _close(ctx, region, "a side of the runtime `if`", loc)
        yscope = ctx._scope()
        yields.append((g.add("yield", (), loc, yscope), yscope))   # its values are known after both sides
        ctx.regions.pop()
    g.add("end_if", (if_id,), loc, scope)
    out: list[Any] = []
    merged: list[tuple[int, Any, Any]] = []     # (position in out, then value, else value)
    for k, name in enumerate(names):
        before, a, b = ins[k], sides[0][k], sides[1][k]
        if isinstance(a, Unmerged) or isinstance(b, Unmerged):
            out.append(a if isinstance(a, Unmerged) else b)
        elif a is UNBOUND or b is UNBOUND:
            out.append(Unmerged(name, loc, "it is bound on one side only"))
        elif is_scalar_like(a) and is_scalar_like(b):
            ea, eb = to_expr(a, name), to_expr(b, name)
            if kind_of(ea) != kind_of(eb):
                raise TraceError(f"`{name}` is {_a(kind_of(ea))} after the `if` side and {_a(kind_of(eb))} after "
                                 "the `else` side of a runtime `if`; a runtime value has one kind", loc,
                                 hint=f"give `{name}` the same kind on both sides (write float constants as 0.0)")
            out.append(None)
            merged.append((k, ea, eb))
        elif a is before and b is before:
            out.append(before)
        else:
            changed = [s for s, v in (("`if`", a), ("`else`", b)) if v is not before]
            kinds = sorted({type(v).__name__ for v in (a, b) if v is not before})
            raise TraceError(f"`{name}` is rebound to a {', '.join(kinds)} on the {' and '.join(changed)} side of a "
                             "runtime `if`; only scalars (runtime or Python ints and floats) merge after one", loc,
                             hint=f"keep `{name}` the same object on both sides (write into the tensor instead of "
                                  "rebinding the name), or choose with an asc.ConstExpr / Python value, "
                                  "which keeps Python's `if`")
    for (yid, yscope), exprs in zip(yields, ([e for _k, e, _ in merged], [e for _k, _, e in merged])):
        g.replace(Node(yid, "yield", tuple(exprs), loc, yscope))
    locals_ = tuple(ctx.new_local(kind_of(ea)) for _k, ea, _ in merged)
    g.replace(Node(if_id, "if", (p, locals_), loc, scope))
    for (k, _ea, _eb), v in zip(merged, locals_):
        out[k] = Scalar(v)
    return tuple(out)


def _a(kind: str) -> str:
    return "an int" if kind == "int" else "a float"
