"""Runtime control flow, traced once (JAX style).

- `asc.cond(pred, true_fn, false_fn, *operands)`: both branches are traced (true, then false), each
  called with `*operands`; at run time only the branch `pred` selects runs. A branch returns None, a
  scalar or a tuple of scalars, the same structure and kinds (int / float) in both; the call returns
  "local" Vars that the taken branch's `yield` assigns (a C `if` / `else` assigning locals).
- `asc.while_loop(cond_fn, body_fn, init)`: `init` is a scalar or a tuple of scalars, the values the
  loop carries; `cond_fn(*carried)` is a scalar expression of them (re-evaluated before every
  iteration, so it may not call kernel API functions), `body_fn(*carried)` returns their next values
  (same structure and kinds). Returns the carried values after the last iteration (a C `while`).

A predicate known while tracing (a Python bool or int) calls its branch directly; a condition known
to be false runs no iteration. The graph form is described in graph/kernel_graph.py.
"""
from __future__ import annotations

import linecache
import sys
from typing import Any, Callable

import numpy as np

from ..errors import ScalarError, TraceError
from ..graph.expr import Const, Expr, Var, compile_expr, const
from ..graph.node import Node
from ..graph.scalar_ops import ScalarFault
from ..graph.source_loc import SourceLoc
from . import python_state
from .context import OpenRegion, current
from .scalar import Scalar, is_scalar_like, to_expr
from .source_loc import loc_of_def, user_loc


def cond(pred: Any, true_fn: Callable[..., Any], false_fn: Callable[..., Any], *operands: Any) -> Any:
    """Run `true_fn(*operands)` if `pred` is true at run time, else `false_fn(*operands)`.

    Both branches are traced once. Each returns None, a scalar or a tuple of scalars, with the same
    structure and kinds (int / float) in both; `cond` returns the taken branch's values. Branches may
    call any kernel API function, loop, and nest further `cond` / `while_loop` calls.

    Raises:
        TraceError: a branch returns something other than scalars, or the branches disagree.
    """
    loc = user_loc()
    ctx = current("asc.cond")
    for fn, name in ((true_fn, "true_fn"), (false_fn, "false_fn")):
        if not callable(fn):
            raise TraceError(f"asc.cond: {name} must be a function, got {type(fn).__name__}", loc,
                             hint="asc.cond(pred, lambda: ..., lambda: ...) or asc.cond(pred, then_fn, else_fn)")
    return _guarded(ctx, sys._getframe(1), loc, "asc.cond",
                    lambda: ctx.cond(pred, true_fn, false_fn, operands, loc))


def while_loop(cond_fn: Callable[..., Any], body_fn: Callable[..., Any], init: Any) -> Any:
    """Carry `init` through `body_fn` while `cond_fn` holds; returns the final carried values.

    `init` is a scalar or a tuple of scalars; `cond_fn(*carried)` returns a scalar predicate of the
    carried values (and of values known before the loop); `body_fn(*carried)` runs the iteration and
    returns the next carried values, same structure and kinds (int / float) as `init`.

    Raises:
        TraceError: `cond_fn` does not return a scalar or calls a kernel API function, `body_fn`
            returns another structure or kinds, or the condition is always true.
    """
    loc = user_loc()
    ctx = current("asc.while_loop")
    for fn, name in ((cond_fn, "cond_fn"), (body_fn, "body_fn")):
        if not callable(fn):
            raise TraceError(f"asc.while_loop: {name} must be a function, got {type(fn).__name__}", loc,
                             hint="asc.while_loop(lambda x: x > 1, lambda x: x // 2, n)")
    return _guarded(ctx, sys._getframe(1), loc, "asc.while_loop",
                    lambda: ctx.while_loop(cond_fn, body_fn, init, loc))


def _guarded(ctx: Any, frame: Any, loc: SourceLoc, region: str, trace: Callable[[], Any]) -> Any:
    """Trace a region, refusing what it did to the caller's Python state (proxies/python_state.py);
    eager runs the Python for real after its own trace has been checked."""
    if getattr(ctx, "eager", False):
        return trace()
    before, held = python_state.snapshot(frame), python_state.contents(frame)
    out = trace()
    python_state.check_branches(frame, before, loc, held, region=region)
    return out


# -- the values crossing a region's boundary ------------------------------------------------------

class Flat:
    """Scalars in a structure: None, one scalar, or a tuple of them."""

    __slots__ = ("shape", "exprs")

    def __init__(self, shape: str, exprs: list[Expr]) -> None:
        self.shape = shape          # "none", "scalar" or "tuple"
        self.exprs = exprs

    def describe(self) -> str:
        if self.shape == "none":
            return "nothing"
        if self.shape == "scalar":
            return f"one {kind_of(self.exprs[0])}"
        return f"a tuple of {len(self.exprs)} ({', '.join(kind_of(e) for e in self.exprs)})"

    def same(self, other: "Flat") -> bool:
        return self.shape == other.shape and [kind_of(e) for e in self.exprs] == [kind_of(e) for e in other.exprs]


