"""Interval bounds of integer expressions, for proving that two cube footprints cannot overlap.

graph/linear.py's normal form cancels what two addresses share (a loop index, `i % 2` once a residue is
fixed); what is left are atoms whose range matters: a loop index (from its loop's bounds), a tile size
`b + (a - b) * (a < b)` (min(a, b): at most b), a length rounded up to 16. Bounds follow linear.py's
assumption that runtime integers that size or place memory are non-negative; a tile size written
min(rest, BASE) is taken as non-negative too (a negative one is an empty tile the simulator refuses)."""
from __future__ import annotations

import math

from .expr import Bin, Const, Expr, Un, Var
from .linear import linearize

INF = math.inf
_CMP = ("<", "<=", ">", ">=", "==", "!=", "&&", "||")


def _mul(a: tuple[float, float], b: tuple[float, float]) -> tuple[float, float]:
    def m(x: float, y: float) -> float:
        return 0.0 if x == 0 or y == 0 else x * y
    corners = [m(x, y) for x in a for y in b]
    return min(corners), max(corners)


def bounds(e: Expr, var_bounds: dict[Var, tuple[float, float]]) -> tuple[float, float]:
    """(lowest, highest) value `e` can take; +-inf where unknown."""
    if isinstance(e, Const):
        v = float(e.value)
        return v, v
    if isinstance(e, Var):
        return var_bounds.get(e, (0.0, INF))
    if isinstance(e, Un):
        lo, hi = bounds(e.a, var_bounds)
        if e.op == "neg":
            return -hi, -lo
        return (0.0, 1.0) if e.op == "not" else (-INF, INF)
    if not isinstance(e, Bin):
        return -INF, INF
    op = e.op
    if op in _CMP:
        return 0.0, 1.0
    a, b = bounds(e.a, var_bounds), bounds(e.b, var_bounds)
    if op == "+":
        for x, y in ((e.a, e.b), (e.b, e.a)):       # y + (x - y) * (x < y) is min(x, y): a tile size
            if isinstance(x, Bin) and x.op == "*" and _clamped(x) and _diff_of(x).b == y:
                lo_x, hi_x = bounds(_diff_of(x).a, var_bounds)
                lo_y, hi_y = bounds(y, var_bounds)
                return max(0.0, min(lo_x, lo_y)), min(hi_x, hi_y)
        return a[0] + b[0], a[1] + b[1]
    if op == "-":
        return a[0] - b[1], a[1] - b[0]
    if op == "*":
        lo, hi = _mul(a, b)
        if _clamped(e):
            hi = min(hi, 0.0)
        return lo, hi
    if op in ("//", "%") and isinstance(e.b, Const) and e.b.value > 0:
        c = float(e.b.value)
        if op == "%":
            return (0.0, c - 1) if a[0] >= 0 else (-(c - 1), c - 1)
        return math.floor(a[0] / c) if a[0] > -INF else -INF, math.floor(a[1] / c) if a[1] < INF else INF
    if op == "min":
        return min(a[0], b[0]), min(a[1], b[1])
    if op == "max":
        return max(a[0], b[0]), max(a[1], b[1])
    return -INF, INF


def _clamped(e: Bin) -> bool:
    """`(x - y) * (x < y)` (either order, `<=` too): zero, or negative when the comparison holds."""
    for diff, cmp in ((e.a, e.b), (e.b, e.a)):
        if (isinstance(diff, Bin) and diff.op == "-" and isinstance(cmp, Bin) and cmp.op in ("<", "<=")
                and cmp.a == diff.a and cmp.b == diff.b):
            return True
    return False


def _diff_of(e: Bin) -> Bin:
    return e.a if isinstance(e.a, Bin) and e.a.op == "-" else e.b  # type: ignore[return-value]


def lower_bound(e: Expr, var_bounds: dict[Var, tuple[float, float]]) -> float:
    """A lower bound of `e` after the linear form has cancelled what its terms share."""
    lin = linearize(e)
    if lin is None:
        return -INF
    lo = float(lin.const)
    for atom, c in lin.terms:
        a_lo, a_hi = bounds(atom, var_bounds)
        lo += c * (a_lo if c > 0 else a_hi)
        if lo == -INF or math.isnan(lo):
            return -INF
    return lo


def disjoint(a0: Expr, an: Expr, b0: Expr, bn: Expr, var_bounds: dict[Var, tuple[float, float]]) -> bool:
    """Whether [a0, a0 + an) and [b0, b0 + bn) provably do not overlap."""
    from .expr import binop
    return (lower_bound(binop("-", binop("-", b0, a0), an), var_bounds) >= 0
            or lower_bound(binop("-", binop("-", a0, b0), bn), var_bounds) >= 0)