def kind_of(e: Expr) -> str:
    """The C kind a value is held in: a float, or an int (bool included)."""
    return "float" if e.type == "float" else "int"


def flatten(value: Any, what: str, loc: SourceLoc | None) -> Flat:
    if value is None:
        return Flat("none", [])
    if isinstance(value, (tuple, list)):
        return Flat("tuple", [_scalar(v, f"element {i} of {what}", loc) for i, v in enumerate(value)])
    return Flat("scalar", [_scalar(value, what, loc)])


def _scalar(v: Any, what: str, loc: SourceLoc | None) -> Expr:
    if isinstance(v, Scalar):
        return v.expr
    if is_scalar_like(v):
        return to_expr(v, what)
    raise TraceError(f"{what} is a {type(v).__name__}, but only scalars (runtime ints and floats) cross the "
                     "boundary of asc.cond and asc.while_loop", loc,
                     hint="tensors stay where they are: write them inside the branch or the body, and return "
                          "or carry only scalars")


def rebuild(flat: Flat, values: list[Any]) -> Any:
    if flat.shape == "none":
        return None
    if flat.shape == "scalar":
        return values[0]
    return tuple(values)


def fn_loc(fn: Any, fallback: SourceLoc) -> SourceLoc:
    """Where a branch or body function is written: its `def` line, or the lambda's expression."""
    while hasattr(fn, "func") and not hasattr(fn, "__code__"):       # functools.partial
        fn = fn.func
    code = getattr(fn, "__code__", None)
    if code is None:
        return fallback
    if code.co_name != "<lambda>":
        return loc_of_def(fn) or fallback
    line = code.co_firstlineno
    spans = [(c, e) for (ln, _end, c, e) in code.co_positions() if ln == line and c is not None and e and e > c]
    col, end = (min(c for c, _ in spans), max(e for _, e in spans)) if spans else (-1, -1)
    text = linecache.getline(code.co_filename, line).rstrip("\n")
    return SourceLoc(code.co_filename, line, code.co_name, text, col, end)


# -- tracing --------------------------------------------------------------------------------------

def trace_cond(ctx: Any, pred: Any, true_fn: Callable[..., Any], false_fn: Callable[..., Any], operands: tuple,
               loc: SourceLoc) -> Any:
    ctx.check_pending()
    p = to_expr(pred, "the predicate of asc.cond")
    if isinstance(p, Const):                 # known while tracing: only that branch exists
        return (true_fn if p.value else false_fn)(*operands)
    g = ctx.graph
    scope = ctx._scope()
    if_id = g.add("if", (p, ()), loc, scope)
    flats, locs = [], []
    for fn, name, head in ((true_fn, "true_fn", if_id), (false_fn, "false_fn", None)):
        if head is None:
            head = g.add("else", (if_id,), loc, scope)
        floc = fn_loc(fn, loc)
        _enter(ctx, fn)
        region = OpenRegion(head, None, loc)
        ctx.loops.append(region)
        out = fn(*operands)
        _close(ctx, region, "a branch of asc.cond", loc)
        flat = flatten(out, f"the value {name} returns", floc)
        g.add("yield", tuple(flat.exprs), floc, ctx._scope())
        ctx.loops.pop()
        flats.append(flat)
        locs.append(floc)
    g.add("end_if", (if_id,), loc, scope)
    then, other = flats
    if not then.same(other):
        raise TraceError(f"the branches of asc.cond return different things: true_fn returns {then.describe()}, "
                         f"false_fn returns {other.describe()}", loc,
                         related=[("true_fn", locs[0]), ("false_fn", locs[1])],
                         hint="both branches must return the same structure of scalars with the same kinds: "
                              "write float constants as 0.0, and return a value from both")
    outs = tuple(ctx.new_local(kind_of(e)) for e in then.exprs)
    g.replace(Node(if_id, "if", (p, outs), loc, scope))
    return rebuild(then, [Scalar(v) for v in outs])


def trace_while(ctx: Any, cond_fn: Callable[..., Any], body_fn: Callable[..., Any], init: Any,
                loc: SourceLoc) -> Any:
    ctx.check_pending()
    start = flatten(init, "init", loc)
    if not start.exprs:
        raise TraceError("asc.while_loop needs at least one carried value in init", loc,
                         hint="carry what the condition tests: asc.while_loop(lambda n: n > 1, lambda n: n // 2, n)")
    g = ctx.graph
    scope = ctx._scope()
    carried = tuple(ctx.new_local(kind_of(e)) for e in start.exprs)
    _enter(ctx, cond_fn)
    _enter(ctx, body_fn)
    args = [Scalar(v) for v in carried]
    before = len(g.order)
    c = cond_fn(*args)
    ctx.check_pending()
    if len(g.order) != before:
        first = g.node(g.order[before])
        what = {"if": "asc.cond", "while": "asc.while_loop", "for": "a runtime loop"}.get(first.op, first.op)
        raise TraceError(f"cond_fn of asc.while_loop calls a kernel API function ({what}), but the condition "
                         "is evaluated again before every iteration and can only compute with scalars", first.loc,
                         related=[("the while_loop", loc)],
                         hint="compute that value in body_fn (and once before the loop for init) and carry it")
    cloc = fn_loc(cond_fn, loc)
    if not (isinstance(c, Scalar) or is_scalar_like(c)):
        raise TraceError(f"cond_fn of asc.while_loop must return one scalar predicate, got {type(c).__name__}",
                         cloc, related=[("the while_loop", loc)],
                         hint="return a comparison of the carried values, e.g. lambda i, x: i < n")
    ce = to_expr(c, "the condition of asc.while_loop")
    if isinstance(ce, Const):
        if ce.value:
            raise TraceError("the condition of asc.while_loop is always true, so the loop never ends", cloc,
                             related=[("the while_loop", loc)],
                             hint="test the carried values in cond_fn, e.g. lambda i: i < n")
        return rebuild(start, [_plain(e) for e in start.exprs])    # no iteration
    wid = g.add("while", (carried, tuple(start.exprs), ce), loc, scope)
    region = OpenRegion(wid, None, loc)
    ctx.loops.append(region)
    new = body_fn(*args)
    _close(ctx, region, "the body of asc.while_loop", loc)
    bloc = fn_loc(body_fn, loc)
    nxt = flatten(new, "the value body_fn returns", bloc)
    if not start.same(nxt):
        raise TraceError(f"body_fn of asc.while_loop returns {nxt.describe()}, but the loop carries "
                         f"{start.describe()} (init)", bloc, related=[("the while_loop", loc)],
                         hint="return the next value of every carried value, with the same kinds as init "
                              "(write float constants as 0.0)")
    g.add("yield", tuple(nxt.exprs), bloc, ctx._scope())
    ctx.loops.pop()
    g.add("end_while", (wid,), loc, scope)
    return rebuild(start, args)


def _enter(ctx: Any, fn: Any) -> None:
    """A branch or body is kernel code: its `for ... in range(...)` loops are runtime loops."""
    if hasattr(fn, "__code__") and hasattr(fn, "__globals__"):
        ctx.enter_function(fn)


def _close(ctx: Any, region: Any, what: str, loc: SourceLoc) -> None:
    ctx.check_pending()
    if not ctx.loops or ctx.loops[-1] is not region:
        raise TraceError(f"a runtime loop opened in {what} was left open", loc)


def _plain(e: Expr) -> Any:
    return e.value if isinstance(e, Const) else Scalar(e)


# -- eager: run the chosen branch, a real Python loop ----------------------------------------------

def eager_cond(ctx: Any, pred: Any, true_fn: Callable[..., Any], false_fn: Callable[..., Any], operands: tuple,
               loc: SourceLoc) -> Any:
    taken = _truth(ctx, to_expr(pred, "the predicate of asc.cond"), loc)
    fn = true_fn if taken else false_fn
    _enter(ctx, fn)
    return _snapshot(ctx, fn(*operands), loc)


def eager_while(ctx: Any, cond_fn: Callable[..., Any], body_fn: Callable[..., Any], init: Any,
                loc: SourceLoc) -> Any:
    _enter(ctx, cond_fn)
    _enter(ctx, body_fn)
    start = flatten(init, "init", loc)
    # Inside the loop the carried values are Vars named by nesting depth (as eager's loop indices), so
    # that every iteration builds the same expressions and their compiled code is reused.
    env = ctx.m.env
    carried = [Var("local", 1000 + 64 * ctx._depth + i, f"l{i}", kind_of(e)) for i, e in enumerate(start.exprs)]
    values = [_value(ctx, e, loc) for e in start.exprs]
    args = [Scalar(v) for v in carried]
    ctx._depth += 1
    try:
        while True:
            for v, x in zip(carried, values):
                env[v.env_key] = x
            if not _truth(ctx, to_expr(cond_fn(*args), "the condition of asc.while_loop"), loc):
                break
            values = [_value(ctx, e, loc) for e in flatten(body_fn(*args), "the value body_fn returns", loc).exprs]
    finally:
        ctx._depth -= 1
    return rebuild(start, [Scalar(const(x)) for x in values])


def _value(ctx: Any, e: Expr, loc: SourceLoc) -> Any:
    try:
        v = compile_expr(e)(ctx.m.env)
    except ScalarFault as exc:
        raise ScalarError(str(exc), loc) from None
    return v.item() if isinstance(v, np.generic) else v


def _truth(ctx: Any, e: Expr, loc: SourceLoc) -> bool:
    return bool(_value(ctx, e, loc))


def _snapshot(ctx: Any, value: Any, loc: SourceLoc) -> Any:
    """The values of the scalars crossing the boundary now, as constants: a later change of what
    they were computed from (a loop index, a carried value) must not change them."""
    if value is None:
        return None
    if isinstance(value, (tuple, list)):
        return tuple(_snapshot(ctx, v, loc) for v in value)
    if isinstance(value, Scalar):
        return Scalar(const(_value(ctx, value.expr, loc)))
    return value

